/**
 * Searching a corpus: BM25 (exact top k over the corpus's FTS5 index, see bm25-top-k.ts), dense
 * (cosine similarity of embeddings, see dense-index.ts) and hybrid (reciprocal-rank fusion of
 * the two), each returning the passages with their document, page and offsets.
 */
import { LlmkbError } from '../errors.js';
import type { Db } from '../store/database.js';
import { StoredBm25Bounds } from './bm25-bounds.js';
import { Bm25TopK, type Bm25Plan } from './bm25-top-k.js';
import type { CorpusRef } from './corpus-schema.js';
import { denseSearch, embedPassages, missingVectors, reciprocalRankFusion, type EmbedProgress, type Embedder } from './dense-index.js';
import { queryTokens } from './fts-query.js';

export interface SearchOptions {
  /** Number of passages (default 5). */
  k?: number;
  /** Retrieval mode; only "bm25" in this version. */
  mode?: 'bm25';
  /** Score every query term, frequent ones too (slow on large corpora; see `searchPassages`). */
  exhaustive?: boolean;
}

export type SearchMode = 'bm25' | 'dense' | 'hybrid';

export interface RetrieveOptions {
  k?: number;
  mode?: SearchMode;
  /** The embedding model (an executor) for dense and hybrid search. */
  embedder?: Embedder;
  /** Depth of each ranking fused in hybrid search (default 100). */
  depth?: number;
  exhaustive?: boolean;
  onEmbedProgress?: (p: EmbedProgress) => void;
}

export interface SearchHit {
  rank: number;
  /** -bm25(): higher is better. */
  score: number;
  /** The passage's row id in the store (stable until its document changes). */
  passageId: number;
  docId: string;
  source: string;
  page: number;
  pageEnd: number;
  start: number;
  end: number;
  /** 0-based passage number within the document. */
  passage: number;
  text: string;
}

/** Exact top-k searchers per connection and corpus (see `bm25Searcher`). */
const BM25_SEARCHERS = new WeakMap<Db, Map<string, Bm25TopK>>();

/**
 * The exact top-k searcher of a corpus, shared by every handle of it on the same connection, so
 * its cached term frequencies and bounds serve a whole run (e.g. CONNER's evidence, one search
 * per sentence). The creation time is in the key: a corpus removed and made again under the same
 * id gets a new searcher.
 */
function bm25Searcher(corpus: CorpusRef): Bm25TopK {
  let perDb = BM25_SEARCHERS.get(corpus.db);
  if (perDb === undefined) BM25_SEARCHERS.set(corpus.db, (perDb = new Map()));
  const key = `${corpus.ftsTable} ${corpus.createdAt}`;
  let searcher = perDb.get(key);
  if (searcher === undefined)
    perDb.set(key, (searcher = new Bm25TopK(corpus.db, corpus.ftsTable, new StoredBm25Bounds(corpus.db, corpus.id, corpus.ftsTable))));
  return searcher;
}

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new LlmkbError(`k must be a positive integer, not ${k}`, { hint: 'Ask for 1 passage or more (-k N).' });
}

/** How the search evaluates a query (the rarest terms, the rest, rounds; see bm25-top-k.ts). */
export function searchPlan(corpus: CorpusRef, query: string, k: number): Bm25Plan {
  return bm25Searcher(corpus).search(queryTokens(query), k).plan;
}

/** Ranked passage rowids with their BM25 scores (higher is better): the search without the passage rows. */
export function searchIds(corpus: CorpusRef, query: string, k: number, options: { exhaustive?: boolean } = {}): Array<{ id: number; score: number }> {
  const terms = queryTokens(query);
  if (terms.length === 0) return [];
  const searcher = bm25Searcher(corpus);
  return options.exhaustive ? searcher.exhaustive(terms, k) : searcher.search(terms, k).hits;
}

/** The passages of the given rowids, in the given order, with their scores. */
export function hitsFor(db: Db, ranked: ReadonlyArray<{ id: number; score: number }>): SearchHit[] {
  const get = db.prepare(`
    SELECT p.seq, p.page, p.page_end, p.start, p.end, p.text, d.doc_id, s.path
    FROM corpus_passages p JOIN corpus_documents d ON d.id = p.document_id JOIN corpus_sources s ON s.id = d.source_id
    WHERE p.id = ?`);
  const hits: SearchHit[] = [];
  for (const { id, score } of ranked) {
    const r = get.get(id) as
      | { seq: number; page: number; page_end: number; start: number; end: number; text: string; doc_id: string; path: string }
      | undefined;
    if (r === undefined) continue;
    hits.push({
      rank: hits.length + 1,
      score,
      passageId: id,
      docId: r.doc_id,
      source: r.path,
      page: r.page,
      pageEnd: r.page_end,
      start: r.start,
      end: r.end,
      passage: r.seq,
      text: r.text,
    });
  }
  return hits;
}

/**
 * BM25 search: the `k` best passages for a natural-language query (see fts-query.ts for how
 * the text becomes query terms; stop words are dropped there). The ranking is exactly FTS5's
 * `bm25()` over the OR of the query terms, found without scoring every passage of the frequent
 * terms (MaxScore, see bm25-top-k.ts); `exhaustive: true` runs the plain FTS5 query instead.
 */
export function searchPassages(corpus: CorpusRef, query: string, options: SearchOptions = {}): SearchHit[] {
  const k = options.k ?? 5;
  if (options.mode !== undefined && options.mode !== 'bm25')
    throw new LlmkbError(`search mode "${String(options.mode)}" is not available yet`, { hint: 'Only --mode bm25 exists in this version.' });
  checkK(k);
  const ids = searchIds(corpus, query, k, options);
  if (ids.length === 0) return [];
  return hitsFor(corpus.db, ids);
}

/**
 * Search in any mode: `bm25` (as `searchPassages`), `dense` (cosine similarity of the embeddings
 * of the query and the passages; needs `embedder`, and the passages embedded: those without a
 * vector are embedded first), or `hybrid` (BM25 and dense rankings, each `depth` deep, fused
 * by reciprocal rank, k = 60; the score shown is the fused score).
 */
export async function retrievePassages(corpus: CorpusRef, query: string, options: RetrieveOptions = {}): Promise<SearchHit[]> {
  const k = options.k ?? 5;
  const mode = options.mode ?? 'bm25';
  checkK(k);
  if (mode === 'bm25') return searchPassages(corpus, query, { k, ...(options.exhaustive === undefined ? {} : { exhaustive: options.exhaustive }) });
  if (mode !== 'dense' && mode !== 'hybrid') throw new LlmkbError(`unknown search mode "${String(mode)}"`, { hint: 'Use bm25, dense or hybrid.' });
  const embedder = options.embedder;
  if (embedder === undefined) {
    throw new LlmkbError(`search mode "${mode}" needs an embedding model`, {
      hint: 'Configure one as "embedder" in llmkb.config.json, or give --embedder SPEC (e.g. openai-compatible:MODEL@URL).',
    });
  }
  const { db, id, name } = corpus;
  if (missingVectors(db, id) > 0) await embedPassages(db, id, name, embedder, options.onEmbedProgress ? { onProgress: options.onEmbedProgress } : {});
  if (mode === 'dense') return hitsFor(db, await denseSearch(db, id, name, embedder, query, k));
  const depth = Math.max(options.depth ?? 100, k);
  const fused = reciprocalRankFusion([
    searchIds(corpus, query, depth, options.exhaustive ? { exhaustive: true } : {}),
    await denseSearch(db, id, name, embedder, query, depth),
  ]);
  return hitsFor(db, fused.slice(0, k));
}
