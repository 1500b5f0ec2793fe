import assert from 'node:assert/strict';
import { createLanguageModel } from '../create-language-model.js';
import type { ModelEntryOptions } from '../model-entry.js';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { LlamaModel as NativeLlamaModel, Token } from 'node-llama-cpp';
import { startOpenAICompatibleServer } from '#test-support/openai-compatible-server.js';
import { ModelCallError, ModelSpecError } from '../../errors.js';
import { ModelExecutor } from '../../executor/model-executor.js';
import { CallCache } from '../../store/call-cache.js';
import { openDatabase } from '../../store/database.js';
import { LlamaModel } from '../llama/llama-model.js';
import { OpenAICompatibleModel } from '../openai-compatible/openai-compatible-model.js';
import { LlmClassifier } from './llm-classifier.js';
import { createLlmClassifier, parseLlmClassifierSpec } from './llm-classifier-provider.js';

const gguf = process.env.LLMKB_TEST_GGUF;
const close = (a: number, b: number, eps = 1e-6): boolean => Math.abs(a - b) < eps;

describe('LlmClassifier over a server model (vLLM /v1/completions top logprobs)', () => {
  // The model's next-token distribution after the prompt: Yes 0.5, yes 0.1, No 0.2, Maybe 0.1, "The" 0.1.
  const dist = { ' Yes': 0.5, ' yes': 0.1, ' No': 0.2, ' Maybe': 0.1, ' The': 0.1 };

  it('NLI: label probabilities from the label words, renormalised over the labels', async () => {
    const server = await startOpenAICompatibleServer({ nextToken: () => dist });
    try {
      const text = new OpenAICompatibleModel({
        baseURLs: [server.baseURL],
        model: 'llama',
        api: 'completions',
        echo: true,
        topLogprobs: 5,
        flavor: 'vllm',
        concurrency: 4,
      });
      const c = new LlmClassifier({ model: text, task: 'nli' });
      const r = await c.classify({ task: 'nli', pairs: [{ text: 'Paris is in France.', textPair: 'Paris is in Europe.' }] });
      // entailment = 0.6, contradiction = 0.2, neutral = 0.1; "The" is no label: renormalised over 0.9.
      assert.ok(close(r.scores[0]!.entailment!, 0.6 / 0.9));
      assert.ok(close(r.scores[0]!.contradiction!, 0.2 / 0.9));
      assert.ok(close(r.scores[0]!.neutral!, 0.1 / 0.9));
      const body = server.requests[0]!.body;
      assert.equal(
        body.prompt,
        'Premise: Paris is in France.\nHypothesis: Paris is in Europe.\nQuestion: Does the premise entail the hypothesis? Answer Yes, No or Maybe.\nAnswer:',
      );
      assert.equal(body.max_tokens, 1);
      assert.equal(body.logprobs, 5);
    } finally {
      await server.close();
    }
  });

  it('relevance: Yes / (Yes + No); through the executor, cached per pair; a 503 retried by the inner executor', async () => {
    const server = await startOpenAICompatibleServer({ nextToken: () => dist, fault: (i) => (i === 0 ? { kind: 'status', status: 503 } : undefined) });
    try {
      const text = new OpenAICompatibleModel({
        baseURLs: [server.baseURL],
        model: 'llama',
        api: 'completions',
        echo: true,
        topLogprobs: 5,
        flavor: 'vllm',
        concurrency: 4,
      });
      const inner = new ModelExecutor(text, { cache: null, baseBackoffMs: 1, maxBackoffMs: 2 });
      const ex = new ModelExecutor(new LlmClassifier({ model: inner, task: 'relevance' }), { cache: new CallCache(openDatabase(':memory:')) });
      const pairs = [
        { text: 'q', textPair: 'p1' },
        { text: 'q', textPair: 'p2' },
      ];
      const r = await ex.classify({ task: 'relevance', pairs });
      assert.ok(close(r.value.scores[0]!.relevant!, 0.6 / 0.8));
      assert.equal(inner.accounting.retries, 1);
      const again = await ex.classify({ task: 'relevance', pairs });
      assert.equal(again.cached, true);
      assert.equal(server.requests.length, 3);
    } finally {
      await server.close();
    }
  });

  it('no label word among the returned tokens: a clear error, not a made-up score', async () => {
    const server = await startOpenAICompatibleServer({ nextToken: () => ({ ' The': 0.7, ' A': 0.3 }) });
    try {
      const text = new OpenAICompatibleModel({
        baseURLs: [server.baseURL],
        model: 'llama',
        api: 'completions',
        echo: true,
        topLogprobs: 5,
        flavor: 'vllm',
        concurrency: 4,
      });
      await assert.rejects(
        new LlmClassifier({ model: text, task: 'nli' }).classify({ task: 'nli', pairs: [{ text: 'a', textPair: 'b' }] }),
        (e: unknown) => e instanceof ModelCallError && /none of the label words/.test(e.message) && !e.retryable,
      );
      assert.throws(() => new LlmClassifier({ model: text, task: 'nli', labelWords: { entailment: ['Yes'], neutral: ['Maybe'] } }), /contradiction/);
    } finally {
      await server.close();
    }
  });

  it('spec: llm-nli: / llm-relevance: then the text model spec; the cache identity carries prompt and label words', async () => {
    assert.deepEqual(parseLlmClassifierSpec('llm-nli:gguf:./m.gguf', 'llm-nli', 'gguf:./m.gguf'), {
      provider: 'llm-classifier',
      task: 'nli',
      model: 'gguf:./m.gguf',
    });
    assert.equal(parseLlmClassifierSpec('x', 'llm-relevance', 'vllm:http://h/v1/m').task, 'relevance');
    assert.throws(() => parseLlmClassifierSpec('llm-nli:', 'llm-nli', ''), ModelSpecError);
    const server = await startOpenAICompatibleServer({ nextToken: () => dist });
    const textContext = { cacheDir: tmpdir(), createTextModel: (entry: ModelEntryOptions) => createLanguageModel(entry, { cacheDir: tmpdir() }) };
    try {
      const spec = parseLlmClassifierSpec('x', 'llm-relevance', `vllm:${server.baseURL}/llama`);
      const c = await createLlmClassifier(spec, { spec: 'x', topLogprobs: 5 }, textContext);
      const other = await createLlmClassifier(spec, { spec: 'x', labelWords: { relevant: ['Yes'], irrelevant: ['No'] } }, textContext);
      assert.notEqual(c.cacheIdentity, other.cacheIdentity);
      assert.match(c.cacheIdentity, /^llm-classifier:relevance:[0-9a-f]{16}:openai-compatible:vllm:llama/);
      const r = await c.classify({ task: 'relevance', pairs: [{ text: 'q', textPair: 'p' }] });
      assert.ok(close(r.scores[0]!.relevant!, 0.6 / 0.8));
      await assert.rejects(createLlmClassifier(spec, { spec: 'x', task: 'nli' }, textContext), ModelSpecError);
    } finally {
      await server.close();
    }
  });
});

