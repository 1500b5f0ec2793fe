/**
 * The call cache's key, through the executor's public calls: it differs when any field that
 * changes the answer differs (prompt, messages, model identity, max tokens, stop strings,
 * temperature, top-p, seed, draw index, candidates, chat or not, context, continuation, task,
 * text pair, kind of call), and is the same when only something that cannot change the answer
 * differs (the shared prompt prefix hint, an absent versus empty stop list, the endpoint, the
 * order of a request's fields). A different key must also reach the model again; the same key
 * must not.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PromptPrefix } from '../../src/executor/call-params.js';
import { ModelExecutor, type Executed } from '../../src/executor/model-executor.js';
import type {
  CallOptions,
  ChatRequest,
  CompletionRequest,
  CompletionResult,
  ContinuationLogLikelihoodRequest,
  EmbeddingRequest,
  Model,
  NextTokenLogprobsRequest,
  Sampling,
} from '../../src/providers/language-model.js';
import type { ClassificationRequest, ClassificationResult, ModelKind, TokenScoresRequest } from '../../src/providers/model-kinds.js';
import { CallCache } from '../../src/store/call-cache.js';
import { openDatabase } from '../../src/store/database.js';

const usage = { promptTokens: 1, completionTokens: 1, evaluatedTokens: 2 };

/** A model of every kind whose answers are a function of the request; it counts the calls that reach it. */
class EveryKindModel implements Model {
  readonly specificationVersion = 'llmkb-model-v1' as const;
  readonly provider = 'test';
  readonly kinds: readonly ModelKind[] = ['text-generation', 'embedding', 'scoring', 'classification'];
  readonly tasks = ['nli', 'relevance'] as const;
  readonly defaultConcurrency = 1;
  reached = 0;
  constructor(
    readonly cacheIdentity: string,
    readonly endpoints: readonly string[] = ['local'],
    readonly modelId = 'every-kind',
  ) {}
  async complete(r: CompletionRequest, _o?: CallOptions): Promise<CompletionResult> {
    this.reached++;
    return { text: JSON.stringify(r), finishReason: 'stop', usage };
  }
  async chat(r: ChatRequest, _o?: CallOptions): Promise<CompletionResult> {
    this.reached++;
    return { text: JSON.stringify(r), finishReason: 'stop', usage };
  }
  async nextTokenLogprobs(r: NextTokenLogprobsRequest) {
    this.reached++;
    return { logprobs: Object.fromEntries(r.candidates.map((c, i) => [c, -i - r.prompt.length])), usage };
  }
  async continuationLogLikelihood(r: ContinuationLogLikelihoodRequest) {
    this.reached++;
    return { logLikelihood: -r.continuation.length - r.context.length, tokens: r.continuation.length, usage };
  }
  async embed(r: EmbeddingRequest) {
    this.reached++;
    return { embeddings: r.texts.map((t) => [t.length, 1]), usage };
  }
  async scoreTokens(r: TokenScoresRequest) {
    this.reached++;
    const tokens = [...r.continuation];
    const tokenLogprobs = tokens.map(() => -1 - r.context.length);
    return { tokens, tokenLogprobs, logLikelihood: tokenLogprobs.reduce((a, b) => a + b, 0), usage };
  }
  async classify(r: ClassificationRequest): Promise<ClassificationResult> {
    this.reached++;
    return {
      scores: r.pairs.map(
        (p): Record<string, number> =>
          r.task === 'nli' ? { entailment: p.text.length / 100, neutral: 0, contradiction: 1 - p.text.length / 100 } : { relevant: p.textPair.length / 100 },
      ),
      usage,
    };
  }
  async close(): Promise<void> {}
}

function setup(identity = 'test:model-a'): { model: EveryKindModel; executor: ModelExecutor; cache: CallCache } {
  const cache = new CallCache(openDatabase(':memory:'));
  const model = new EveryKindModel(identity);
  return { model, executor: new ModelExecutor(model, { cache }), cache };
}

