/**
 * Content-addressed cache of model calls (keys: call-key.ts).
 *
 * Writes are grouped: results that finish close together share one write (see
 * CallCacheOptions), and a caller's promise resolves only after its entry is written (to the
 * journal, see CallCache), so a result the pipeline has seen is a result that survives a kill.
 */
import { resolve } from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { CanonicalRequest } from './call-key.js';
import { CallJournal, type JournalEntry } from './call-journal.js';
import { CallLookup } from './call-lookup.js';
import { insertRows, lookupStatement, type LookupRow, type LookupStatement } from './calls-table.js';
import { REQUEST_DEFLATE } from './compression.js';
import type { Db } from './database.js';
import { recoverJournals } from './journal-recovery.js';
import { notReusedEntries } from './identity-keys.js';
import { paidEarlier, type CallPayer } from './paid-calls.js';

export interface CacheEntry {
  response: unknown;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
}

interface Pending {
  key: string;
  model: string;
  kind: string;
  request: string;
  entry: CacheEntry;
  payer: CallPayer | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface CallCacheOptions {
  /**
   * Group commit: a batch is written at the end of the tick in which its first result
   * finished, but no sooner than this many milliseconds after the previous write. Callers wait
   * for the write; 0 writes every tick.
   */
  commitIntervalMs?: number;
  /** Entries the journal collects before they move into the store (see `CallCache`). */
  mergeEntries?: number;
}

/**
 * Default group-commit interval (see CallCacheOptions): every tick. Results finishing in one
 * tick already share a write, and a longer interval makes every call wait longer
 * (`npm run bench:paper-scale -- --commit-interval N` compares).
 */
export const COMMIT_INTERVAL_MS = 0;

/**
 * Journal entries moved into the store at once. Each move touches most pages of the key index
 * (the keys are random), so moves of a few thousand entries would rewrite the index again and
 * again; this many keep that to a small share of what is written (`npm run bench:paper-scale`
 * prints the bytes written), for a journal of a few MB.
 */
export const MERGE_ENTRIES = 16_384;

/** On a miss, journals of processes that died are looked for at most this often (see `get`). */
const RECOVERY_INTERVAL_MS = 1_000;

/**
 * What the CallCaches of this process on one store file share: the journal, their connections
 * (a move uses any that is still open) and the lookup connection (opened at the first lookup).
 */
interface SharedStore {
  journal: CallJournal;
  dbs: Set<Db>;
  lookup: CallLookup | undefined;
}

/** Store file -> what its caches share. */
const stores = new Map<string, SharedStore>();

/**
 * Copies the write-ahead log into the store file and truncates it, when no other connection is
 * reading or writing right now: never waits for one (busy_timeout 0 for the call). The log
 * otherwise stays at its largest size until the last connection closes. Best effort: a busy
 * store keeps its log.
 */
function truncateWal(db: Db | undefined): void {
  if (!db || db.memory || db.inTransaction) return;
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // Busy or read-only: the log is folded in later (SQLite's automatic checkpoints, the last close).
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

const asEntry = (row: LookupRow): CacheEntry => ({ response: JSON.parse(row[0]), promptTokens: row[1], completionTokens: row[2], latencyMs: row[3] });

/**
 * The cache's reads and writes. A finished call is appended to this process's journal of the
 * store (call-journal.ts: one write per tick for the calls finishing together; a call's promise
 * resolves only after that write, so a kill -9 loses no call the pipeline has seen), and every
 * MERGE_ENTRIES calls the journal moves into the store in one transaction, in the order the calls
 * were answered, and starts again empty. Closing the cache moves what is left; a journal left by
 * a process that died is moved by the next process that opens the store (journal-recovery.ts).
 * Lookups see this process's journal too; another process's calls once they are moved.
 * In-memory stores have no journal and commit every batch.
 */
export class CallCache {
  /** Bytes this cache appended to its journal and calls it moved into the store (for `bench/paper-scale.ts`). */
  readonly writes = { journalBytes: 0, merged: 0 };
  readonly #db: Db;
  readonly #get: LookupStatement;
  readonly #interval: number;
  readonly #mergeEntries: number;
  readonly #shared: SharedStore | undefined;
  readonly #store: string | undefined;
  #pending: Pending[] = [];
  #scheduled = false;
  #lastCommit = 0;
  #closed = false;
  #recoveredAt = performance.now();
  #paidEarlier: ((run: string, key: string) => boolean) | undefined;

  constructor(db: Db, options: CallCacheOptions = {}) {
    this.#db = db;
    this.#interval = options.commitIntervalMs ?? COMMIT_INTERVAL_MS;
    this.#mergeEntries = Math.max(1, options.mergeEntries ?? MERGE_ENTRIES);
    this.#get = lookupStatement(db);
    if (db.memory) return;
    const store = resolve(db.name);
    this.#store = store;
    this.#recover();
    let shared = stores.get(store);
    if (!shared) {
      shared = { journal: new CallJournal(store), dbs: new Set(), lookup: undefined };
      stores.set(store, shared);
    }
    if (shared.lookup && ![...shared.dbs].some((d) => d.open)) {
      // Every connection that shared it was closed without closing its cache: the file may
      // have been replaced since, so lookups open a new connection.
      shared.lookup.close();
      shared.lookup = undefined;
    }
    shared.dbs.add(db);
    this.#shared = shared;
  }

  get(key: string): CacheEntry | undefined {
    const journaled = this.#shared?.journal.find(key);
    if (journaled) return { ...journaled, response: JSON.parse(journaled.response) };
    let row = this.#lookUp(Buffer.from(key, 'hex'));
    if (!row && this.#shared && performance.now() - this.#recoveredAt > RECOVERY_INTERVAL_MS) {
      // A process that died since the store was opened (one whose run this process took over)
      // may have left calls in its journal.
      this.#recoveredAt = performance.now();
      this.#recover();
      row = this.#lookUp(Buffer.from(key, 'hex'));
    }
    return row && asEntry(row);
  }

  /** Moves dead processes' journals into the store (a new read, so lookups see them). */
  #recover(): void {
    stores.get(this.#store!)?.lookup?.endRead();
    recoverJournals(this.#db, this.#store!, (file) => [...stores.values()].some((s) => s.journal.file === file));
  }

  /** A row of `calls`, through the lookup connection (call-lookup.ts) when the store is a file. */
  #lookUp(key: Buffer): LookupRow | undefined {
    const shared = this.#shared;
    if (!shared || this.#closed) return this.#get.get(key);
    shared.lookup ??= CallLookup.open(this.#store!);
    // No second connection: the store's own.
    return (shared.lookup ?? this.#get).get(key);
  }

  /**
   * Resolves once the entry is written (journal or store); `payer`: the run that paid for the
   * call, written with it (paid-calls.ts).
   */
  put(key: string, model: string, kind: string, request: unknown, entry: CacheEntry, payer?: CallPayer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ key, model, kind, request: CanonicalRequest.of(request).json, entry, payer, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        const wait = this.#lastCommit + this.#interval - performance.now();
        if (wait > 0) setTimeout(() => setImmediate(() => this.#flush()), wait);
        else setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    const createdAt = new Date().toISOString();
    try {
      const entries: JournalEntry[] = batch.map((p) => ({
        key: Buffer.from(p.key, 'hex'),
        model: p.model,
        kind: p.kind,
        request: p.request,
        response: JSON.stringify(p.entry.response),
        promptTokens: p.entry.promptTokens,
        completionTokens: p.entry.completionTokens,
        latencyMs: p.entry.latencyMs,
        createdAt,
        payer: p.payer,
      }));
      if (this.#shared) {
        if (this.#closed) throw new Error('the call cache is closed');
        this.writes.journalBytes += this.#shared.journal.append(entries);
      } else {
        insertRows(
          this.#db,
          entries.map((e) => ({ ...e, request: deflateRawSync(e.request, REQUEST_DEFLATE) })),
        );
      }
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    } finally {
      this.#lastCommit = performance.now();
    }
    for (const p of batch) p.resolve();
    if (this.#shared && this.#shared.journal.entries >= this.#mergeEntries) {
      try {
        this.#merge();
      } catch {
        // The store is busy or full: the calls are safe in the journal; the next batch tries again.
      }
    }
  }

  /** Moves the journal into the store (one transaction) and empties it. */
  #merge(): void {
    const shared = this.#shared;
    if (!shared || shared.journal.entries === 0) return;
    const db = this.#db.open ? this.#db : [...shared.dbs].find((d) => d.open);
    if (!db) return;
    // Lookups after the move must see the moved calls (they leave the journal): a new read.
    shared.lookup?.endRead();
    // Streamed a frame at a time, in the order the calls were answered (see insertRows).
    insertRows(db, shared.journal.rows());
    this.writes.merged += shared.journal.entries;
    shared.journal.clear();
  }

  /**
   * Moves every call written so far into the store, where other processes see it too, and folds
   * SQLite's write-ahead log into the store file (see truncateWal).
   */
  checkpoint(): void {
    this.#merge();
    this.#shared?.lookup?.endRead();
    truncateWal(this.#db.open ? this.#db : undefined);
  }

  /**
   * Moves the journal into the store and, when no other cache of this process uses the store
   * file, removes it. Call before closing the database (Workspace.close does).
   */
  close(): void {
    if (this.#closed) return;
    this.#flush();
    this.#closed = true;
    const shared = this.#shared;
    if (!shared) return;
    this.#merge();
    shared.dbs.delete(this.#db);
    if ([...shared.dbs].some((d) => d.open)) return;
    shared.lookup?.close();
    shared.lookup = undefined;
    shared.journal.close();
    stores.delete(this.#store!);
  }

  /** Whether an earlier process of the run `run` paid for the call `key` (a killed one, whose run this process resumes). */
  paidEarlier(run: string, key: string): boolean {
    this.#paidEarlier ??= paidEarlier(this.#db);
    return this.#paidEarlier(run, key);
  }

  /** The request a cached call was made with (its canonical JSON), for inspection. */
  request(key: string): string | undefined {
    this.#merge();
    const row = this.#db.prepare('SELECT request FROM calls WHERE key = ?').get(Buffer.from(key, 'hex')) as { request: Buffer | string } | undefined;
    if (!row) return undefined;
    return typeof row.request === 'string' ? row.request : inflateRawSync(row.request).toString('utf8');
  }

  /**
   * Entries and tokens per model identity and kind of call; `notReused`: those keyed before the
   * key carried what the server serves, not found while it reports an identity (identity-keys.ts).
   */
  stats(): {
    entries: number;
    byModel: Array<{ model: string; kind: string; entries: number; promptTokens: number; completionTokens: number; notReused: number }>;
  } {
    this.#merge();
    const entries = (this.#db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n;
    const byModel = this.#db
      .prepare(
        'SELECT model, kind, count(*) AS entries, sum(prompt_tokens) AS promptTokens, sum(completion_tokens) AS completionTokens FROM calls GROUP BY model, kind ORDER BY model, kind',
      )
      .all() as Array<{ model: string; kind: string; entries: number; promptTokens: number; completionTokens: number }>;
    const notReused = notReusedEntries(this.#db);
    return { entries, byModel: byModel.map((row) => ({ ...row, notReused: notReused.get(`${row.model}\n${row.kind}`) ?? 0 })) };
  }

  clear(model?: string): number {
    this.#merge();
    this.#shared?.lookup?.endRead();
    const result = model === undefined ? this.#db.prepare('DELETE FROM calls').run() : this.#db.prepare('DELETE FROM calls WHERE model = ?').run(model);
    return result.changes;
  }
}
