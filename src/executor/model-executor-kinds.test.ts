import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ModelCallError, UnsupportedCapabilityError } from '../errors.js';
import type { CallOptions } from '../providers/language-model.js';
import type {
  ClassificationModel,
  ClassificationRequest,
  ClassificationResult,
  ScoringModel,
  TokenScoresRequest,
  TokenScoresResult,
} from '../providers/model-kinds.js';
import { OpenAICompatibleModel } from '../providers/openai-compatible/openai-compatible-model.js';
import { CallCache } from '../store/call-cache.js';
import { openDatabase } from '../store/database.js';
import { RunStore } from '../store/run-store.js';
import { CLASSIFY_BATCH, ModelExecutor } from './model-executor.js';

/**
 * The executor's own logic (cache per call / per pair, batching, kind checks, retries) over
 * models written here whose answers are a pure function of the request: the providers are
 * tested against real servers and the GGUF model in their own folders.
 */
class CharScorer implements ScoringModel {
  readonly specificationVersion = 'llmkb-model-v1' as const;
  readonly provider = 'test';
  readonly modelId = 'char-scorer';
  readonly cacheIdentity = 'test:char-scorer';
  readonly kinds = ['scoring'] as const;
  readonly endpoints = ['local'];
  readonly defaultConcurrency = 2;
  calls: TokenScoresRequest[] = [];
  async scoreTokens(request: TokenScoresRequest): Promise<TokenScoresResult> {
    this.calls.push(request);
    const tokens = [...request.continuation];
    const tokenLogprobs = tokens.map((_, i) => -Math.log(2 + i + request.context.length));
    return {
      tokens,
      tokenLogprobs,
      logLikelihood: tokenLogprobs.reduce((a, b) => a + b, 0),
      usage: { promptTokens: request.context.length + tokens.length, completionTokens: 0, evaluatedTokens: request.context.length + tokens.length },
    };
  }
  async close(): Promise<void> {}
}

class LengthClassifier implements ClassificationModel {
  readonly specificationVersion = 'llmkb-model-v1' as const;
  readonly provider = 'test';
  readonly modelId = 'length-classifier';
  readonly cacheIdentity = 'test:length-classifier';
  readonly kinds = ['classification'] as const;
  readonly tasks = ['relevance'] as const;
  readonly endpoints = ['local'];
  readonly defaultConcurrency = 4;
  requests: ClassificationRequest[] = [];
  failNext = 0;
  async classify(request: ClassificationRequest, _options?: CallOptions): Promise<ClassificationResult> {
    this.requests.push(request);
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw new ModelCallError('server busy', { retryable: true, status: 503 });
    }
    const scores = request.pairs.map((p) => ({ relevant: p.textPair.length / (p.text.length + p.textPair.length) }));
    const promptTokens = request.pairs.reduce((n, p) => n + p.text.length + p.textPair.length, 0);
    return { scores, usage: { promptTokens, completionTokens: 0, evaluatedTokens: promptTokens } };
  }
  async close(): Promise<void> {}
}

const cache = (): CallCache => new CallCache(openDatabase(':memory:'));

