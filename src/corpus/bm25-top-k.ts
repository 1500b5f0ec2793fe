/**
 * Exact BM25 top-k over an FTS5 index, fast when a query has frequent terms: MaxScore's
 * argument (Turtle & Flood 1995, "Query evaluation: strategies and optimizations") with FTS5
 * doing all the scoring.
 *
 * Why: an FTS5 OR query `ORDER BY rank` scores every passage that holds any query term (about a
 * microsecond each here), so one frequent term ("first", "world") makes a query on a million
 * passages score hundreds of thousands of rows. Leaving such terms out (the posting budget this
 * replaces) changes the ranking, which an evaluation tool must not do. Instead:
 *
 * 1. Each term's contribution is bounded: FTS5's bm25 adds, per phrase,
 *    idf · tf·(k1+1) / (tf + k1·(1 − b + b·|D|/avgdl)) with idf = ln((N − n + 0.5)/(n + 0.5))
 *    (1e-6 when ≤ 0), k1 = 1.2, b = 0.75 (sqlite/ext/fts5/fts5_aux.c, fts5Bm25Function); the
 *    fraction is below k1 + 1, so a term adds less than idf·(k1+1); tighter, its UB is the
 *    score of its best passage for the term alone (computed once, see `upperBound`).
 * 2. The terms are split into the rarest ones, R (their postings add up to a budget), and the
 *    rest. Two FTS5 queries rank (a) the passages with an R term by their R terms only, and
 *    (b) `(R) AND (rest)`: the passages with an R term and another term, scored over all terms.
 *    Merged (a passage in both keeps its (b) score), their top k is the exact top k of the
 *    passages holding an R term: one with a rest term is ranked exactly by (b), one without has
 *    its full score in (a), and a partial score from (a) can never displace (b)'s k better ones.
 * 3. A passage with no R term scores less than ΣUB(rest). When that sum is below the k-th score
 *    found, no such passage can enter the top k and the result is exact; otherwise R grows once,
 *    to what that k-th score proves, or the plain query over all terms is run.
 *
 * The result equals `SELECT rowid, rank ... MATCH 't1 OR t2 ...' ORDER BY rank, rowid LIMIT k`;
 * scores may differ in the last bit (FTS5 sums the phrases in the order of the query text).
 */
import type { Db } from '../store/database.js';
import { matchAny } from './fts-query.js';

/** FTS5's bm25 constants (fixed in SQLite). */
export const K1 = 1.2;
export const B = 0.75;

/**
 * Postings of the rarest terms ranked in the first round (see the module comment and `search`).
 */
export const POSTING_BUDGET = 20_000;
export const TIGHT_BOUND_MAX_DF = 100_000;

export interface Bm25Hit {
  id: number;
  /** −bm25(): higher is better. */
  score: number;
}

/** How a query was evaluated (for benchmarks and `--explain`-style output). */
export interface Bm25Plan {
  terms: string[];
  /** The rarest terms (R): every passage in the result holds one of them. */
  rare: string[];
  /** The other terms, and the bound on what a passage with only those can score (ΣUB). */
  rest: string[];
  restBound: number;
  /** Rounds of the two ranked queries (at most 2), and whether it ended with the plain query over all terms. */
  rounds: number;
  exhaustive: boolean;
}

/** SQLite varints (big-endian groups of 7 bits; a 9th byte holds 8), as in FTS5's averages record. */
function readVarints(blob: Uint8Array, count: number): number[] {
  const out: number[] = [];
  let i = 0;
  while (out.length < count && i < blob.length) {
    let v = 0;
    let n = 0;
    for (;;) {
      const byte = blob[i++]!;
      if (n === 8) {
        v = v * 256 + byte;
        break;
      }
      v = v * 128 + (byte & 0x7f);
      n += 1;
      if ((byte & 0x80) === 0) break;
    }
    out.push(v);
  }
  return out;
}

/** FTS5's N and avgdl, and `rows:tokens` as the key of the index state they describe. */
export interface IndexStats {
  rows: number;
  avgdl: number;
  key: string;
}

