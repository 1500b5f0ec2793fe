import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startOpenAICompatibleServer } from '#test-support/openai-compatible-server.js';
import { ModelCallError } from '../errors.js';
import { OpenAICompatibleModel } from '../providers/openai-compatible/openai-compatible-model.js';
import { CallCache } from '../store/call-cache.js';
import { canonicalJson } from '../store/call-key.js';
import { openDatabase } from '../store/database.js';
import { greedyCompletionParams, PromptPrefix } from './call-params.js';
import { EMBED_BATCH, ModelExecutor, type ExecutorOptions } from './model-executor.js';

function providerFor(baseURLs: string[], concurrency = 8): OpenAICompatibleModel {
  return new OpenAICompatibleModel({ baseURLs, model: 'm', api: 'completions', echo: true, topLogprobs: 5, flavor: 'vllm', concurrency });
}

function executor(baseURLs: string[], options: Partial<ExecutorOptions> = {}, concurrency = 8): ModelExecutor {
  return new ModelExecutor(providerFor(baseURLs, concurrency), {
    cache: new CallCache(openDatabase(':memory:')),
    baseBackoffMs: 5,
    maxBackoffMs: 50,
    ...options,
  });
}

describe('ModelExecutor', () => {
  it('answers a second identical call from the cache without a request, and marks it cached', async () => {
    const server = await startOpenAICompatibleServer();
    try {
      const ex = executor([server.baseURL]);
      const first = await ex.complete({ prompt: 'Q: who?\nA:', maxTokens: 10 });
      const second = await ex.complete({ prompt: 'Q: who?\nA:', maxTokens: 10 });
      assert.equal(server.requests.length, 1);
      assert.equal(first.cached, false);
      assert.equal(second.cached, true);
      assert.deepEqual(second.value, first.value);
      assert.equal(second.key, first.key);
      assert.equal(ex.accounting.cacheHits, 1);
      assert.equal(ex.accounting.requests, 1);
      // a parameter that changes the output is part of the key
      await ex.complete({ prompt: 'Q: who?\nA:', maxTokens: 11 });
      assert.equal(server.requests.length, 2);
    } finally {
      await server.close();
    }
  });

  it('keys the cache on the model, not on the URL: a replica on another port reuses answers', async () => {
    const a = await startOpenAICompatibleServer();
    const b = await startOpenAICompatibleServer();
    try {
      const cache = new CallCache(openDatabase(':memory:'));
      await new ModelExecutor(providerFor([a.baseURL]), { cache }).complete({ prompt: 'p', maxTokens: 3 });
      const again = await new ModelExecutor(providerFor([b.baseURL]), { cache }).complete({ prompt: 'p', maxTokens: 3 });
      assert.equal(again.cached, true);
      assert.equal(b.requests.length, 0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('bypasses the cache entirely with cache: null (--no-cache)', async () => {
    const server = await startOpenAICompatibleServer();
    try {
      const ex = executor([server.baseURL], { cache: null });
      await ex.complete({ prompt: 'p', maxTokens: 3 });
      await ex.complete({ prompt: 'p', maxTokens: 3 });
      assert.equal(server.requests.length, 2);
    } finally {
      await server.close();
    }
  });

  it('shares one request between identical calls in flight at the same time', async () => {
    const server = await startOpenAICompatibleServer({ delayMs: 30 });
    try {
      const ex = executor([server.baseURL]);
      const results = await Promise.all([1, 2, 3].map(() => ex.complete({ prompt: 'same', maxTokens: 3 })));
      assert.equal(server.requests.length, 1);
      assert.equal(results.filter((r) => r.cached).length, 2);
    } finally {
      await server.close();
    }
  });

  it('shares an identical call in flight between executors on one cache: one request, the second caller not charged for it', async () => {
    const server = await startOpenAICompatibleServer({ delayMs: 50 });
    try {
      const cache = new CallCache(openDatabase(':memory:'));
      // Two runs of a sweep: executors of their own over the same judge, on the sweep's cache.
      const first = new ModelExecutor(providerFor([server.baseURL]), { cache });
      const second = new ModelExecutor(providerFor([server.baseURL]), { cache });
      const [a, b] = await Promise.all([
        first.complete({ prompt: 'same judge prompt', maxTokens: 3 }),
        second.complete({ prompt: 'same judge prompt', maxTokens: 3 }),
      ]);
      assert.equal(server.requests.length, 1);
      assert.deepEqual(b.value, a.value);
      assert.equal(b.key, a.key);
      assert.deepEqual([a.cached, b.cached], [false, true]);
      assert.deepEqual([first.accounting.requests, second.accounting.requests], [1, 0]);
      assert.deepEqual([first.accounting.cacheHits, second.accounting.cacheHits], [0, 1]);
      assert.equal(second.accounting.promptTokens, 0);
      assert.ok(a.value.usage.promptTokens > 0);
      assert.equal(second.accounting.cachedPromptTokens, a.value.usage.promptTokens, 'the tokens the second caller did not pay for');

      // Lists too: texts one executor is fetching are not fetched again by the other.
      const [ea, eb] = await Promise.all([first.embed(['x', 'y']), second.embed(['y', 'z'])]);
      const embedded = server.requests.filter((r) => r.path.endsWith('/embeddings')).flatMap((r) => r.body.input as string[]);
      assert.deepEqual(embedded.sort(), ['x', 'y', 'z']);
      assert.deepEqual(eb.value[0], ea.value[1]);

      // Executors on another cache (or none) send their own request.
      await Promise.all([
        first.complete({ prompt: 'other', maxTokens: 3 }),
        new ModelExecutor(providerFor([server.baseURL]), { cache: new CallCache(openDatabase(':memory:')) }).complete({ prompt: 'other', maxTokens: 3 }),
      ]);
      await Promise.all([
        new ModelExecutor(providerFor([server.baseURL]), { cache: null }).complete({ prompt: 'none', maxTokens: 3 }),
        new ModelExecutor(providerFor([server.baseURL]), { cache: null }).complete({ prompt: 'none', maxTokens: 3 }),
      ]);
      assert.equal(server.requests.filter((r) => r.path.endsWith('/completions')).length, 5);
    } finally {
      await server.close();
    }
  });

  it('waits the Retry-After time on 429, then succeeds, and halves the endpoint concurrency', async () => {
    const server = await startOpenAICompatibleServer({
      fault: (i) =>
        i === 0
          ? { kind: 'status', status: 429, headers: { 'retry-after': '0.3' }, body: JSON.stringify({ error: { message: 'Rate limit reached' } }) }
          : undefined,
    });
    try {
      const ex = executor([server.baseURL]);
      const started = Date.now();
      const r = await ex.complete({ prompt: 'p', maxTokens: 3 });
      const waited = server.requests[1]!.at - server.requests[0]!.at;
      assert.ok(waited >= 280, `second attempt came ${waited} ms after the 429; Retry-After said 300`);
      assert.ok(Date.now() - started >= 280);
      assert.equal(r.cached, false);
      assert.equal(ex.accounting.rateLimited, 1);
      assert.equal(ex.accounting.retries, 1);
    } finally {
      await server.close();
    }
  });

  it('retries 500s with back-off and gives up after maxRetries with a clear message', async () => {
    const server = await startOpenAICompatibleServer({ fault: () => ({ kind: 'status', status: 500 }) });
    try {
      const ex = executor([server.baseURL], { maxRetries: 2 });
      const error = await ex.complete({ prompt: 'p', maxTokens: 3 }).catch((e: unknown) => e);
      assert.ok(error instanceof ModelCallError);
      assert.match(error.message, /HTTP 500.*gave up after 3 attempts/);
      assert.equal(server.requests.length, 3);
      assert.equal(ex.accounting.failures, 1);
    } finally {
      await server.close();
    }
  });

  it('recovers from transient 500s', async () => {
    const server = await startOpenAICompatibleServer({ fault: (i) => (i < 2 ? { kind: 'status', status: 503 } : undefined) });
    try {
      const r = await executor([server.baseURL]).complete({ prompt: 'p', maxTokens: 3 });
      assert.match(r.value.text, /answer-/);
      assert.equal(server.requests.length, 3);
    } finally {
      await server.close();
    }
  });

  it('does not retry a 400', async () => {
    const server = await startOpenAICompatibleServer({ fault: () => ({ kind: 'status', status: 400 }) });
    try {
      await assert.rejects(executor([server.baseURL]).complete({ prompt: 'p', maxTokens: 3 }), /HTTP 400/);
      assert.equal(server.requests.length, 1);
    } finally {
      await server.close();
    }
  });

  it('times out a slow call, retries it, and reports the time-out', async () => {
    const server = await startOpenAICompatibleServer({ fault: () => ({ kind: 'delay', ms: 400 }) });
    try {
      const ex = executor([server.baseURL], { timeoutMs: 80, maxRetries: 1 });
      const error = await ex.complete({ prompt: 'p', maxTokens: 3 }).catch((e: unknown) => e);
      assert.ok(error instanceof ModelCallError);
      assert.match(error.message, /did not answer in time|no answer within 80 ms/);
      assert.equal(server.requests.length, 2);
    } finally {
      await server.close();
    }
  });

  it('never has more calls in flight than the concurrency limit', async () => {
    const server = await startOpenAICompatibleServer({ delayMs: 20 });
    try {
      const ex = executor([server.baseURL], { concurrency: 4 });
      await Promise.all(Array.from({ length: 40 }, (_, i) => ex.complete({ prompt: `p${i}`, maxTokens: 3 })));
      assert.equal(server.requests.length, 40);
      assert.ok(server.maxConcurrent <= 4, `saw ${server.maxConcurrent} concurrent requests`);
      assert.ok(server.maxConcurrent >= 3, 'the limit is also used');
    } finally {
      await server.close();
    }
  });

  it('balances calls across replicas of one deployment', async () => {
    const a = await startOpenAICompatibleServer({ delayMs: 10 });
    const b = await startOpenAICompatibleServer({ delayMs: 10 });
    try {
      const ex = executor([a.baseURL, b.baseURL], { concurrency: 4 });
      await Promise.all(Array.from({ length: 40 }, (_, i) => ex.complete({ prompt: `p${i}`, maxTokens: 3 })));
      assert.equal(a.requests.length + b.requests.length, 40);
      assert.ok(a.requests.length >= 10 && b.requests.length >= 10, `split ${a.requests.length}/${b.requests.length}`);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('caches embeddings per text, so an overlapping batch only pays for new texts', async () => {
    const server = await startOpenAICompatibleServer();
    try {
      const ex = executor([server.baseURL]);
      const first = await ex.embed(['banana', 'kiwi']);
      const second = await ex.embed(['kiwi', 'apple', 'banana']);
      assert.deepEqual(first.value, [
        [6, 3, 1],
        [4, 0, 1],
      ]);
      assert.deepEqual(second.value, [
        [4, 0, 1],
        [5, 1, 1],
        [6, 3, 1],
      ]);
      assert.deepEqual(
        server.requests.map((r) => r.body.input),
        [['banana', 'kiwi'], ['apple']],
        'one request per list, only the new text the second time',
      );
      assert.equal(second.cached, false);
      assert.equal((await ex.embed(['apple', 'kiwi'])).cached, true);
      assert.equal(server.requests.length, 2);
    } finally {
      await server.close();
    }
  });

  it('sends uncached texts EMBED_BATCH to a request, retries a failed batch, and a failure reaches every text of it', async () => {
    const server = await startOpenAICompatibleServer({ fault: (i) => (i === 0 ? { kind: 'status', status: 503 } : undefined) });
    try {
      const ex = executor([server.baseURL]);
      const texts = Array.from({ length: 2 * EMBED_BATCH + 22 }, (_, i) => `text ${i}`);
      const r = await ex.embed([...texts, 'text 0']);
      assert.equal(r.value.length, texts.length + 1);
      assert.deepEqual(r.value[texts.length], r.value[0], 'a repeated text gets the same vector');
      assert.deepEqual(r.value[1], [6, 0, 1]);
      const sizes = server.requests
        .slice(1)
        .map((q) => (q.body.input as string[]).length)
        .sort((a, b) => a - b);
      assert.deepEqual(sizes, [22, EMBED_BATCH, EMBED_BATCH]);
      assert.equal(ex.accounting.retries, 1, 'the 503 was retried');
      assert.equal(ex.accounting.calls, texts.length);
    } finally {
      await server.close();
    }
    const broken = await startOpenAICompatibleServer({ fault: (i) => (i === 0 ? { kind: 'status', status: 400 } : undefined) });
    try {
      const ex = executor([broken.baseURL]);
      await assert.rejects(ex.embed(['a', 'b']), ModelCallError);
      assert.deepEqual(
        (await ex.embed(['a', 'b'])).value,
        [
          [1, 1, 1],
          [1, 0, 1],
        ],
        'nothing of the failed batch stays in flight',
      );
    } finally {
      await broken.close();
    }
  });

  it('accounts tokens and latency for requests and tokens saved by cache hits', async () => {
    const server = await startOpenAICompatibleServer({ complete: () => ' one two three' });
    try {
      const ex = executor([server.baseURL]);
      await ex.complete({ prompt: 'a b', maxTokens: 10 });
      await ex.complete({ prompt: 'a b', maxTokens: 10 });
      assert.equal(ex.accounting.promptTokens, 2);
      assert.equal(ex.accounting.completionTokens, 3);
      assert.equal(ex.accounting.cachedPromptTokens, 2);
      assert.equal(ex.accounting.cachedCompletionTokens, 3);
      assert.ok(ex.accounting.latencyMsTotal > 0);
    } finally {
      await server.close();
    }
  });
});

describe('greedyCompletionParams', () => {
  it('writes the canonical JSON the general path gives (the cache keys of existing caches), and leaves other shapes to it', () => {
    const cases = [
      { prompt: 'Q: "who"\nA:\u0000 ünï \ud83d\ude00 \\ </script>', maxTokens: 7, stop: ['\nQUESTION:', '\nINSTRUCTION:'] },
      { prompt: '', maxTokens: 0, stop: [] },
      { prompt: 'x', maxTokens: 100 },
      { prompt: 'x', maxTokens: 1.5, stop: ['"', '\t'] },
    ];
    for (const c of cases)
      assert.equal(greedyCompletionParams(c)!.json, canonicalJson({ prompt: c.prompt, maxTokens: c.maxTokens, stop: c.stop ?? [], temperature: 0 }));
    assert.equal(greedyCompletionParams({ prompt: 'x', maxTokens: Number.NaN }), undefined);
    assert.equal(greedyCompletionParams({ prompt: 'x', maxTokens: 4, sampling: { temperature: 1, topP: 0.9, seed: 1, sample: 0 } }), undefined);
  });

  it('gives the same text with a shared prefix, and splits no surrogate pair', () => {
    const prompts = ['INSTRUCTION: x\nQUESTION: "ünï" \ud83d\ude00?\nA. a\tb\nANSWER:', 'pre\ud83d\ude00post', 'other prompt'];
    for (const prompt of prompts) {
      for (let cut = 0; cut <= prompt.length; cut++) {
        const request = { prompt, maxTokens: 9, stop: ['\nQ:'] };
        assert.equal(
          greedyCompletionParams(request, new PromptPrefix(prompt.slice(0, cut)))!.json,
          greedyCompletionParams(request)!.json,
          `${JSON.stringify(prompt)} cut at ${cut}`,
        );
      }
      assert.equal(
        greedyCompletionParams({ prompt, maxTokens: 9 }, new PromptPrefix('not its start'))!.json,
        greedyCompletionParams({ prompt, maxTokens: 9 })!.json,
      );
    }
    assert.equal(new PromptPrefix('pre\ud83d').json, undefined);
  });
});
