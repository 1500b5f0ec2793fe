/**
 * BM25 term bounds kept in the workspace store, so that the first query of a new process (one
 * `llmkb corpus search`, the first questions of any run) is as fast as later ones.
 *
 * Why: the exact top-k search (bm25-top-k.ts) needs each query term's document frequency (df)
 * and an upper bound of what it adds to a passage's score. For a frequent term both cost time
 * proportional to its postings (bench/README.md has the figures at a million passages); cached
 * only in memory, every new process would pay that again.
 *
 * What is stored, per corpus and index term (the stemmed form FTS5 indexes), for every term in at
 * least PERSIST_MIN_DF passages (rarer ones cost about a millisecond on demand):
 * - `df`, exact for the index state named by `stats_key` (FTS5's `rows:tokens`);
 * - `fraction`: a bound of the term's BM25 fraction tf·(k1+1) / (tf + k1·(1 − b + b·|D|/avgdl))
 *   over its passages, at the average length `avgdl` of the state row. A term's bound in a query
 *   is then idf(N, df) · fraction (its best one-term score when computed at the same state). At
 *   another average length A the fraction of a passage is at most max(1, A/avgdl) times the
 *   stored one (the denominator shrinks by at most that factor), so a stored fraction stays a
 *   true bound while the index changes, as long as it covers every passage.
 *
 * Kept true: `corpus add` marks the state 'changing' in the same transaction as its first index
 * write, so a search in another process (or after a crash) never uses bounds that miss passages;
 * at the end of the add they are brought up to date (`refreshBm25Bounds`):
 * - incrementally when the add wrote few passages and the state was sound before it: df is
 *   recounted for every term (one scan of FTS5's vocabulary), the passages written are tokenized
 *   with the corpus's tokenizer (a scratch FTS5 table in the temp schema) and each term's
 *   fraction becomes the larger of the old one (scaled to the new avgdl) and the new passages'
 *   best; removed passages only make the stored fractions looser, never wrong;
 * - fully otherwise (the first add, a large one, a store made before this table existed):
 *   each frequent term's best passage ranked by FTS5 itself.
 * Terms in more than TIGHT_BOUND_MAX_DF passages keep the loose fraction k1 + 1, as in memory.
 */
import type { Db } from '../store/database.js';
import { B, fts5Idf, K1, readIndexStats, readVarint, TIGHT_BOUND_MAX_DF, type Bm25BoundSource, type IndexStats } from './bm25-top-k.js';
import { matchAny } from './fts-query.js';

export const BM25_BOUNDS_SCHEMA = `
CREATE TABLE IF NOT EXISTS corpus_bm25_state (
  corpus_id INTEGER PRIMARY KEY REFERENCES corpora(id) ON DELETE CASCADE,
  -- 'ok': the terms' rows are exact for stats_key; 'changing': an add is writing (or died writing)
  status TEXT NOT NULL,
  stats_key TEXT NOT NULL,
  avgdl REAL NOT NULL,
  min_df INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS corpus_bm25_terms (
  corpus_id INTEGER NOT NULL,
  term TEXT NOT NULL,
  df INTEGER NOT NULL,
  fraction REAL NOT NULL,
  PRIMARY KEY (corpus_id, term)
) WITHOUT ROWID;
`;

/** Terms in at least this many passages get a stored bound. */
export const PERSIST_MIN_DF = 1000;
/** An add that writes more passages than this recomputes every bound instead of updating them. */
export const INCREMENTAL_MAX_PASSAGES = 50_000;

export interface BoundsProgress {
  phase: 'terms' | 'new passages';
  done: number;
  total: number;
}

export interface BoundsReport {
  mode: 'full' | 'incremental';
  /** Terms with a stored bound. */
  terms: number;
  seconds: number;
}

/** The corpus's FTS5 tokenizer, as written in its CREATE VIRTUAL TABLE statement. */
function tokenizerOf(db: Db, ftsTable: string): string {
  const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(ftsTable) as string | undefined) ?? '';
  return /tokenize\s*=\s*'([^']*)'/i.exec(sql)?.[1] ?? 'unicode61';
}

/**
 * The index terms a text becomes under the corpus's tokenizer (stemming included): a contentless
 * scratch FTS5 table with the same tokenizer in the connection's temp schema, read back through
 * fts5vocab. SQLite offers no other way to call an FTS5 tokenizer from SQL.
 */
export class IndexTokenizer {
  readonly #db: Db;
  readonly #table: string;

