/**
 * Documents ready to be written to the index: read, hashed and split into passages. Large
 * CSV/TSV/JSONL files are prepared in a worker thread while the main thread writes to SQLite,
 * so parsing and sentence segmentation (about as costly as the FTS5 insert itself) overlap
 * with the index writes instead of adding to them; small files and PDFs are prepared in
 * process (a worker's start costs more than they take).
 *
 * The worker runs at most `MAX_IN_FLIGHT` batches of ~`BATCH_CHARS` characters ahead of the
 * writer (each batch acknowledged when written), so memory stays flat on any file size.
 */
import { sha256 } from '../io/checksum.js';
import { startModuleWorker } from '../io/module-worker.js';
import { FileAccessError, InputFileError, LlmkbError } from '../errors.js';
import { splitPassages, type PassageOptions } from './passages.js';
import type { CorpusFile } from './corpus-files.js';
import { readDocuments, type ReadOptions } from './readers.js';

export interface PreparedDocument {
  docId: string;
  location: string;
  /** SHA-256 of text + metadata: an unchanged document is kept as it is. */
  contentHash: string;
  metadata: string;
  text: string;
  pageCount: number;
  /** Passages as rows of 6 numbers: seq, page, pageEnd, start, end, words (text = text.slice(start, end)). */
  passages: Int32Array;
}

/** Characters of document text per batch sent by the worker. */
export const BATCH_CHARS = 4 * 1024 * 1024;
/** Batches the worker may run ahead of the writer. */
export const MAX_IN_FLIGHT = 3;
/** Files at least this large (CSV/TSV/JSONL) are prepared in a worker thread. */
export const WORKER_MIN_BYTES = 8 * 1024 * 1024;

export function prepareDocument(
  doc: { docId: string; location: string; text: string; pageStarts: number[]; metadata: Record<string, unknown> },
  settings: PassageOptions,
): PreparedDocument {
  const metadata = JSON.stringify(doc.metadata);
  const parts = doc.text.trim().length === 0 ? [] : splitPassages(doc.text, settings, doc.pageStarts);
  const passages = new Int32Array(parts.length * 6);
  parts.forEach((p, i) => passages.set([p.seq, p.page, p.pageEnd, p.start, p.end, p.words], i * 6));
  return {
    docId: doc.docId,
    location: doc.location,
    contentHash: sha256(`${doc.text}\u0000${metadata}`),
    metadata,
    text: doc.text,
    pageCount: doc.pageStarts.length,
    passages,
  };
}

/** The documents of one file, prepared in this thread. */
export async function* prepareInProcess(
  file: CorpusFile,
  read: ReadOptions,
  settings: PassageOptions,
  onBytes?: (n: number) => void,
): AsyncGenerator<PreparedDocument> {
  for await (const doc of readDocuments(file, read, onBytes)) yield prepareDocument(doc, settings);
}

/** What the worker posts. */
export type WorkerMessage = { type: 'batch'; docs: PreparedDocument[]; bytes: number } | { type: 'done' } | { type: 'error'; error: SerializedError };

export interface SerializedError {
  kind: 'input' | 'file' | 'llmkb' | 'other';
  message: string;
  hint?: string | undefined;
  file?: string;
  line?: number | undefined;
  field?: string | undefined;
  path?: string;
  code?: string | undefined;
  exitCode?: number;
  stack?: string | undefined;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof InputFileError)
    return { kind: 'input', message: error.message, hint: error.hint, file: error.file, line: error.line, field: error.field };
  if (error instanceof FileAccessError) return { kind: 'file', message: error.message, hint: error.hint, path: error.path, code: error.code };
  if (error instanceof LlmkbError) return { kind: 'llmkb', message: error.message, hint: error.hint, exitCode: error.exitCode };
  return { kind: 'other', message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined };
}

/** The error the worker raised, as the same class in this thread. */
export function deserializeError(e: SerializedError): Error {
  switch (e.kind) {
    case 'input': {
      // The message already starts with "file:line (field ...): "; rebuild it without repeating that.
      const error = new InputFileError(e.file!, e.line, e.field, 'x', e.hint);
      error.message = e.message;
      return error;
    }
    case 'file':
      return new FileAccessError(e.path!, e.message, { ...(e.code === undefined ? {} : { code: e.code }), ...(e.hint === undefined ? {} : { hint: e.hint }) });
    case 'llmkb':
      return new LlmkbError(e.message, { ...(e.hint === undefined ? {} : { hint: e.hint }), ...(e.exitCode === undefined ? {} : { exitCode: e.exitCode }) });
    default: {
      const error = new Error(e.message);
      if (e.stack !== undefined) error.stack = e.stack;
      return error;
    }
  }
}

/** The documents of one file, prepared in a worker thread (see the module comment). */
export async function* prepareInWorker(
  file: CorpusFile,
  read: ReadOptions,
  settings: PassageOptions,
  onBytes?: (n: number) => void,
): AsyncGenerator<PreparedDocument> {
  // Only the plain settings cross to the worker (the caller's options also hold callbacks).
  const readOnly: ReadOptions = {};
  for (const key of ['textColumn', 'idColumn', 'textField', 'idField'] as const) if (read[key] !== undefined) readOnly[key] = read[key];
  const passageOnly: PassageOptions = {};
  for (const key of ['passageWords', 'overlapWords', 'locale'] as const)
    if (settings[key] !== undefined) (passageOnly as Record<string, unknown>)[key] = settings[key];
  const worker = startModuleWorker(import.meta.url, 'ingest-worker', { file, read: readOnly, settings: passageOnly });
  const queue: WorkerMessage[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  let exited = false;
  worker.on('message', (m: WorkerMessage) => {
    queue.push(m);
    wake?.();
  });
  worker.on('error', (error) => {
    failure = error;
    wake?.();
  });
  worker.on('exit', (code) => {
    exited = true;
    if (code !== 0) failure ??= new Error(`the corpus ingest worker stopped with exit code ${code}`);
    wake?.();
  });
  try {
    for (;;) {
      if (queue.length === 0) {
        if (failure !== undefined) throw failure;
        if (exited) throw new Error('the corpus ingest worker ended without finishing the file');
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      const m = queue.shift()!;
      if (m.type === 'done') return;
      if (m.type === 'error') throw deserializeError(m.error);
      onBytes?.(m.bytes);
      for (const doc of m.docs) yield doc;
      // Written (the consumer asked for the next document after the last of the batch): one more may come.
      worker.postMessage('ack');
    }
  } finally {
    await worker.terminate();
  }
}

export function prepareDocuments(
  file: CorpusFile,
  bytes: number,
  read: ReadOptions,
  settings: PassageOptions,
  options: { workerMinBytes?: number } = {},
  onBytes?: (n: number) => void,
): AsyncGenerator<PreparedDocument> {
  const threaded = (file.format === 'csv' || file.format === 'tsv' || file.format === 'jsonl') && bytes >= (options.workerMinBytes ?? WORKER_MIN_BYTES);
  return threaded ? prepareInWorker(file, read, settings, onBytes) : prepareInProcess(file, read, settings, onBytes);
}
