/**
 * `llmkb report` with hostile text in everything a user or a model writes: the title, model
 * names, settings, model identities, protocol choices and notes, data file names, the command
 * line and replica URLs of an execution record, the names in paired tests, example questions,
 * answers and responses, and CONNER's generators, queries, knowledge and scorers. No raw markup
 * reaches the file (charts included), and each field is shown escaped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONNER_FIXTURE_RUN, connerRecords } from '../support/conner-fixture.js';
import { escaped, hostile, hostileConnerRecords, hostileProtocol, hostileRecords, RAW_MARKUP } from '../support/hostile-runs.js';
import { paperSummaries } from '../support/summaries.js';
import { connerRunSummaries } from '../../src/methods/conner/summary/conner-summary.js';
import type { ExecutionRecord } from '../../src/methods/method-summary.js';
import { renderReport } from '../../src/report/html-report.js';

function assertClean(html: string, fields: readonly string[]): void {
  for (const raw of RAW_MARKUP) {
    const at = html.search(raw);
    assert.equal(at, -1, `raw markup from model or user text: …${html.slice(Math.max(0, at - 200), at + 80)}…`);
  }
  const missing = fields.filter((f) => !html.includes(escaped(hostile(f))));
  assert.deepEqual(missing, [], 'fields not shown (escaped)');
}

describe('llmkb report escapes every piece of model and user text', () => {
  it('reliability runs: the paper tables, figures, protocol box, run sections, examples, executions and paired tests', async () => {
    const summaries = paperSummaries(['zero-shot'], 20).slice(0, 5);
    summaries.forEach((s, i) => {
      s.model = hostile(`report-model-${i}`);
      s.runId = `run-${i}`;
    });
    summaries[0]!.modelIdentity = hostile('identity');
    summaries[0]!.protocol = hostileProtocol();
    summaries[0]!.datasetChecksums = { [hostile('data-file')]: 'a'.repeat(64) };
    const records = summaries.map((_, i) => (i === 0 ? hostileRecords('report', 6) : undefined));
    const execution: ExecutionRecord = {
      schema: 'llmkb-execution-v1',
      runId: 'run-0',
      label: summaries[0]!.model,
      setting: summaries[0]!.setting,
      command: hostile('command'),
      startedAt: hostile('started'),
      finishedAt: '2026-01-01T00:00:00Z',
      llmkbVersion: '0',
      node: 'v20',
      calls: { [hostile('role')]: { calls: 1, cacheHits: 0, requests: 1, promptTokens: 1, completionTokens: 1 } },
      replicas: { [hostile('role')]: [{ url: hostile('replica-url'), served: 1, failed: 0, trips: 0 }] },
    };
    const html = await renderReport(summaries, {
      title: hostile('title'),
      records,
      executions: [execution],
      pairedTests: [{ metric: 'NCR', a: hostile('paired-a'), b: hostile('paired-b'), difference: 0.1, interval: [0, 0.2], p: 0.04, questions: 10 }],
    });
    assertClean(html, [
      'title',
      'report-model-0',
      'report-model-4',
      'identity',
      'choice',
      'choice-value',
      'choice-note',
      'backend',
      'data-file',
      'dataset-file',
      'command',
      'started',
      'role',
      'replica-url',
      'paired-a',
      'paired-b',
      'report-question-0',
      'report-answer-0',
      'report-response-0',
      'report-response-1',
    ]);
    assert.ok(html.includes('<svg'), 'the figures are drawn (their text is checked too)');
  });

  it('a hostile setting name', async () => {
    const summaries = paperSummaries(['zero-shot'], 20).slice(0, 3);
    for (const s of summaries) s.setting = hostile('setting');
    assertClean(await renderReport(summaries), ['setting']);
  });

  it('CONNER runs: generators, settings, example queries and knowledge, scorers', async () => {
    const records = [
      ...hostileConnerRecords(),
      ...connerRecords(3, [['plain-generator', 0.4]]).map((r) => ({ ...r, setting: hostile('conner-setting'), id: hostile(`conner-id-${r.id}`) })),
    ];
    const summaries = connerRunSummaries(records as never, { resamples: 20, seed: 0, run: CONNER_FIXTURE_RUN });
    const html = await renderReport(summaries, { records: summaries.map((s) => records.filter((r) => r.generator === s.model)) });
    assertClean(html, ['generator', 'conner-setting', 'query-0', 'knowledge-0', 'scorer-relevance']);
  });
});
