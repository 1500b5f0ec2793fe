/**
 * CONNER's per-item formulas (Chen et al. 2023, section 3) against hand computations, with
 * scorers written here whose outputs are a table: factuality (Eq. 1, the three-dimensional
 * vector and its label), relevance (Eq. 2), sentence coherence (Eq. 3, over the sentences the
 * scorer scores), paragraph coherence (Eq. 4: a coherence model's score, or the recorded 1/PPL
 * fallback), informativeness (Eq. 5), helpfulness (Eq. 6, first form: per item, and over the set
 * as the paper's tables report it, clipped after averaging) and validity (Eq. 7 and 8).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CHOICES } from '../../src/methods/conner/conner-choices.js';
import { paragraphCoherence, sentenceCoherence } from '../../src/methods/conner/scoring/coherence.js';
import { aggregateFactuality, bestEvidence, factualityLabel, scoreFactuality } from '../../src/methods/conner/scoring/factuality.js';
import { helpfulnessFromLosses, sampleNegatives, scoreHelpfulness } from '../../src/methods/conner/scoring/helpfulness.js';
import { scoreInformativeness } from '../../src/methods/conner/scoring/informativeness.js';
import { scoreRelevance } from '../../src/methods/conner/scoring/relevance.js';
import type { ScoredKnowledge } from '../../src/methods/conner/scoring/scored-knowledge.js';
import type { LogLikelihood, NliVector, PairClassifier, TokenScorer } from '../../src/methods/conner/scoring/scorers.js';
import { openValidity, spanValidity } from '../../src/methods/conner/scoring/validity.js';
import { summarizeConner } from '../../src/methods/conner/summary/conner-summary.js';
import { estimateMetric } from '../../src/methods/conner/summary/metric-aggregates.js';
import { SeededRandom } from '../../src/sampling/seeded-random.js';
import { CONNER_FIXTURE_RUN, connerRecord } from '../support/conner-fixture.js';

function near(actual: number | null | undefined, expected: number, what: string): void {
  assert.equal(typeof actual, 'number', `${what}: got ${actual}`);
  assert.ok(Math.abs(actual! - expected) < 1e-12, `${what}: expected ${expected}, got ${actual}`);
}

function nearVector(actual: readonly number[], expected: readonly number[], what: string): void {
  assert.equal(actual.length, expected.length, what);
  actual.forEach((v, i) => near(v, expected[i]!, `${what}[${i}]`));
}

/** A token scorer that answers from a table: continuation -> (sum of log-probabilities, tokens, tokens floored); records each context it was given. */
function tableScorer(table: Record<string, [number, number, number?]>): TokenScorer & { contexts: Array<[string, string]> } {
  const contexts: Array<[string, string]> = [];
  return {
    id: 'table:scorer',
    identity: 'table:scorer',
    contexts,
    async logLikelihood(context: string, continuation: string): Promise<LogLikelihood> {
      contexts.push([context, continuation]);
      const row = table[continuation];
      if (!row) throw new Error(`no table row for ${JSON.stringify(continuation)}`);
      return { logLikelihood: row[0], tokens: row[1], floored: row[2] ?? 0, cached: false };
    },
  };
}

/** A pair classifier from a table: "text => textPair" -> NLI vector, or the relevance / coherence score. */
function tableClassifier(table: Record<string, NliVector | number>): PairClassifier & { pairs: Array<[string, string, string]> } {
  const pairs: Array<[string, string, string]> = [];
  return {
    id: 'table:classifier',
    identity: 'table:classifier',
    pairs,
    async classify(task, list) {
      return {
        cached: false,
        scores: list.map((p): Record<string, number> => {
          pairs.push([task, p.text, p.textPair]);
          const v = table[`${p.text} => ${p.textPair}`];
          if (v === undefined) throw new Error(`no table row for ${p.text} => ${p.textPair}`);
          if (typeof v !== 'number') return { entailment: v[0], neutral: v[1], contradiction: v[2] };
          return task === 'coherence' ? { coherent: v } : { relevant: v };
        }),
      };
    },
  };
}

