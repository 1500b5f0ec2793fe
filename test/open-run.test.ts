/**
 * Every run of the store records its method, the runner's and those a method's own commands open
 * (`src/methods/open-run.ts`): a step command's run (the reliability method's `ask`, CONNER's
 * `generate`) is listed under its method and apart from evaluations, with the id it had before the
 * method was recorded, and a run that records no method is `unknown` (no method guesses it).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ModelExecutor } from '../src/executor/model-executor.js';
import { generateKnowledge } from '../src/methods/conner/generation/generate-knowledge.js';
import { askQuestions } from '../src/methods/reliability/asking/ask-questions.js';
import { registerMethod } from '../src/methods/registry.js';
import { runMethod } from '../src/methods/run-method.js';
import { createLanguageModel } from '../src/providers/create-language-model.js';
import { listRuns } from '../src/runs/list-runs.js';
import { methodOfStoredRun } from '../src/runs/stored-runs.js';
import { CallCache } from '../src/store/call-cache.js';
import { openDatabase } from '../src/store/database.js';
import { runId } from '../src/store/run-spec.js';
import { RunStore } from '../src/store/run-store.js';
import { exactMatchMethod } from './fixtures/exact-match-method/exact-match-method.js';
import { tempDir } from './support/temp-dir.js';

describe('every run records its method', () => {
  const dir = tempDir('llmkb-open-run-');
  const replies = join(dir, 'replies.jsonl');
  writeFileSync(replies, `${JSON.stringify({ default: true, reply: ' Paris' })}\n`);
  const db = openDatabase(join(dir, 'store.sqlite'));
  const runs = new RunStore(db);
  const cache = new CallCache(db);
  const executor = async () => new ModelExecutor(await createLanguageModel(`mock:${replies}`, { cacheDir: dir }), { cache });
  after(() => {
    cache.close();
    db.close();
  });

  it("the runner's run is an evaluation of its method; a step command's run is its method's, listed apart, with the id it had without its method", async () => {
    registerMethod(exactMatchMethod);
    const questions = join(dir, 'qa.jsonl');
    writeFileSync(questions, `${JSON.stringify({ id: 'q1', question: 'What is the capital of France?', answers: ['Paris'] })}\n`);
    const evaluated = await runMethod(exactMatchMethod, { roles: { model: await executor() }, options: { questions }, runs, label: 'runner' });

    const asked = await askQuestions({
      items: [{ id: 'seen-1', dataset: 'seen', source: 'nq', question: 'What is the capital of France?', answers: ['Paris'] }],
      executor: await executor(),
      setting: 'zero-shot',
      seed: 1,
      runs,
      label: 'asked',
    });
    const generated = await generateKnowledge({
      queries: [{ id: 'nq:1', task: 'qa', topic: 'France', query: 'What is the capital of France?' }],
      generator: await executor(),
      answerer: await executor(),
      runs,
      setting: 'zero-shot',
      shots: 0,
      answerShots: 0,
      demoPool: [],
      seed: 1,
      maxTokens: 8,
      answerMaxTokens: 8,
    });
    assert.equal(generated.length, 1);

    const listed = new Map(listRuns({ runs }).map((r) => [r.runId, r]));
    assert.deepEqual([listed.get(evaluated.runId)?.method, listed.get(evaluated.runId)?.evaluation], ['exact-match', true]);
    assert.deepEqual([listed.get(asked.run.id)?.method, listed.get(asked.run.id)?.evaluation], ['reliability', false]);
    const generation = [...listed.values()].find((r) => r.label.startsWith('conner generate'));
    assert.deepEqual([generation?.method, generation?.evaluation], ['conner', false]);
    assert.equal(methodOfStoredRun(asked.run.spec)?.id, 'reliability');
    // The method and the step are not part of the id: a run opened before they were recorded is the same run.
    const { method: _method, step, ...bare } = asked.run.spec;
    assert.equal(step, 'ask');
    assert.equal(runId(bare), asked.run.id);
  });

  it('a run that records no method is unknown, whatever its stages are called', () => {
    const run = runs.open({ model: 'm', dataset: 'd', setting: 'zero-shot', seed: 3, label: 'no-method' });
    run.startStage('ask');
    run.finishStage('ask', { items: 0 });
    const listed = listRuns({ runs }).find((r) => r.runId === run.id)!;
    assert.deepEqual([listed.method, listed.evaluation], ['unknown', false]);
    assert.equal(methodOfStoredRun(run.spec), undefined);
  });
});
