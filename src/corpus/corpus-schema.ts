/**
 * The tables of document corpora in the workspace database: corpora, their source files,
 * documents and passages in ordinary tables, and one SQLite FTS5 table per corpus for BM25 search.
 *
 * - One FTS5 table per corpus (`corpus_fts_<id>`): BM25's document frequencies and average
 *   length are then those of the corpus searched, not of all corpora in the store, and a corpus
 *   is removed with one DROP TABLE.
 * - The FTS5 table is an *external content* table over `corpus_passages`: the passage text is
 *   stored once (in `corpus_passages`, which also holds document, page and offsets), FTS5 keeps
 *   only its index, and `highlight()`/`snippet()` still work. (A contentless table would need
 *   the text stored beside it anyway, to show results.) The index is kept in step explicitly:
 *   a passage is inserted into both, and deleted from the index with FTS5's 'delete' command
 *   before its row goes.
 * - Tokenizer: `unicode61 remove_diacritics 2`, with the Porter stemmer in front by default
 *   (English; `stemming: false` at creation for other languages). FTS5's `bm25()` uses
 *   k1 = 1.2, b = 0.75 (fixed in SQLite); the score shown is `-bm25()`, higher is better.
 * - `corpus_adds` holds a row per `corpus add` that has not finished (unfinished-adds.ts).
 */
import { LlmkbError } from '../errors.js';
import type { Db } from '../store/database.js';
import { BM25_BOUNDS_SCHEMA } from './bm25-bounds.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS corpora (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  settings TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS corpus_sources (
  id INTEGER PRIMARY KEY,
  corpus_id INTEGER NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  format TEXT NOT NULL,
  file_hash TEXT,
  bytes INTEGER NOT NULL DEFAULT 0,
  added_at TEXT NOT NULL,
  UNIQUE (corpus_id, path)
);
CREATE TABLE IF NOT EXISTS corpus_documents (
  id INTEGER PRIMARY KEY,
  corpus_id INTEGER NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
  source_id INTEGER NOT NULL REFERENCES corpus_sources(id) ON DELETE CASCADE,
  doc_id TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  chars INTEGER NOT NULL,
  pages INTEGER NOT NULL,
  passages INTEGER NOT NULL,
  metadata TEXT NOT NULL,
  generation INTEGER NOT NULL,
  UNIQUE (corpus_id, doc_id)
);
CREATE INDEX IF NOT EXISTS corpus_documents_source ON corpus_documents(source_id, generation);
CREATE TABLE IF NOT EXISTS corpus_passages (
  id INTEGER PRIMARY KEY,
  document_id INTEGER NOT NULL REFERENCES corpus_documents(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  page INTEGER NOT NULL,
  page_end INTEGER NOT NULL,
  start INTEGER NOT NULL,
  end INTEGER NOT NULL,
  words INTEGER NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS corpus_passages_document ON corpus_passages(document_id);
CREATE TABLE IF NOT EXISTS corpus_adds (
  id INTEGER PRIMARY KEY,
  corpus_id INTEGER NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
  started_at TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  paths TEXT NOT NULL
);
`;

export interface CorpusSettings {
  passageWords: number;
  overlapWords: number;
  /** Porter stemming in the FTS5 tokenizer (English). */
  stemming: boolean;
}

/** What the corpus modules need to know of one corpus (a `Corpus` is one). */
export interface CorpusRef {
  readonly db: Db;
  readonly id: number;
  readonly name: string;
  readonly settings: CorpusSettings;
  readonly createdAt: string;
  /** Its FTS5 table, `corpus_fts_<id>`. */
  readonly ftsTable: string;
}

/** Creates the corpus tables if they are not there (they live in the workspace store). */
export function ensureCorpusSchema(db: Db): void {
  db.exec(SCHEMA);
  db.exec(BM25_BOUNDS_SCHEMA);
}

export function ftsTableOf(corpusId: number): string {
  return `corpus_fts_${corpusId}`;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Refuses a name that is not a corpus name (local and remote corpora share the rule). */
export function checkCorpusName(name: string): void {
  if (!NAME.test(name))
    throw new LlmkbError(`invalid corpus name "${name}"`, {
      hint: 'Use letters, digits, ".", "_" and "-" (up to 64 characters), starting with a letter or digit.',
    });
}