/** N and avgdl as FTS5's bm25 sees them: the averages record (rowid 1 of `<fts>_data`). */
export function readIndexStats(db: Db, ftsTable: string): IndexStats {
  const row = db.prepare(`SELECT block FROM ${ftsTable}_data WHERE id = 1`).get() as { block: Uint8Array } | undefined;
  const [rows = 0, tokens = 0] = row === undefined ? [] : readVarints(row.block, 2);
  return { rows, avgdl: rows === 0 ? 1 : tokens / rows, key: `${rows}:${tokens}` };
}

/** SQLite varints (for the `sz` blobs of `<fts>_docsize`). */
export function readVarint(blob: Uint8Array): number {
  return readVarints(blob, 1)[0] ?? 0;
}

/**
 * Where a new searcher finds the document frequencies and bounds of terms computed before (by
 * `corpus add`, see bm25-bounds.ts), so the first query of a process does not compute them.
 */
export interface Bm25BoundSource {
  /** The frequency and a true upper bound of the terms it knows, for the index state `stats`; none when it is stale. */
  lookup(terms: readonly string[], stats: IndexStats): Map<string, { df: number; bound: number }>;
}

/** FTS5's bm25 IDF of a term in `n` of `rows` passages. */
export function fts5Idf(rows: number, n: number): number {
  const idf = Math.log((rows - n + 0.5) / (n + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/**
 * Exact BM25 top-k of an FTS5 table (see the module comment). One instance per table: it caches
 * term document frequencies until the index changes (FTS5's row and token totals are its key).
 */
export class Bm25TopK {
  readonly #db: Db;
  readonly #fts: string;
  #stats: IndexStats | undefined;
  readonly #df = new Map<string, number>();
  /** Upper bounds of the terms' contributions (see `upperBound`). */
  readonly #max = new Map<string, number>();
  readonly #persisted: Bm25BoundSource | undefined;

  /** Postings of the first round's terms (default POSTING_BUDGET). */
  budget = POSTING_BUDGET;

  constructor(db: Db, ftsTable: string, persisted?: Bm25BoundSource) {
    this.#db = db;
    this.#fts = ftsTable;
    this.#persisted = persisted;
  }

  #indexStats(): IndexStats {
    const stats = readIndexStats(this.#db, this.#fts);
    if (this.#stats?.key !== stats.key) {
      this.#df.clear();
      this.#max.clear();
    }
    this.#stats = stats;
    return stats;
  }

  /** Passages holding `term` (FTS5 tokenizes it as in the index: stemming applies). */
  documentFrequency(term: string): number {
    let n = this.#df.get(term);
    if (n === undefined) {
      n = (this.#db.prepare(`SELECT COUNT(*) AS n FROM ${this.#fts} WHERE ${this.#fts} MATCH ?`).get(matchAny([term])) as { n: number }).n;
      this.#df.set(term, n);
    }
    return n;
  }

  /**
   * The most `term` adds to any passage's score: FTS5's bm25 of the one-term query for its best
   * passage (the same idf, tf and length as inside a longer query). Ranking all of the term's
   * passages once costs what one plain query on it costs; it is cached like the frequency. Terms in
   * more than TIGHT_BOUND_MAX_DF passages keep the looser idf·(k1+1) (their idf is small anyway).
   * A bound from the store (see `Bm25BoundSource`) is used as it is: it may be looser, never lower.
   */
  upperBound(term: string, rows: number): number {
    let max = this.#max.get(term);
    if (max !== undefined) return max;
    const df = this.documentFrequency(term);
    if (df > TIGHT_BOUND_MAX_DF) return fts5Idf(rows, df) * (K1 + 1.0);
    max = -(this.#rank(matchAny([term]), 1)[0]?.rank ?? 0);
    this.#max.set(term, max);
    return max;
  }

  #rank(match: string, k: number): Array<{ id: number; rank: number }> {
    return this.#db.prepare(`SELECT rowid AS id, rank FROM ${this.#fts} WHERE ${this.#fts} MATCH ? ORDER BY rank, rowid LIMIT ?`).all(match, k) as Array<{
      id: number;
      rank: number;
    }>;
  }

  #top(match: string, k: number): Bm25Hit[] {
    return this.#rank(match, k).map((r) => ({ id: r.id, score: -r.rank }));
  }

  /** The plain FTS5 query: every passage with any term ranked. */
  exhaustive(terms: readonly string[], k: number): Bm25Hit[] {
    return terms.length === 0 ? [] : this.#top(matchAny(terms), k);
  }

  /** The exact top `k` for the OR of `terms` (deduplicated query tokens), and how it was found. */
  search(terms: readonly string[], k: number): { hits: Bm25Hit[]; plan: Bm25Plan } {
    const plan: Bm25Plan = { terms: [...terms], rare: [...terms], rest: [], restBound: 0, rounds: 1, exhaustive: true };
    if (terms.length <= 1) return { hits: this.exhaustive(terms, k), plan };
    const stats = this.#indexStats();
    // Terms this searcher has not seen yet: the frequencies and bounds `corpus add` stored, when they are current.
    const unseen = terms.filter((t) => !this.#df.has(t));
    if (this.#persisted !== undefined && unseen.length > 0) {
      for (const [t, { df, bound }] of this.#persisted.lookup(unseen, stats)) {
        this.#df.set(t, df);
        this.#max.set(t, bound);
      }
    }
    const df = new Map(terms.map((t) => [t, this.documentFrequency(t)]));
    const present = terms.filter((t) => df.get(t)! > 0);
    if (present.length <= 1) return { hits: this.exhaustive(present, k), plan: { ...plan, rare: present } };
    const bounds = new Map(present.map((t) => [t, this.upperBound(t, stats.rows)]));
    // A hair above the bound: FTS5 may sum the same contributions in another order.
    const bound = (t: string): number => bounds.get(t)! * (1 + 1e-9);
    const byRarity = [...present].sort((a, b) => df.get(a)! - df.get(b)! || present.indexOf(a) - present.indexOf(b));
    // Round 1: R within the posting budget. Its k-th score θ1 is a lower bound of the true k-th
    // score, so round 2 takes the fewest rarest terms that leave ΣUB(rest) < θ1, which is then
    // proven (round 2's k-th score is at least θ1); when no term can be left out, the plain query.
    let postings = 0;
    let n = 0;
    while (n < byRarity.length && (n === 0 || postings + df.get(byRarity[n]!)! <= this.budget)) postings += df.get(byRarity[n++]!)!;
    let rareSet = new Set(byRarity.slice(0, n));
    const byBound = [...present].sort((a, b) => bound(a) - bound(b) || present.indexOf(a) - present.indexOf(b));
    let rounds = 0;
    while (rareSet.size < present.length) {
      rounds += 1;
      const rare = present.filter((t) => rareSet.has(t));
      const rest = present.filter((t) => !rareSet.has(t));
      const restBound = rest.reduce((a, t) => a + bound(t), 0);
      const partial = this.#top(matchAny(rare), k);
      const full = this.#top(`(${matchAny(rare)}) AND (${matchAny(rest)})`, k);
      const best = new Map(partial.map((h) => [h.id, h.score]));
      for (const h of full) best.set(h.id, h.score);
      const hits = [...best]
        .map(([id, score]) => ({ id, score }))
        .sort((a, b) => b.score - a.score || a.id - b.id)
        .slice(0, k);
      const theta = hits.length === k ? hits[k - 1]!.score : 0;
      if (restBound < theta) return { hits, plan: { terms: [...terms], rare, rest, restBound, rounds, exhaustive: false } };
      if (rounds === 2) break;
      // The terms with the smallest bounds, while those add up to less than θ1, stay out; the others are R.
      let left = 0;
      const out = new Set<string>();
      for (const t of byBound) {
        if (left + bound(t) >= theta) break;
        left += bound(t);
        out.add(t);
      }
      rareSet = new Set(present.filter((t) => !out.has(t)));
    }
    return { hits: this.exhaustive(present, k), plan: { ...plan, rare: present, rounds: rounds + 1 } };
  }
}