  constructor(db: Db, ftsTable: string) {
    this.#db = db;
    this.#table = `llmkb_tokenize_${ftsTable}`;
    const tokenize = tokenizerOf(db, ftsTable).replaceAll("'", "''");
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${this.#table} USING fts5(t, content='', tokenize='${tokenize}')`);
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${this.#table}_v USING fts5vocab(temp, ${this.#table}, 'instance')`);
  }

  /** For each text, its terms with their counts, and its length in tokens (what FTS5 stores as |D|). */
  tokenize(texts: readonly string[]): Array<{ terms: Map<string, number>; length: number }> {
    const out = texts.map(() => ({ terms: new Map<string, number>(), length: 0 }));
    const insert = this.#db.prepare(`INSERT INTO temp.${this.#table} (rowid, t) VALUES (?, ?)`);
    this.#db.transaction(() => {
      texts.forEach((text, i) => insert.run(i + 1, text));
      for (const [term, doc] of this.#db.prepare(`SELECT term, doc FROM temp.${this.#table}_v`).raw().iterate() as IterableIterator<[string, number]>) {
        const o = out[doc - 1]!;
        o.terms.set(term, (o.terms.get(term) ?? 0) + 1);
        o.length += 1;
      }
      this.#db.prepare(`INSERT INTO temp.${this.#table} (${this.#table}) VALUES ('delete-all')`).run();
    })();
    return out;
  }
}

/** FTS5's bm25 fraction of one term in one passage (fts5_aux.c, fts5Bm25Function, without the idf). */
function bm25Fraction(tf: number, length: number, avgdl: number): number {
  return (tf * (K1 + 1.0)) / (tf + K1 * (1 - B + (B * length) / avgdl));
}

interface StateRow {
  status: string;
  stats_key: string;
  avgdl: number;
  min_df: number;
}

/** The state row (the tables are made by `ensureCorpusSchema`). */
function readState(db: Db, corpusId: number): StateRow | undefined {
  return db.prepare('SELECT status, stats_key, avgdl, min_df FROM corpus_bm25_state WHERE corpus_id = ?').get(corpusId) as StateRow | undefined;
}

/**
 * Called in the transaction of an add's first index write: from then on the stored bounds are
 * not used. True when they were sound before, so the end of the add may update them incrementally.
 */
export function markBm25BoundsChanging(db: Db, corpusId: number): boolean {
  const state = readState(db, corpusId);
  if (state === undefined) return false;
  db.prepare("UPDATE corpus_bm25_state SET status = 'changing' WHERE corpus_id = ?").run(corpusId);
  return state.status === 'ok';
}

/** Whether the stored bounds are sound for the index as it is (false for a store that has none yet). */
export function bm25BoundsCurrent(db: Db, corpusId: number, ftsTable: string): boolean {
  const state = readState(db, corpusId);
  return state?.status === 'ok' && state.stats_key === readIndexStats(db, ftsTable).key;
}

export function dropBm25Bounds(db: Db, corpusId: number): void {
  db.prepare('DELETE FROM corpus_bm25_terms WHERE corpus_id = ?').run(corpusId);
  db.prepare('DELETE FROM corpus_bm25_state WHERE corpus_id = ?').run(corpusId);
}

export interface RefreshOptions {
  /** The passages (rowids) written since the bounds were last sound; absent: recompute all. */
  newPassages?: readonly number[];
  minDf?: number;
  onProgress?: (p: BoundsProgress) => void;
}

/**
 * Brings the stored bounds of a corpus up to date with its index (see the module comment):
 * incrementally when `newPassages` lists every passage written since they were sound, else fully.
 */
