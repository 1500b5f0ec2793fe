/**
 * The queries helpfulness's shared baseline draws from (its passages and demonstrations), apart
 * from the drawing itself (helpfulness-baseline.ts), so the protocol can name the pool without
 * loading the seeded sampler (every command's start-up loads the protocol).
 */

export interface BaselineQuery {
  id: string;
  topic: string;
  query: string;
  history?: string[];
  referenceKnowledge?: string;
  goldAnswer?: string;
}

/** The queries the baseline passages and demonstrations come from: those with a gold passage and answer, by id. */
export function baselinePool(items: readonly BaselineQuery[]): BaselineQuery[] {
  const byId = new Map<string, BaselineQuery>();
  for (const k of items) {
    if (byId.has(k.id) || !k.referenceKnowledge?.trim() || !k.goldAnswer?.trim()) continue;
    byId.set(k.id, { id: k.id, topic: k.topic, query: k.query, referenceKnowledge: k.referenceKnowledge, goldAnswer: k.goldAnswer });
  }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
