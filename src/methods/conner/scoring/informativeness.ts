/**
 * Informativeness, paper Eq. 5: S_info(k, q) = 1 - exp((1/M) sum_t ln P_theta(k_t | k_<t, q)),
 * the knowledge's token probabilities under a reference language model given the query. The
 * query is given as the zero-shot knowledge prompt of Table 11 (the authors' code conditions on
 * an instruction with topic and question in the same way); the knowledge follows after a space.
 */
import { zeroShotKnowledgePrompt } from '../generation/conner-prompts.js';
import type { ConnerQuery } from '../generation/conner-queries.js';
import { meanLogProb, type TokenScorer } from './scorers.js';

export function informativenessContext(q: Pick<ConnerQuery, 'topic' | 'query'>): string {
  return zeroShotKnowledgePrompt(q);
}

export async function scoreInformativeness(q: Pick<ConnerQuery, 'topic' | 'query'>, knowledge: string, scorer: TokenScorer): Promise<{ value: number | undefined; cached: boolean }> {
  const ll = await scorer.logLikelihood(informativenessContext(q), ` ${knowledge}`);
  const mean = meanLogProb(ll);
  return { value: mean === undefined ? undefined : 1 - Math.exp(mean), cached: ll.cached };
}