/** The call twice, then each variant: the base is cached the second time, each variant is a new key that reaches the model. */
async function assertKeyFields<R>(
  call: (executor: ModelExecutor, request: R) => Promise<Executed<unknown>>,
  base: R,
  variants: Record<string, R>,
): Promise<void> {
  const { model, executor } = setup();
  const first = await call(executor, base);
  assert.equal(first.cached, false);
  assert.match(first.key, /^[0-9a-f]{64}$/);
  const again = await call(executor, structuredClone(base));
  assert.equal(again.cached, true, 'the same request is a cache hit');
  assert.equal(again.key, first.key);
  const keys = new Map<string, string>([[first.key, 'base']]);
  for (const [field, request] of Object.entries(variants)) {
    const before = model.reached;
    const r = await call(executor, request);
    assert.equal(keys.has(r.key), false, `changing ${field} must change the key (it equals that of ${keys.get(r.key)})`);
    assert.equal(r.cached, false, `changing ${field} must not be answered from the cache`);
    assert.equal(model.reached, before + 1, `changing ${field} reaches the model`);
    keys.set(r.key, field);
  }
}

const sampling: Sampling = { temperature: 0.7, topP: 0.9, seed: 11, sample: 0 };

describe('call keys: every field that changes the answer is in the key', () => {
  it('complete: prompt, max tokens, stop, greedy or sampled, temperature, top-p, seed, draw', async () => {
    const base: CompletionRequest = { prompt: 'QUESTION: Who wrote Hamlet?\nANSWER:', maxTokens: 100, stop: ['\nQUESTION:'], sampling };
    await assertKeyFields((e, r: CompletionRequest) => e.complete(r), base, {
      prompt: { ...base, prompt: 'QUESTION: Who wrote Emma?\nANSWER:' },
      'max tokens': { ...base, maxTokens: 101 },
      stop: { ...base, stop: ['\nQ:'] },
      'stop order': { ...base, stop: ['\nQUESTION:', '\n\n'] },
      'greedy decoding': { prompt: base.prompt, maxTokens: 100, stop: ['\nQUESTION:'] },
      temperature: { ...base, sampling: { ...sampling, temperature: 1.0 } },
      'top-p': { ...base, sampling: { ...sampling, topP: 0.95 } },
      seed: { ...base, sampling: { ...sampling, seed: 12 } },
      'draw index': { ...base, sampling: { ...sampling, sample: 1 } },
    });
  });

  it('complete, greedy: prompt, max tokens and stop (the fast path of the key)', async () => {
    const base: CompletionRequest = { prompt: 'p', maxTokens: 5, stop: ['\n'] };
    await assertKeyFields((e, r: CompletionRequest) => e.complete(r), base, {
      prompt: { ...base, prompt: 'q' },
      'max tokens': { ...base, maxTokens: 6 },
      stop: { ...base, stop: [] },
      'sampled at temperature 0': { ...base, sampling: { temperature: 0, topP: 1, seed: 0, sample: 0 } },
    });
  });

  it("chat: each message's role and content, max tokens, stop, temperature, top-p, seed, draw", async () => {
    const base: ChatRequest = {
      messages: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: 'Who wrote Hamlet?' },
      ],
      maxTokens: 50,
      stop: [],
      sampling,
    };
    await assertKeyFields((e, r: ChatRequest) => e.chat(r), base, {
      content: { ...base, messages: [base.messages[0]!, { role: 'user', content: 'Who wrote Emma?' }] },
      role: { ...base, messages: [{ role: 'user', content: 'Answer briefly.' }, base.messages[1]!] },
      'one message fewer': { ...base, messages: [base.messages[1]!] },
      'max tokens': { ...base, maxTokens: 51 },
      stop: { ...base, stop: ['\n'] },
      temperature: { ...base, sampling: { ...sampling, temperature: 1.0 } },
      'top-p': { ...base, sampling: { ...sampling, topP: 0.5 } },
      seed: { ...base, sampling: { ...sampling, seed: 1 } },
      'draw index': { ...base, sampling: { ...sampling, sample: 3 } },
      'greedy decoding': { messages: base.messages, maxTokens: 50, stop: [] },
    });
  });

  it('next-token log-probabilities: prompt, candidates, chat or not', async () => {
    const base: NextTokenLogprobsRequest = { prompt: 'A. x\nB. y\nANSWER:', candidates: ['A', 'B'] };
    await assertKeyFields((e, r: NextTokenLogprobsRequest) => e.nextTokenLogprobs(r), base, {
      prompt: { ...base, prompt: 'A. y\nB. x\nANSWER:' },
      candidates: { ...base, candidates: ['A', 'B', 'C'] },
      'as chat': { ...base, asChat: true },
    });
  });

  it('continuation log-likelihood and token scores: context and continuation', async () => {
    const base = { context: 'The capital of France is', continuation: ' Paris' };
    await assertKeyFields((e, r: ContinuationLogLikelihoodRequest) => e.continuationLogLikelihood(r), base, {
      context: { ...base, context: 'The capital of Italy is' },
      continuation: { ...base, continuation: ' Rome' },
    });
    await assertKeyFields((e, r: TokenScoresRequest) => e.scoreTokens(r), base, {
      context: { ...base, context: '' },
      continuation: { ...base, continuation: ' Lyon' },
    });
  });

  it('classification: task, text and text pair', async () => {
    const base: ClassificationRequest = { task: 'nli', pairs: [{ text: 'Paris is in France.', textPair: 'Paris is French.' }] };
    await assertKeyFields((e, r: ClassificationRequest) => e.classify(r), base, {
      task: { ...base, task: 'relevance' },
      text: { task: 'nli', pairs: [{ text: 'Lyon is in France.', textPair: 'Paris is French.' }] },
      'text pair': { task: 'nli', pairs: [{ text: 'Paris is in France.', textPair: 'Paris is Italian.' }] },
      'text and pair swapped': { task: 'nli', pairs: [{ text: 'Paris is French.', textPair: 'Paris is in France.' }] },
    });
  });

  it('embedding: one entry per text (a different text reaches the model)', async () => {
    const { model, executor } = setup();
    assert.equal((await executor.embed(['Paris'])).cached, false);
    assert.equal((await executor.embed(['Paris'])).cached, true);
    assert.equal(model.reached, 1);
    assert.equal((await executor.embed(['Paris.'])).cached, false);
    assert.equal(model.reached, 2);
  });

  it('the kind of call: the same fields asked as another kind are another entry', async () => {
    const { executor } = setup();
    const fields = { context: 'c', continuation: ' d' };
    const a = await executor.continuationLogLikelihood(fields);
    const b = await executor.scoreTokens(fields);
    assert.notEqual(a.key, b.key);
    assert.equal(b.cached, false);
    const complete = await executor.complete({ prompt: 'x', maxTokens: 1 });
    const chat = await executor.chat({ messages: [{ role: 'user', content: 'x' }], maxTokens: 1 });
    const logprobs = await executor.nextTokenLogprobs({ prompt: 'x', candidates: ['A'] });
    assert.equal(new Set([complete.key, chat.key, logprobs.key]).size, 3);
  });

  it('the model identity: another model is another entry, for every kind', async () => {
    const cache = new CallCache(openDatabase(':memory:'));
    const a = new ModelExecutor(new EveryKindModel('test:model-a'), { cache });
    const bModel = new EveryKindModel('test:model-b');
    const b = new ModelExecutor(bModel, { cache });
    const calls: Array<(e: ModelExecutor) => Promise<Executed<unknown>>> = [
      (e) => e.complete({ prompt: 'p', maxTokens: 3 }),
      (e) => e.complete({ prompt: 'p', maxTokens: 3, sampling }),
      (e) => e.chat({ messages: [{ role: 'user', content: 'p' }], maxTokens: 3 }),
      (e) => e.nextTokenLogprobs({ prompt: 'p', candidates: ['A'] }),
      (e) => e.continuationLogLikelihood({ context: 'p', continuation: 'q' }),
      (e) => e.scoreTokens({ context: 'p', continuation: 'q' }),
      (e) => e.classify({ task: 'nli', pairs: [{ text: 'p', textPair: 'q' }] }),
      (e) => e.embed(['p']),
    ];
    for (const call of calls) await call(a);
    for (const [i, call] of calls.entries()) {
      const r = await call(b);
      assert.equal(r.cached, false, `call ${i} of model b is not model a's`);
    }
    assert.equal(bModel.reached, calls.length);
  });
});

