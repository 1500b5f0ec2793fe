import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEBERTA_NLI_LABELS, overlapCoherence, overlapLogit, overlapNli, startScorerServer } from '#test-support/scorer-server.js';
import { ConfigError, ModelCallError, ModelSpecError } from '../../errors.js';
import { ModelExecutor } from '../../executor/model-executor.js';
import { CallCache } from '../../store/call-cache.js';
import { openDatabase } from '../../store/database.js';
import { sigmoid, softmax } from '../classification/labels.js';
import { TeiClassifier } from './tei-classifier.js';
import { createTeiClassifier, parseTeiSpec, teiProvider } from './tei-provider.js';

const close = (a: number, b: number): boolean => Math.abs(a - b) < 1e-6;

describe('TEI classifier', () => {
  it('relevance through /rerank: raw scores asked, sigmoid applied, answers back in pair order across queries', async () => {
    const server = await startScorerServer({ serves: 'relevance' });
    try {
      const tei = new TeiClassifier({ baseURLs: [server.url], model: 'cross-encoder/ms-marco-MiniLM-L-6-v2', task: 'relevance' });
      const pairs = [
        { text: 'capital of france', textPair: 'Berlin is in Germany.' },
        { text: 'capital of france', textPair: 'Paris is the capital of France.' },
        { text: 'who wrote hamlet', textPair: 'Hamlet was written by Shakespeare.' },
        { text: 'capital of france', textPair: 'France has a capital.' },
      ];
      const r = await tei.classify({ task: 'relevance', pairs });
      for (const [i, p] of pairs.entries()) assert.ok(close(r.scores[i]!.relevant!, sigmoid(overlapLogit(p.text, p.textPair))), `pair ${i}`);
      assert.equal(server.requests.length, 2);
      assert.deepEqual(server.requests[0]!.body, {
        query: 'capital of france',
        texts: ['Berlin is in Germany.', 'Paris is the capital of France.', 'France has a capital.'],
        raw_scores: true,
        return_text: false,
        truncate: false,
      });
      assert.equal(server.requests[0]!.path, '/rerank');
      assert.ok(r.usage.promptTokens > 0);
    } finally {
      await server.close();
    }
  });

  it('NLI through /predict: label logits -> softmax, mapped by the label names, in one request per batch', async () => {
    const server = await startScorerServer({ serves: 'nli' });
    try {
      const tei = new TeiClassifier({ baseURLs: [server.url], model: 'cross-encoder/nli-deberta-v3-base', task: 'nli' });
      const pairs = [
        { text: 'Paris is the capital of France.', textPair: 'Paris is the capital of France.' },
        { text: 'Paris is the capital of France.', textPair: 'Paris is not the capital of France.' },
        { text: 'The sky is blue.', textPair: 'Cats sleep a lot.' },
      ];
      const r = await tei.classify({ task: 'nli', pairs });
      assert.equal(server.requests.length, 1);
      assert.deepEqual(server.requests[0]!.body, { inputs: pairs.map((p) => [p.text, p.textPair]), raw_scores: true, truncate: false });
      for (const [i, p] of pairs.entries()) {
        const expected = softmax(overlapNli(p.text, p.textPair));
        const s = r.scores[i]!;
        assert.ok(close(s.contradiction!, expected[0]!) && close(s.entailment!, expected[1]!) && close(s.neutral!, expected[2]!), JSON.stringify(s));
        assert.ok(close(s.entailment! + s.neutral! + s.contradiction!, 1));
      }
      assert.ok(r.scores[0]!.entailment! > 0.5);
      assert.ok(r.scores[1]!.contradiction! > r.scores[1]!.entailment!);
    } finally {
      await server.close();
    }
  });

  it('LABEL_0-style names need the config map, and say so', async () => {
    const server = await startScorerServer({ serves: 'nli', labelNames: ['LABEL_0', 'LABEL_1', 'LABEL_2'] });
    try {
      const pairs = [{ text: 'a b c', textPair: 'a b c' }];
      await assert.rejects(
        new TeiClassifier({ baseURLs: [server.url], model: 'm', task: 'nli' }).classify({ task: 'nli', pairs }),
        (e: unknown) => e instanceof ModelCallError && /LABEL_0/.test(e.message) && /"labels"/.test(e.hint ?? ''),
      );
      const mapped = new TeiClassifier({
        baseURLs: [server.url],
        model: 'm',
        task: 'nli',
        labels: { LABEL_0: 'contradiction', LABEL_1: 'entailment', LABEL_2: 'neutral' },
      });
      const r = await mapped.classify({ task: 'nli', pairs });
      assert.ok(close(r.scores[0]!.entailment!, softmax(overlapNli('a b c', 'a b c'))[1]!));
      assert.notEqual(mapped.cacheIdentity, new TeiClassifier({ baseURLs: [server.url], model: 'm', task: 'nli' }).cacheIdentity);
    } finally {
      await server.close();
    }
  });

  it('a two-logit relevance model (monoBERT) through /predict: softmax, the output the labels map names relevant', async () => {
    // monoBERT's head: [not relevant, relevant]; the CONNER authors' src/relevance.py reads softmax(...)[:, 1].
    const logits = (q: string, p: string): number[] => [-0.5 * overlapLogit(q, p), overlapLogit(q, p) + 0.25];
    const server = await startScorerServer({ serves: 'relevance', relevanceLogits: logits });
    try {
      const pairs = [
        { text: 'capital of france', textPair: 'Paris is the capital of France.' },
        { text: 'capital of france', textPair: 'Berlin is in Germany.' },
      ];
      const tei = new TeiClassifier({ baseURLs: [server.url], model: 'castorini/monobert-large-msmarco', task: 'relevance', labels: { LABEL_1: 'relevant' } });
      const r = await tei.classify({ task: 'relevance', pairs });
      assert.equal(server.requests[0]!.path, '/predict', 'a labels map: /predict, which returns every output');
      for (const [i, p] of pairs.entries()) assert.ok(close(r.scores[i]!.relevant!, softmax(logits(p.text, p.textPair))[1]!), `pair ${i}`);
      // Without the map, LABEL_0 / LABEL_1 say nothing: refused, with the map to write.
      const unmapped = new TeiClassifier({ baseURLs: [server.url], model: 'm', task: 'relevance', endpoint: 'predict' });
      await assert.rejects(
        unmapped.classify({ task: 'relevance', pairs }),
        (e: unknown) => e instanceof ModelSpecError && /"LABEL_1": "relevant"/.test(e.hint ?? ''),
      );
    } finally {
      await server.close();
    }
  });

  it('coherence of one paragraph through /predict: one text per input, sigmoid of its one logit; /rerank refused', async () => {
    const server = await startScorerServer({ serves: 'coherence' });
    try {
      const tei = new TeiClassifier({ baseURLs: [server.url], model: 'coherence-momentum', task: 'coherence' });
      const texts = ['Paris is old. Paris is large. Paris has a river.', 'Paris is old. Cats sleep a lot.'];
      const r = await tei.classify({ task: 'coherence', pairs: texts.map((text) => ({ text, textPair: '' })) });
      assert.deepEqual(server.requests[0]!.body, { inputs: texts.map((t) => [t]), raw_scores: true, truncate: false });
      for (const [i, t] of texts.entries()) assert.ok(close(r.scores[i]!.coherent!, sigmoid(overlapCoherence(t)[0]!)), `text ${i}`);
      assert.ok(r.scores[0]!.coherent! > r.scores[1]!.coherent!);
      assert.throws(() => new TeiClassifier({ baseURLs: [server.url], model: 'm', task: 'coherence', endpoint: 'rerank' }), ModelSpecError);
    } finally {
      await server.close();
    }
  });

  it('through the executor: 429 with Retry-After and 424 are retried; 422 (batch too large) is not; pairs cached', async () => {
    const server = await startScorerServer({
      serves: 'relevance',
      fault: (i) =>
        i === 0
          ? { kind: 'status', status: 429, headers: { 'retry-after': '0' }, body: JSON.stringify({ error: 'Model is overloaded', error_type: 'Overloaded' }) }
          : i === 1
            ? { kind: 'status', status: 424, body: JSON.stringify({ error: 'backend failed', error_type: 'Backend' }) }
            : undefined,
    });
    try {
      const ex = new ModelExecutor(new TeiClassifier({ baseURLs: [server.url], model: 'ranker', task: 'relevance' }), {
        cache: new CallCache(openDatabase(':memory:')),
        baseBackoffMs: 1,
        maxBackoffMs: 5,
      });
      const pairs = [
        { text: 'q one', textPair: 'p one' },
        { text: 'q one', textPair: 'q one two' },
      ];
      const r = await ex.classify({ task: 'relevance', pairs });
      assert.equal(ex.accounting.retries, 2);
      assert.ok(close(r.value.scores[1]!.relevant!, sigmoid(overlapLogit('q one', 'q one two'))));
      const again = await ex.classify({ task: 'relevance', pairs: [pairs[1]!] });
      assert.equal(again.cached, true);
      assert.equal(server.requests.length, 3);
    } finally {
      await server.close();
    }
    const small = await startScorerServer({ serves: 'relevance', maxBatch: 2 });
    try {
      const ex = new ModelExecutor(new TeiClassifier({ baseURLs: [small.url], model: 'ranker', task: 'relevance' }), { cache: null, baseBackoffMs: 1 });
      const pairs = [1, 2, 3].map((i) => ({ text: 'q', textPair: `p${i}` }));
      await assert.rejects(
        ex.classify({ task: 'relevance', pairs }),
        (e: unknown) => e instanceof ModelCallError && e.status === 422 && /maximum allowed batch size 2/.test(e.message),
      );
      assert.equal(small.requests.length, 1);
    } finally {
      await small.close();
    }
  });

  it('a malformed body and a refused connection fail clearly (the latter retryable)', async () => {
    const server = await startScorerServer({ serves: 'relevance', fault: () => ({ kind: 'malformed' }) });
    try {
      await assert.rejects(
        new TeiClassifier({ baseURLs: [server.url], model: 'r', task: 'relevance' }).classify({ task: 'relevance', pairs: [{ text: 'a', textPair: 'b' }] }),
        (e: unknown) => e instanceof ModelCallError && /not JSON/.test(e.message) && !e.retryable,
      );
    } finally {
      await server.close();
    }
    await assert.rejects(
      new TeiClassifier({ baseURLs: ['http://127.0.0.1:9'], model: 'r', task: 'relevance' }).classify({
        task: 'relevance',
        pairs: [{ text: 'a', textPair: 'b' }],
      }),
      (e: unknown) => e instanceof ModelCallError && e.retryable && /cannot reach/.test(e.message),
    );
  });

  it('relevance through /predict (a one-logit cross-encoder), and NLI refused on /rerank', async () => {
    const server = await startScorerServer({ serves: 'relevance' });
    try {
      const tei = new TeiClassifier({ baseURLs: [server.url], model: 'r', task: 'relevance', endpoint: 'predict' });
      const r = await tei.classify({ task: 'relevance', pairs: [{ text: 'capital france', textPair: 'capital of france' }] });
      assert.ok(close(r.scores[0]!.relevant!, sigmoid(overlapLogit('capital france', 'capital of france'))));
      assert.throws(() => new TeiClassifier({ baseURLs: [server.url], model: 'n', task: 'nli', endpoint: 'rerank' }), ModelSpecError);
    } finally {
      await server.close();
    }
  });

  it('spec: server roots then the model id; options; API key from the named variable only', async () => {
    assert.deepEqual(parseTeiSpec('tei:http://h:8080/cross-encoder/ms-marco-MiniLM-L-6-v2', 'http://h:8080/cross-encoder/ms-marco-MiniLM-L-6-v2'), {
      provider: 'tei',
      baseURLs: ['http://h:8080'],
      model: 'cross-encoder/ms-marco-MiniLM-L-6-v2',
    });
    assert.deepEqual(parseTeiSpec('x', 'http://a:1,http://b:2/m').baseURLs, ['http://a:1', 'http://b:2']);
    assert.throws(() => parseTeiSpec('tei:http://h:8080', 'http://h:8080'), ModelSpecError);
    assert.throws(() => parseTeiSpec('tei:h:8080/m', 'h:8080/m'), ModelSpecError);
    assert.equal(teiProvider.optionsSchema.safeParse({ task: 'nli', labels: { LABEL_0: 'entailment' } }).success, true);
    assert.equal(teiProvider.optionsSchema.safeParse({ labels: { LABEL_0: 'yes' } }).success, false);
    const spec = parseTeiSpec('tei:http://h:1/m', 'http://h:1/m');
    await assert.rejects(createTeiClassifier(spec, { spec: 'tei:http://h:1/m', apiKeyEnv: 'LLMKB_TEST_NO_SUCH_KEY' }, {}), ConfigError);
    const nli = await createTeiClassifier(spec, { spec: 'tei:http://h:1/m', task: 'nli' }, {});
    assert.deepEqual(nli.tasks, ['nli']);
    assert.match(nli.cacheIdentity, /^tei:m:task=nli:endpoint=predict/);
    await assert.rejects(createTeiClassifier(spec, { spec: 'tei:http://h:1/m', endpoint: 'classify' }, {}), ModelSpecError);
  });

  it('sends the API key as a bearer token and keeps it out of error messages', async () => {
    const key = 'sk-test-secret-1234';
    const server = await startScorerServer({
      serves: 'relevance',
      fault: (i) => (i === 0 ? { kind: 'status', status: 401, body: JSON.stringify({ error: `bad key ${key}`, error_type: 'Validation' }) } : undefined),
    });
    try {
      const tei = new TeiClassifier({ baseURLs: [server.url], model: 'r', task: 'relevance', apiKey: key });
      await assert.rejects(
        tei.classify({ task: 'relevance', pairs: [{ text: 'a', textPair: 'b' }] }),
        (e: unknown) => e instanceof ModelCallError && !e.message.includes(key) && e.status === 401,
      );
      assert.equal(server.requests[0]!.authorization, `Bearer ${key}`);
    } finally {
      await server.close();
    }
  });
});

void DEBERTA_NLI_LABELS;
