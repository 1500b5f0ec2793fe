import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { startBatchServer, type BatchScript, type BatchServer } from '#test-support/batch-server.js';
import { ContextOverflowError, ModelCallError } from '../../errors.js';
import { ModelExecutor } from '../../executor/model-executor.js';
import { OpenAICompatibleModel } from '../../providers/openai-compatible/openai-compatible-model.js';
import { CallCache } from '../../store/call-cache.js';
import { openDatabase } from '../../store/database.js';
import { openAIBatchApi } from '../../providers/openai-compatible/openai-batch-api.js';
import { BatchingModel, recoverBatches } from './batching-model.js';
import { tempDir } from '#test-support/temp-dir.js';

const questions = Array.from({ length: 30 }, (_, i) => `Is ${i} even?`);
const reply = (body: Record<string, unknown>) => {
  const messages = body.messages as Array<{ content: string }>;
  const n = Number(/Is (\d+) even/.exec(messages[messages.length - 1]!.content)?.[1]);
  return n % 2 === 0 ? 'yes' : 'no';
};

const servers: BatchServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function setup(script: Partial<BatchScript> = {}) {
  const server = await startBatchServer({ reply, ...script });
  servers.push(server);
  const inner = new OpenAICompatibleModel({
    baseURLs: [server.baseURL],
    model: 'gpt-judge',
    api: 'chat',
    echo: false,
    topLogprobs: 5,
    flavor: 'openai',
    concurrency: 4,
  });
  const db = openDatabase(':memory:');
  const cache = new CallCache(db);
  const journalDir = tempDir('llmkb-batch-');
  const model = new BatchingModel(inner, {
    api: openAIBatchApi({ baseURL: server.baseURL, model: 'gpt-judge', api: 'chat' }),
    journalDir,
    gatherMs: 20,
    pollMs: 5,
  });
  const executor = new ModelExecutor(model, { cache, baseBackoffMs: 1, maxBackoffMs: 2 });
  const ask = (q: string) => executor.chat({ messages: [{ role: 'user', content: q }], maxTokens: 2 });
  return { server, inner, cache, journalDir, model, executor, ask };
}

