/**
 * Proof of the method seam: a third method, written only for this test
 * (test/fixtures/exact-match-method/), registered from here, runs through the generic stage
 * runner on scripted models, and `compare` and `report` show it with no code of theirs knowing
 * it: in this process (registered) and in the CLI (not registered: from the summaries alone).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compareRuns } from '../src/analysis/compare-methods.js';
import { LlmkbError, UnsupportedCapabilityError } from '../src/errors.js';
import { ModelExecutor } from '../src/executor/model-executor.js';
import { listMethods, registerMethod } from '../src/methods/registry.js';
import { runMethod } from '../src/methods/run-method.js';
import { MockModel } from '../src/providers/mock/mock-model.js';
import { renderReport } from '../src/report/html-report.js';
import { CallCache } from '../src/store/call-cache.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { exactMatchMethod, type QA } from './fixtures/exact-match-method/exact-match-method.js';
import { llmkb } from './support/run-cli.js';

const QUESTIONS: QA[] = [
  { id: 'q1', question: 'What is the capital of France?', answers: ['Paris'] },
  { id: 'q2', question: 'Who wrote Hamlet?', answers: ['William Shakespeare', 'Shakespeare'] },
  { id: 'q3', question: 'How many legs has a spider?', answers: ['8', 'eight'] },
  { id: 'q4', question: 'What colour is the sky?', answers: ['blue'] },
];

function scripted(name: string, answers: Record<string, string>): MockModel {
  return new MockModel({ replies: ({ prompt }) => ` ${Object.entries(answers).find(([q]) => prompt.includes(q))?.[1] ?? ''}\nQ: next`, identity: name, modelId: name });
}

describe('a third method through the seam: exact-match accuracy', () => {
  registerMethod(exactMatchMethod);
  const work = mkdtempSync(join(tmpdir(), 'llmkb-seam-'));
  const db = openDatabase(join(work, 'store.sqlite'));
  const runs = new RunStore(db);
  const cache = new CallCache(db);
  const good = scripted('good-model', { France: 'Paris', Hamlet: 'the Shakespeare', spider: 'eight', sky: 'green' });
  const poor = scripted('poor-model', { France: 'Lyon', Hamlet: 'Marlowe', spider: '8' });

  it('runs its stages resumably on scripted models and writes a v2 summary with its own metricDefs', async () => {
    assert.ok(listMethods().some((m) => m.id === 'exact-match'));
    const a = await runMethod(exactMatchMethod, { roles: { model: new ModelExecutor(good, { cache }) }, items: QUESTIONS, runs, outDir: join(work, 'out') });
    assert.equal(a.summary.metrics.EM, 0.75, '3 of 4 after SQuAD normalisation ("the Shakespeare" = "Shakespeare")');
    const records = a.records as Array<{ keys: { answer: string } }>;
    assert.ok(records.every((r) => /^[0-9a-f]{64}$/.test(r.keys.answer)), 'each record keeps the cache key of its call');
    const b = await runMethod(exactMatchMethod, { roles: { model: new ModelExecutor(poor, { cache }) }, items: QUESTIONS, runs, outDir: join(work, 'out') });
    assert.equal(b.summary.metrics.EM, 0.25);
    // Run again: the stages are done in the store, nothing is asked.
    const calls = good.calls.length;
    const again = await runMethod(exactMatchMethod, { roles: { model: new ModelExecutor(good, { cache }) }, items: QUESTIONS, runs });
    assert.equal(again.runId, a.runId);
    assert.equal(good.calls.length, calls);
    const file = JSON.parse(readFileSync(a.files[0]!, 'utf8')) as { schema: string; method: { id: string }; metricDefs: Array<{ id: string }> };
    assert.deepEqual([file.schema, file.method.id, file.metricDefs.map((d) => d.id)], ['llmkb-summary-v2', 'exact-match', ['EM', 'answered']]);
  });

  it('refuses, before any call, a model of the wrong kind for a role and a missing required role', async () => {
    const embedderOnly = { ...good, kinds: ['embedding'] as const, complete: good.complete.bind(good), chat: good.chat.bind(good), close: good.close.bind(good) };
    await assert.rejects(runMethod(exactMatchMethod, { roles: { model: new ModelExecutor(embedderOnly, { cache }) }, items: QUESTIONS, runs }), (e: unknown) => e instanceof UnsupportedCapabilityError && /role "model" needs a text-generation model/.test(e.message));
    await assert.rejects(runMethod(exactMatchMethod, { roles: {}, items: QUESTIONS, runs }), (e: unknown) => e instanceof LlmkbError && /needs a model for role "model"/.test(e.message));
  });

  it('compare and report show it from metricDefs: in process (registered) and in the CLI (not registered)', async () => {
    const files = ['good-model', 'poor-model'].map((m) => join(work, 'out', `${m}.default.summary.json`));
    const summaries = files.map((f) => JSON.parse(readFileSync(f, 'utf8')));
    const compared = await compareRuns(summaries.map((summary, i) => ({ summary, source: files[i]! })), { resamples: 100, seed: 1 });
    assert.match(compared.markdown, /## Exact-match accuracy of a QA set: headline metrics/);
    assert.match(compared.markdown, /\| good-model \| 75\.00 \|/);
    assert.match(compared.markdown, /EM: 1\. good-model 75\.00, 2\. poor-model 25\.00/);
    const html = await renderReport(summaries);
    assert.match(html, /<h2>Exact-match accuracy of a QA set: headline metrics<\/h2>/);
    assert.match(html, /<th scope="row">EM<\/th><td>75\.00<\/td>/);

    const cli = await llmkb(['compare', ...files, '--out', join(work, 'cmp')], { cwd: work });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /## method exact-match: headline metrics/, 'unknown to the CLI process: named by its id');
    assert.match(cli.stdout, /default exact match \(↑\)/);
    assert.match(readFileSync(join(work, 'cmp', 'exact-match-headline.csv'), 'utf8'), /poor-model,25\.00/);
    const report = await llmkb(['report', ...files, '-o', join(work, 'report.html')], { cwd: work });
    assert.equal(report.code, 0, report.stderr);
    assert.match(readFileSync(join(work, 'report.html'), 'utf8'), /<th scope="row">poor-model<\/th><td class="first">25\.00(<span class="ci">|<\/td>)/);
  });

  it('reads a v1 summary file (written before schema v2) in compare and report', async () => {
    const v1 = join(import.meta.dirname, 'fixtures', 'summary-v1', 'reliability.v1.summary.json');
    const r = await llmkb(['compare', v1, '--json'], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { table9: { rows: string[][] } }).table9.rows.length, 1);
    const bad = join(work, 'bad.summary.json');
    writeFileSync(bad, JSON.stringify({ schema: 'llmkb-summary-v9' }));
    const refused = await llmkb(['report', bad, '-o', join(work, 'x.html')], { cwd: work });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /not an llmkb summary/);
  });
});
