/**
 * Validity. Span answers (open-domain QA), paper Eq. 7: S_val(q, a*, a) = NLI_fact((q, a), (q, a*)),
 * the entailment probability with the concatenation (q, a*) as premise and (q, a) as hypothesis.
 * Open-ended answers (dialogue), paper Eq. 8: S_val(a, E) = max_i NLI_fact(a, e_i) over evidence
 * E collected for the answer. `a` is the answer generated with the knowledge.
 */
import type { Evidence } from '../evidence/evidence-source.js';
import { bestEvidence } from './factuality.js';
import { nliVector, type PairClassifier } from './scorers.js';

export interface Validity {
  value: number;
  /** Eq. 7 (span) or Eq. 8 (open). */
  form: 'span' | 'open';
  /** Open answers: the evidence that entails the answer most. */
  evidence?: Evidence;
}

/** The (q, a) pair as one text: the question, then the answer. */
export function questionAnswerText(query: string, answer: string): string {
  return `${query.trim()} ${answer.trim()}`;
}

export async function spanValidity(query: string, goldAnswer: string, answer: string, nli: PairClassifier): Promise<{ validity: Validity; cached: boolean }> {
  const r = await nli.classify('nli', [{ text: questionAnswerText(query, goldAnswer), textPair: questionAnswerText(query, answer) }]);
  return { validity: { value: nliVector(r.scores[0]!)[0], form: 'span' }, cached: r.cached };
}

/** Eq. 8; no evidence at all: undefined (nothing can verify the answer). */
export async function openValidity(answer: string, evidence: readonly Evidence[], nli: PairClassifier): Promise<{ validity: Validity | undefined; cached: boolean }> {
  if (evidence.length === 0) return { validity: undefined, cached: true };
  const r = await nli.classify('nli', evidence.map((e) => ({ text: e.text, textPair: answer })));
  const vectors = r.scores.map(nliVector);
  const j = bestEvidence(vectors);
  return { validity: { value: vectors[j]![0], form: 'open', evidence: evidence[j]! }, cached: r.cached };
}
