/**
 * `compareResults` (src/analysis/compare-results.ts) and `reportRuns` (src/report/runs-report.ts),
 * the library calls behind `llmkb compare` and `llmkb report`, called directly: two mock models'
 * runs (made with `evaluate`) read back from their summary files; the Markdown, the analysis
 * document and the files written to `out`, a warning for two runs of one label given to `log`,
 * and the HTML report over the same runs.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compareResults, evaluate, loadResultRun, reportRuns, Workspace } from '../src/index.js';
import { tempDir } from './support/temp-dir.js';

const jsonl = (rows: readonly object[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

describe('compareResults (the library call behind llmkb compare)', () => {
  it("compares runs read back: the tables, the analysis document with each run's source, the files written; label clashes are logged", async () => {
    const dir = tempDir('llmkb-compare-results-');
    writeFileSync(
      join(dir, 'questions.jsonl'),
      jsonl([
        { id: 'q1', dataset: 'seen', source: 'mine', question: 'What is the capital of France?', answers: ['Paris'] },
        { id: 'q2', dataset: 'seen', source: 'mine', question: 'Who wrote Hamlet?', answers: ['William Shakespeare'] },
      ]),
    );
    writeFileSync(
      join(dir, 'paris.jsonl'),
      jsonl([
        { contains: 'multi-choice', reply: ' A' },
        { contains: 'capital of France', reply: ' Paris' },
        { default: true, reply: ' Marlowe' },
      ]),
    );
    writeFileSync(
      join(dir, 'none.jsonl'),
      jsonl([
        { contains: 'multi-choice', reply: ' B' },
        { default: true, reply: ' I do not know' },
      ]),
    );
    const ws = new Workspace({ store: join(dir, 'store.sqlite') });
    const summaries: string[] = [];
    try {
      for (const [name, replies] of [
        ['paris', 'paris.jsonl'],
        ['none', 'none.jsonl'],
      ] as const) {
        const r = await evaluate({
          model: `mock:${join(dir, replies)}`,
          name,
          options: { input: join(dir, 'questions.jsonl'), mcqs: 2 },
          settings: ['zero-shot'],
          out: join(dir, `results-${name}`),
          workspace: ws,
        });
        summaries.push(r.runs[0]!.files!.summary);
      }
    } finally {
      await ws.close();
    }
    const loaded = await Promise.all(summaries.map((f) => loadResultRun(f, { resamples: 50, seed: 1 })));
    const out = join(dir, 'analysis');
    const logged: string[] = [];
    const result = await compareResults(loaded, { resamples: 50, seed: 1, out, log: (l) => logged.push(l) });
    assert.deepEqual(
      result.runs.map((r) => r.summary.model),
      ['paris', 'none'],
    );
    assert.match(result.markdown, /paris/);
    assert.match(result.markdown, /none/);
    assert.equal(result.analysis.schema, 'llmkb-analysis-v1');
    assert.deepEqual(
      result.analysis.sources.map((s) => [s.label, s.source, s.modelSpec]),
      [
        ['paris', summaries[0], `mock:${join(dir, 'paris.jsonl')}`],
        ['none', summaries[1], `mock:${join(dir, 'none.jsonl')}`],
      ],
    );
    assert.deepEqual(result.warnings, []);
    assert.equal(logged.length, 0, logged.join('\n'));
    assert.deepEqual(
      JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8')),
      JSON.parse(JSON.stringify(result.analysis)),
      'analysis.json is the returned document',
    );
    assert.ok(result.wrote && readdirSync(out).length > 1, `tables written beside analysis.json: ${readdirSync(out).join(', ')}`);
    // The same run twice under one label: shown apart, and the warning goes to log.
    const twice = await compareResults([loaded[0]!, loaded[0]!], { resamples: 50, seed: 1, log: (l) => logged.push(l) });
    assert.ok(twice.warnings.length > 0 && logged.length === twice.warnings.length && logged.every((l) => l.startsWith('warning: ')), logged.join('\n'));
    assert.equal(twice.wrote, undefined);
    // The report over the same runs (what llmkb report runs): one HTML file naming both.
    const html = join(dir, 'report.html');
    const reported = await reportRuns(loaded, { output: html, title: 'two mocks' });
    assert.deepEqual(
      reported.runs.map((r) => r.summary.model),
      ['paris', 'none'],
    );
    const page = readFileSync(html, 'utf8');
    assert.ok(page.includes('<title>two mocks</title>') && page.includes('paris') && page.includes('none'));
  });
});
