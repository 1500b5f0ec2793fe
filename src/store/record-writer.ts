/**
 * Run records written by a worker thread with its own connection to the store, so the inserts,
 * commits and SQLite's checkpoints of a large stage run beside the event loop instead of on it.
 * At paper scale the judge stage is bound by the main thread (6,000 records, 987 judge calls):
 * the records' inserts and commits were about a sixth of its time, and a checkpoint of the
 * write-ahead log that landed in it another 40 ms (`npm run bench:paper-scale -- --repeats 7`).
 * Records are encoded on the main thread; batches are written in the order they are sent.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../io/module-worker.js';
import type { Db } from './database.js';

/** The one statement that saves a run record (also `Run#saveRecords`): a re-saved item replaces its record. */
export const SAVE_RECORD_SQL =
  'INSERT INTO run_records (run_id, stage, item_id, seq, record, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(run_id, stage, item_id) DO UPDATE SET record = excluded.record, seq = excluded.seq';

/** A batch of encoded records (JSON text, or a deflated Buffer). */
export interface RecordBatch {
  id: number;
  runId: string;
  stage: string;
  createdAt: string;
  rows: Array<[itemId: string, seq: number, record: string | Uint8Array]>;
}

export type WriterReply = { id: number; error?: { message: string; name: string; code?: string } };

export class RecordWriter {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  #next = 0;
  #broken: Error | undefined;
  #closed: Promise<void> | undefined;

  /** A writer for this store, or undefined when it has no file another connection can open. */
  static for(db: Db): RecordWriter | undefined {
    return db.memory || db.readonly ? undefined : new RecordWriter(db.name);
  }

  private constructor(path: string) {
    // A small heap: the worker holds one batch at a time (at most RECORD_COMMIT_BATCH records, a
    // few MB), and its young generation at V8's default would add its size to the process's RSS.
    this.#worker = startModuleWorker(import.meta.url, 'record-writer-worker', { path }, { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 256 });
    // Idle, the worker never keeps the process alive (a library user may never close the store).
    this.#worker.unref();
    this.#worker.on('message', (reply: WriterReply) => {
      const waiting = this.#waiting.get(reply.id);
      this.#waiting.delete(reply.id);
      if (this.#waiting.size === 0) this.#worker.unref();
      if (!waiting) return;
      if (reply.error) waiting.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }, reply.error.code === undefined ? {} : { code: reply.error.code }));
      else waiting.resolve();
    });
    const fail = (error: Error): void => {
      this.#broken ??= error;
      for (const waiting of this.#waiting.values()) waiting.reject(error);
      this.#waiting.clear();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => fail(new Error(`the run store's record writer stopped (exit code ${code})`)));
  }

  /** Writes the batch in one transaction; resolves once it is committed. */
  write(batch: Omit<RecordBatch, 'id'>): Promise<void> {
    if (this.#broken) return Promise.reject(this.#broken);
    if (this.#closed) return Promise.reject(new Error("the run store's record writer is closed"));
    const id = this.#next++;
    return new Promise<void>((resolve, reject) => {
      if (this.#waiting.size === 0) this.#worker.ref();
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ ...batch, id } satisfies RecordBatch);
    });
  }

  /** Closes the worker's connection once the batches sent are written. */
  close(): Promise<void> {
    this.#closed ??= this.#broken
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          this.#worker.ref();
          this.#worker.once('exit', () => resolve());
          this.#worker.postMessage('close');
        });
    return this.#closed;
  }
}
