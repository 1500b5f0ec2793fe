/**
 * CONNER use case 2 as the paper does it, on the GGUF test model: r knowledge texts per query by
 * top-p sampling (they differ from each other; the same seed draws the same texts; greedy calls
 * keep their cache key), a run that fails half-way resumes without repeating a model call (calls
 * counted on the model), and the argmax of Q_know over the draws equals a hand computation on
 * scripted relevance scores.
 */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_CHOICES } from '../src/methods/conner/conner-choices.js';
import { ModelExecutor } from '../src/executor/model-executor.js';
import { referenceEvidence } from '../src/methods/conner/evidence/evidence-source.js';
import type { ConnerQuery } from '../src/methods/conner/generation/conner-queries.js';
import { sampleKnowledge, sampleSeed, type SampleOptions } from '../src/methods/conner/generation/sample-knowledge.js';
import type { PairClassifier } from '../src/methods/conner/scoring/scorers.js';
import { argmaxFirst, bestOfGain, bestOfProtocol, bestOfSamples, samplingDeterminism } from '../src/methods/conner/use-cases/best-of.js';
import type { CompletionRequest, Model } from '../src/providers/language-model.js';
import { LlamaModel } from '../src/providers/llama/llama-model.js';
import { CallCache } from '../src/store/call-cache.js';
import { cacheKey } from '../src/store/call-key.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { OpenAICompatibleModel } from '../src/providers/openai-compatible/openai-compatible-model.js';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';

const gguf = process.env.LLMKB_TEST_GGUF;
if (!gguf) process.stderr.write('SKIPPED: CONNER best-of GGUF tests need LLMKB_TEST_GGUF\n');

const queries: ConnerQuery[] = [
  { id: 'q1', task: 'qa', topic: 'Lily', query: 'where did Lily go with her mom' },
  { id: 'q2', task: 'qa', topic: 'Tom', query: 'what did Tom find in the park' },
  { id: 'q3', task: 'qa', topic: 'Sue', query: 'why was Sue happy' },
];

/** The GGUF model behind a counter: every `complete` that reaches the model is counted, and one can be made to fail. */
function counted(model: LlamaModel, failAt?: number): { model: Model; calls: () => number } {
  let calls = 0;
  const wrapper: Model = {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    kinds: ['text-generation'],
    modelId: model.modelId,
    cacheIdentity: model.cacheIdentity,
    endpoints: model.endpoints,
    defaultConcurrency: 1,
    runtime: model.runtime,
    complete: async (request: CompletionRequest, options) => {
      calls += 1;
      if (calls === failAt) throw new Error('the machine went down');
      return model.complete(request, options);
    },
    chat: (request, options) => model.chat(request, options),
    close: async () => {},
  };
  return { model: wrapper, calls: () => calls };
}

