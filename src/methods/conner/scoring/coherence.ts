/**
 * Coherence. Sentence level, paper Eq. 3: S_coh_sent(k) = (1/m) sum_i 1/PPL(s_i), with
 * PPL(s_i) = exp(-(1/|s_i|) sum_t log P(s_i,t | s_i,<t)) under a language model (GPT-Neo 2.7B in
 * the paper's Table 14), each sentence scored on its own (empty context).
 *
 * Paragraph level, paper Eq. 4: S_coh_para(k) = Scorer_para(s_1, ..., s_m), the normalised score
 * of a discourse-coherence model (Jwalapuram et al. 2021; coherence-momentum in Table 14). No
 * such model runs in llmkb's backends, so llmkb uses 1/PPL of the whole paragraph under the same
 * scoring model: unlike Eq. 3 it conditions each sentence on the sentences before it, so it
 * drops when sentences do not follow from each other. This is a departure, recorded in every
 * run's protocol and in each record's scorer id for this metric.
 */
import { meanLogProb, type TokenScorer } from './scorers.js';

export const PARAGRAPH_COHERENCE_FALLBACK = '1/PPL of the whole knowledge text under the scoring model (no discourse-coherence model)';

/** 1/PPL(text) = exp(mean log-probability per token); undefined when no token was scored. */
export async function inversePerplexity(text: string, scorer: TokenScorer, context = ''): Promise<{ value: number | undefined; cached: boolean }> {
  const ll = await scorer.logLikelihood(context, text);
  const mean = meanLogProb(ll);
  return { value: mean === undefined ? undefined : Math.exp(mean), cached: ll.cached };
}

/** Eq. 3. Sentences the scorer gives no tokens for are left out; no scored sentence: undefined. */
export async function sentenceCoherence(sentences: readonly string[], scorer: TokenScorer): Promise<{ value: number | undefined; perSentence: Array<number | null>; cached: boolean }> {
  let cached = true;
  const perSentence: Array<number | null> = [];
  for (const s of sentences) {
    const r = await inversePerplexity(s, scorer);
    cached &&= r.cached;
    perSentence.push(r.value ?? null);
  }
  const scored = perSentence.filter((v): v is number => v !== null);
  return { value: scored.length === 0 ? undefined : scored.reduce((a, b) => a + b, 0) / scored.length, perSentence, cached };
}

/** Eq. 4 by the fallback scorer (see above). */
export async function paragraphCoherence(knowledge: string, scorer: TokenScorer): Promise<{ value: number | undefined; cached: boolean }> {
  return inversePerplexity(knowledge, scorer);
}
