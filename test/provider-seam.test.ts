/**
 * Proof of the provider seam: a provider written only against the public API
 * (test/fixtures/toy-provider/), registered with `registerProvider`, has its own option accepted
 * in a config and a study, answers through the runner (`eval`'s path) and through a sweep, and
 * batches through its own Batch API under `--batch`, keyed as the executor keys a live call.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, LlmkbError } from '../src/errors.js';
import { createLanguageModel, loadConfig, ModelExecutor, registerProvider } from '../src/index.js';
import { registerMethod } from '../src/methods/registry.js';
import { runMethod } from '../src/methods/run-method.js';
import { specTraits, specWithEndpoints } from '../src/providers/spec-traits.js';
import { CallCache } from '../src/store/call-cache.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { ModelPool } from '../src/sweep/model-pool.js';
import { runStudy } from '../src/sweep/run-study.js';
import { loadStudy } from '../src/sweep/study.js';
import { exactMatchMethod } from './fixtures/exact-match-method/exact-match-method.js';
import { toyBatches, toyProvider } from './fixtures/toy-provider/toy-provider.js';
import { tempDir } from './support/temp-dir.js';

const QUESTIONS = [
  { id: 'q1', question: 'What is the capital of France?', answers: ['Paris'] },
  { id: 'q2', question: 'Who wrote Hamlet?', answers: ['Shakespeare'] },
];

describe('a provider through the seam: toy:', () => {
  registerProvider(toyProvider);
  registerMethod(exactMatchMethod);
  const work = tempDir('llmkb-provider-seam-');
  const questions = join(work, 'qa.jsonl');
  writeFileSync(questions, `${QUESTIONS.map((q) => JSON.stringify(q)).join('\n')}\n`);
  const db = openDatabase(join(work, 'store.sqlite'));
  const cache = new CallCache(db);
  const runs = new RunStore(db);

  it("accepts the provider's own option in a config, and still refuses an option no provider declares", () => {
    const good = join(work, 'good.json');
    writeFileSync(good, JSON.stringify({ model: { spec: 'toy:a', flavour: 'Paris' } }));
    assert.deepEqual(loadConfig(good).config.model, { spec: 'toy:a', flavour: 'Paris' });
    const bad = join(work, 'bad.json');
    writeFileSync(bad, JSON.stringify({ model: { spec: 'toy:a', colour: 'red' } }));
    assert.throws(
      () => loadConfig(bad),
      (e: unknown) => e instanceof ConfigError && /field "model"/.test(e.message) && /colour/.test(e.message),
    );
  });

  it('tells the sweep what it needs of a spec through its traits, not its name', () => {
    assert.deepEqual(specTraits('toy:a'), { inProcess: false, endpoints: 1, maxConnections: 3, files: [] });
    assert.throws(
      () => specWithEndpoints('toy:a', ['http://h:1/v1']),
      (e: unknown) => e instanceof LlmkbError && /"endpoints" is for models behind servers/.test(e.message),
    );
  });

  it('answers through the runner, as `eval` runs a method', async () => {
    const model = await createLanguageModel({ spec: 'toy:a', flavour: 'Paris' }, { cacheDir: work });
    const run = await runMethod(exactMatchMethod, {
      roles: { model: new ModelExecutor(model, { cache }) },
      options: { questions },
      runs,
      outDir: join(work, 'eval'),
    });
    assert.equal(run.summary.metrics.EM, 0.5, 'Paris is right for France only');
  });

  it('runs in a sweep whose study gives its option', async () => {
    const file = join(work, 'study.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'toy',
        models: [{ label: 'toy-shakespeare', spec: 'toy:b', flavour: 'Shakespeare' }],
        methods: [{ id: 'exact-match', options: { questions } }],
      }),
    );
    const study = loadStudy(file);
    assert.equal(study.models[0]!.entry.flavour, 'Shakespeare');
    const result = await runStudy({ study, outDir: join(work, 'sweep'), runs, cache, cacheDir: work, log: () => {} });
    const done = result.record.jobs.filter((j) => j.status === 'done');
    assert.equal(done.length, 1, JSON.stringify(result.record.jobs));
    const summary = JSON.parse(readFileSync(resolve(join(work, 'sweep'), done[0]!.summary!), 'utf8')) as { metrics: { EM: number } };
    assert.equal(summary.metrics.EM, 0.5, 'Shakespeare is right for Hamlet only');
  });

  it("batches through its own Batch API, keyed as a live call: a plain executor finds the batch's answers in the cache", async () => {
    const pool = new ModelPool({ cache, cacheDir: work });
    const entry = { spec: 'toy:c', flavour: 'mint' };
    const batched = await pool.executor(entry, { batch: { journalDir: join(work, 'batches'), gatherMs: 5, pollMs: 1 } });
    const before = toyBatches.length;
    const answers = await Promise.all(['first prompt', 'second prompt'].map((prompt) => batched.complete({ prompt, maxTokens: 4 })));
    assert.deepEqual(
      answers.map((a) => a.value.text),
      [' mint\n', ' mint\n'],
    );
    assert.deepEqual(
      toyBatches.slice(before).map((b) => b.lines),
      [2],
      'one batch of two lines',
    );
    await pool.close();
    const live = await createLanguageModel(entry, { cacheDir: work });
    const again = await new ModelExecutor(live, { cache }).complete({ prompt: 'first prompt', maxTokens: 4 });
    assert.equal(again.cached, true);
    assert.equal(again.key, answers[0]!.key);
  });
});