export function refreshBm25Bounds(db: Db, corpusId: number, ftsTable: string, options: RefreshOptions = {}): BoundsReport {
  const started = performance.now();
  const state = readState(db, corpusId);
  const minDf = options.minDf ?? state?.min_df ?? PERSIST_MIN_DF;
  const stats = readIndexStats(db, ftsTable);
  const tokenizer = new IndexTokenizer(db, ftsTable);
  const progress = options.onProgress ?? (() => undefined);
  // Every term in at least minDf passages, with its exact df (fts5vocab reads the doclists).
  const vocab = `llmkb_vocab_row_${ftsTable}`;
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${vocab} USING fts5vocab(main, ${ftsTable}, 'row')`);
  const frequent = db.prepare(`SELECT term, doc FROM temp.${vocab} WHERE doc >= ?`).raw().all(minDf) as Array<[string, number]>;

  const incremental = options.newPassages !== undefined && state !== undefined && minDf === state.min_df;
  const fractions = new Map<string, number>();
  if (incremental) {
    // The old fractions, scaled to the new average length, then the written passages' own.
    const scale = Math.max(1, stats.avgdl / state.avgdl);
    for (const [term, fraction] of db.prepare('SELECT term, fraction FROM corpus_bm25_terms WHERE corpus_id = ?').raw().iterate(corpusId) as IterableIterator<
      [string, number]
    >) {
      fractions.set(term, fraction * scale);
    }
    const ids = options.newPassages!;
    const text = db.prepare('SELECT text FROM corpus_passages WHERE id = ?').pluck();
    for (let i = 0; i < ids.length; i += 1000) {
      const texts = ids
        .slice(i, i + 1000)
        .map((id) => text.get(id) as string | undefined)
        .filter((t): t is string => t !== undefined);
      for (const { terms, length } of tokenizer.tokenize(texts)) {
        for (const [term, tf] of terms) {
          const old = fractions.get(term);
          // Only stored terms need it: a term without a row gets its bound computed below or on demand.
          if (old !== undefined) fractions.set(term, Math.max(old, bm25Fraction(tf, length, stats.avgdl)));
        }
      }
      progress({ phase: 'new passages', done: Math.min(ids.length, i + 1000), total: ids.length });
    }
  }

  // Terms to rank from scratch. FTS5 tokenizes a query (stems it again), so a term whose stem is
  // another word ("caus" -> "cau") is scored from its postings and passage lengths instead.
  const todo = frequent.filter(([term, df]) => df <= TIGHT_BOUND_MAX_DF && !fractions.has(term));
  const stable = new Set<string>();
  for (let i = 0; i < todo.length; i += 1000) {
    const chunk = todo.slice(i, i + 1000).map(([t]) => t);
    tokenizer.tokenize(chunk).forEach(({ terms }, j) => {
      if (terms.size === 1 && terms.get(chunk[j]!) === 1) stable.add(chunk[j]!);
    });
  }
  const best = db.prepare(`SELECT rank FROM ${ftsTable} WHERE ${ftsTable} MATCH ? ORDER BY rank LIMIT 1`).pluck();
  const instances = `llmkb_vocab_instance_${ftsTable}`;
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${instances} USING fts5vocab(main, ${ftsTable}, 'instance')`);
  const postings = db.prepare(`SELECT doc, COUNT(*) FROM temp.${instances} WHERE term = ? GROUP BY doc`).raw();
  const docsize = db.prepare(`SELECT sz FROM ${ftsTable}_docsize WHERE id = ?`).pluck();
  let lastProgress = performance.now();
  todo.forEach(([term, df], i) => {
    let fraction = 0;
    if (stable.has(term)) {
      fraction = -(best.get(matchAny([term])) as number) / fts5Idf(stats.rows, df);
    } else {
      for (const [doc, tf] of postings.iterate(term) as IterableIterator<[number, number]>) {
        fraction = Math.max(fraction, bm25Fraction(tf, readVarint(docsize.get(doc) as Uint8Array), stats.avgdl));
      }
    }
    fractions.set(term, fraction);
    if (performance.now() - lastProgress > 1000) {
      lastProgress = performance.now();
      progress({ phase: 'terms', done: i + 1, total: todo.length });
    }
  });
  progress({ phase: 'terms', done: todo.length, total: todo.length });

  db.transaction(() => {
    db.prepare('DELETE FROM corpus_bm25_terms WHERE corpus_id = ?').run(corpusId);
    const insert = db.prepare('INSERT INTO corpus_bm25_terms (corpus_id, term, df, fraction) VALUES (?, ?, ?, ?)');
    for (const [term, df] of frequent) insert.run(corpusId, term, df, df > TIGHT_BOUND_MAX_DF ? K1 + 1.0 : fractions.get(term)!);
    db.prepare('INSERT OR REPLACE INTO corpus_bm25_state (corpus_id, status, stats_key, avgdl, min_df) VALUES (?, ?, ?, ?, ?)').run(
      corpusId,
      'ok',
      stats.key,
      stats.avgdl,
      minDf,
    );
  })();
  return { mode: incremental ? 'incremental' : 'full', terms: frequent.length, seconds: (performance.now() - started) / 1000 };
}

/**
 * The stored bounds as a searcher reads them: only while they are sound for the index as it is
 * now (state 'ok' and the same FTS5 row and token totals), else none.
 */
export class StoredBm25Bounds implements Bm25BoundSource {
  readonly #db: Db;
  readonly #corpusId: number;
  readonly #fts: string;
  #tokenizer: IndexTokenizer | undefined;

  constructor(db: Db, corpusId: number, ftsTable: string) {
    this.#db = db;
    this.#corpusId = corpusId;
    this.#fts = ftsTable;
  }

  lookup(tokens: readonly string[], stats: IndexStats): Map<string, { df: number; bound: number }> {
    const found = new Map<string, { df: number; bound: number }>();
    const state = readState(this.#db, this.#corpusId);
    if (state?.status !== 'ok' || state.stats_key !== stats.key) return found;
    this.#tokenizer ??= new IndexTokenizer(this.#db, this.#fts);
    const get = this.#db.prepare('SELECT df, fraction FROM corpus_bm25_terms WHERE corpus_id = ? AND term = ?');
    const scale = Math.max(1, stats.avgdl / state.avgdl);
    this.#tokenizer.tokenize(tokens).forEach(({ terms }, i) => {
      // A query token that is not exactly one index term (a phrase to FTS5) is left to the searcher.
      if (terms.size !== 1) return;
      const [term, tf] = [...terms][0]!;
      const row = tf === 1 ? (get.get(this.#corpusId, term) as { df: number; fraction: number } | undefined) : undefined;
      if (row === undefined) return;
      const idf = fts5Idf(stats.rows, row.df);
      found.set(tokens[i]!, { df: row.df, bound: idf * (row.df > TIGHT_BOUND_MAX_DF ? K1 + 1.0 : row.fraction * scale) });
    });
    return found;
  }
}