describe('--batch: judge calls through the OpenAI Batch API', () => {
  it('refuses a sampled request instead of sending it greedy under a greedy key', async () => {
    const { server, executor, cache } = await setup();
    await assert.rejects(
      executor.chat({ messages: [{ role: 'user', content: 'Is 2 even?' }], maxTokens: 2, sampling: { temperature: 1, topP: 0.9, seed: 7, sample: 0 } }),
      /greedy requests only/,
    );
    assert.equal(server.batches.length, 0);
    assert.equal(cache.stats().entries, 0);
  });

  it("gathers the calls into one batch file, answers each from the output file, caches them under the executor's own keys", async () => {
    const { server, inner, cache, model, executor, ask, journalDir } = await setup();
    const answers = await Promise.all(questions.map(ask));
    assert.deepEqual(
      answers.map((a) => a.value.text),
      questions.map((_, i) => (i % 2 === 0 ? 'yes' : 'no')),
    );
    assert.equal(server.batches.length, 1, 'one batch for all 30 calls');
    const input = [...server.files.values()].find((f) => f.purpose === 'batch')!;
    const lines = input.content
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            custom_id: string;
            method: string;
            url: string;
            body: { model: string; messages: unknown[]; max_tokens: number; temperature: number };
          },
      );
    assert.equal(lines.length, 30);
    assert.deepEqual(Object.keys(lines[0]!), ['custom_id', 'method', 'url', 'body']);
    assert.equal(lines[0]!.method, 'POST');
    assert.equal(lines[0]!.url, '/v1/chat/completions');
    assert.deepEqual(lines[0]!.body, { model: 'gpt-judge', messages: [{ role: 'user', content: 'Is 0 even?' }], max_tokens: 2, temperature: 0 });
    assert.equal(new Set(lines.map((l) => l.custom_id)).size, 30);
    assert.equal(executor.accounting.promptTokens, 300);
    assert.deepEqual(model.batches, [{ id: 'batch_0', requests: 30, status: 'completed', failed: 0 }]);
    assert.deepEqual(readdirSync(journalDir), [], 'the journal is cleared once a batch is answered');
    // The rest of the pipeline is unchanged: without --batch, the same calls come from the cache.
    const direct = new ModelExecutor(inner, { cache });
    const again = await Promise.all(questions.map((q) => direct.chat({ messages: [{ role: 'user', content: q }], maxTokens: 2 })));
    assert.ok(again.every((a) => a.cached));
    assert.equal(direct.accounting.requests, 0);
  });

  it('a partially failed batch: the failed requests go into the next batch, and only they', async () => {
    const { server, model, ask } = await setup({ failRequest: (batchNo, line) => (batchNo === 0 && (line === 2 || line === 5) ? 500 : undefined) });
    const answers = await Promise.all(questions.map(ask));
    assert.deepEqual(
      answers.map((a) => a.value.text),
      questions.map((_, i) => (i % 2 === 0 ? 'yes' : 'no')),
    );
    assert.equal(server.batches.length, 2);
    assert.deepEqual(
      model.batches.map((b) => [b.requests, b.failed]),
      [
        [30, 2],
        [2, 0],
      ],
    );
  });

  it('an expired batch: what it finished is kept, the rest (batch_expired) is submitted again', async () => {
    const { server, model, ask } = await setup({ expireAfter: (batchNo) => (batchNo === 0 ? 12 : undefined) });
    const answers = await Promise.all(questions.map(ask));
    assert.deepEqual(
      answers.map((a) => a.value.text),
      questions.map((_, i) => (i % 2 === 0 ? 'yes' : 'no')),
    );
    assert.deepEqual(
      model.batches.map((b) => [b.status, b.requests, b.failed]),
      [
        ['expired', 30, 18],
        ['completed', 18, 0],
      ],
    );
    assert.equal(server.batches[0]!.status, 'expired');
  });

  it('a request the batch refused as longer than the context fails as the provider says it live (a ContextOverflowError), the rest answered', async () => {
    const { server, ask } = await setup({
      failRequest: (batchNo, line) => (batchNo === 0 && line === 1 ? 400 : undefined),
      failMessage: () => "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens.",
    });
    const [first, second] = await Promise.allSettled([ask('Is 0 even?'), ask('Is 1 even?')]);
    assert.equal(first.status === 'fulfilled' && first.value.value.text, 'yes');
    assert.ok(
      second.status === 'rejected' &&
        second.reason instanceof ContextOverflowError &&
        /batch batch_0: This model's maximum context length/.test(second.reason.message),
      String(second.status === 'rejected' ? second.reason : 'answered'),
    );
    assert.equal(server.batches.length, 1, 'not resubmitted');
  });

  it('a batch that fails validation fails its calls for good, naming the batch', async () => {
    const { ask } = await setup({ failValidation: () => true });
    await assert.rejects(
      ask('Is 1 even?'),
      (e: unknown) => e instanceof ModelCallError && /batch batch_0 failed: scripted: the input file is invalid/.test(e.message) && !e.retryable,
    );
  });

  it('a batch left by an interrupted run is waited for and imported into the call cache', async () => {
    const { server, inner, cache, journalDir } = await setup();
    // What a killed sweep leaves: a submitted batch and its journal.
    const model = new BatchingModel(inner, {
      api: openAIBatchApi({ baseURL: server.baseURL, model: 'gpt-judge', api: 'chat' }),
      journalDir,
      gatherMs: 5,
      pollMs: 60_000,
    });
    const pending = new ModelExecutor(model, { cache: null }).chat({ messages: [{ role: 'user', content: 'Is 4 even?' }], maxTokens: 2 });
    for (let i = 0; i < 200 && readdirSync(journalDir).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(readdirSync(journalDir).length, 1, 'the batch is in the journal');
    void pending.catch(() => undefined);
    await model.close();
    const api = openAIBatchApi({ baseURL: server.baseURL, model: 'gpt-judge', api: 'chat' });
    assert.equal(await recoverBatches(journalDir, cache, { apiFor: () => undefined, pollMs: 5 }), 0, 'a journal of an endpoint no role uses is kept');
    assert.equal(readdirSync(journalDir).length, 1);
    const imported = await recoverBatches(journalDir, cache, { apiFor: (endpoint) => (endpoint === api.endpoint ? api : undefined), pollMs: 5 });
    assert.equal(imported, 1);
    assert.deepEqual(readdirSync(journalDir), []);
    const direct = new ModelExecutor(inner, { cache });
    const hit = await direct.chat({ messages: [{ role: 'user', content: 'Is 4 even?' }], maxTokens: 2 });
    assert.equal(hit.cached, true);
    assert.equal(hit.value.text, 'yes');
  });
});
