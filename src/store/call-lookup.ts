/**
 * The call cache's lookups in a store file, through a read-only connection of their own whose
 * read transaction spans a turn of the event loop.
 *
 * On its own, each lookup opens and closes a read transaction (in WAL mode: locks on the shared
 * index file, system calls), a large share of a lookup, and a cached re-run looks up every call
 * of the run. A connection of its own, so the long read transaction never holds up or takes in
 * the writes of the store's connection (the run store's commits stay commits when they return).
 * The read ends at the end of the turn and whenever the cache moves calls into the store or
 * deletes them (`endRead`), so a lookup always sees every call this process has moved; another
 * process's calls are seen once they are moved, at most a turn later.
 */
import { SqliteDatabase, type Db } from './database.js';
import { lookupStatement, type LookupRow, type LookupStatement } from './calls-table.js';

/**
 * The lookup connection's page cache in KiB (the store's own connection has STORE_CACHE_KIB). A
 * cached re-run looks up every call by a random key, so the key index should stay in memory; a
 * cap, so memory stays flat however large the store grows.
 */
const READER_CACHE_KIB = 16384;

export class CallLookup {
  readonly #db: Db;
  readonly #get: LookupStatement;
  #reading = false;

  private constructor(db: Db) {
    this.#db = db;
    this.#get = lookupStatement(db);
  }

  /** A reader of the store file, or undefined where a second connection cannot be opened (e.g. a folder not writable for the shared-memory file). */
  static open(store: string): CallLookup | undefined {
    let db: Db;
    try {
      db = new SqliteDatabase(store, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      db.pragma(`cache_size = -${READER_CACHE_KIB}`);
    } catch {
      return undefined;
    }
    return new CallLookup(db);
  }

  get(key: Buffer): LookupRow | undefined {
    if (!this.#reading) {
      this.#db.exec('BEGIN');
      this.#reading = true;
      setImmediate(() => this.endRead());
    }
    return this.#get.get(key);
  }

  /** Ends the read transaction: the next lookup sees the store as it is then. */
  endRead(): void {
    if (!this.#reading) return;
    this.#reading = false;
    if (this.#db.open && this.#db.inTransaction) this.#db.exec('COMMIT');
  }

  close(): void {
    this.endRead();
    this.#db.close();
  }
}
