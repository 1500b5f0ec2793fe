/**
 * Adding files to a corpus, streamed and incremental:
 * - a source file whose SHA-256 is unchanged is not read again; in a changed file each document
 *   whose content hash (text + metadata) is unchanged is kept, a changed one has its passages
 *   replaced, and documents no longer in the file are removed;
 * - writes go in transactions of thousands of passages; a file that cannot be read to its end
 *   leaves nothing of itself behind (its committed batches are taken out again), so the index
 *   holds whole files only;
 * - the stored BM25 term bounds (bm25-bounds.ts) are marked unusable in the transaction of the
 *   first index write and brought up to date at the end.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { fileAccessError, InputFileError, LlmkbError } from '../errors.js';
import type { Db } from '../store/database.js';
import {
  bm25BoundsCurrent,
  INCREMENTAL_MAX_PASSAGES,
  markBm25BoundsChanging,
  refreshBm25Bounds,
  type BoundsProgress,
  type BoundsReport,
} from './bm25-bounds.js';
import type { CorpusRef } from './corpus-schema.js';
import { ensureVectorTable, vectorTable } from './dense-index.js';
import { prepareDocuments, type PreparedDocument } from './prepared-documents.js';
import { listCorpusFiles, type CorpusFile, type CorpusFormat } from './corpus-files.js';
import type { ReadOptions } from './readers.js';
import { beginAdd, endAdd } from './unfinished-adds.js';
import { CorpusAddError } from './corpus-add-error.js';

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
  /** Symbolic links in the given folders (not followed). */
  symlinks: string[];
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

/** Formats whose file is one document, named after the file. */
const ONE_DOCUMENT: ReadonlySet<CorpusFormat> = new Set(['text', 'pdf']);

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

/**
 * Adds files and folders (recursively) to the corpus (see the module comment). Encrypted,
 * image-only and unreadable PDFs are skipped and listed in the report. A file that cannot be
 * read (malformed CSV/JSON, not UTF-8, a duplicate document id) stops the add with a
 * CorpusAddError whose cause names the file and line. The add is recorded as unfinished while
 * it runs (unfinished-adds.ts).
 */
export async function addToCorpus(corpus: CorpusRef, paths: readonly string[], options: AddOptions = {}): Promise<AddReport> {
  const started = performance.now();
  const { files, ignored, symlinks } = listCorpusFiles(paths);
  const given = paths.map((p) => resolve(p));
  const record = beginAdd(corpus.db, corpus.id, given);
  let completed: string[] | undefined;
  try {
    const report = await addFiles(corpus, files, { ignored, symlinks }, options);
    completed = given;
    report.seconds = (performance.now() - started) / 1000;
    return report;
  } finally {
    endAdd(corpus.db, corpus.id, record, completed);
  }
}

async function addFiles(
  corpus: CorpusRef,
  files: readonly CorpusFile[],
  { ignored, symlinks }: { ignored: string[]; symlinks: string[] },
  options: AddOptions,
): Promise<AddReport> {
  const report: AddReport = {
    files: files.length,
    unchangedFiles: 0,
    skipped: [],
    ignored,
    symlinks,
    documents: { added: 0, updated: 0, unchanged: 0, removed: 0, empty: 0 },
    passages: 0,
    bytes: 0,
    seconds: 0,
  };
  const change: IndexChange = { marked: false, wasSound: false, written: [] };
  const written: string[] = [];
  for (const [i, file] of files.entries()) {
    const hadVersion = completeSource(corpus, file.path);
    let result: FileResult;
    try {
      result = await addFile(corpus, file, options, report, change);
    } catch (error) {
      if (!(error instanceof LlmkbError)) throw error;
      if (change.marked) refreshBounds(corpus, change, options);
      throw new CorpusAddError(corpus.name, error, {
        file: file.path,
        written,
        notRead: files.slice(i + 1).map((f) => f.path),
        earlierVersionRemoved: hadVersion && !completeSource(corpus, file.path),
      });
    }
    if (result.status === 'added' || result.status === 'updated') written.push(file.path);
    options.onFile?.(file.path, result);
  }
  // The stored BM25 bounds (bm25-bounds.ts): updated after a change, computed for a store that has none yet.
  if (change.marked || !bm25BoundsCurrent(corpus.db, corpus.id, corpus.ftsTable)) report.bounds = refreshBounds(corpus, change, options);
  return report;
}

function refreshBounds(corpus: CorpusRef, change: IndexChange, options: AddOptions): BoundsReport {
  return refreshBm25Bounds(corpus.db, corpus.id, corpus.ftsTable, {
    ...(change.marked && change.wasSound && change.written !== undefined ? { newPassages: change.written } : {}),
    ...(options.onBoundsProgress ? { onProgress: options.onBoundsProgress } : {}),
  });
}

/** The file was added whole to the corpus before (a file cut short by a killed add is not). */
function completeSource(corpus: CorpusRef, path: string): boolean {
  return corpus.db.prepare('SELECT 1 FROM corpus_sources WHERE corpus_id = ? AND path = ? AND file_hash IS NOT NULL').get(corpus.id, path) !== undefined;
}

/** In the transaction of an index write: the stored BM25 bounds are not used until the add has updated them. */
function indexChanging(db: Db, corpusId: number, change: IndexChange): void {
  if (change.marked) return;
  change.wasSound = markBm25BoundsChanging(db, corpusId);
  change.marked = true;
}

