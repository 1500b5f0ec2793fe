/**
 * Factuality, paper Eq. 1: S_fact(k, E) = min_i max_j NLI(s_i, e_ij). For each sentence s_i the
 * NLI model gives (entailment, neutral, contradiction) for every evidence e_ij (premise) and the
 * sentence (hypothesis); the evidence with the highest entailment is kept; the sentences are then
 * aggregated "along the entailment dimension" with min (profile `equations`), mean or max. The three
 * dimensions of the result are the factual-consistent, non-verified and factual-inconsistent
 * scores.
 *
 * Decisions the paper leaves open (recorded in the run's protocol):
 * - min / max pick the sentence with the lowest / highest entailment and keep its whole vector
 *   (so the three scores still sum to 1); mean averages the vectors;
 * - a sentence with no evidence at all is non-verified: (0, 1, 0);
 * - an item's label, for the shares of Table 2, is the largest of its three scores (ties go to
 *   the first in the order consistent, non-verified, inconsistent).
 *
 * The authors' scripts (src/eval_exp.py:124-146, `single_instance_eval`), whose numbers the
 * paper's tables are, combine labels instead (rule `labels` with max, the default profile): each sentence's label is the argmax of its best evidence's vector, the labels are
 * ordinals (inconsistent 0 < non-verified 1 < consistent 2), min / max pick the lowest / highest
 * label and keep the vector of the first sentence with it, and mean averages the vectors while the
 * shares count the sentences' labels over the whole set (../summary/metric-aggregates.ts).
 */
import type { FactualityAggregation, FactualityRule } from '../conner-choices.js';
import type { Evidence } from '../evidence/evidence-source.js';
import { classifyWithinWindow, type PremiseCut } from './nli-window.js';
import { nliVector, type NliVector, type PairClassifier } from './scorers.js';

export const FACTUALITY_AGGREGATIONS: readonly FactualityAggregation[] = ['min', 'mean', 'max'];

export type FactualityLabel = 'factual-consistent' | 'non-verified' | 'factual-inconsistent';
export const FACTUALITY_LABELS: readonly FactualityLabel[] = ['factual-consistent', 'non-verified', 'factual-inconsistent'];

export const NO_EVIDENCE: NliVector = [0, 1, 0];

export interface SentenceFactuality {
  sentence: string;
  /** The evidence with the highest entailment (absent when there was none). */
  evidence?: Evidence;
  /** f(s_i, E_i) = max_j NLI(s_i, e_ij), by entailment. */
  nli: NliVector;
  /** How many evidence passages were checked. */
  candidates: number;
  /** Premises cut to fit the NLI model's window (only when some were). */
  premiseCuts?: PremiseCut[];
}

export interface Factuality {
  sentences: SentenceFactuality[];
  /** S_fact: (factual-consistent, non-verified, factual-inconsistent). */
  score: NliVector;
  label: FactualityLabel;
}

/** max_j over one sentence's evidence, by the entailment dimension (first wins ties). */
export function bestEvidence(vectors: readonly NliVector[]): number {
  let best = -1;
  for (let j = 0; j < vectors.length; j++) if (best === -1 || vectors[j]![0] > vectors[best]![0]) best = j;
  return best;
}

/** Aggregation over sentences along the entailment dimension (Eq. 1 with min, or mean / max). */
export function aggregateFactuality(vectors: readonly NliVector[], op: FactualityAggregation): NliVector {
  if (vectors.length === 0) throw new Error('aggregateFactuality of no sentences');
  if (op === 'mean') {
    const sum: NliVector = [0, 0, 0];
    for (const v of vectors) for (let d = 0; d < 3; d++) sum[d] = sum[d]! + v[d]!;
    return sum.map((x) => x / vectors.length) as NliVector;
  }
  let pick = 0;
  for (let i = 1; i < vectors.length; i++) {
    if (op === 'min' ? vectors[i]![0] < vectors[pick]![0] : vectors[i]![0] > vectors[pick]![0]) pick = i;
  }
  return [...vectors[pick]!] as NliVector;
}

