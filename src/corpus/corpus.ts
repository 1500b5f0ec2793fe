/**
 * Document corpora in the workspace database: corpora, their source files, documents and
 * passages in ordinary tables, and one SQLite FTS5 table per corpus for BM25 search.
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
 * - Incremental: a source file whose SHA-256 is unchanged is not read again; in a changed file
 *   each document whose content hash (text + metadata) is unchanged is kept, a changed one has
 *   its passages replaced, and documents no longer in the file are removed.
 * - Writes go in transactions of thousands of passages.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { fileAccessError, InputFileError, LlmkbError } from '../errors.js';
import { CORPUS_CACHE_KIB, raiseCacheSize, type Db } from '../store/database.js';
import { BM25_BOUNDS_SCHEMA, bm25BoundsCurrent, dropBm25Bounds, INCREMENTAL_MAX_PASSAGES, markBm25BoundsChanging, refreshBm25Bounds, StoredBm25Bounds, type BoundsProgress, type BoundsReport } from './bm25-bounds.js';
import { Bm25TopK, type Bm25Plan } from './bm25-top-k.js';
import { queryTokens } from './fts-query.js';
import { DEFAULT_OVERLAP_WORDS, DEFAULT_PASSAGE_WORDS } from './passages.js';
import { prepareDocuments, type PreparedDocument } from './prepared-documents.js';
import { denseSearch, EMBEDDER_SCHEMA, embedPassages, ensureVectorTable, missingVectors, reciprocalRankFusion, resetVectors, vectorTable, type EmbedProgress, type Embedder } from './dense-index.js';
import { listCorpusFiles, type CorpusFile, type CorpusFormat, type ReadOptions } from './readers.js';

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
`;

export interface CorpusSettings {
  passageWords: number;
  overlapWords: number;
  /** Porter stemming in the FTS5 tokenizer (English). */
  stemming: boolean;
}

export interface CorpusInfo {
  name: string;
  createdAt: string;
  settings: CorpusSettings;
  sources: number;
  documents: number;
  passages: number;
}

export interface CorpusStats extends CorpusInfo {
  /** Characters of document text. */
  chars: number;
  pages: number;
  bytes: number;
  formats: Record<string, number>;
  /** Words per passage: mean and maximum. */
  passageWordsMean: number;
  passageWordsMax: number;
}

export interface SkippedFile {
  file: string;
  reason: 'encrypted' | 'no-text' | 'corrupt';
  message: string;
}

export interface AddProgress {
  file: string;
  documents: number;
  passages: number;
  bytes: number;
}

export interface AddOptions extends ReadOptions {
  /** Called after each file with what happened to it. */
  onFile?: (file: string, result: FileResult) => void;
  /** Called every few thousand documents within a large file. */
  onProgress?: (progress: AddProgress) => void;
  /** Passages per write transaction (default 5000). */
  batchPassages?: number;
  /** CSV/TSV/JSONL files of at least this many bytes are parsed and split in a worker thread (default 8 MB). */
  workerMinBytes?: number;
  /** Called while the BM25 term bounds are brought up to date at the end (see bm25-bounds.ts). */
  onBoundsProgress?: (progress: BoundsProgress) => void;
}

export interface FileResult {
  format: CorpusFormat;
  status: 'added' | 'unchanged' | 'updated' | 'skipped';
  documents: number;
  passages: number;
  message?: string;
}

export interface AddReport {
  files: number;
  unchangedFiles: number;
  skipped: SkippedFile[];
  /** Files in the given folders with no corpus format (not read). */
  ignored: string[];
  documents: { added: number; updated: number; unchanged: number; removed: number; empty: number };
  passages: number;
  bytes: number;
  /** Seconds in all, the BM25 bounds' update included. */
  seconds: number;
  /** The stored BM25 term bounds brought up to date (none when the index did not change and they were current). */
  bounds?: BoundsReport;
}

/** What an add changed in the index, for the BM25 bounds' update at its end. */
interface IndexChange {
  /** The index was written. */
  marked: boolean;
  /** The stored bounds were sound before the first write (an incremental update is possible). */
  wasSound: boolean;
  /** Rowids of the passages written, while few enough for an incremental update. */
  written: number[] | undefined;
}