async function addFile(corpus: CorpusRef, file: CorpusFile, options: AddOptions, report: AddReport, change: IndexChange): Promise<FileResult> {
  const { hash, bytes } = await fileHash(file.path, (error) => fileAccessError(file.path, error, 'read'));
  report.bytes += bytes;
  const db = corpus.db;
  const source = db.prepare('SELECT id, file_hash FROM corpus_sources WHERE corpus_id = ? AND path = ?').get(corpus.id, file.path) as
    | { id: number; file_hash: string | null }
    | undefined;
  // A one-document file read before under another name (it was added with other folders) is read again, to rename its document.
  const renamed =
    source !== undefined &&
    ONE_DOCUMENT.has(file.format) &&
    (db.prepare('SELECT doc_id FROM corpus_documents WHERE source_id = ?').pluck().get(source.id) ?? file.name) !== file.name;
  if (source?.file_hash === hash && !renamed) {
    report.unchangedFiles += 1;
    const n = db.prepare('SELECT COUNT(*) AS documents, COALESCE(SUM(passages), 0) AS passages FROM corpus_documents WHERE source_id = ?').get(source.id) as {
      documents: number;
      passages: number;
    };
    return { format: file.format, status: 'unchanged', documents: n.documents, passages: n.passages };
  }
  const now = new Date().toISOString();
  const sourceId =
    source?.id ??
    Number(
      db
        .prepare('INSERT INTO corpus_sources (corpus_id, path, format, file_hash, bytes, added_at) VALUES (?, ?, ?, NULL, ?, ?)')
        .run(corpus.id, file.path, file.format, bytes, now).lastInsertRowid,
    );
  // Documents seen in this pass get a new generation; those left with an older one are gone from the file.
  const generation = (db.prepare('SELECT COALESCE(MAX(generation), 0) + 1 AS g FROM corpus_documents WHERE source_id = ?').get(sourceId) as { g: number }).g;

  const findDoc = db.prepare('SELECT id, source_id, content_hash, generation FROM corpus_documents WHERE corpus_id = ? AND doc_id = ?');
  const touchDoc = db.prepare('UPDATE corpus_documents SET generation = ? WHERE id = ?');
  const insertDoc = db.prepare(
    'INSERT INTO corpus_documents (corpus_id, source_id, doc_id, content_hash, chars, pages, passages, metadata, generation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const updateDoc = db.prepare(
    'UPDATE corpus_documents SET source_id = ?, content_hash = ?, chars = ?, pages = ?, passages = ?, metadata = ?, generation = ? WHERE id = ?',
  );
  const insertPassage = db.prepare('INSERT INTO corpus_passages (document_id, seq, page, page_end, start, end, words, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const indexPassage = db.prepare(`INSERT INTO ${corpus.ftsTable} (rowid, text) VALUES (?, ?)`);
  const unindexDoc = db.prepare(
    `INSERT INTO ${corpus.ftsTable} (${corpus.ftsTable}, rowid, text) SELECT 'delete', id, text FROM corpus_passages WHERE document_id = ?`,
  );
  ensureVectorTable(db, corpus.id);
  const unvectorDoc = db.prepare(`DELETE FROM ${vectorTable(corpus.id)} WHERE passage_id IN (SELECT id FROM corpus_passages WHERE document_id = ?)`);
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
      const existing = findDoc.get(corpus.id, doc.docId) as { id: number; source_id: number; content_hash: string; generation: number } | undefined;
      if (existing !== undefined && existing.source_id !== sourceId) {
        const other = db.prepare('SELECT path FROM corpus_sources WHERE id = ?').get(existing.source_id) as { path: string };
        const hint = ONE_DOCUMENT.has(file.format)
          ? 'Document ids must be unique within a corpus: add both folders in one `llmkb corpus add` (files of the same name are then named with their folders), rename one of the files, or add them to separate corpora.'
          : 'Document ids must be unique within a corpus: choose an id column with unique values (--id-column / --id-field), or add the files to separate corpora.';
        throw new InputFileError(
          doc.location,
          undefined,
          undefined,
          `document id "${doc.docId}" is already in corpus "${corpus.name}" from ${other.path}`,
          hint,
        );
      }
      if (existing !== undefined && existing.generation === generation) {
        throw new InputFileError(
          doc.location,
          undefined,
          undefined,
          `duplicate document id "${doc.docId}" (an earlier row of the same file has it)`,
          'Document ids must be unique within a corpus: choose an id column with unique values (--id-column / --id-field).',
        );
      }
      if (existing !== undefined && existing.content_hash === doc.contentHash) {
        touchDoc.run(generation, existing.id);
        report.documents.unchanged += 1;
        continue;
      }
      const parts = doc.passages;
      const count = parts.length / 6;
      if (count === 0) report.documents.empty += 1;
      indexChanging(db, corpus.id, change);
      let docRow: number;
      if (existing !== undefined) {
        unindexDoc.run(existing.id);
        deletePassages.run(existing.id);
        updateDoc.run(sourceId, doc.contentHash, doc.text.length, doc.pageCount, count, doc.metadata, generation, existing.id);
        docRow = existing.id;
        report.documents.updated += 1;
      } else {
        docRow = Number(
          insertDoc.run(corpus.id, sourceId, doc.docId, doc.contentHash, doc.text.length, doc.pageCount, count, doc.metadata, generation).lastInsertRowid,
        );
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
    for await (const doc of prepareDocuments(file, bytes, options, corpus.settings, options, (n) => (bytesRead += n))) {
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
      indexChanging(db, corpus.id, change);
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
    if (gone.length > 0) indexChanging(db, corpus.id, change);
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
