/**
 * Informativeness, paper Eq. 5: S_info(k, q) = 1 - exp((1/M) sum_t ln P_theta(k_t | k_<t, q)),
 * the knowledge's token probabilities under a reference language model given the query. The paper
 * does not say how q is given. By default (`table11`) it is the zero-shot knowledge prompt of
 * Table 11 (prompt 4), the knowledge following after a space. The authors' src/info.py
 * (`calculate_info_per_example`) conditions on its own instruction instead, "Generate a Wikipedia
 * to answer the given question.\nTopic: {topic}.\nQuestion: {query}?\nWikipedia: " (a "?" added to
 * an NQ question without one): the form `code`, an option. (src/info.py also leaves the first
 * knowledge token unscored, an artefact of slicing before shifting; llmkb scores every token.)
 */
import type { InformativenessPrefix } from '../conner-choices.js';
import { zeroShotKnowledgePrompt } from '../generation/conner-prompts.js';
import type { ConnerQuery } from '../generation/conner-queries.js';
import { meanLogProb, type TokenScorer } from './scorers.js';

export function informativenessContext(q: Pick<ConnerQuery, 'topic' | 'query' | 'task'>, prefix: InformativenessPrefix = 'table11'): string {
  if (prefix === 'table11') return zeroShotKnowledgePrompt(q);
  const query = q.task === 'qa' && !q.query.trim().endsWith('?') ? `${q.query.trim()}?` : q.query.trim();
  return `Generate a Wikipedia to answer the given question.\nTopic: ${q.topic.trim()}.\nQuestion: ${query}\nWikipedia:`;
}

export async function scoreInformativeness(
  q: Pick<ConnerQuery, 'topic' | 'query' | 'task'>,
  knowledge: string,
  scorer: TokenScorer,
  prefix: InformativenessPrefix = 'table11',
): Promise<{ value: number | undefined; cached: boolean; floored: number }> {
  const ll = await scorer.logLikelihood(informativenessContext(q, prefix), ` ${knowledge}`);
  const mean = meanLogProb(ll);
  return { value: mean === undefined ? undefined : 1 - Math.exp(mean), cached: ll.cached, floored: ll.floored };
}