export interface SearchOptions {
  /** Number of passages (default 5). */
  k?: number;
  /** Retrieval mode; only "bm25" in this version. */
  mode?: 'bm25';
  /** Score every query term, frequent ones too (slow on large corpora; see `Corpus.search`). */
  exhaustive?: boolean;
}

export { POSTING_BUDGET } from './bm25-top-k.js';

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

/** Creates the corpus tables if they are not there (they live in the workspace store). */
export function ensureCorpusSchema(db: Db): void {
  db.exec(SCHEMA);
  db.exec(BM25_BOUNDS_SCHEMA);
}

function fileHash(path: string, onError: (error: unknown) => unknown): Promise<{ hash: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    let bytes = 0;
    createReadStream(path)
      .on('data', (chunk) => {
        bytes += chunk.length;
        hash.update(chunk);
      })
      .on('error', (error) => reject(onError(error)))
      .on('end', () => resolve({ hash: hash.digest('hex'), bytes }));
  });
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Exact top-k searchers per connection and corpus (see `Corpus.#bm25`). */
const BM25_SEARCHERS = new WeakMap<Db, Map<string, Bm25TopK>>();

export class CorpusNotFoundError extends LlmkbError {
  constructor(name: string, known: readonly string[]) {
    super(`no corpus named "${name}"${known.length > 0 ? ` (corpora: ${known.join(', ')})` : ' (the store has no corpora yet)'}`, { hint: 'Create it with `llmkb corpus add NAME PATH...`; `llmkb corpus list` shows the corpora.' });
  }
}

interface CorpusRow {
  id: number;
  name: string;
  created_at: string;
  settings: string;
}

/** A named document corpus in a workspace database. */
export class Corpus {
  readonly db: Db;
  readonly name: string;
  readonly id: number;
  readonly settings: CorpusSettings;
  readonly createdAt: string;

  private constructor(db: Db, row: CorpusRow) {
    raiseCacheSize(db, CORPUS_CACHE_KIB);
    this.db = db;
    this.name = row.name;
    this.id = row.id;
    this.createdAt = row.created_at;
    this.settings = JSON.parse(row.settings) as CorpusSettings;
  }

  get ftsTable(): string {
    return `corpus_fts_${this.id}`;
  }

  /** The corpus named `name`; throws CorpusNotFoundError when there is none. */
  static open(db: Db, name: string): Corpus {
    ensureCorpusSchema(db);
    const row = db.prepare('SELECT id, name, created_at, settings FROM corpora WHERE name = ?').get(name) as CorpusRow | undefined;
    if (row === undefined) throw new CorpusNotFoundError(name, Corpus.list(db).map((c) => c.name));
    return new Corpus(db, row);
  }