describe('factuality, Eq. 1: S_fact = agg_i max_j NLI(s_i, e_ij)', () => {
  // s1: evidence e1 (0.2, 0.5, 0.3) and e2 (0.7, 0.2, 0.1): e2 has the higher entailment.
  // s2: evidence e3 (0.1, 0.3, 0.6). s3: no evidence: (0, 1, 0), non-verified.
  const nli = tableClassifier({
    'e1 => s1': [0.2, 0.5, 0.3],
    'e2 => s1': [0.7, 0.2, 0.1],
    'e3 => s2': [0.1, 0.3, 0.6],
  });
  const evidence: Record<string, string[]> = { s1: ['e1', 'e2'], s2: ['e3'], s3: [] };
  const evidenceFor = (s: string) => evidence[s]!.map((text) => ({ source: 'test', text }));

  it('min: the sentence with the lowest entailment, its whole vector (s3: no evidence)', async () => {
    const r = (await scoreFactuality(['s1', 's2', 's3'], evidenceFor, nli, 'min'))!.factuality;
    assert.deepEqual(
      r.sentences.map((s) => s.evidence?.text ?? null),
      ['e2', 'e3', null],
    );
    nearVector(r.score, [0, 1, 0], 'min');
    assert.equal(r.label, 'non-verified');
    // The premise is the evidence, the hypothesis the sentence.
    assert.deepEqual(
      nli.pairs.filter(([task, premise, hypothesis]) => task !== 'nli' || !premise.startsWith('e') || !hypothesis.startsWith('s')),
      [],
      'premise = evidence, hypothesis = sentence',
    );
  });

  it('mean: the average of the kept vectors, dimension by dimension', async () => {
    const r = (await scoreFactuality(['s1', 's2', 's3'], evidenceFor, nli, 'mean'))!.factuality;
    nearVector(r.score, [(0.7 + 0.1 + 0) / 3, (0.2 + 0.3 + 1) / 3, (0.1 + 0.6 + 0) / 3], 'mean');
    assert.equal(r.label, 'non-verified');
  });

  it('max: the sentence with the highest entailment', async () => {
    const r = (await scoreFactuality(['s1', 's2'], evidenceFor, nli, 'max'))!.factuality;
    nearVector(r.score, [0.7, 0.2, 0.1], 'max');
    assert.equal(r.label, 'factual-consistent');
    const m = (await scoreFactuality(['s1', 's2'], evidenceFor, nli, 'min'))!.factuality;
    nearVector(m.score, [0.1, 0.3, 0.6], 'min of s1, s2');
    assert.equal(m.label, 'factual-inconsistent');
  });

  it('no sentences: no score', async () => {
    assert.equal(await scoreFactuality([], evidenceFor, nli, 'min'), undefined);
  });

  it('ties go to the first: evidence, aggregated sentence, and label (consistent, non-verified, inconsistent)', () => {
    assert.equal(
      bestEvidence([
        [0.5, 0.5, 0],
        [0.5, 0, 0.5],
      ]),
      0,
    );
    assert.deepEqual(
      aggregateFactuality(
        [
          [0.3, 0.7, 0],
          [0.3, 0, 0.7],
        ],
        'min',
      ),
      [0.3, 0.7, 0],
    );
    assert.deepEqual(
      aggregateFactuality(
        [
          [0.3, 0.7, 0],
          [0.3, 0, 0.7],
        ],
        'max',
      ),
      [0.3, 0.7, 0],
    );
    assert.equal(factualityLabel([0.4, 0.4, 0.2]), 'factual-consistent');
    assert.equal(factualityLabel([0.2, 0.4, 0.4]), 'non-verified');
    assert.equal(factualityLabel([0.2, 0.3, 0.5]), 'factual-inconsistent');
  });
});

describe('relevance, Eq. 2', () => {
  it("is the relevance model's score for (query, knowledge), in that order", async () => {
    const ranker = tableClassifier({ 'what is the Seine => The Seine is a river.': 0.83 });
    const r = await scoreRelevance('what is the Seine', 'The Seine is a river.', ranker);
    assert.equal(r.relevance, 0.83);
    assert.deepEqual(ranker.pairs, [['relevance', 'what is the Seine', 'The Seine is a river.']]);
  });
});

