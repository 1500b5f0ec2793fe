/**
 * The viewer's runs page tells evaluations from runs of single stages (`llmkb ask`, `judge`, ...):
 * a stage run is listed apart with the stages it holds and no metric columns, and its page says
 * it has no metrics, while an evaluation still running (recorded by the runner) stays an
 * evaluation.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { startViewServer, type ViewServer } from '../src/view/view-server.js';
import { writeFixtureStore } from './support/view-fixture.js';
import { tempDir } from './support/temp-dir.js';

describe('stage runs on the runs page', () => {
  let view: ViewServer;
  let askRunId = '';

  before(async () => {
    const dir = tempDir('llmkb-stage-runs-');
    const store = join(dir, 'store.sqlite');
    await writeFixtureStore(store, { runs: [{ label: 'evaluated', setting: 'zero-shot', seed: 1, correctShare: 0.5 }], items: 20 });
    const db = openDatabase(store);
    const runs = new RunStore(db);
    // As `llmkb ask` opens its run: its method and step recorded, one stage.
    const ask = runs.open({
      model: 'fixture:asked',
      dataset: 'sha256:asked',
      setting: 'zero-shot',
      seed: 42,
      label: 'asked-only',
      method: 'reliability',
      step: 'ask',
      params: { maxTokens: 100, shots: 'none', reduceShots: false },
    });
    ask.startStage('ask');
    ask.saveRecords('ask', [
      {
        itemId: 'seen-0',
        seq: 0,
        record: { id: 'seen-0', dataset: 'seen', source: 'nq', question: 'Who?', answers: ['A'], response: 'B', setting: 'zero-shot', shots: [] },
      },
    ]);
    ask.finishStage('ask', { items: 1 });
    askRunId = ask.id;
    // As `llmkb eval` opens its run (the method recorded), stopped after its first stage.
    const running = runs.open({
      model: 'fixture:running',
      dataset: 'sha256:running',
      setting: 'zero-shot',
      seed: 42,
      label: 'eval-in-progress',
      method: 'reliability',
      params: { kind: 'eval' },
    });
    running.startStage('ask');
    running.finishStage('ask', { items: 0 });
    db.close();
    view = await startViewServer({ store, port: 0, pageSize: 25 });
  });
  after(() => view?.close());

  it('lists a stage run apart, with its stages and no metric columns', async () => {
    const html = await (await fetch(`${view.url}/`)).text();
    const [evaluations, stageRuns] = html.split('<h3>Runs of single stages</h3>');
    assert.ok(stageRuns, 'a section of stage runs');
    assert.match(stageRuns!, /asked-only/);
    assert.match(stageRuns!, /stages: ask/);
    assert.doesNotMatch(stageRuns!.slice(0, stageRuns!.indexOf('</table>')), /NCCR|class="num"/, 'no metric columns');
    assert.doesNotMatch(evaluations!, /asked-only/);
    assert.match(evaluations!, /evaluated/);
    assert.match(evaluations!, /eval-in-progress/, 'an evaluation still running is an evaluation');
  });

  it("a stage run's page says what it is instead of showing metrics", async () => {
    const html = await (await fetch(`${view.url}/runs/${askRunId}`)).text();
    assert.match(html, /A run of the stage\(s\) ask only, made by a step command \(<code>llmkb ask, judge, consistency<\/code>, \.\.\.\)/);
    assert.doesNotMatch(html, /<h2>Metrics<\/h2>/);
  });
});