  /**
   * The corpus named `name`, created with `settings` if it does not exist. An existing corpus
   * keeps the passage settings it was built with: asking for others is an error.
   */
  static openOrCreate(db: Db, name: string, settings: Partial<CorpusSettings> = {}): Corpus {
    ensureCorpusSchema(db);
    if (!NAME.test(name)) throw new LlmkbError(`invalid corpus name "${name}"`, { hint: 'Use letters, digits, ".", "_" and "-" (up to 64 characters), starting with a letter or digit.' });
    const existing = db.prepare('SELECT id, name, created_at, settings FROM corpora WHERE name = ?').get(name) as CorpusRow | undefined;
    if (existing === undefined && db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'corpus_remotes'").get() !== undefined && db.prepare('SELECT 1 FROM corpus_remotes WHERE name = ?').get(name) !== undefined) {
      throw new LlmkbError(`corpus "${name}" is a remote index (\`llmkb corpus add-remote\`): files cannot be added to it here`, { hint: 'Index the files in the cluster, or use another corpus name for local passages.' });
    }
    if (existing !== undefined) {
      const corpus = new Corpus(db, existing);
      for (const key of ['passageWords', 'overlapWords', 'stemming'] as const) {
        if (settings[key] !== undefined && settings[key] !== corpus.settings[key]) {
          throw new LlmkbError(`corpus "${name}" was built with ${key} = ${String(corpus.settings[key])}, not ${String(settings[key])}`, { hint: 'Passage settings are fixed per corpus: use another corpus name, or `llmkb corpus remove` it and add the files again.' });
        }
      }
      return corpus;
    }
    const full: CorpusSettings = {
      passageWords: settings.passageWords ?? DEFAULT_PASSAGE_WORDS,
      overlapWords: settings.overlapWords ?? Math.min(DEFAULT_OVERLAP_WORDS, Math.floor((settings.passageWords ?? DEFAULT_PASSAGE_WORDS) / 5)),
      stemming: settings.stemming ?? true,
    };
    if (!Number.isInteger(full.passageWords) || full.passageWords < 5) throw new LlmkbError(`passage words must be an integer of at least 5, not ${full.passageWords}`);
    if (!Number.isInteger(full.overlapWords) || full.overlapWords < 0 || full.overlapWords >= full.passageWords) {
      throw new LlmkbError(`overlap words must be an integer from 0 to ${full.passageWords - 1} (less than the passage words), not ${full.overlapWords}`);
    }
    const create = db.transaction(() => {
      const id = Number(db.prepare('INSERT INTO corpora (name, created_at, settings) VALUES (?, ?, ?)').run(name, new Date().toISOString(), JSON.stringify(full)).lastInsertRowid);
      const tokenize = full.stemming ? 'porter unicode61 remove_diacritics 2' : 'unicode61 remove_diacritics 2';
      ensureVectorTable(db, id);
      db.exec(`CREATE VIRTUAL TABLE corpus_fts_${id} USING fts5(text, content='corpus_passages', content_rowid='id', tokenize='${tokenize}')`);
      return id;
    });
    create();
    return Corpus.open(db, name);
  }

  static list(db: Db): CorpusInfo[] {
    ensureCorpusSchema(db);
    const rows = db.prepare(`
      SELECT c.name, c.created_at, c.settings,
        (SELECT COUNT(*) FROM corpus_sources s WHERE s.corpus_id = c.id AND s.file_hash IS NOT NULL) AS sources,
        (SELECT COUNT(*) FROM corpus_documents d WHERE d.corpus_id = c.id) AS documents,
        (SELECT COALESCE(SUM(d.passages), 0) FROM corpus_documents d WHERE d.corpus_id = c.id) AS passages
      FROM corpora c ORDER BY c.name`).all() as { name: string; created_at: string; settings: string; sources: number; documents: number; passages: number }[];
    return rows.map((r) => ({ name: r.name, createdAt: r.created_at, settings: JSON.parse(r.settings) as CorpusSettings, sources: r.sources, documents: r.documents, passages: r.passages }));
  }

  /** Removes a corpus and everything in it; false when there was none. */
  static remove(db: Db, name: string): boolean {
    ensureCorpusSchema(db);
    const row = db.prepare('SELECT id FROM corpora WHERE name = ?').get(name) as { id: number } | undefined;
    if (row === undefined) return false;
    db.transaction(() => {
      db.exec(`DROP TABLE IF EXISTS corpus_fts_${row.id}`);
      db.exec(`DROP TABLE IF EXISTS ${vectorTable(row.id)}`);
      db.exec(EMBEDDER_SCHEMA);
      db.prepare('DELETE FROM corpus_embedders WHERE corpus_id = ?').run(row.id);
      dropBm25Bounds(db, row.id);
      db.prepare('DELETE FROM corpus_passages WHERE document_id IN (SELECT id FROM corpus_documents WHERE corpus_id = ?)').run(row.id);
      db.prepare('DELETE FROM corpus_documents WHERE corpus_id = ?').run(row.id);
      db.prepare('DELETE FROM corpus_sources WHERE corpus_id = ?').run(row.id);
      db.prepare('DELETE FROM corpora WHERE id = ?').run(row.id);
    })();
    return true;
  }