describe('conner best-of by top-p sampling (GGUF generator)', { skip: gguf ? false : 'LLMKB_TEST_GGUF is not set' }, () => {
  let llama: LlamaModel;
  before(async () => {
    llama = await LlamaModel.load({ model: gguf!, modelsDir: tmpdir(), sequences: 1, threads: 1 });
  });
  after(async () => {
    await llama.close();
  });

  const store = () => {
    const db = openDatabase(':memory:');
    return { db, runs: new RunStore(db), cache: new CallCache(db) };
  };
  const options = (generator: ModelExecutor, runs: RunStore, seed = 7): SampleOptions => ({
    queries,
    generator,
    runs,
    setting: 'zero-shot',
    prompt: 4,
    shots: 0,
    demoPool: [],
    seed,
    maxTokens: 24,
    samples: 4,
    topP: 0.9,
    temperature: 1,
    progress: { quiet: true },
  });

  it('draws r different texts per query; the same seed draws the same texts, another seed others', async () => {
    const a = store();
    const first = await sampleKnowledge(options(new ModelExecutor(llama, { cache: a.cache }), a.runs));
    for (const q of first) {
      assert.equal(q.samples.length, 4);
      assert.equal(new Set(q.samples).size, 4, `4 distinct draws for ${q.id}: ${JSON.stringify(q.samples)}`);
      assert.deepEqual(
        q.seeds,
        [0, 1, 2, 3].map((i) => sampleSeed(7, q.id, i)),
      );
    }
    const b = store();
    const again = await sampleKnowledge(options(new ModelExecutor(llama, { cache: b.cache }), b.runs));
    assert.deepEqual(again, first, 'a fresh store and cache, the same seed: the same draws');
    const c = store();
    const other = await sampleKnowledge(options(new ModelExecutor(llama, { cache: c.cache }), c.runs, 8));
    assert.notDeepEqual(
      other.map((q) => q.samples),
      first.map((q) => q.samples),
    );
    // Greedy decoding is what it was: temperature 0 gives one text, whatever the seed would be.
    const greedy = await new ModelExecutor(llama, { cache: null }).complete({ prompt: 'Lily went to', maxTokens: 12 });
    const greedy2 = await llama.complete({ prompt: 'Lily went to', maxTokens: 12 });
    assert.equal(greedy.value.text, greedy2.text);
  });

  it('keeps the cache key of greedy calls; a draw is keyed by its seed and index', async () => {
    const { cache } = store();
    const ex = new ModelExecutor(llama, { cache });
    const greedy = await ex.complete({ prompt: 'Tom had', maxTokens: 4, stop: ['\n'] });
    assert.equal(
      greedy.key,
      cacheKey(llama.cacheIdentity, 'complete', { prompt: 'Tom had', maxTokens: 4, stop: ['\n'], temperature: 0 }),
      'the key greedy calls always had: existing caches stay valid',
    );
    const draw = (sample: number, seed: number) =>
      ex.complete({ prompt: 'Tom had', maxTokens: 4, stop: ['\n'], sampling: { temperature: 1, topP: 0.9, seed, sample } });
    const d0 = await draw(0, 11);
    const d1 = await draw(1, 11);
    assert.notEqual(d0.key, greedy.key);
    assert.notEqual(d0.key, d1.key, 'the draw index is in the key');
    assert.equal(d1.value.text, d0.value.text, 'the same seed draws the same text in-process');
    assert.equal((await draw(0, 11)).cached, true);
  });

  it('a run that fails half-way resumes with no model call repeated', async () => {
    const { runs, cache } = store();
    const total = queries.length * 4;
    const failing = counted(llama, 7); // fails on the 7th draw: query 2, draw 3
    await assert.rejects(sampleKnowledge(options(new ModelExecutor(failing.model, { cache, maxRetries: 0 }), runs)), /went down/);
    assert.equal(failing.calls(), 7);
    const resumed = counted(llama);
    const ex = new ModelExecutor(resumed.model, { cache });
    const records = await sampleKnowledge(options(ex, runs));
    assert.equal(failing.calls() - 1 + resumed.calls(), total, 'each draw reached the model once (the failed one is asked again)');
    assert.equal(resumed.calls(), total - 6);
    assert.equal(ex.accounting.cacheHits, 2, "query 2's two finished draws came from the cache; query 1 from the run store");
    const fresh = store();
    assert.deepEqual(
      records,
      await sampleKnowledge(options(new ModelExecutor(llama, { cache: fresh.cache }), fresh.runs)),
      'byte-identical to an uninterrupted run',
    );
  });

  it('keeps per query the draw with the highest Q (Eq. 9), hand-checked on scripted relevance', async () => {
    const { runs, cache } = store();
    // Scripted relevance: the number of letters "e" in the knowledge, so the expected choice is known.
    const es = (t: string): number => (t.match(/e/g) ?? []).length;
    const relevance: PairClassifier = {
      id: 'scripted:count-e',
      identity: 'scripted:count-e',
      async classify(task, pairs) {
        assert.equal(task, 'relevance');
        return { cached: false, scores: pairs.map((p) => ({ relevant: es(p.textPair) })) };
      },
    };
    const generator = new ModelExecutor(llama, { cache });
    const base = options(generator, runs);
    const choices = await bestOfSamples({
      ...base,
      answerer: generator,
      answerShots: 0,
      answerMaxTokens: 8,
      scoring: {
        runs,
        relevance,
        evidence: referenceEvidence(),
        choices: { ...DEFAULT_CHOICES, negatives: 1 },
        seed: 0,
        gamma: [1, 2, 1, 1],
        progress: { quiet: true },
      },
    });
    assert.equal(choices.length, 3);
    for (const c of choices) {
      // gamma . [fact, rel, coh, info] with only relevance scored: 2 * es(text).
      const expected = c.samples.map((s) => (s === '' ? 0 : 2 * es(s)));
      assert.deepEqual(c.qualities, expected);
      assert.equal(c.candidate, argmaxFirst(expected));
      assert.equal(c.chosen.knowledge, c.samples[c.candidate]);
      assert.equal(c.chosen.setting, 'best-of 4 (top-p 0.9, T 1; zero-shot)');
      assert.equal(c.chosen.generator, `llama:${gguf}`);
      assert.equal(typeof c.chosen.answerWithKnowledge, 'string', 'the chosen knowledge is answered with');
    }
    const gain = bestOfGain(choices);
    assert.ok(gain.perCandidate.every((q) => q! <= gain.chosen!));
  });

  it('argmax: the first of equal values, nulls skipped; the protocol records the sampling', () => {
    assert.equal(argmaxFirst([1, 3, 3, 2]), 1);
    assert.equal(argmaxFirst([null, 0, null]), 1);
    assert.equal(argmaxFirst([null, null]), -1);
    assert.equal(argmaxFirst([-2, -1]), 1);
    assert.deepEqual(samplingDeterminism(llama), { deterministic: true, why: 'in-process, one sequence: the seed fixes each draw' });
    const server = samplingDeterminism({ provider: 'openai-compatible' });
    assert.equal(server.deterministic, false);
    const notes = bestOfProtocol({ mode: 'samples', gamma: [1, 1, 1, 1], samples: 5, topP: 0.9, temperature: 1, determinism: server });
    assert.equal(notes.find((n) => n.id === 'best-of-seeds')!.kind, 'nondeterministic');
    assert.match(notes.find((n) => n.id === 'best-of-sampling')!.text, /p = 0\.9.*temperature 1/);
    assert.equal(bestOfProtocol({ mode: 'files', gamma: [1, 1, 1, 1], files: 3 }).find((n) => n.id === 'best-of-candidates')!.kind, 'departure');
  });
});

