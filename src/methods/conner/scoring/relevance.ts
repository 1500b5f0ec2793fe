/**
 * Relevance, paper Eq. 2: S_rel(k, q) = Matching(k, q), a query-passage relevance model's score.
 * A knowledge text longer than the model's window is cut to the longest prefix of its words that
 * fits, the query never (./nli-window.ts); the cut is returned for the record.
 */
import { classifyWithinWindow, type PremiseCut } from './nli-window.js';
import type { PairClassifier } from './scorers.js';

export async function scoreRelevance(
  query: string,
  knowledge: string,
  scorer: PairClassifier,
): Promise<{ relevance: number | undefined; cached: boolean; cuts: PremiseCut[] }> {
  const r = await classifyWithinWindow(scorer, [{ text: query, textPair: knowledge }], 'relevance');
  const scores = r.scores[0];
  // The query alone does not fit: no score.
  if (scores === undefined) return { relevance: undefined, cached: r.cached, cuts: r.cuts };
  const v = scores.relevant;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`relevance scorer ${scorer.id} returned no "relevant" score`);
  return { relevance: v, cached: r.cached, cuts: r.cuts };
}
