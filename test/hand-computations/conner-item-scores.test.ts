/**
 * CONNER's per-item formulas (Chen et al. 2023, section 3) against hand computations, with
 * scorers written here whose outputs are a table: factuality (Eq. 1, the three-dimensional
 * vector and its label), relevance (Eq. 2), sentence coherence (Eq. 3, over the sentences the
 * scorer scores), paragraph coherence (the recorded 1/PPL fallback for Eq. 4), informativeness
 * (Eq. 5), helpfulness (Eq. 6, first form) and validity (Eq. 7 and 8).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { zeroShotKnowledgePrompt } from '../../src/methods/conner/generation/conner-prompts.js';
import { paragraphCoherence, sentenceCoherence } from '../../src/methods/conner/scoring/coherence.js';
import { aggregateFactuality, bestEvidence, factualityLabel, scoreFactuality } from '../../src/methods/conner/scoring/factuality.js';
import { helpfulnessFromLosses, sampleNegatives, scoreHelpfulness } from '../../src/methods/conner/scoring/helpfulness.js';
import { scoreInformativeness } from '../../src/methods/conner/scoring/informativeness.js';
import { scoreRelevance } from '../../src/methods/conner/scoring/relevance.js';
import type { LogLikelihood, NliVector, PairClassifier, TokenScorer } from '../../src/methods/conner/scoring/scorers.js';
import { openValidity, spanValidity } from '../../src/methods/conner/scoring/validity.js';

function near(actual: number | undefined, expected: number, what: string): void {
  assert.equal(typeof actual, 'number', `${what}: got ${actual}`);
  assert.ok(Math.abs(actual! - expected) < 1e-12, `${what}: expected ${expected}, got ${actual}`);
}

function nearVector(actual: readonly number[], expected: readonly number[], what: string): void {
  assert.equal(actual.length, expected.length, what);
  actual.forEach((v, i) => near(v, expected[i]!, `${what}[${i}]`));
}

/** A token scorer that answers from a table: continuation -> (sum of log-probabilities, tokens); records each context it was given. */
function tableScorer(table: Record<string, [number, number]>): TokenScorer & { contexts: Array<[string, string]> } {
  const contexts: Array<[string, string]> = [];
  return {
    id: 'table:scorer',
    identity: 'table:scorer',
    contexts,
    async logLikelihood(context: string, continuation: string): Promise<LogLikelihood> {
      contexts.push([context, continuation]);
      const row = table[continuation];
      if (!row) throw new Error(`no table row for ${JSON.stringify(continuation)}`);
      return { logLikelihood: row[0], tokens: row[1], cached: false };
    },
  };
}

/** A pair classifier from a table: "text => textPair" -> NLI vector (or relevance). */
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
          return typeof v === 'number' ? { relevant: v } : { entailment: v[0], neutral: v[1], contradiction: v[2] };
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
    assert.deepEqual(r.sentences.map((s) => s.evidence?.text ?? null), ['e2', 'e3', null]);
    nearVector(r.score, [0, 1, 0], 'min');
    assert.equal(r.label, 'non-verified');
    // The premise is the evidence, the hypothesis the sentence.
    assert.deepEqual(nli.pairs.filter(([task, premise, hypothesis]) => task !== 'nli' || !premise.startsWith('e') || !hypothesis.startsWith('s')), [], 'premise = evidence, hypothesis = sentence');
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
    assert.equal(bestEvidence([[0.5, 0.5, 0], [0.5, 0, 0.5]]), 0);
    assert.deepEqual(aggregateFactuality([[0.3, 0.7, 0], [0.3, 0, 0.7]], 'min'), [0.3, 0.7, 0]);
    assert.deepEqual(aggregateFactuality([[0.3, 0.7, 0], [0.3, 0, 0.7]], 'max'), [0.3, 0.7, 0]);
    assert.equal(factualityLabel([0.4, 0.4, 0.2]), 'factual-consistent');
    assert.equal(factualityLabel([0.2, 0.4, 0.4]), 'non-verified');
    assert.equal(factualityLabel([0.2, 0.3, 0.5]), 'factual-inconsistent');
  });
});

describe('relevance, Eq. 2', () => {
  it('is the relevance model\'s score for (query, knowledge), in that order', async () => {
    const ranker = tableClassifier({ 'what is the Seine => The Seine is a river.': 0.83 });
    const r = await scoreRelevance('what is the Seine', 'The Seine is a river.', ranker);
    assert.equal(r.relevance, 0.83);
    assert.deepEqual(ranker.pairs, [['relevance', 'what is the Seine', 'The Seine is a river.']]);
  });
});