describe('coherence', () => {
  // s1: log-likelihood -2 over 2 tokens (1 of them floored), PPL = e^1, 1/PPL = e^-1. s2: -3 over
  // 1 token (floored): e^-3. s3: no token scored (the scorer skips it): left out of the mean.
  const scorer = tableScorer({ 'First one.': [-2, 2, 1], 'Second.': [-3, 1, 1], '': [0, 0], 'First one. Second.': [-4.5, 3] });

  it('sentence level, Eq. 3: the mean of 1/PPL(s_i) over the sentences the scorer scores', async () => {
    const r = await sentenceCoherence(['First one.', 'Second.', ''], scorer);
    assert.deepEqual(
      r.perSentence.map((v) => (v === null ? null : Math.round(v * 1e9) / 1e9)),
      [Math.round(Math.exp(-1) * 1e9) / 1e9, Math.round(Math.exp(-3) * 1e9) / 1e9, null],
    );
    near(r.value, (Math.exp(-1) + Math.exp(-3)) / 2, 'S_coh_sent');
    assert.equal(r.floored, 1 + 1, 'the floored tokens of every sentence');
    // Each sentence on its own (empty context).
    assert.deepEqual(
      scorer.contexts.map(([context]) => context),
      ['', '', ''],
      'each sentence scored with an empty context',
    );
  });

  it('sentence level: no scored sentence gives no score', async () => {
    assert.equal((await sentenceCoherence(['', ''], scorer)).value, undefined);
  });

  it("paragraph level, Eq. 4: the coherence model's score of the whole text, given alone", async () => {
    const model = tableClassifier({ 'First one. Second. => ': 0.42 });
    assert.equal((await paragraphCoherence('First one. Second.', { coherence: model })).value, 0.42);
    assert.deepEqual(model.pairs, [['coherence', 'First one. Second.', '']]);
  });

  it('paragraph level without a coherence model (the recorded fallback): 1/PPL of the whole text', async () => {
    near((await paragraphCoherence('First one. Second.', { fallback: scorer })).value, Math.exp(-4.5 / 3), 'S_coh_para');
  });
});

describe('informativeness, Eq. 5: 1 - exp(mean log P(k_t | k_<t, q))', () => {
  it('conditions on the zero-shot knowledge prompt of the query (Table 11, prompt 4), the knowledge after a space', async () => {
    const q = { task: 'qa' as const, topic: 'Seine', query: 'what is the Seine' };
    const scorer = tableScorer({ ' The Seine is a river.': [-6, 3] });
    near((await scoreInformativeness(q, 'The Seine is a river.', scorer)).value, 1 - Math.exp(-2), 'S_info');
    assert.deepEqual(scorer.contexts, [
      ['Topic: Seine\nGenerate a Wikipedia to answer the given question.\nQuestion: what is the Seine\nWikipedia:', ' The Seine is a river.'],
    ]);
  });

  it('no token scored: no score', async () => {
    assert.equal((await scoreInformativeness({ task: 'qa', topic: 't', query: 'q' }, '', tableScorer({ ' ': [0, 0] }))).value, undefined);
  });
});

