/**
 * `--limit N` (every stage and `llmkb eval`): a quick look at N items instead of all of them.
 *
 * The N items are a seeded sample, not the first N lines: SeenQA and UnseenQA files are grouped
 * by source and template, so the first N would be all NQ and no unseen question at all. The
 * sample is split between the data sets (`dataset`: seen / unseen) in proportion to their sizes,
 * so both halves of the metrics stay defined, and kept in file order. The same N and seed give
 * the same items in every stage (`ask --limit 20` then `judge --limit 20` keeps all 20).
 *
 * A limited run reads fewer items, so its data set checksum, and with it its run id, differs
 * from the full run's: the records of the two never mix.
 */
import { SeededRandom } from './seeded-random.js';

export function limitItems<T>(items: readonly T[], limit: number, seed: number): T[] {
  if (limit >= items.length) return [...items];
  const groups = new Map<string, Array<{ item: T; index: number }>>();
  // One pass, appending in place: linear in the input (a 100k-line file takes milliseconds).
  items.forEach((item, index) => {
    const dataset = (item as { dataset?: unknown }).dataset;
    const key = typeof dataset === 'string' ? dataset : '';
    const members = groups.get(key);
    if (members === undefined) groups.set(key, [{ item, index }]);
    else members.push({ item, index });
  });
  // Largest remainder: floor of each proportional share, the rest to the largest fractions.
  const shares = [...groups.entries()].map(([key, members]) => {
    const exact = (limit * members.length) / items.length;
    return { key, members, quota: Math.floor(exact), fraction: exact - Math.floor(exact) };
  });
  let left = limit - shares.reduce((sum, s) => sum + s.quota, 0);
  for (const s of [...shares].sort((a, b) => b.fraction - a.fraction)) {
    if (left === 0) break;
    s.quota += 1;
    left -= 1;
  }
  return shares
    .flatMap((s) => SeededRandom.stream(seed, 'limit', s.key).sample(s.members, s.quota))
    .sort((a, b) => a.index - b.index)
    .map((m) => m.item);
}

/**
 * `--limit n`: a seeded sample of n of a file's items (`limitItems`), drawn from
 * its ids in sorted order and kept in file order. So a query file and the knowledge files made
 * from it, in whatever order, keep the same queries (their runs still pair), and `generate
 * --limit n` then `score --limit n` score what was generated.
 */
export function limitItemsById<T extends { id: string }>(items: readonly T[], limit: number, seed: number): T[] {
  const kept = new Set(limitItems(items.map((k) => k.id).sort(), limit, seed));
  return items.filter((k) => kept.has(k.id));
}

/** How `--limit` draws its sample: `limitItems`, or a method's own (`limitItemsById`, say). */
export type LimitSampler<T> = (items: readonly T[], limit: number, seed: number) => T[] | Promise<T[]>;

/** What `--limit n` did to a list of `of` items: it kept `n`. */
export interface LimitCut {
  n: number;
  of: number;
}

/** `--limit n` over one list: the list itself when n keeps all of it, else its seeded sample and the cut. */
export async function limitSample<T>(
  items: readonly T[],
  limit: number | undefined,
  seed: number,
  sample: LimitSampler<T> = limitItems,
): Promise<{ items: readonly T[]; cut?: LimitCut }> {
  if (limit === undefined || limit >= items.length) return { items };
  return { items: await sample(items, limit, seed), cut: { n: limit, of: items.length } };
}

/** The line that says what `--limit` cut: `--limit 5: 5 of 20 questions (a seeded sample; a run of its own)`, with the seed when given. */
export function limitNote(limit: number, cuts: readonly LimitCut[], what: string, seed?: number): string {
  return `--limit ${limit}: ${cuts.map((c) => `${c.n} of ${c.of}`).join(', ')} ${what} (a seeded sample${seed === undefined ? '' : `, seed ${seed}`}; a run of its own)`;
}
