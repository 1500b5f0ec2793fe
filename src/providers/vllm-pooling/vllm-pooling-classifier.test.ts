import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { overlapCoherence, overlapLogit, overlapNli, startScorerServer } from '#test-support/scorer-server.js';
import { ModelCallError, ModelSpecError } from '../../errors.js';
import { ModelExecutor } from '../../executor/model-executor.js';
import { CallCache } from '../../store/call-cache.js';
import { openDatabase } from '../../store/database.js';
import { sigmoid, softmax } from '../classification/labels.js';
import { VllmPoolingClassifier } from './vllm-pooling-classifier.js';
import { createVllmPoolingClassifier, parseVllmPoolingSpec } from './vllm-pooling-provider.js';

const close = (a: number, b: number): boolean => Math.abs(a - b) < 1e-6;
const PAIRS = [
  { text: 'capital of france', textPair: 'Paris is the capital of France.' },
  { text: 'who wrote hamlet', textPair: 'Berlin is in Germany.' },
  { text: 'capital of france', textPair: 'France is a country.' },
];
const NLI = { '0': 'contradiction', '1': 'entailment', '2': 'neutral' } as const;

describe('vLLM pooling classifier', () => {
  it('/score: all pairs in one request (text_1/text_2 lists); the server activation (sigmoid) taken as is', async () => {
    const server = await startScorerServer({ serves: 'relevance' });
    try {
      const c = new VllmPoolingClassifier({ baseURLs: [`${server.url}/v1`], model: 'cross-encoder/ms-marco-MiniLM-L-6-v2', endpoint: 'score' });
      const r = await c.classify({ task: 'relevance', pairs: PAIRS });
      assert.equal(server.requests.length, 1);
      assert.equal(server.requests[0]!.path, '/score');
      assert.deepEqual(server.requests[0]!.body, {
        model: 'cross-encoder/ms-marco-MiniLM-L-6-v2',
        text_1: PAIRS.map((p) => p.text),
        text_2: PAIRS.map((p) => p.textPair),
      });
      for (const [i, p] of PAIRS.entries()) assert.ok(close(r.scores[i]!.relevant!, sigmoid(overlapLogit(p.text, p.textPair))));
      assert.ok(r.usage.promptTokens > 0);
    } finally {
      await server.close();
    }
  });

  it('scores: "logit" sends use_activation: false and applies sigmoid itself (same numbers)', async () => {
    const server = await startScorerServer({ serves: 'relevance' });
    try {
      const c = new VllmPoolingClassifier({ baseURLs: [`${server.url}/v1`], model: 'm', endpoint: 'score', scores: 'logit' });
      const r = await c.classify({ task: 'relevance', pairs: PAIRS });
      assert.equal(server.requests[0]!.body.use_activation, false);
      for (const [i, p] of PAIRS.entries()) assert.ok(close(r.scores[i]!.relevant!, sigmoid(overlapLogit(p.text, p.textPair))));
    } finally {
      await server.close();
    }
    // A server that returns raw logits while the model is configured for probabilities: caught, not passed on.
    const rawBody = JSON.stringify({
      id: 'score-1',
      object: 'list',
      created: 1,
      model: 'm',
      data: [{ index: 0, object: 'score', score: 3.2 }],
      usage: { prompt_tokens: 4, total_tokens: 4 },
    });
    const raw = await startScorerServer({ serves: 'relevance', fault: () => ({ kind: 'status', status: 200, body: rawBody }) });
    try {
      const c = new VllmPoolingClassifier({ baseURLs: [`${raw.url}/v1`], model: 'm', endpoint: 'score' });
      await assert.rejects(
        c.classify({ task: 'relevance', pairs: [{ text: 'a', textPair: 'b' }] }),
        (e: unknown) => e instanceof ModelCallError && /3\.2, outside \[0, 1\]/.test(e.message) && /"scores": "logit"/.test(e.hint ?? ''),
      );
    } finally {
      await raw.close();
    }
  });

  it('/rerank and /v1/rerank: one request per query, answers (sorted by score) back in pair order', async () => {
    const server = await startScorerServer({ serves: 'relevance' });
    try {
      for (const endpoint of ['rerank', 'v1/rerank'] as const) {
        const c = new VllmPoolingClassifier({ baseURLs: [`${server.url}/v1`], model: 'BAAI/bge-reranker-v2-m3', endpoint });
        const r = await c.classify({ task: 'relevance', pairs: PAIRS });
        for (const [i, p] of PAIRS.entries()) assert.ok(close(r.scores[i]!.relevant!, sigmoid(overlapLogit(p.text, p.textPair))));
      }
      assert.deepEqual(
        server.requests.map((q) => q.path),
        ['/rerank', '/rerank', '/v1/rerank', '/v1/rerank'],
      );
      assert.deepEqual(server.requests[0]!.body, {
        model: 'BAAI/bge-reranker-v2-m3',
        query: 'capital of france',
        documents: ['Paris is the capital of France.', 'France is a country.'],
        top_n: 2,
      });
    } finally {
      await server.close();
    }
  });

  it('/classify for NLI: pairs joined by the template, probabilities read by class index', async () => {
    const server = await startScorerServer({ serves: 'nli', classifySeparator: '</s></s>' });
    try {
      const c = new VllmPoolingClassifier({
        baseURLs: [`${server.url}/v1`],
        model: 'roberta-large-mnli',
        endpoint: 'classify',
        labels: { ...NLI },
        pairTemplate: '{text}</s></s>{textPair}',
      });
      const pairs = [
        { text: 'Paris is in France.', textPair: 'Paris is in France.' },
        { text: 'Paris is in France.', textPair: 'Paris is not in France.' },
      ];
      const r = await c.classify({ task: 'nli', pairs });
      assert.deepEqual(server.requests[0]!.body.input, [
        'Paris is in France.</s></s>Paris is in France.',
        'Paris is in France.</s></s>Paris is not in France.',
      ]);
      for (const [i, p] of pairs.entries()) {
        const e = softmax(overlapNli(p.text, p.textPair));
        assert.ok(close(r.scores[i]!.contradiction!, e[0]!) && close(r.scores[i]!.entailment!, e[1]!) && close(r.scores[i]!.neutral!, e[2]!));
      }
      assert.throws(() => new VllmPoolingClassifier({ baseURLs: [`${server.url}/v1`], model: 'm', endpoint: 'classify', labels: { ...NLI } }), ModelSpecError);
      assert.throws(
        () =>
          new VllmPoolingClassifier({
            baseURLs: [`${server.url}/v1`],
            model: 'm',
            endpoint: 'classify',
            labels: { ENTAILMENT: 'entailment' },
            pairTemplate: '{text} {textPair}',
          }),
        ModelSpecError,
      );
    } finally {
      await server.close();
    }
  });

  it('/classify for a two-logit relevance model and for coherence: the output the labels map names, read by index', async () => {
    const logits = (q: string, p: string): number[] => [-overlapLogit(q, p), 0.5 * overlapLogit(q, p)];
    const server = await startScorerServer({ serves: 'relevance', relevanceLogits: logits, classifySeparator: ' [SEP] ' });
    try {
      const c = new VllmPoolingClassifier({
        baseURLs: [`${server.url}/v1`],
        model: 'castorini/monobert-large-msmarco',
        endpoint: 'classify',
        task: 'relevance',
        labels: { 1: 'relevant' },
        pairTemplate: '{text} [SEP] {textPair}',
      });
      assert.deepEqual(c.tasks, ['relevance']);
      const r = await c.classify({ task: 'relevance', pairs: PAIRS });
      assert.deepEqual(
        server.requests[0]!.body.input,
        PAIRS.map((p) => `${p.text} [SEP] ${p.textPair}`),
      );
      for (const [i, p] of PAIRS.entries()) assert.ok(close(r.scores[i]!.relevant!, softmax(logits(p.text, p.textPair))[1]!), `pair ${i}`);
      assert.throws(
        () =>
          new VllmPoolingClassifier({
            baseURLs: [`${server.url}/v1`],
            model: 'm',
            endpoint: 'classify',
            task: 'relevance',
            labels: { 1: 'not-relevant' },
            pairTemplate: '{text} {textPair}',
          }),
        (e: unknown) => e instanceof ModelSpecError && /"relevant" class/.test(e.message),
      );
    } finally {
      await server.close();
    }
    const coherent = await startScorerServer({ serves: 'coherence' });
    try {
      const c = new VllmPoolingClassifier({
        baseURLs: [`${coherent.url}/v1`],
        model: 'coherence-momentum',
        endpoint: 'classify',
        task: 'coherence',
        labels: { 0: 'coherent' },
        scores: 'logit',
      });
      const text = 'Paris is old. Paris is large.';
      const r = await c.classify({ task: 'coherence', pairs: [{ text, textPair: '' }] });
      assert.deepEqual(coherent.requests[0]!.body, { model: 'coherence-momentum', input: [text], use_activation: false }, 'the paragraph alone, no template');
      assert.ok(close(r.scores[0]!.coherent!, sigmoid(overlapCoherence(text)[0]!)));
    } finally {
      await coherent.close();
    }
  });

  it('through the executor: 500 and 429 retried, 400 (not a cross-encoder) fails at once with the server message', async () => {
    const server = await startScorerServer({
      serves: 'relevance',
      fault: (i) => (i === 0 ? { kind: 'status', status: 500 } : i === 1 ? { kind: 'status', status: 429, headers: { 'retry-after': '0' } } : undefined),
    });
    try {
      const ex = new ModelExecutor(new VllmPoolingClassifier({ baseURLs: [`${server.url}/v1`], model: 'm', endpoint: 'score' }), {
        cache: new CallCache(openDatabase(':memory:')),
        baseBackoffMs: 1,
        maxBackoffMs: 5,
      });
      const r = await ex.classify({ task: 'relevance', pairs: PAIRS });
      assert.equal(ex.accounting.retries, 2);
      assert.equal(r.value.scores.length, 3);
    } finally {
      await server.close();
    }
    const nliServer = await startScorerServer({ serves: 'nli' });
    try {
      const ex = new ModelExecutor(new VllmPoolingClassifier({ baseURLs: [`${nliServer.url}/v1`], model: 'm', endpoint: 'score' }), {
        cache: null,
        baseBackoffMs: 1,
      });
      await assert.rejects(
        ex.classify({ task: 'relevance', pairs: PAIRS }),
        (e: unknown) => e instanceof ModelCallError && e.status === 400 && /does not support Score API/.test(e.message),
      );
      assert.equal(nliServer.requests.length, 1);
    } finally {
      await nliServer.close();
    }
  });

  it('spec and options', async () => {
    assert.deepEqual(
      parseVllmPoolingSpec(
        'vllm-score:http://h:8000/v1/cross-encoder/ms-marco-MiniLM-L-6-v2',
        'vllm-score',
        'http://h:8000/v1/cross-encoder/ms-marco-MiniLM-L-6-v2',
      ),
      { provider: 'vllm-pooling', baseURLs: ['http://h:8000/v1'], model: 'cross-encoder/ms-marco-MiniLM-L-6-v2', endpoint: 'score' },
    );
    assert.equal(parseVllmPoolingSpec('x', 'vllm-rerank', 'http://a/v1,http://b/v1/m').endpoint, 'rerank');
    assert.throws(() => parseVllmPoolingSpec('vllm-score:http://h:8000/m', 'vllm-score', 'http://h:8000/m'), ModelSpecError);
    const spec = parseVllmPoolingSpec('vllm-classify:http://h:1/v1/m', 'vllm-classify', 'http://h:1/v1/m');
    await assert.rejects(
      createVllmPoolingClassifier(
        spec,
        { spec: 'vllm-classify:http://h:1/v1/m', labels: { ...NLI }, pairTemplate: '{text}|{textPair}', task: 'relevance' },
        {},
      ),
      (e: unknown) => e instanceof ModelSpecError && /none of them is the "relevant" class/.test(e.message),
    );
    const score = parseVllmPoolingSpec('vllm-score:http://h:1/v1/m', 'vllm-score', 'http://h:1/v1/m');
    await assert.rejects(
      createVllmPoolingClassifier(score, { spec: 'vllm-score:http://h:1/v1/m', task: 'nli' }, {}),
      (e: unknown) => e instanceof ModelSpecError && /does relevance, not nli/.test(e.message),
    );
    const c = await createVllmPoolingClassifier(spec, { spec: 'vllm-classify:http://h:1/v1/m', labels: { ...NLI }, pairTemplate: '{text}|{textPair}' }, {});
    assert.deepEqual(c.tasks, ['nli']);
    assert.deepEqual(c.endpoints, ['http://h:1']);
  });
});