describe('coherence', () => {
  // s1: log-likelihood -2 over 2 tokens, PPL = e^1, 1/PPL = e^-1. s2: -3 over 1 token: e^-3.
  // s3: no token scored (the scorer skips it): left out of the mean.
  const scorer = tableScorer({ 'First one.': [-2, 2], 'Second.': [-3, 1], '': [0, 0], 'First one. Second.': [-4.5, 3] });

  it('sentence level, Eq. 3: the mean of 1/PPL(s_i) over the sentences the scorer scores', async () => {
    const r = await sentenceCoherence(['First one.', 'Second.', ''], scorer);
    assert.deepEqual(r.perSentence.map((v) => (v === null ? null : Math.round(v * 1e9) / 1e9)), [Math.round(Math.exp(-1) * 1e9) / 1e9, Math.round(Math.exp(-3) * 1e9) / 1e9, null]);
    near(r.value, (Math.exp(-1) + Math.exp(-3)) / 2, 'S_coh_sent');
    // Each sentence on its own (empty context).
    assert.deepEqual(scorer.contexts.map(([context]) => context), ['', '', ''], 'each sentence scored with an empty context');
  });

  it('sentence level: no scored sentence gives no score', async () => {
    assert.equal((await sentenceCoherence(['', ''], scorer)).value, undefined);
  });

  it('paragraph level (the recorded fallback): 1/PPL of the whole text', async () => {
    near((await paragraphCoherence('First one. Second.', scorer)).value, Math.exp(-4.5 / 3), 'S_coh_para');
  });
});

describe('informativeness, Eq. 5: 1 - exp(mean log P(k_t | k_<t, q))', () => {
  it('conditions on the zero-shot knowledge prompt of the query, the knowledge after a space', async () => {
    const q = { topic: 'Seine', query: 'what is the Seine' };
    const scorer = tableScorer({ ' The Seine is a river.': [-6, 3] });
    near((await scoreInformativeness(q, 'The Seine is a river.', scorer)).value, 1 - Math.exp(-2), 'S_info');
    assert.deepEqual(scorer.contexts, [[zeroShotKnowledgePrompt(q), ' The Seine is a river.']]);
  });

  it('no token scored: no score', async () => {
    assert.equal((await scoreInformativeness({ topic: 't', query: 'q' }, '', tableScorer({ ' ': [0, 0] }))).value, undefined);
  });
});

describe('helpfulness, Eq. 6: max(0, 1 - L(q, k, a) / ((1/u) sum_i L(q, k_i^-, a)))', () => {
  it('from losses: the ratio to the mean of the baseline losses, clipped at 0 with the raw value kept', () => {
    const h = helpfulnessFromLosses(1, [2, 4]);
    near(h.raw, 1 - 1 / 3, 'raw');
    near(h.value, 2 / 3, 'value');
    const worse = helpfulnessFromLosses(5, [2, 4]);
    near(worse.raw, 1 - 5 / 3, 'raw, worse than the baseline');
    assert.equal(worse.value, 0);
  });

  it('the losses are per-token mean negative log-probabilities of the answer', async () => {
    // Answer " Paris": given k, -3 over 2 tokens (loss 1.5); given k1-, -6 over 2 (3); given k2-, -9 over 2 (4.5).
    const scorer: TokenScorer = {
      id: 'by-context',
      identity: 'by-context',
      async logLikelihood(context, continuation) {
        assert.equal(continuation, ' Paris');
        const row = context.includes('KNOWLEDGE-OWN') ? [-3, 2] : context.includes('KNOWLEDGE-ONE') ? [-6, 2] : [-9, 2];
        return { logLikelihood: row[0]!, tokens: row[1]!, cached: false };
      },
    };
    const q = { task: 'qa' as const, topic: 'France', query: 'capital of France' };
    const r = await scoreHelpfulness(q, 'KNOWLEDGE-OWN', 'Paris', [{ id: 'n1', knowledge: 'KNOWLEDGE-ONE' }, { id: 'n2', knowledge: 'KNOWLEDGE-TWO' }], scorer);
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

describe('validity', () => {
  it('span answers, Eq. 7: entailment of (q, a) by (q, a*)', async () => {
    const nli = tableClassifier({ 'capital of France Paris => capital of France Paris, France': [0.9, 0.08, 0.02] });
    const r = await spanValidity('capital of France', 'Paris', 'Paris, France', nli);
    assert.equal(r.validity.value, 0.9);
    assert.equal(r.validity.form, 'span');
  });

  it('open answers, Eq. 8: the highest entailment of the answer over the evidence; no evidence, no score', async () => {
    const nli = tableClassifier({ 'e1 => answer': [0.3, 0.3, 0.4], 'e2 => answer': [0.6, 0.1, 0.3], 'e3 => answer': [0.5, 0.5, 0] });
    const r = await openValidity('answer', ['e1', 'e2', 'e3'].map((text) => ({ source: 't', text })), nli);
    assert.equal(r.validity!.value, 0.6);
    assert.equal(r.validity!.evidence!.text, 'e2');
    assert.equal((await openValidity('answer', [], nli)).validity, undefined);
  });
});