describe('LlmClassifier over $LLMKB_TEST_GGUF', { skip: gguf ? false : 'LLMKB_TEST_GGUF is not set' }, () => {
  let provider: LlamaModel;
  let reference: NativeLlamaModel;
  // stories260K knows no "Yes"/"No": words that are single tokens of its vocabulary stand in.
  const labelWords = { entailment: ['the', 'The'], neutral: ['a'], contradiction: ['he', 'He'] };
  before(async () => {
    provider = await LlamaModel.load({ model: gguf!, modelsDir: tmpdir(), threads: 1 });
    const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
    const llama = await getLlama({ gpu: false, maxThreads: 1, logLevel: LlamaLogLevel.error, progressLogs: false });
    reference = await llama.loadModel({ modelPath: gguf! });
  });
  after(async () => {
    await provider.close();
    await reference.dispose();
  });

  /** The model's full next-token distribution after `prompt`, read in a fresh context. */
  async function nextTokenDistribution(prompt: string): Promise<Map<Token, number>> {
    const tokens =
      reference.tokens.bos !== null && reference.tokens.shouldPrependBosToken
        ? [reference.tokens.bos, ...reference.tokenize(prompt, false)]
        : reference.tokenize(prompt, false);
    const context = await reference.createContext({ contextSize: 512, threads: 1 });
    try {
      for await (const r of context.getSequence().evaluateWithMetadata(tokens, { probabilities: true }, { temperature: 0 })) return r.probabilities;
      throw new Error('no output');
    } finally {
      await context.dispose();
    }
  }

  it("scores are the label words' probabilities under the model, renormalised over the labels", async () => {
    const c = new LlmClassifier({ model: provider, task: 'nli', labelWords });
    const pairs = [
      { text: 'Lily went to the park.', textPair: 'Lily was at the park.' },
      { text: 'Tom has a red ball.', textPair: 'Tom has no ball.' },
    ];
    const r = await c.classify({ task: 'nli', pairs });
    for (const [i, pair] of pairs.entries()) {
      const dist = await nextTokenDistribution(c.promptFor(pair));
      const mass = (words: string[]): number => [...dist].filter(([t]) => words.includes(reference.detokenize([t]).trim())).reduce((s, [, p]) => s + p, 0);
      const m = { entailment: mass(labelWords.entailment), neutral: mass(labelWords.neutral), contradiction: mass(labelWords.contradiction) };
      const total = m.entailment + m.neutral + m.contradiction;
      assert.ok(total > 0 && total < 1, `label mass ${total}`);
      for (const label of ['entailment', 'neutral', 'contradiction'] as const)
        assert.ok(close(r.scores[i]![label]!, m[label] / total, 1e-4), `${label}: ${r.scores[i]![label]} vs ${m[label] / total}`);
      assert.ok(close(r.scores[i]!.entailment! + r.scores[i]!.neutral! + r.scores[i]!.contradiction!, 1, 1e-9));
    }
  });

  it('the default Yes/No/Maybe words are not tokens of stories260K: a clear error', async () => {
    await assert.rejects(
      new LlmClassifier({ model: provider, task: 'nli' }).classify({ task: 'nli', pairs: [{ text: 'a', textPair: 'b' }] }),
      (e: unknown) => e instanceof ModelCallError && /none of the label words/.test(e.message),
    );
  });
});
