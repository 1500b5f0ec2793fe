/**
 * Validity. Span answers (open-domain QA), paper Eq. 7: S_val(q, a*, a) = NLI_fact((q, a), (q, a*)),
 * the entailment probability with the concatenation (q, a*) as premise and (q, a) as hypothesis.
 * Open-ended answers (dialogue), paper Eq. 8: S_val(a, E) = max_i NLI_fact(a, e_i) over evidence
 * E collected for the answer. `a` is the answer generated with the knowledge. Premises longer
 * than the NLI model's window are cut to fit (./nli-window.ts), never the hypothesis.
 */
import type { Evidence } from '../evidence/evidence-source.js';
import { bestEvidence } from './factuality.js';
import { classifyWithinWindow, type PremiseCut } from './nli-window.js';
import { nliVector, type PairClassifier } from './scorers.js';

export interface Validity {
  value: number;
  /** Eq. 7 (span) or Eq. 8 (open). */
  form: 'span' | 'open';
  /** Open answers: the evidence that entails the answer most. */
  evidence?: Evidence;
  /** Premises cut to fit the NLI model's window. */
  premiseCuts?: PremiseCut[];
}

/** The (q, a) pair as one text: the question, then the answer. */
export function questionAnswerText(query: string, answer: string): string {
  return `${query.trim()} ${answer.trim()}`;
}

/** Eq. 7; undefined only when (q, a) alone does not fit the NLI model's window. */
export async function spanValidity(
  query: string,
  goldAnswer: string,
  answer: string,
  nli: PairClassifier,
): Promise<{ validity: Validity | undefined; cached: boolean }> {
  const r = await classifyWithinWindow(nli, [{ text: questionAnswerText(query, goldAnswer), textPair: questionAnswerText(query, answer) }]);
  const cuts = r.cuts.length > 0 ? { premiseCuts: r.cuts } : {};
  const scores = r.scores[0];
  return { validity: scores === undefined ? undefined : { value: nliVector(scores)[0], form: 'span', ...cuts }, cached: r.cached };
}

/** Eq. 8; no evidence at all: undefined (nothing can verify the answer). */
export async function openValidity(
  answer: string,
  evidence: readonly Evidence[],
  nli: PairClassifier,
): Promise<{ validity: Validity | undefined; cached: boolean }> {
  if (evidence.length === 0) return { validity: undefined, cached: true };
  const r = await classifyWithinWindow(
    nli,
    evidence.map((e) => ({ text: e.text, textPair: answer })),
  );
  const cuts = r.cuts.length > 0 ? { premiseCuts: r.cuts } : {};
  const scored = r.scores.flatMap((s, j) => (s === undefined ? [] : [{ vector: nliVector(s), evidence: evidence[j]! }]));
  if (scored.length === 0) return { validity: undefined, cached: r.cached };
  const j = bestEvidence(scored.map((x) => x.vector));
  return { validity: { value: scored[j]!.vector[0], form: 'open', evidence: scored[j]!.evidence, ...cuts }, cached: r.cached };
}