describe('helpfulness of one item, Eq. 6: max(0, 1 - L(q, k, a) / ((1/u) sum_i L(q, k_i^-, a)))', () => {
  it('from losses: the ratio to the mean of the baseline losses, clipped at 0 with the raw value kept', () => {
    const h = helpfulnessFromLosses(1, [2, 4]);
    near(h.raw, 1 - 1 / 3, 'raw');
    near(h.value, 2 / 3, 'value');
    const worse = helpfulnessFromLosses(5, [2, 4]);
    near(worse.raw, 1 - 5 / 3, 'raw, worse than the baseline');
    assert.equal(worse.value, 0);
  });

  it('the losses are per-token mean negative log-probabilities of the answer after the Table 13 answer template', async () => {
    // Answer " Paris": given k, -3 over 2 tokens (loss 1.5); given k1-, -6 over 2 (3, one token
    // floored); given k2-, -9 over 2 (4.5, two floored).
    const prompt = (knowledge: string): string => `Topic: France\nPassage: ${knowledge}\nQuery: capital of France\nAnswer:`;
    const rows: Record<string, [number, number, number]> = {
      [prompt('KNOWLEDGE-OWN')]: [-3, 2, 0],
      [prompt('KNOWLEDGE-ONE')]: [-6, 2, 1],
      [prompt('KNOWLEDGE-TWO')]: [-9, 2, 2],
    };
    const scorer: TokenScorer = {
      id: 'by-context',
      identity: 'by-context',
      async logLikelihood(context, continuation) {
        assert.equal(continuation, ' Paris');
        const row = rows[context];
        if (!row) throw new Error(`no table row for the context ${JSON.stringify(context)}`);
        return { logLikelihood: row[0], tokens: row[1], floored: row[2], cached: false };
      },
    };
    const q = { task: 'qa' as const, topic: 'France', query: 'capital of France' };
    const r = await scoreHelpfulness(
      q,
      'KNOWLEDGE-OWN',
      'Paris',
      [
        { id: 'n1', knowledge: 'KNOWLEDGE-ONE' },
        { id: 'n2', knowledge: 'KNOWLEDGE-TWO' },
      ],
      scorer,
    );
    assert.equal(r.floored, 0 + 1 + 2, 'the floored tokens of all u + 1 losses');
    near(r.helpfulness!.loss, 1.5, 'L(q, k, a)');
    assert.deepEqual(r.helpfulness!.baselineLosses, [3, 4.5]);
    near(r.helpfulness!.raw, 1 - 1.5 / 3.75, 'raw');
    near(r.helpfulness!.value, 0.6, 'value');
    assert.deepEqual(r.helpfulness!.negatives, ['n1', 'n2']);
  });

  it('the u negatives are other items, distinct, seeded', () => {
    const pool = ['a', 'b', 'c', 'd', 'e'];
    const n = sampleNegatives('c', pool, 3, 7);
    assert.equal(n.length, 3);
    assert.ok(!n.includes('c'), 'never the item itself');
    assert.equal(new Set(n).size, 3);
    assert.deepEqual(sampleNegatives('c', pool, 3, 7), n);
  });
});

