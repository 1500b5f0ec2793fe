/** Relevance, paper Eq. 2: S_rel(k, q) = Matching(k, q), a query-passage relevance model's score. */
import type { PairClassifier } from './scorers.js';

export async function scoreRelevance(query: string, knowledge: string, scorer: PairClassifier): Promise<{ relevance: number; cached: boolean }> {
  const r = await scorer.classify('relevance', [{ text: query, textPair: knowledge }]);
  const v = r.scores[0]?.relevant;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`relevance scorer ${scorer.id} returned no "relevant" score`);
  return { relevance: v, cached: r.cached };
}
