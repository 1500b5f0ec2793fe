/**
 * Proof of the method seam: a third method, written only against the public API for this test
 * (test/fixtures/exact-match-method/), runs through the one runner on scripted models, in process
 * and through the CLI registered from its folder alone (the config's `methods` list): `eval
 * --method`, `sweep` and `merge` run it; `view` browses its items; `compare` and `report` show it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
import { startViewServer } from '../src/view/view-server.js';
import { exactMatchMethod, type QA } from './fixtures/exact-match-method/exact-match-method.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'exact-match-method', 'exact-match-method.ts');
/** The fixture is TypeScript: the CLI loads it through tsx, as a user's method in .ts would be. */
const TSX = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${import.meta.resolve('tsx')}`.trim() };

const QUESTIONS: QA[] = [
  { id: 'q1', question: 'What is the capital of France?', answers: ['Paris'] },
  { id: 'q2', question: 'Who wrote Hamlet?', answers: ['William Shakespeare', 'Shakespeare'] },
  { id: 'q3', question: 'How many legs has a spider?', answers: ['8', 'eight'] },
  { id: 'q4', question: 'What colour is the sky?', answers: ['blue'] },
];

function scripted(name: string, answers: Record<string, string>): MockModel {
  return new MockModel({
    replies: ({ prompt }) => ` ${Object.entries(answers).find(([q]) => prompt.includes(q))?.[1] ?? ''}\nQ: next`,
    identity: name,
    modelId: name,
  });
}

/** A replies file for `mock:` answering each question. */
function repliesFile(dir: string, name: string, answers: Record<string, string>): string {
  const file = join(dir, `${name}.jsonl`);
  writeFileSync(
    file,
    `${Object.entries(answers)
      .map(([q, a]) => JSON.stringify({ contains: q, reply: ` ${a}` }))
      .join('\n')}\n${JSON.stringify({ default: true, reply: ' ' })}\n`,
  );
  return file;
}

describe('a third method through the seam: exact-match accuracy', () => {
  registerMethod(exactMatchMethod);
  const work = tempDir('llmkb-seam-');
  const questions = join(work, 'qa.jsonl');
  writeFileSync(questions, `${QUESTIONS.map((q) => JSON.stringify(q)).join('\n')}\n`);
  const db = openDatabase(join(work, 'store.sqlite'));
  const runs = new RunStore(db);
  const cache = new CallCache(db);
  const good = scripted('good-model', { France: 'Paris', Hamlet: 'the Shakespeare', spider: 'eight', sky: 'green' });
  const poor = scripted('poor-model', { France: 'Lyon', Hamlet: 'Marlowe', spider: '8' });

  it('runs its stages resumably through runMethod and writes a v2 summary, its records and its execution record', async () => {
    assert.ok(listMethods().some((m) => m.id === 'exact-match'));
    const a = await runMethod(exactMatchMethod, {
      roles: { model: new ModelExecutor(good, { cache }) },
      options: { questions },
      runs,
      outDir: join(work, 'out'),
    });
    assert.equal(a.summary.metrics.EM, 0.75, '3 of 4 after SQuAD normalisation ("the Shakespeare" = "Shakespeare")');
    const records = readFileSync(a.files!.records, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; callKey: string; correct: boolean });
    assert.deepEqual(
      records.map((r) => [r.id, r.correct]),
      [
        ['q1', true],
        ['q2', true],
        ['q3', true],
        ['q4', false],
      ],
      'the records file: every item, in item order',
    );
    assert.ok(
      records.every((r) => /^[0-9a-f]{64}$/.test(r.callKey)),
      'each record keeps the cache key of its call',
    );
    assert.equal((JSON.parse(readFileSync(a.files!.execution, 'utf8')) as { calls: { model: { requests: number } } }).calls.model.requests, 4);
    const b = await runMethod(exactMatchMethod, {
      roles: { model: new ModelExecutor(poor, { cache }) },
      options: { questions },
      runs,
      outDir: join(work, 'out'),
    });
    assert.equal(b.summary.metrics.EM, 0.25);
    // Run again: the stages are done in the store, nothing is asked, the same bytes are written.
    const calls = good.calls.length;
    const summaryBytes = readFileSync(a.files!.summary, 'utf8');
    const again = await runMethod(exactMatchMethod, {
      roles: { model: new ModelExecutor(good, { cache }) },
      options: { questions },
      runs,
      outDir: join(work, 'out'),
    });
    assert.equal(again.runId, a.runId);
    assert.equal(good.calls.length, calls);
    assert.equal(readFileSync(again.files!.summary, 'utf8'), summaryBytes);
    const file = JSON.parse(summaryBytes) as { schema: string; method: { id: string }; metricDefs: Array<{ id: string }> };
    assert.deepEqual([file.schema, file.method.id, file.metricDefs.map((d) => d.id)], ['llmkb-summary-v2', 'exact-match', ['EM', 'answered']]);
    assert.equal(runs.get(a.runId)!.spec.method, 'exact-match', 'the store records whose run it is');
  });

  it('refuses, before any call, a model of the wrong kind for a role, a missing required role, an unknown option or setting', async () => {
    const embedderOnly = {
      ...good,
      kinds: ['embedding'] as const,
      complete: good.complete.bind(good),
      chat: good.chat.bind(good),
      close: good.close.bind(good),
    };
    await assert.rejects(
      runMethod(exactMatchMethod, { roles: { model: new ModelExecutor(embedderOnly, { cache }) }, options: { questions }, runs }),
      (e: unknown) => e instanceof UnsupportedCapabilityError && /role "model" needs a text-generation model/.test(e.message),
    );
    await assert.rejects(
      runMethod(exactMatchMethod, { roles: {}, options: { questions }, runs }),
      (e: unknown) => e instanceof LlmkbError && /needs a model for role "model"/.test(e.message),
    );
    await assert.rejects(
      runMethod(exactMatchMethod, { roles: { model: new ModelExecutor(good, { cache }) }, options: { questoins: questions }, runs }),
      (e: unknown) => e instanceof LlmkbError && /has no option "questoins"/.test(e.message),
    );
    await assert.rejects(
      runMethod(exactMatchMethod, { roles: { model: new ModelExecutor(good, { cache }) }, options: { questions }, runs, setting: 'four-shot' }),
      (e: unknown) => e instanceof LlmkbError && /has no setting "four-shot"/.test(e.message),
    );
  });

  it('compare and report show it from metricDefs: in process (registered) and in the CLI (not registered)', async () => {
    const files = ['good-model', 'poor-model'].map((m) => join(work, 'out', `${m}.default.summary.json`));
    const summaries = files.map((f) => JSON.parse(readFileSync(f, 'utf8')));
    const compared = await compareRuns(
      summaries.map((summary, i) => ({ summary, source: files[i]! })),
      { resamples: 100, seed: 1 },
    );
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

  it('registered from its folder by the config, runs through eval --method, sweep and merge, and view browses its items', async () => {
    const dir = tempDir('llmkb-seam-cli-');
    writeFileSync(join(dir, 'llmkb.config.json'), JSON.stringify({ methods: [FIXTURE] }));
    const good = repliesFile(dir, 'good', { France: 'Paris', Hamlet: 'Shakespeare', spider: 'eight', sky: 'green' });
    const poor = repliesFile(dir, 'poor', { France: 'Lyon', Hamlet: 'Marlowe' });
    const listed = await llmkb(['methods', '--json'], { cwd: dir, env: TSX });
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok((JSON.parse(listed.stdout) as { methods: Array<{ id: string }> }).methods.some((m) => m.id === 'exact-match'));

    const evaluated = await llmkb(
      ['eval', '--method', 'exact-match', '--model', `mock:${good}`, '--name', 'good', '--questions', questions, '--out', 'results'],
      { cwd: dir, env: TSX },
    );
    assert.equal(evaluated.code, 0, evaluated.stderr);
    assert.match(evaluated.stdout, /default: EM 75\.00 \(3\/4\)/, "the method's own result table");
    assert.ok(existsSync(join(dir, 'results', 'good.default.summary.json')) && existsSync(join(dir, 'results', 'good.report.html')));
    const unknownOption = await llmkb(['eval', '--method', 'exact-match', '--model', `mock:${good}`, '--questions', questions, '--mcqs', '3'], {
      cwd: dir,
      env: TSX,
    });
    assert.equal(unknownOption.code, 2, 'an option of another method is refused, not ignored');
    assert.match(unknownOption.stderr, /method "exact-match" has no --mcqs/);

    mkdirSync(join(dir, 'study'));
    writeFileSync(
      join(dir, 'study', 'study.yaml'),
      `models:\n  - { label: good, spec: "mock:${good}" }\n  - { label: poor, spec: "mock:${poor}" }\nmethods:\n  - id: exact-match\n    options: { questions: ${JSON.stringify(questions)} }\n`,
    );
    for (const shard of ['1/2', '2/2']) {
      const r = await llmkb(['sweep', 'study/study.yaml', '--shard', shard, '--out', `shard${shard[0]}`], { cwd: dir, env: TSX });
      assert.equal(r.code, 0, r.stderr);
    }
    const merged = await llmkb(['merge', 'shard1', 'shard2', '--out', 'merged'], { cwd: dir, env: TSX });
    assert.equal(merged.code, 0, merged.stderr);
    assert.match(merged.stdout, /merged 2 runs/);
    const analysis = JSON.parse(readFileSync(join(dir, 'merged', 'analysis.json'), 'utf8')) as { headline: { rows: string[][] } };
    assert.deepEqual(
      analysis.headline.rows.map((r) => r.slice(0, 2)),
      [
        ['good', '75.00'],
        ['poor', '0.00'],
      ],
    );
    assert.match(readFileSync(join(dir, 'merged', 'report.html'), 'utf8'), /Exact-match accuracy of a QA set: headline metrics/);

    // The viewer, in this process where the method is registered: its items, with its own titles and item page.
    const view = await startViewServer({ store: join(dir, '.llmkb', 'llmkb.sqlite'), resultsDir: join(dir, 'merged'), port: 0 });
    try {
      const list = (await (await fetch(`${view.url}/api/runs`)).json()) as Array<{ key: string; label: string; method: string; kind: string }>;
      const run = list.find((r) => r.method === 'exact-match' && r.label === 'good' && r.kind === 'store')!;
      assert.ok(run, JSON.stringify(list));
      const items = await (await fetch(`${view.url}/runs/${run.key}/items`)).text();
      assert.match(items, /<th>Exact match<\/th>/);
      assert.match(items, /What colour is the sky\?/);
      const item = await (await fetch(`${view.url}/runs/${run.key}/items/q1`)).text();
      assert.match(item, /Accepted answers/);
      assert.match(item, /Q: What is the capital of France\?/, 'the call, from the call cache');
    } finally {
      await view.close();
    }
  });

  it('reads a summary file in compare, and refuses a file of another schema naming the one it expects', async () => {
    const summary = join(import.meta.dirname, 'fixtures', 'reliability.summary.json');
    const r = await llmkb(['compare', summary, '--json'], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { table9: { rows: string[][] } }).table9.rows.length, 1);
    for (const schema of ['llmkb-summary-v9', 'llmkb-summary-v1']) {
      const bad = join(work, 'bad.summary.json');
      writeFileSync(bad, JSON.stringify({ ...(JSON.parse(readFileSync(summary, 'utf8')) as object), schema }));
      const refused = await llmkb(['report', bad, '-o', join(work, 'x.html')], { cwd: work });
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, new RegExp(`not an llmkb summary \\(schema "${schema}"; expected "llmkb-summary-v2"\\)`));
    }
  });
});
