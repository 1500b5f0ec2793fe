/**
 * Coherence. Sentence level, paper Eq. 3: S_coh_sent(k) = (1/m) sum_i 1/PPL(s_i), with
 * PPL(s_i) = exp(-(1/|s_i|) sum_t log P(s_i,t | s_i,<t)) under a language model (GPT-Neo 2.7B in
 * the paper's Table 14), each sentence scored on its own (empty context). The authors' src/ppl.py
 * (`calculate_ppls`, src/ppl.py:36-37,65-66) computes 1 / ((1/m) sum_i min(PPL(s_i), 200))
 * instead: the form `inverse-mean`, the default profile's, with the cap recorded (the shipped
 * nq_ref_avg_sent_ppl was made with 100).
 *
 * Paragraph level, paper Eq. 4: S_coh_para(k) = Scorer_para(s_1, ..., s_m), the normalised score
 * of a discourse-coherence model (Jwalapuram et al. 2021; Coherence-Momentum in Table 14). Given a
 * `coherence` classifier (a model that scores one text, e.g. served by TEI /predict), its score
 * is it, normalised to [0, 1] (sigmoid of a one-output model, softmax of a several-output one).
 * Without one, llmkb uses 1/PPL of the whole paragraph under the scoring model: unlike Eq. 3 it
 * conditions each sentence on the sentences before it, so it drops when sentences do not follow
 * from each other. That fallback is a departure, recorded in the run's protocol and in each
 * record's scorer id for this metric.
 */
import { PPL_CAP, type SentenceCoherenceForm } from '../conner-choices.js';
import { meanLogProb, type PairClassifier, type TokenScorer } from './scorers.js';

export const PARAGRAPH_COHERENCE_FALLBACK = '1/PPL of the whole knowledge text under the scoring model (no discourse-coherence model)';

export interface InversePerplexity {
  value: number | undefined;
  cached: boolean;
  floored: number;
}

/** 1/PPL(text) = exp(mean log-probability per token); undefined when no token was scored. */
export async function inversePerplexity(text: string, scorer: TokenScorer, context = ''): Promise<InversePerplexity> {
  const ll = await scorer.logLikelihood(context, text);
  const mean = meanLogProb(ll);
  return { value: mean === undefined ? undefined : Math.exp(mean), cached: ll.cached, floored: ll.floored };
}

/** Eq. 3 (`mean-inverse`) or src/ppl.py's `inverse-mean` from the sentences' 1/PPL. */
export function combineSentencePerplexities(inverse: readonly number[], form: SentenceCoherenceForm, cap = PPL_CAP): number | undefined {
  if (inverse.length === 0) return undefined;
  if (form === 'mean-inverse') return inverse.reduce((a, b) => a + b, 0) / inverse.length;
  // 1/0 is an infinite perplexity: capped like any other above the cap.
  const capped = inverse.map((v) => Math.min(1 / v, cap));
  return 1 / (capped.reduce((a, b) => a + b, 0) / capped.length);
}

/** Eq. 3. Sentences the scorer gives no tokens for are left out; no scored sentence: undefined. */
export async function sentenceCoherence(
  sentences: readonly string[],
  scorer: TokenScorer,
  form: SentenceCoherenceForm = 'mean-inverse',
  cap = PPL_CAP,
): Promise<InversePerplexity & { perSentence: Array<number | null> }> {
  let cached = true;
  let floored = 0;
  const perSentence: Array<number | null> = [];
  for (const s of sentences) {
    const r = await inversePerplexity(s, scorer);
    cached &&= r.cached;
    floored += r.floored;
    perSentence.push(r.value ?? null);
  }
  return {
    value: combineSentencePerplexities(
      perSentence.filter((v): v is number => v !== null),
      form,
      cap,
    ),
    perSentence,
    cached,
    floored,
  };
}

/** Eq. 4: the coherence scorer's score of the paragraph, or the fallback (see above). */
export async function paragraphCoherence(knowledge: string, scorer: { coherence: PairClassifier } | { fallback: TokenScorer }): Promise<InversePerplexity> {
  if ('fallback' in scorer) return inversePerplexity(knowledge, scorer.fallback);
  const r = await scorer.coherence.classify('coherence', [{ text: knowledge, textPair: '' }]);
  const v = r.scores[0]?.coherent;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`coherence scorer ${scorer.coherence.id} returned no "coherent" score`);
  return { value: v, cached: r.cached, floored: 0 };
}