  /**
   * Adds files and folders (recursively) to the corpus, streaming, incrementally (see the module
   * comment). Encrypted, image-only and unreadable PDFs are skipped and listed in the report;
   * malformed CSV/JSON input is an InputFileError naming the file and line.
   */
  async add(paths: readonly string[], options: AddOptions = {}): Promise<AddReport> {
    const started = performance.now();
    const { files, ignored } = listCorpusFiles(paths);
    const report: AddReport = { files: files.length, unchangedFiles: 0, skipped: [], ignored, documents: { added: 0, updated: 0, unchanged: 0, removed: 0, empty: 0 }, passages: 0, bytes: 0, seconds: 0 };
    const change: IndexChange = { marked: false, wasSound: false, written: [] };
    for (const file of files) {
      const result = await this.#addFile(file, options, report, change);
      options.onFile?.(file.path, result);
    }
    // The stored BM25 bounds (bm25-bounds.ts): updated after a change, computed for a store that has none yet.
    if (change.marked || !bm25BoundsCurrent(this.db, this.id, this.ftsTable)) {
      report.bounds = refreshBm25Bounds(this.db, this.id, this.ftsTable, {
        ...(change.marked && change.wasSound && change.written !== undefined ? { newPassages: change.written } : {}),
        ...(options.onBoundsProgress ? { onProgress: options.onBoundsProgress } : {}),
      });
    }
    report.seconds = (performance.now() - started) / 1000;
    return report;
  }

