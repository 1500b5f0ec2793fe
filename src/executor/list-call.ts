/**
 * A call that takes a list of items (embed: texts; classify: text pairs), each item cached as a
 * call of its own (see ModelExecutor#perItem), and how a request's tokens are shared among the
 * items it answered.
 */
import type { Usage } from '../providers/language-model.js';

export type CallOptions = { signal: AbortSignal; endpoint: string; cacheKey?: string };

export interface ListCall<I, R extends { usage: Usage }> {
  kind: 'embed' | 'classify';
  items: readonly I[];
  /** An item's parameters: its cache key's, and its stored request. */
  params: (item: I) => object;
  /** An item's length in characters: its share of a request's tokens. */
  length: (item: I) => number;
  /** Items per request. */
  batchSize: number;
  /** One request for a batch of items. */
  run: (batch: I[], opts: CallOptions) => Promise<R>;
  /** How many items a request's result answers. */
  answered: (result: R) => number;
  /** The result of the item at `index` of a request, with its share of the request's usage. */
  single: (result: R, index: number, usage: Usage) => R;
  /** What the results and items are called in an error: e.g. ['scores', 'pairs']. */
  nouns: [results: string, items: string];
}

/**
 * Each item's share of a request's usage, by its length: what a cache hit on it saves. Rounded
 * from running sums, so the shares add up to the request's usage.
 */
export function usageShares(usage: Usage, lengths: readonly number[]): Usage[] {
  const total = Math.max(
    1,
    lengths.reduce((n, l) => n + l, 0),
  );
  const share = (n: number, from: number, to: number) => Math.round((n * to) / total) - Math.round((n * from) / total);
  let upTo = 0;
  return lengths.map((length) => {
    const from = upTo;
    upTo += length;
    return {
      promptTokens: share(usage.promptTokens, from, upTo),
      completionTokens: share(usage.completionTokens, from, upTo),
      evaluatedTokens: share(usage.evaluatedTokens, from, upTo),
    };
  });
}