export function factualityLabel(v: NliVector): FactualityLabel {
  let best = 0;
  for (let d = 1; d < 3; d++) if (v[d]! > v[best]!) best = d;
  return FACTUALITY_LABELS[best]!;
}

/** The authors' ordinals: factual-inconsistent 0 < non-verified 1 < factual-consistent 2. */
const ORDINAL: Record<FactualityLabel, number> = { 'factual-inconsistent': 0, 'non-verified': 1, 'factual-consistent': 2 };

/**
 * A sentence's label as the authors' scripts read it: np.argmax over (contradiction, neutral,
 * entailment), so ties go to contradiction, then neutral.
 */
export function sentenceLabel(v: NliVector): FactualityLabel {
  const [e, n, c] = v;
  if (c >= n && c >= e) return 'factual-inconsistent';
  return n >= e ? 'non-verified' : 'factual-consistent';
}

/** Rule `labels` with min or max: the extreme label, and the vector of the first sentence with it. */
export function aggregateLabels(vectors: readonly NliVector[], op: 'min' | 'max'): { label: FactualityLabel; vector: NliVector } {
  if (vectors.length === 0) throw new Error('aggregateLabels of no sentences');
  const ordinals = vectors.map((v) => ORDINAL[sentenceLabel(v)]);
  const target = op === 'min' ? Math.min(...ordinals) : Math.max(...ordinals);
  const i = ordinals.indexOf(target);
  return { label: sentenceLabel(vectors[i]!), vector: [...vectors[i]!] as NliVector };
}

/** An item's S_fact and label from its sentences' vectors under a rule and an operation. */
export function combineSentences(vectors: readonly NliVector[], op: FactualityAggregation, rule: FactualityRule): { score: NliVector; label: FactualityLabel } {
  if (rule === 'labels' && op !== 'mean') {
    const { label, vector } = aggregateLabels(vectors, op);
    return { score: vector, label };
  }
  const score = aggregateFactuality(vectors, op);
  return { score, label: factualityLabel(score) };
}

/**
 * Scores each sentence against its evidence with the NLI classifier, then aggregates. A premise
 * longer than the NLI model's window is cut to fit (./nli-window.ts) and the cut is kept with
 * the sentence; a hypothesis is never cut.
 */
export async function scoreFactuality(
  sentences: readonly string[],
  evidenceFor: (sentence: string) => Evidence[] | Promise<Evidence[]>,
  nli: PairClassifier,
  op: FactualityAggregation,
  rule: FactualityRule = 'vector',
): Promise<{ factuality: Factuality; cached: boolean } | undefined> {
  if (sentences.length === 0) return undefined;
  let cached = true;
  const perSentence: SentenceFactuality[] = [];
  for (const sentence of sentences) {
    const evidence = await evidenceFor(sentence);
    if (evidence.length === 0) {
      perSentence.push({ sentence, nli: [...NO_EVIDENCE], candidates: 0 });
      continue;
    }
    const r = await classifyWithinWindow(
      nli,
      evidence.map((e) => ({ text: e.text, textPair: sentence })),
    );
    cached &&= r.cached;
    const cuts = r.cuts.length > 0 ? { premiseCuts: r.cuts } : {};
    const scored = r.scores.flatMap((s, j) => (s === undefined ? [] : [{ vector: nliVector(s), evidence: evidence[j]! }]));
    if (scored.length === 0) {
      perSentence.push({ sentence, nli: [...NO_EVIDENCE], candidates: 0, ...cuts });
      continue;
    }
    const j = bestEvidence(scored.map((x) => x.vector));
    perSentence.push({ sentence, evidence: scored[j]!.evidence, nli: scored[j]!.vector, candidates: evidence.length, ...cuts });
  }
  const { score, label } = combineSentences(
    perSentence.map((s) => s.nli),
    op,
    rule,
  );
  return { factuality: { sentences: perSentence, score, label }, cached };
}