describe('call keys: what cannot change the answer is not in the key', () => {
  it('a shared prompt prefix hint, whether or not the prompt starts with it', async () => {
    const { model, executor } = setup();
    const request: CompletionRequest = { prompt: 'INSTRUCTION: shared\nQUESTION: q\nA. x\nANSWER:', maxTokens: 4, stop: ['\nQUESTION:'] };
    const plain = await executor.complete(request);
    const withPrefix = await executor.complete(request, new PromptPrefix('INSTRUCTION: shared\nQUESTION: q\n'));
    const otherPrefix = await executor.complete(request, new PromptPrefix('something else'));
    assert.equal(withPrefix.key, plain.key);
    assert.equal(otherPrefix.key, plain.key);
    assert.equal(model.reached, 1);
  });

  it('a prefix ending inside a surrogate pair', async () => {
    const { executor } = setup();
    const prompt = 'emoji 😀 here';
    const cut = prompt.slice(0, prompt.indexOf('😀') + 1);
    const plain = await executor.complete({ prompt, maxTokens: 2 });
    assert.equal((await executor.complete({ prompt, maxTokens: 2 }, new PromptPrefix(cut))).key, plain.key);
  });

  it("stop absent or empty; asChat absent or false; the order of the request's fields", async () => {
    const { model, executor } = setup();
    const a = await executor.complete({ prompt: 'p', maxTokens: 3 });
    assert.equal((await executor.complete({ prompt: 'p', maxTokens: 3, stop: [] })).key, a.key);
    assert.equal((await executor.complete({ maxTokens: 3, prompt: 'p' } as CompletionRequest)).key, a.key);
    const s = await executor.complete({ prompt: 'p', maxTokens: 3, sampling });
    assert.equal((await executor.complete({ prompt: 'p', maxTokens: 3, sampling: { sample: 0, seed: 11, topP: 0.9, temperature: 0.7 } })).key, s.key);
    const l = await executor.nextTokenLogprobs({ prompt: 'p', candidates: ['A'] });
    assert.equal((await executor.nextTokenLogprobs({ prompt: 'p', candidates: ['A'], asChat: false })).key, l.key);
    assert.equal(model.reached, 3);
  });

  it('the endpoint and the name a model is shown by: the same identity shares entries', async () => {
    const cache = new CallCache(openDatabase(':memory:'));
    await new ModelExecutor(new EveryKindModel('test:same', ['http://127.0.0.1:1'], 'name-one'), { cache }).complete({ prompt: 'p', maxTokens: 3 });
    const replica = new EveryKindModel('test:same', ['http://127.0.0.1:2'], 'name-two');
    const r = await new ModelExecutor(replica, { cache }).complete({ prompt: 'p', maxTokens: 3 });
    assert.equal(r.cached, true);
    assert.equal(replica.reached, 0);
  });

  it('one classification entry per pair, whatever list it came in', async () => {
    const { model, executor } = setup();
    const pair = { text: 'Paris is in France.', textPair: 'Paris is French.' };
    const alone = await executor.classify({ task: 'nli', pairs: [pair] });
    await executor.classify({ task: 'nli', pairs: [{ text: 'x', textPair: 'y' }, pair] });
    assert.equal(model.reached, 2, 'only the new pair was sent');
    assert.equal((await executor.classify({ task: 'nli', pairs: [{ ...pair }] })).key, alone.key);
  });
});