describe("helpfulness over the set, Eq. 6 as the paper's tables report it: max(0, 1 - mean_q L(q, k, a) / mean_q L(q, k^-, a))", () => {
  /** A scored record with these losses; its own scores are Eq. 6 of the item alone, written by hand. */
  function withLosses(i: number, loss: number, baselineLosses: number[], alone: { value: number; raw: number }): ScoredKnowledge {
    const r = connerRecord(i, 'set-generator', 0.5);
    return {
      ...r,
      scores: { ...r.scores, helpfulness: alone.value, helpfulnessRaw: alone.raw },
      helpfulness: { loss, baselineLosses, negatives: baselineLosses.map((_, k) => `neg:${k}`) },
    };
  }
  const setValue = (records: readonly ScoredKnowledge[], id: 'helpfulness' | 'helpfulness_raw') =>
    estimateMetric(records, id, DEFAULT_CHOICES, 0, SeededRandom.stream(0, 'set-helpfulness'));

  it("the ratio of the set's mean losses, each item's baseline the mean of its u losses; not the mean of the items' values", () => {
    // a: L = 1, baselines (2, 4): mean 3; alone 1 - 1/3 = 2/3.
    // b: L = 5, baseline 4; alone 1 - 5/4 = -1/4, clipped 0.
    // c: L = 2, baselines (1, 3): mean 2; alone 1 - 2/2 = 0.
    // Set: 1 - ((1 + 5 + 2) / 3) / ((3 + 4 + 2) / 3) = 1 - 8/9 = 1/9, positive, so clipped and raw agree.
    // The mean of the items' values would be 2/9 clipped or 5/36 raw; pooling the five baseline
    // losses would give 1 - (8/3) / (14/5) = 1/21; summing each item's u losses, 1 - 8/14 = 3/7.
    const records = [
      withLosses(0, 1, [2, 4], { value: 2 / 3, raw: 2 / 3 }),
      withLosses(1, 5, [4], { value: 0, raw: -1 / 4 }),
      withLosses(2, 2, [1, 3], { value: 0, raw: 0 }),
    ];
    for (const r of records) {
      const alone = helpfulnessFromLosses(r.helpfulness!.loss, r.helpfulness!.baselineLosses);
      near(alone.value, r.scores.helpfulness!, `${r.id} alone`);
      near(alone.raw, r.scores.helpfulnessRaw!, `${r.id} alone, raw`);
    }
    const value = setValue(records, 'helpfulness');
    near(value.mean, 1 / 9, "the summary's helpfulness");
    assert.equal(value.n, 3);
    near(setValue(records, 'helpfulness_raw').mean, 1 / 9, "the summary's helpfulness_raw");
    const group = summarizeConner(records, { resamples: 0, seed: 0, run: CONNER_FIXTURE_RUN }).groups[0]!;
    near(group.metrics.helpfulness!.mean, 1 / 9, "the group summary's helpfulness");
    near(group.metrics.helpfulness_raw!.mean, 1 / 9, "the group summary's helpfulness_raw");
  });

  it('clipped after averaging: a set that does worse than random knowledge is 0, though one item alone helps', () => {
    // a: L = 1, baseline 2: alone 1/2. b: L = 4, baselines (1, 3): mean 2; alone 1 - 4/2 = -1, clipped 0.
    // Set: 1 - ((1 + 4) / 2) / ((2 + 2) / 2) = 1 - 5/4 = -1/4: clipped 0, raw -1/4. Clipping each
    // item first and averaging would give 1/4 (raw: -1/4 too, the baselines being equal).
    const records = [withLosses(0, 1, [2], { value: 1 / 2, raw: 1 / 2 }), withLosses(1, 4, [1, 3], { value: 0, raw: -1 })];
    assert.equal(setValue(records, 'helpfulness').mean, 0);
    near(setValue(records, 'helpfulness_raw').mean, -1 / 4, 'raw over the set');
  });

  it('an item without losses is left out of the set; no item, no value', () => {
    // a and b as in the first case; d has no helpfulness. Set: 1 - ((1 + 5) / 2) / ((3 + 4) / 2) = 1 - 6/7 = 1/7.
    const d = connerRecord(3, 'set-generator', 0.5);
    const records = [
      withLosses(0, 1, [2, 4], { value: 2 / 3, raw: 2 / 3 }),
      withLosses(1, 5, [4], { value: 0, raw: -1 / 4 }),
      { ...d, scores: { ...d.scores, helpfulness: null, helpfulnessRaw: null }, helpfulness: null },
    ];
    const value = setValue(records, 'helpfulness');
    near(value.mean, 1 / 7, 'a and b only');
    assert.equal(value.n, 2);
    assert.deepEqual(setValue([], 'helpfulness'), { mean: null, n: 0, ci: null });
  });
});

describe('validity', () => {
  it('span answers, Eq. 7: entailment of (q, a) by (q, a*)', async () => {
    const nli = tableClassifier({ 'capital of France Paris => capital of France Paris, France': [0.9, 0.08, 0.02] });
    const r = await spanValidity('capital of France', 'Paris', 'Paris, France', nli);
    assert.equal(r.validity!.value, 0.9);
    assert.equal(r.validity!.form, 'span');
  });

  it('open answers, Eq. 8: the highest entailment of the answer over the evidence; no evidence, no score', async () => {
    const nli = tableClassifier({ 'e1 => answer': [0.3, 0.3, 0.4], 'e2 => answer': [0.6, 0.1, 0.3], 'e3 => answer': [0.5, 0.5, 0] });
    const r = await openValidity(
      'answer',
      ['e1', 'e2', 'e3'].map((text) => ({ source: 't', text })),
      nli,
    );
    assert.equal(r.validity!.value, 0.6);
    assert.equal(r.validity!.evidence!.text, 'e2');
    assert.equal((await openValidity('answer', [], nli)).validity, undefined);
  });
});