  /** In the transaction of an index write: the stored BM25 bounds are not used until the add has updated them. */
  #indexChanging(change: IndexChange): void {
    if (change.marked) return;
    change.wasSound = markBm25BoundsChanging(this.db, this.id);
    change.marked = true;
  }

  async #addFile(file: CorpusFile, options: AddOptions, report: AddReport, change: IndexChange): Promise<FileResult> {
    const { hash, bytes } = await fileHash(file.path, (error) => fileAccessError(file.path, error, 'read'));
    report.bytes += bytes;
    const db = this.db;
    const source = db.prepare('SELECT id, file_hash FROM corpus_sources WHERE corpus_id = ? AND path = ?').get(this.id, file.path) as { id: number; file_hash: string | null } | undefined;
    if (source?.file_hash === hash) {
      report.unchangedFiles += 1;
      const n = db.prepare('SELECT COUNT(*) AS documents, COALESCE(SUM(passages), 0) AS passages FROM corpus_documents WHERE source_id = ?').get(source.id) as { documents: number; passages: number };
      return { format: file.format, status: 'unchanged', documents: n.documents, passages: n.passages };
    }
    const now = new Date().toISOString();
    const sourceId = source?.id ?? Number(db.prepare('INSERT INTO corpus_sources (corpus_id, path, format, file_hash, bytes, added_at) VALUES (?, ?, ?, NULL, ?, ?)').run(this.id, file.path, file.format, bytes, now).lastInsertRowid);
    // Documents seen in this pass get a new generation; those left with an older one are gone from the file.
    const generation = (db.prepare('SELECT COALESCE(MAX(generation), 0) + 1 AS g FROM corpus_documents WHERE source_id = ?').get(sourceId) as { g: number }).g;

    const findDoc = db.prepare('SELECT id, source_id, content_hash, generation FROM corpus_documents WHERE corpus_id = ? AND doc_id = ?');
    const touchDoc = db.prepare('UPDATE corpus_documents SET generation = ? WHERE id = ?');
    const insertDoc = db.prepare('INSERT INTO corpus_documents (corpus_id, source_id, doc_id, content_hash, chars, pages, passages, metadata, generation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const updateDoc = db.prepare('UPDATE corpus_documents SET source_id = ?, content_hash = ?, chars = ?, pages = ?, passages = ?, metadata = ?, generation = ? WHERE id = ?');
    const insertPassage = db.prepare('INSERT INTO corpus_passages (document_id, seq, page, page_end, start, end, words, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const indexPassage = db.prepare(`INSERT INTO ${this.ftsTable} (rowid, text) VALUES (?, ?)`);
    const unindexDoc = db.prepare(`INSERT INTO ${this.ftsTable} (${this.ftsTable}, rowid, text) SELECT 'delete', id, text FROM corpus_passages WHERE document_id = ?`);
    ensureVectorTable(db, this.id);
    const unvectorDoc = db.prepare(`DELETE FROM ${vectorTable(this.id)} WHERE passage_id IN (SELECT id FROM corpus_passages WHERE document_id = ?)`);
    const deletePassageRows = db.prepare('DELETE FROM corpus_passages WHERE document_id = ?');
    const deletePassages = { run: (documentId: number) => (unvectorDoc.run(documentId), deletePassageRows.run(documentId)) };

    let pending: PreparedDocument[] = [];
    let pendingPassages = 0;
    const batch = options.batchPassages ?? 5000;
    let documents = 0;
    let passages = 0;
    let changed = false;

    const flush = db.transaction((docs: PreparedDocument[]) => {
      for (const doc of docs) {
        const existing = findDoc.get(this.id, doc.docId) as { id: number; source_id: number; content_hash: string; generation: number } | undefined;
        if (existing !== undefined && existing.generation === generation) {
          throw new InputFileError(doc.location, undefined, undefined, `duplicate document id "${doc.docId}" (an earlier row of the same file has it)`, 'Document ids must be unique within a corpus: choose an id column with unique values (--id-column / --id-field).');
        }
        if (existing !== undefined && existing.source_id !== sourceId) {
          const other = db.prepare('SELECT path FROM corpus_sources WHERE id = ?').get(existing.source_id) as { path: string };
          throw new InputFileError(doc.location, undefined, undefined, `document id "${doc.docId}" is already in corpus "${this.name}" from ${other.path}`, 'Document ids must be unique within a corpus: rename one of the files, or add them to separate corpora.');
        }
        if (existing !== undefined && existing.content_hash === doc.contentHash) {
          touchDoc.run(generation, existing.id);
          report.documents.unchanged += 1;
          continue;
        }
        const parts = doc.passages;
        const count = parts.length / 6;
        if (count === 0) report.documents.empty += 1;
        this.#indexChanging(change);
        let docRow: number;
        if (existing !== undefined) {
          unindexDoc.run(existing.id);
          deletePassages.run(existing.id);
          updateDoc.run(sourceId, doc.contentHash, doc.text.length, doc.pageCount, count, doc.metadata, generation, existing.id);
          docRow = existing.id;
          report.documents.updated += 1;
        } else {
          docRow = Number(insertDoc.run(this.id, sourceId, doc.docId, doc.contentHash, doc.text.length, doc.pageCount, count, doc.metadata, generation).lastInsertRowid);
          report.documents.added += 1;
        }
        changed = true;
        for (let i = 0; i < parts.length; i += 6) {
          const text = doc.text.slice(parts[i + 3]!, parts[i + 4]!);
          const rowid = insertPassage.run(docRow, parts[i]!, parts[i + 1]!, parts[i + 2]!, parts[i + 3]!, parts[i + 4]!, parts[i + 5]!, text).lastInsertRowid;
          indexPassage.run(rowid, text);
          if (change.written !== undefined) {
            if (change.written.length < INCREMENTAL_MAX_PASSAGES) change.written.push(Number(rowid));
            else change.written = undefined;
          }
        }
        passages += count;
        report.passages += count;
      }
    });

    let bytesRead = 0;
    let lastProgress = 0;
    try {
      for await (const doc of prepareDocuments(file, bytes, options, this.settings, options, (n) => (bytesRead += n))) {
        pending.push(doc);
        pendingPassages += Math.max(1, doc.passages.length / 6);
        documents += 1;
        if (pendingPassages >= batch) {
          flush(pending);
          pending = [];
          pendingPassages = 0;
        }
        if (options.onProgress && documents - lastProgress >= 10_000) {
          lastProgress = documents;
          options.onProgress({ file: file.path, documents, passages, bytes: bytesRead });
        }
      }
      flush(pending);
    } catch (error) {
      const { PdfSkipError } = file.format === 'pdf' ? await import('./pdf-text.js') : { PdfSkipError: undefined };
      if (PdfSkipError !== undefined && error instanceof PdfSkipError) {
        report.skipped.push({ file: file.path, reason: error.reason, message: error.message });
        if (source === undefined) db.prepare('DELETE FROM corpus_sources WHERE id = ?').run(sourceId);
        return { format: file.format, status: 'skipped', documents: 0, passages: 0, message: error.message };
      }
      // A file that cannot be read to its end leaves nothing behind: batches already committed
      // are taken out again, so the index never holds half a file (and re-adding it redoes it).
      db.transaction(() => {
        this.#indexChanging(change);
        for (const { id } of db.prepare('SELECT id FROM corpus_documents WHERE source_id = ?').all(sourceId) as { id: number }[]) {
          unindexDoc.run(id);
          deletePassages.run(id);
        }
        db.prepare('DELETE FROM corpus_documents WHERE source_id = ?').run(sourceId);
        db.prepare('DELETE FROM corpus_sources WHERE id = ?').run(sourceId);
      })();
      throw error;
    }
    // Documents of this file that it no longer holds.
    db.transaction(() => {
      const gone = db.prepare('SELECT id FROM corpus_documents WHERE source_id = ? AND generation != ?').all(sourceId, generation) as { id: number }[];
      if (gone.length > 0) this.#indexChanging(change);
      for (const { id } of gone) {
        unindexDoc.run(id);
        deletePassages.run(id);
        db.prepare('DELETE FROM corpus_documents WHERE id = ?').run(id);
      }
      report.documents.removed += gone.length;
      if (gone.length > 0) changed = true;
      db.prepare('UPDATE corpus_sources SET file_hash = ?, bytes = ?, format = ?, added_at = ? WHERE id = ?').run(hash, bytes, file.format, now, sourceId);
    })();
    const status = source === undefined || source.file_hash === null ? 'added' : changed ? 'updated' : 'unchanged';
    return { format: file.format, status, documents, passages };
  }

  /**
   * BM25 search: the `k` best passages for a natural-language query (see fts-query.ts for how
   * the text becomes query terms; stop words are dropped there). The ranking is exactly FTS5's
   * `bm25()` over the OR of the query terms, found without scoring every passage of the frequent
   * terms (MaxScore, see bm25-top-k.ts); `exhaustive: true` runs the plain FTS5 query instead.
   */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    const k = options.k ?? 5;
    if (options.mode !== undefined && options.mode !== 'bm25') throw new LlmkbError(`search mode "${String(options.mode)}" is not available yet`, { hint: 'Only --mode bm25 exists in this version.' });
    if (!Number.isInteger(k) || k < 1) throw new LlmkbError(`k must be a positive integer, not ${k}`);
    const ids = this.searchIds(query, k, options);
    if (ids.length === 0) return [];
    return this.hitsFor(ids);
  }

  /**
   * Search in any mode: `bm25` (as `search`), `dense` (cosine similarity of the embeddings of
   * the query and the passages; needs `embedder`, and the passages embedded: those without a
   * vector are embedded first), or `hybrid` (BM25 and dense rankings, each `depth` deep, fused
   * by reciprocal rank, k = 60; the score shown is the fused score).
   */
  async retrieve(query: string, options: RetrieveOptions = {}): Promise<SearchHit[]> {
    const k = options.k ?? 5;
    const mode = options.mode ?? 'bm25';
    if (!Number.isInteger(k) || k < 1) throw new LlmkbError(`k must be a positive integer, not ${k}`);
    if (mode === 'bm25') return this.search(query, { k, ...(options.exhaustive === undefined ? {} : { exhaustive: options.exhaustive }) });
    if (mode !== 'dense' && mode !== 'hybrid') throw new LlmkbError(`unknown search mode "${String(mode)}"`, { hint: 'Use bm25, dense or hybrid.' });
    const embedder = options.embedder;
    if (embedder === undefined) {
      throw new LlmkbError(`search mode "${mode}" needs an embedding model`, { hint: 'Configure one as "embedder" in llmkb.config.json, or give --embedder SPEC (e.g. openai-compatible:MODEL@URL).' });
    }
    if (missingVectors(this.db, this.id) > 0) await this.embed(embedder, options.onEmbedProgress ? { onProgress: options.onEmbedProgress } : {});
    if (mode === 'dense') return this.hitsFor(await denseSearch(this.db, this.id, this.name, embedder, query, k));
    const depth = Math.max(options.depth ?? 100, k);
    const fused = reciprocalRankFusion([this.searchIds(query, depth, options.exhaustive ? { exhaustive: true } : {}), await denseSearch(this.db, this.id, this.name, embedder, query, depth)]);
    return this.hitsFor(fused.slice(0, k));
  }

  /** Embeds the passages that have no vector yet (see dense-index.ts). */
  embed(embedder: Embedder, options: { batch?: number; onProgress?: (p: EmbedProgress) => void } = {}): Promise<{ embedded: number; total: number }> {
    return embedPassages(this.db, this.id, this.name, embedder, options);
  }

  /** Drops the corpus's vectors (to embed it with another model). */
  resetVectors(): void {
    resetVectors(this.db, this.id);
  }

  /**
   * The exact top-k searcher of this corpus, shared by every `Corpus` object of it on the same
   * connection, so its cached term frequencies and bounds serve a whole run (e.g. CONNER's
   * evidence, one search per sentence).
   */
  get #bm25(): Bm25TopK {
    let perDb = BM25_SEARCHERS.get(this.db);
    if (perDb === undefined) BM25_SEARCHERS.set(this.db, (perDb = new Map()));
    const key = `${this.ftsTable} ${this.createdAt}`;
    let searcher = perDb.get(key);
    if (searcher === undefined) perDb.set(key, (searcher = new Bm25TopK(this.db, this.ftsTable, new StoredBm25Bounds(this.db, this.id, this.ftsTable))));
    return searcher;
  }

  /** The query terms the search uses (see `search` and fts-query.ts). */
  searchTerms(query: string): string[] {
    return queryTokens(query);
  }

  /** How the search evaluates a query (the rarest terms, the rest, rounds; see bm25-top-k.ts). */
  searchPlan(query: string, k: number): Bm25Plan {
    return this.#bm25.search(queryTokens(query), k).plan;
  }

  /** Ranked passage rowids with their BM25 scores (higher is better): the search without the passage rows. */
  searchIds(query: string, k: number, options: { exhaustive?: boolean } = {}): Array<{ id: number; score: number }> {
    const terms = queryTokens(query);
    if (terms.length === 0) return [];
    const searcher = this.#bm25;
    return options.exhaustive ? searcher.exhaustive(terms, k) : searcher.search(terms, k).hits;
  }

  /** The passages of the given rowids, in the given order, with their scores. */
  hitsFor(ranked: ReadonlyArray<{ id: number; score: number }>): SearchHit[] {
    const get = this.db.prepare(`
      SELECT p.seq, p.page, p.page_end, p.start, p.end, p.text, d.doc_id, s.path
      FROM corpus_passages p JOIN corpus_documents d ON d.id = p.document_id JOIN corpus_sources s ON s.id = d.source_id
      WHERE p.id = ?`);
    const hits: SearchHit[] = [];
    for (const { id, score } of ranked) {
      const r = get.get(id) as { seq: number; page: number; page_end: number; start: number; end: number; text: string; doc_id: string; path: string } | undefined;
      if (r === undefined) continue;
      hits.push({ rank: hits.length + 1, score, passageId: id, docId: r.doc_id, source: r.path, page: r.page, pageEnd: r.page_end, start: r.start, end: r.end, passage: r.seq, text: r.text });
    }
    return hits;
  }

  stats(): CorpusStats {
    const info = Corpus.list(this.db).find((c) => c.name === this.name)!;
    const docs = this.db.prepare('SELECT COALESCE(SUM(chars), 0) AS chars, COALESCE(SUM(pages), 0) AS pages FROM corpus_documents WHERE corpus_id = ?').get(this.id) as { chars: number; pages: number };
    const words = this.db.prepare('SELECT COALESCE(AVG(p.words), 0) AS mean, COALESCE(MAX(p.words), 0) AS max FROM corpus_passages p JOIN corpus_documents d ON d.id = p.document_id WHERE d.corpus_id = ?').get(this.id) as { mean: number; max: number };
    const sources = this.db.prepare('SELECT format, COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS bytes FROM corpus_sources WHERE corpus_id = ? AND file_hash IS NOT NULL GROUP BY format ORDER BY format').all(this.id) as { format: string; n: number; bytes: number }[];
    return {
      ...info,
      chars: docs.chars,
      pages: docs.pages,
      bytes: sources.reduce((a, s) => a + s.bytes, 0),
      formats: Object.fromEntries(sources.map((s) => [s.format, s.n])),
      passageWordsMean: words.mean,
      passageWordsMax: words.max,
    };
  }
}

/** One-call search: the `k` best passages of corpus `name` in the database `db`. */
export function searchCorpus(db: Db, name: string, query: string, options: SearchOptions = {}): SearchHit[] {
  return Corpus.open(db, name).search(query, options);
}