describe('sampling on an OpenAI-compatible server', () => {
  it('sends temperature, top_p and seed on both endpoints only when the request samples; never the draw index', async () => {
    const server = await startOpenAICompatibleServer({});
    try {
      for (const api of ['completions', 'chat'] as const) {
        const model = new OpenAICompatibleModel({ baseURLs: [server.baseURL], model: 'm', api, echo: false, topLogprobs: 5, flavor: 'vllm', concurrency: 1 });
        await model.complete({ prompt: 'Lily went', maxTokens: 4 });
        await model.complete({ prompt: 'Lily went', maxTokens: 4, sampling: { temperature: 1, topP: 0.9, seed: 4242, sample: 3 } });
      }
      const bodies = server.requests.map((r) => ({
        path: r.path,
        temperature: r.body.temperature,
        top_p: r.body.top_p,
        seed: r.body.seed,
        sample: r.body.sample,
      }));
      assert.deepEqual(bodies, [
        { path: '/completions', temperature: 0, top_p: undefined, seed: undefined, sample: undefined },
        { path: '/completions', temperature: 1, top_p: 0.9, seed: 4242, sample: undefined },
        { path: '/chat/completions', temperature: 0, top_p: undefined, seed: undefined, sample: undefined },
        { path: '/chat/completions', temperature: 1, top_p: 0.9, seed: 4242, sample: undefined },
      ]);
    } finally {
      await server.close();
    }
  });
});