describe('ModelExecutor over scoring and classification models', () => {
  it('scoreTokens: cached by (context, continuation); identical calls in flight share one call', async () => {
    const model = new CharScorer();
    const ex = new ModelExecutor(model, { cache: cache() });
    const [a, b] = await Promise.all([ex.scoreTokens({ context: 'q', continuation: 'ab' }), ex.scoreTokens({ context: 'q', continuation: 'ab' })]);
    assert.equal(model.calls.length, 1);
    assert.deepEqual(a.value.tokenLogprobs, [-Math.log(3), -Math.log(4)]);
    assert.deepEqual(b.value, a.value);
    const again = await ex.scoreTokens({ context: 'q', continuation: 'ab' });
    assert.equal(again.cached, true);
    assert.equal(again.key, a.key);
    await ex.scoreTokens({ context: 'qq', continuation: 'ab' });
    assert.equal(model.calls.length, 2);
    assert.equal(ex.accounting.cacheHits, 2);
  });

  it('classify: one cache entry per pair, uncached pairs batched CLASSIFY_BATCH to a request, order kept', async () => {
    const model = new LengthClassifier();
    const store = cache();
    const ex = new ModelExecutor(model, { cache: store });
    const pairs = Array.from({ length: CLASSIFY_BATCH + 3 }, (_, i) => ({ text: `q${i}`, textPair: 'p'.repeat(i + 1) }));
    const first = await ex.classify({ task: 'relevance', pairs });
    assert.equal(model.requests.length, 2);
    assert.deepEqual(
      model.requests.map((r) => r.pairs.length),
      [CLASSIFY_BATCH, 3],
    );
    assert.equal(first.cached, false);
    for (const [i, p] of pairs.entries()) assert.equal(first.value.scores[i]!.relevant, p.textPair.length / (p.text.length + p.textPair.length));
    // An overlapping list (reversed, one new pair, one duplicate) sends only the new pair.
    const overlap = [{ text: 'new', textPair: 'x' }, ...pairs.slice(0, 5).reverse(), pairs[0]!];
    const second = await ex.classify({ task: 'relevance', pairs: overlap });
    assert.equal(model.requests.length, 3);
    assert.deepEqual(model.requests[2]!.pairs, [{ text: 'new', textPair: 'x' }]);
    assert.deepEqual(second.value.scores.slice(1, 6), first.value.scores.slice(0, 5).reverse());
    assert.deepEqual(second.value.scores[6], first.value.scores[0]);
    // Another executor over the same store: all from the cache, no request.
    const model2 = new LengthClassifier();
    const third = await new ModelExecutor(model2, { cache: store }).classify({ task: 'relevance', pairs: overlap });
    assert.equal(model2.requests.length, 0);
    assert.equal(third.cached, true);
    assert.deepEqual(third.value.scores, second.value.scores);
    assert.deepEqual(third.value.usage, { promptTokens: 0, completionTokens: 0, evaluatedTokens: 0 });
  });

  it('classify: a transient failure is retried; the pairs are cached only after success', async () => {
    const model = new LengthClassifier();
    model.failNext = 2;
    const ex = new ModelExecutor(model, { cache: cache(), baseBackoffMs: 1, maxBackoffMs: 2 });
    const r = await ex.classify({ task: 'relevance', pairs: [{ text: 'a', textPair: 'bb' }] });
    assert.equal(r.value.scores[0]!.relevant, 2 / 3);
    assert.equal(model.requests.length, 3);
    assert.equal(ex.accounting.retries, 2);
    model.failNext = 5;
    const ex2 = new ModelExecutor(model, { cache: cache(), baseBackoffMs: 1, maxBackoffMs: 2, maxRetries: 1 });
    await assert.rejects(ex2.classify({ task: 'relevance', pairs: [{ text: 'a', textPair: 'bb' }] }), /gave up after 2 attempts/);
  });

  it('refuses a call the model cannot make, with a clear error, before any request', async () => {
    // Without echo an OpenAI-compatible model is no scoring model.
    const text = new OpenAICompatibleModel({
      baseURLs: ['http://127.0.0.1:9'],
      model: 'm',
      api: 'completions',
      echo: false,
      topLogprobs: 5,
      flavor: 'vllm',
      concurrency: 1,
    });
    const ex = new ModelExecutor(text, { cache: null });
    await assert.rejects(
      ex.scoreTokens({ context: 'a', continuation: 'b' }),
      (e: unknown) => e instanceof UnsupportedCapabilityError && /not a scoring model/.test(e.message),
    );
    await assert.rejects(
      ex.classify({ task: 'nli', pairs: [{ text: 'a', textPair: 'b' }] }),
      (e: unknown) => e instanceof UnsupportedCapabilityError && /not a classification model/.test(e.message),
    );
    const relevanceOnly = new ModelExecutor(new LengthClassifier(), { cache: null });
    await assert.rejects(
      relevanceOnly.classify({ task: 'nli', pairs: [{ text: 'a', textPair: 'b' }] }),
      (e: unknown) => e instanceof UnsupportedCapabilityError && /does relevance, not nli/.test(e.message),
    );
    const scorer = new ModelExecutor(new CharScorer(), { cache: null });
    await assert.rejects(scorer.complete({ prompt: 'p', maxTokens: 1 }), UnsupportedCapabilityError);
  });

  it('classify for a run: each pair is a call of the run, the request paid with the first, the shares adding up to its tokens; a retry is a request', async () => {
    const db = openDatabase(':memory:');
    const run = new RunStore(db).open({ model: 'test:length-classifier', dataset: 'd', setting: 's', seed: 1, params: {} });
    const model = new LengthClassifier();
    model.failNext = 1;
    const ex = new ModelExecutor(model, { cache: new CallCache(db), baseBackoffMs: 1 });
    ex.run.attribute({ run: run.id, role: 'relevance' });
    const pairs = [
      { text: 'q', textPair: 'a' },
      { text: 'q', textPair: 'bb' },
      { text: 'q', textPair: 'ccc' },
    ];
    await ex.classify({ task: 'relevance', pairs });
    // One pair again: a cache hit of the run, kept with the counts it adds (RunStore.addCalls).
    await ex.classify({ task: 'relevance', pairs: [pairs[0]!] });
    run.addCalls({ relevance: ex.run.unpaid });
    ex.commitCalls();
    assert.deepEqual(run.calls(), { relevance: { calls: 4, cacheHits: 1, requests: 2, promptTokens: 9, completionTokens: 0 } });
    assert.deepEqual([ex.accounting.calls, ex.accounting.requests, ex.accounting.promptTokens], [4, 2, 9]);
  });
});
