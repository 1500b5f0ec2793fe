/**
 * Content-addressed cache of model calls.
 *
 * The key is a hash of the model's cache identity, the kind of call and every parameter that
 * changes the output; never of transport settings (URL, time-out, concurrency) or credentials.
 * Writes are grouped: results that finish close together share one write (see
 * CallCacheOptions), and a caller's promise resolves only after its entry is written (to the
 * journal, see CallCache), so a result the pipeline has seen is a result that survives a kill.
 */
import { hash, randomBytes } from 'node:crypto';
import { closeSync, ftruncateSync, openSync, readdirSync, readSync, rmSync, writevSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { collectYoungGarbage } from '../io/young-garbage.js';
import { SqliteDatabase, type Db } from './database.js';

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
  resolve: () => void;
  reject: (error: unknown) => void;
}

const KEY_VERSION = 'llmkb-cache-v1';

/** JSON with object keys sorted, so equal requests hash equally whatever order fields were set in. */
export function canonicalJson(value: unknown): string {
  // A call's parameters are plain data: written directly (faster than a replacer, which copies
  // every object; it is one of the costs of every cached call); anything else takes the
  // general path below.
  const fast = plainCanonicalJson(value);
  return fast ?? replacerCanonicalJson(value);
}

/** An array index as a property key ("0", "17"): objects list those first, in numeric order. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;

/**
 * canonicalJson of plain data (strings, finite numbers, booleans, null, arrays, plain objects
 * without array-index keys), the same text the replacer path gives; undefined for anything else
 * (dates, buffers, class instances, toJSON, bigint, non-finite numbers, undefined in arrays).
 */
function plainCanonicalJson(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : undefined;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        const parts: string[] = [];
        for (const x of v) {
          const j = plainCanonicalJson(x);
          if (j === undefined) return undefined;
          parts.push(j);
        }
        return `[${parts.join(',')}]`;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return undefined;
      const keys = Object.keys(v).sort();
      const parts: string[] = [];
      for (const k of keys) {
        if (INDEX_KEY.test(k)) return undefined;
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined) continue;
        const j = plainCanonicalJson(x);
        if (j === undefined) return undefined;
        parts.push(`${JSON.stringify(k)}:${j}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      return undefined;
  }
}

function replacerCanonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  });
}

/**
 * A request already in canonical JSON: `cacheKey` and `CallCache#put` take it as is instead of
 * serialising the request again (the executor makes both from one call's parameters).
 */
export class CanonicalRequest {
  constructor(readonly json: string) {}

  static of(request: unknown): CanonicalRequest {
    return request instanceof CanonicalRequest ? request : new CanonicalRequest(canonicalJson(request));
  }
}

export function cacheKey(modelIdentity: string, kind: string, request: unknown): string {
  // One-shot hashing: about 40% less CPU than createHash().update().digest() per call.
  return hash('sha256', `${KEY_VERSION}\n${modelIdentity}\n${kind}\n${CanonicalRequest.of(request).json}`, 'hex');
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
 * Default group-commit interval (see CallCacheOptions). 0: every tick. Measured with
 * `npm run bench:paper-scale -- --commit-interval N`: 4 ms wrote no fewer bytes than 0 (results
 * finishing in one tick already share a write) and made every call wait longer.
 */
export const COMMIT_INTERVAL_MS = 0;

/**
 * Journal entries moved into the store at once. Each move touches most pages of the key index
 * (the keys are random), so moves of a few thousand entries would rewrite the index again and
 * again; 16,384 entries (about 15 MB of journal and memory) keep that to a small share of what
 * is written, measured with `npm run bench:paper-scale`.
 */
export const MERGE_ENTRIES = 16_384;

/**
 * The lookup connection's page cache in KiB (see Reader; the store's own is STORE_CACHE_KIB): a
 * cached re-run looks up every call by a random key, and the key index (about 5 MB at paper
 * scale) then stays in memory. A cap (32 MiB was 27 MB more RSS at paper scale than on a small
 * store, and no faster).
 */
const READER_CACHE_KIB = 16384;

/** On a miss, journals of processes that died are looked for at most this often (see `get`). */
const RECOVERY_INTERVAL_MS = 1_000;

/** One call as stored: the columns of `calls`. */
interface Row {
  key: Buffer;
  model: string;
  kind: string;
  /** Raw DEFLATE of the request's canonical JSON. */
  request: Buffer;
  /** The response as JSON text. */
  response: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  createdAt: string;
}

/**
 * The journal of one store file in this process: calls answered since the last move into the
 * store, appended to a file beside the store and kept in memory for lookups. Every CallCache of
 * this process on the same file shares it.
 */
interface Journal {
  file: string;
  fd: number;
  /**
   * The calls in the journal: key -> where its frame starts in the file. Only that is kept in
   * memory (the journal holds up to MERGE_ENTRIES calls, about 15 MB as rows, and memory must not
   * grow with a run); a lookup reads its frame back, and a move reads the file.
   */
  recent: Map<string, number>;
  /** Bytes in the file (where the next frame starts). */
  size: number;
  /** Open connections of the caches sharing it (a move uses any that is still open). */
  dbs: Set<Db>;
  /** The connection lookups read through (see Reader); opened at the first lookup. */
  reader?: Reader | undefined;
}

/** A row of LOOKUP_SQL as an array (response, prompt tokens, completion tokens, latency): about 12% less per lookup than a row object. */
type LookupStatement = import('better-sqlite3').Statement<[Buffer], [string, number, number, number]>;

function lookupStatement(db: Db): LookupStatement {
  return db.prepare(LOOKUP_SQL).raw(true) as unknown as LookupStatement;
}

const LOOKUP_SQL = 'SELECT response, prompt_tokens, completion_tokens, latency_ms FROM calls WHERE key = ?';

/**
 * A read-only connection of its own for the cache's lookups, whose read transaction spans a
 * turn of the event loop: on their own, each lookup opens and closes a read transaction (in WAL
 * mode, locks on the shared index file, system calls), about 40% of a lookup, and a cached
 * re-run at paper scale looks up 107,000 calls (see `bench/support/cached-eval.ts`). A
 * connection of its own, so the read transaction never holds up or takes in the writes of the
 * store's connection (the run store's commits stay commits when they return). It ends at the end
 * of the turn, and before every move of a journal into the store, so a lookup always sees every
 * call this process has moved (another process's calls, as before, once they are moved, now up
 * to a turn later).
 */
interface Reader {
  db: Db;
  get: LookupStatement;
  reading: boolean;
}

function endRead(journal: Journal | undefined): void {
  const reader = journal?.reader;
  if (!reader?.reading) return;
  reader.reading = false;
  if (reader.db.open && reader.db.inTransaction) reader.db.exec('COMMIT');
}

const journals = new Map<string, Journal>();

/**
 * Copies the write-ahead log into the store file and truncates it, when no other connection is
 * reading or writing right now: never waits for one (busy_timeout 0 for the call). The log
 * otherwise stays at its largest size (18 MB after the stages at paper scale) until the last
 * connection closes. Best effort: a busy store keeps its log, as before.
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

/** `<store>.calls-<host>~<pid>~<random>.journal`: whose it is, so a dead process's journal is found and moved. */
const JOURNAL_NAME = /^(.*)\.calls-([A-Za-z0-9_.-]*)~(\d+)~[0-9a-f]+\.journal$/;

function safeHost(): string {
  return hostname().replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** A process on this host that no longer exists cannot be working on anything (EPERM: it exists, owned by another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * Journal framing. An entry: u32 length, 32-byte key, u32 header length, header JSON, request.
 * A batch (the calls of one tick) is one frame: u32 (FRAME_FLAG | length), then the raw DEFLATE
 * of its entries, each with its request as canonical JSON text. The calls of a tick share most
 * of their prompts (the method's instructions, the question, the shots), which one stream
 * compresses to about a third of the size of entries deflated one by one (77 MB to 25 MB of
 * journal at paper scale, where it was a fifth of all the bytes a run wrote). Entries outside a
 * frame (journals of older versions) hold the request deflated.
 */
const FRAME_FLAG = 0x80000000;

/**
 * A frame's entries are written into this buffer before they are deflated (deflateRawSync reads
 * and copies it): one buffer for every write instead of a few per entry and their concatenation,
 * which were most of what the journal left outside the heap for the garbage collector (a write
 * each tick, about 200 KB of entries at paper scale; issue 13). Grows to the largest batch.
 */
let entriesScratch = Buffer.allocUnsafe(1 << 16);

function encodeEntries(rows: readonly Row[], requests: readonly string[]): Buffer {
  const headers = rows.map((r) => JSON.stringify([r.model, r.kind, r.response, r.promptTokens, r.completionTokens, r.latencyMs, r.createdAt]));
  let size = 0;
  for (let i = 0; i < rows.length; i++) size += 40 + Buffer.byteLength(headers[i]!, 'utf8') + Buffer.byteLength(requests[i]!, 'utf8');
  if (entriesScratch.length < size) entriesScratch = Buffer.allocUnsafe(Math.max(size, 2 * entriesScratch.length));
  const out = entriesScratch;
  let at = 0;
  rows.forEach((r, i) => {
    const start = at;
    r.key.copy(out, at + 4);
    const headerLength = out.write(headers[i]!, at + 40, 'utf8');
    out.writeUInt32LE(headerLength, at + 36);
    at += 40 + headerLength;
    at += out.write(requests[i]!, at, 'utf8');
    out.writeUInt32LE(at - start - 4, start);
  });
  return out.subarray(0, at);
}

const EMPTY = Buffer.alloc(0);

/**
 * DEFLATE of one small text. zlib's one-shot functions allocate their output in chunks of
 * `chunkSize` (16 KiB by default, each its own allocation outside the heap): a journal move
 * deflates 16,384 requests at once, which left 270 MB of such chunks for the garbage collector
 * and the process's RSS at 600 MB. Chunks under 4 KiB come from Node's shared buffer pool.
 */
export const SMALL_DEFLATE = { level: 1, chunkSize: 2048 } as const;
/**
 * DEFLATE of a request as it moves into the store (SMALL_DEFLATE at level 6): the request is
 * written once and read back only for inspection, and level 6 made the requests of a paper-scale
 * store 1.2% (0.55 MB) smaller than level 1 for no measurable time of the move. Same format:
 * rows of either level read alike.
 */
export const REQUEST_DEFLATE = { level: 6, chunkSize: 2048 } as const;
/** INFLATE of one small record (see SMALL_DEFLATE). */
export const SMALL_INFLATE = { chunkSize: 2048 } as const;

/** The entries of the frame at `at` in a journal file (requests left as they are: only lookups read it). */
function readFrame(fd: number, at: number): Row[] {
  const head = Buffer.alloc(4);
  if (readSync(fd, head, 0, 4, at) < 4) return [];
  const length = head.readUInt32LE(0) & ~FRAME_FLAG;
  const frame = Buffer.alloc(4 + length);
  if (readSync(fd, frame, 0, 4 + length, at) < 4 + length) return [];
  return decodeRows(frame, false, false);
}

/**
 * The complete entries of a journal file, read and decoded one frame (or one entry of an older
 * version's journal) at a time: a move of MERGE_ENTRIES calls never holds the whole journal or
 * all its rows in memory (decoded at once they were 55-98 MB of buffers at paper scale). Stops,
 * as decodeRows does, at a torn or unreadable last frame.
 */
function* journalRows(fd: number): Generator<Row> {
  const head = Buffer.alloc(4);
  // One read buffer for every frame (a frame's rows copy what they keep of it): reading and
  // inflating a frame allocates outside the heap, and a move of MERGE_ENTRIES calls reads a few
  // hundred frames, whose buffers the garbage collector frees only later (a 12,000-question
  // eval peaked at 323-335 MB with a buffer per frame, 302 MB with this; one run each).
  let chunk = Buffer.allocUnsafe(1 << 16);
  let inflated = 0;
  let at = 0;
  for (;;) {
    if (readSync(fd, head, 0, 4, at) < 4) return;
    const word = head.readUInt32LE(0);
    const framed = (word & FRAME_FLAG) !== 0;
    const length = framed ? word & ~FRAME_FLAG : word;
    if (!framed && length < 36) return;
    if (chunk.length < 4 + length) chunk = Buffer.allocUnsafe(Math.max(4 + length, 2 * chunk.length));
    if (readSync(fd, chunk, 0, 4 + length, at) < 4 + length) return;
    if (framed) {
      let inner: Buffer;
      try {
        inner = inflateRawSync(chunk.subarray(4, 4 + length), FRAME_INFLATE);
      } catch {
        return;
      }
      yield* decodeRows(inner, true);
      // The frames' buffers (inflated entries, each request deflated) are garbage now; freed
      // every MOVE_COLLECT_BYTES, they do not pile up outside the heap (see collectYoungGarbage).
      inflated += inner.length;
      if (inflated >= MOVE_COLLECT_BYTES) {
        inflated = 0;
        collectYoungGarbage();
      }
    } else {
      const rows = decodeRows(chunk.subarray(0, 4 + length));
      if (rows.length === 0) return;
      yield* rows;
    }
    at += 4 + length;
  }
}

/**
 * Entries inflated by a journal move between two collections of the young generation (about
 * three times as much in Buffers: the inflated chunks and each request deflated). A collection
 * per frame (a tick's calls, often only a few) took 3.7 s of a 51-second eval of 6,000
 * questions (22,969 scavenges); one per MiB, a few dozen per move, took 0.13 s in all.
 */
const MOVE_COLLECT_BYTES = 1 << 20;

/**
 * INFLATE of a journal frame as it moves into the store: its output in chunks of Node's shared
 * buffer pool (see SMALL_DEFLATE) rather than 16 KiB allocations of their own, a frame being
 * 100-300 KB of entries.
 */
const FRAME_INFLATE = SMALL_INFLATE;

/** One frame: the batch's entries (requests as text), deflated as one stream. */
function encodeRows(rows: readonly Row[], requests: readonly string[]): [Buffer, Buffer] {
  // Level 1, its output in pooled chunks (SMALL_DEFLATE).
  const body = deflateRawSync(encodeEntries(rows, requests), SMALL_DEFLATE);
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32LE((FRAME_FLAG | body.length) >>> 0, 0);
  return [head, body];
}

/**
 * The complete entries of a journal file; a torn last entry or frame (a kill during the write)
 * is no entry: its caller never saw it.
 */
function decodeRows(bytes: Buffer, requestsAsText = false, deflateRequests = true): Row[] {
  const rows: Row[] = [];
  let at = 0;
  while (at + 4 <= bytes.length) {
    const word = bytes.readUInt32LE(at);
    if (!requestsAsText && word & FRAME_FLAG) {
      const length = word & ~FRAME_FLAG;
      if (at + 4 + length > bytes.length) break;
      let inner: Buffer;
      try {
        inner = inflateRawSync(bytes.subarray(at + 4, at + 4 + length));
      } catch {
        break;
      }
      for (const r of decodeRows(inner, true, deflateRequests)) rows.push(r);
      at += 4 + length;
      continue;
    }
    const length = word;
    if (length < 36 || at + 4 + length > bytes.length) break;
    const key = Buffer.from(bytes.subarray(at + 4, at + 36));
    const headerLength = bytes.readUInt32LE(at + 36);
    if (40 + headerLength > 4 + length) break;
    let header: [string, string, string, number, number, number, string];
    try {
      header = JSON.parse(bytes.subarray(at + 40, at + 40 + headerLength).toString('utf8')) as typeof header;
    } catch {
      break;
    }
    const [model, kind, response, promptTokens, completionTokens, latencyMs, createdAt] = header;
    const request = bytes.subarray(at + 40 + headerLength, at + 4 + length);
    rows.push({ key, model, kind, response, promptTokens, completionTokens, latencyMs, createdAt, request: !deflateRequests ? EMPTY : requestsAsText ? deflateRawSync(request, REQUEST_DEFLATE) : Buffer.from(request) });
    at += 4 + length;
  }
  return rows;
}

const INSERT_SQL = 'INSERT OR REPLACE INTO calls (key, model, kind, request, response, prompt_tokens, completion_tokens, latency_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';

/**
 * Writes rows into `calls` in one transaction, in the order given: a journal's order, the order
 * its calls were answered. The table appends rows in rowid order, so the calls a run made close
 * together (a pair's MCQs, the pairs in flight with it) share table pages, and a re-run, which
 * looks them up in about that order, reads each page once while it is in the page cache. In key
 * order (before) they were scattered over the whole table and nearly every lookup of a cached
 * re-run read another page. The key index's pages are written once per move either way: a move
 * of MERGE_ENTRIES random keys touches most of them, and they stay in the page cache until the
 * commit.
 */
function insertRows(db: Db, rows: Iterable<Row>): void {
  const insert = db.prepare(INSERT_SQL);
  db.transaction(() => {
    for (const r of rows) insert.run(r.key, r.model, r.kind, r.request, r.response, r.promptTokens, r.completionTokens, r.latencyMs, r.createdAt);
  })();
}

/**
 * Moves the journals that processes which ended (on this host) left beside the store into it.
 * A journal of a live process, or of another host (a store on a shared folder), is left alone:
 * its owner moves it.
 */
function recoverJournals(db: Db, store: string): void {
  const folder = dirname(store);
  const base = basename(store);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  const host = safeHost();
  for (const journal of journals.values()) if (journal.file.startsWith(`${store}.calls-`)) endRead(journal);
  for (const name of names) {
    const m = JOURNAL_NAME.exec(name);
    if (!m || m[1] !== base || m[2] !== host) continue;
    const file = join(folder, name);
    if ([...journals.values()].some((j) => j.file === file)) continue;
    const pid = Number(m[3]);
    if (pid !== process.pid && processAlive(pid)) continue;
    // One process at a time (the write lock), and only if no one moved it meanwhile.
    db.transaction(() => {
      let fd: number;
      try {
        fd = openSync(file, 'r');
      } catch {
        return;
      }
      try {
        // Inside the write lock taken above (insertRows' own transaction nests as a savepoint).
        insertRows(db, journalRows(fd));
      } finally {
        closeSync(fd);
      }
    }).immediate();
    rmSync(file, { force: true });
  }
}

/**
 * The cache's writes. Keys are random, so a call written straight into the table's key index
 * rewrites a random index page (plus the table's last page) with every commit: at paper scale
 * that wrote ten times the size of the store. Instead a finished call is appended to a journal
 * file beside the store (one write per tick for the calls finishing together; a call's promise
 * resolves only after that write, so a kill -9 loses no call the pipeline has seen), and
 * every MERGE_ENTRIES calls the journal moves into the store in one transaction, in key order,
 * and starts again empty. Closing the cache moves what is left; a journal left by a process
 * that died is moved by the next process that opens the store. Lookups see the journal too
 * (this process's; another process sees its entries once they are moved). In-memory stores
 * have no journal and commit every batch.
 */
export class CallCache {
  /** Bytes this cache appended to its journal and calls it moved into the store (for `bench/paper-scale.ts`). */
  readonly writes = { journalBytes: 0, merged: 0 };
  readonly #db: Db;
  readonly #get: LookupStatement;
  readonly #interval: number;
  readonly #mergeEntries: number;
  readonly #journal: Journal | undefined;
  #pending: Pending[] = [];
  #scheduled = false;
  #lastCommit = 0;
  #closed = false;
  readonly #store: string | undefined;
  #recoveredAt = performance.now();

  constructor(db: Db, options: CallCacheOptions = {}) {
    this.#db = db;
    this.#interval = options.commitIntervalMs ?? COMMIT_INTERVAL_MS;
    this.#mergeEntries = Math.max(1, options.mergeEntries ?? MERGE_ENTRIES);
    this.#get = lookupStatement(db);
    if (!db.memory) {
      const store = resolve(db.name);
      this.#store = store;
      recoverJournals(db, store);
      let journal = journals.get(store);
      if (!journal) {
        const file = `${store}.calls-${safeHost()}~${process.pid}~${randomBytes(4).toString('hex')}.journal`;
        journal = { file, fd: openSync(file, 'a+'), recent: new Map(), size: 0, dbs: new Set() };
        journals.set(store, journal);
      }
      if (journal.reader && ![...journal.dbs].some((d) => d.open)) {
        // Every connection that shared it was closed without closing its cache: the file may
        // have been replaced since, so lookups open a new reader.
        endRead(journal);
        journal.reader.db.close();
        journal.reader = undefined;
      }
      journal.dbs.add(db);
      this.#journal = journal;
    }
  }

  get(key: string): CacheEntry | undefined {
    const at = this.#journal?.recent.get(key);
    if (at !== undefined) {
      const recent = readFrame(this.#journal!.fd, at).find((r) => r.key.toString('hex') === key);
      if (recent) return { response: JSON.parse(recent.response), promptTokens: recent.promptTokens, completionTokens: recent.completionTokens, latencyMs: recent.latencyMs };
    }
    let row = this.#lookUp(Buffer.from(key, 'hex'));
    if (!row && this.#journal && performance.now() - this.#recoveredAt > RECOVERY_INTERVAL_MS) {
      // A process that died since the store was opened (one whose run this process took over)
      // may have left calls in its journal.
      this.#recoveredAt = performance.now();
      recoverJournals(this.#db, this.#store!);
      row = this.#lookUp(Buffer.from(key, 'hex'));
    }
    if (!row) return undefined;
    return { response: JSON.parse(row[0]), promptTokens: row[1], completionTokens: row[2], latencyMs: row[3] };
  }

  /** A row of `calls`, through the journal's reader (see Reader) when the store is a file. */
  #lookUp(key: Buffer): ReturnType<LookupStatement['get']> {
    const journal = this.#journal;
    if (!journal || this.#closed) return this.#get.get(key);
    let reader = journal.reader;
    if (!reader) {
      let db: Db;
      try {
        db = new SqliteDatabase(this.#store!, { readonly: true, fileMustExist: true });
        db.pragma('busy_timeout = 5000');
        db.pragma(`cache_size = -${READER_CACHE_KIB}`);
      } catch {
        // No second connection (e.g. the folder is not writable for the shared-memory file): the store's own.
        return this.#get.get(key);
      }
      reader = { db, get: lookupStatement(db), reading: false };
      journal.reader = reader;
    }
    if (!reader.reading) {
      reader.db.exec('BEGIN');
      reader.reading = true;
      setImmediate(() => endRead(journal));
    }
    return reader.get.get(key);
  }

  /** Resolves once the entry is written (journal or store). */
  put(key: string, model: string, kind: string, request: unknown, entry: CacheEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ key, model, kind, request: CanonicalRequest.of(request).json, entry, resolve, reject });
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
      const journal = this.#journal;
      const rows: Row[] = batch.map((p) => ({
        key: Buffer.from(p.key, 'hex'),
        model: p.model,
        kind: p.kind,
        // In the journal the batch's requests are deflated together (encodeRows); the store's
        // column holds each one deflated, made when the journal moves into the store.
        request: journal ? EMPTY : deflateRawSync(p.request, REQUEST_DEFLATE),
        response: JSON.stringify(p.entry.response),
        promptTokens: p.entry.promptTokens,
        completionTokens: p.entry.completionTokens,
        latencyMs: p.entry.latencyMs,
        createdAt,
      }));
      if (journal) {
        if (this.#closed) throw new Error('the call cache is closed');
        const frame = encodeRows(rows, batch.map((p) => p.request));
        // One write (a kill tears at most this frame, which no caller has seen).
        writevSync(journal.fd, frame);
        const length = frame[0].length + frame[1].length;
        const at = journal.size;
        journal.size += length;
        this.writes.journalBytes += length;
        for (const p of batch) journal.recent.set(p.key, at);
      } else {
        insertRows(this.#db, rows);
      }
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    } finally {
      this.#lastCommit = performance.now();
    }
    for (const p of batch) p.resolve();
    if (this.#journal && this.#journal.recent.size >= this.#mergeEntries) {
      try {
        this.#merge();
      } catch {
        // The store is busy or full: the calls are safe in the journal; the next batch tries again.
      }
    }
  }

  /** Moves the journal into the store (one transaction) and empties it. */
  #merge(): void {
    const journal = this.#journal;
    if (!journal || journal.recent.size === 0) return;
    const db = this.#db.open ? this.#db : [...journal.dbs].find((d) => d.open);
    if (!db) return;
    // Lookups after the move must see the moved calls (they leave `recent`): a new snapshot.
    endRead(journal);
    // In the journal's order (see insertRows), streamed a frame at a time; a key written twice
    // keeps its last answer (INSERT OR REPLACE), as in the store.
    insertRows(db, journalRows(journal.fd));
    this.writes.merged += journal.recent.size;
    ftruncateSync(journal.fd, 0);
    journal.size = 0;
    journal.recent.clear();
  }

  /**
   * Moves every call written so far into the store, where other processes see it too, and folds
   * SQLite's write-ahead log into the store file (see truncateWal).
   */
  checkpoint(): void {
    this.#merge();
    endRead(this.#journal);
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
    const journal = this.#journal;
    if (!journal) return;
    this.#merge();
    journal.dbs.delete(this.#db);
    if ([...journal.dbs].some((d) => d.open)) return;
    endRead(journal);
    journal.reader?.db.close();
    journal.reader = undefined;
    closeSync(journal.fd);
    if (journal.recent.size === 0) rmSync(journal.file, { force: true });
    journals.delete([...journals].find(([, j]) => j === journal)![0]);
  }

  /** The request a cached call was made with (its canonical JSON), for inspection. */
  request(key: string): string | undefined {
    this.#merge();
    const row = this.#db.prepare('SELECT request FROM calls WHERE key = ?').get(Buffer.from(key, 'hex')) as { request: Buffer | string } | undefined;
    if (!row) return undefined;
    return typeof row.request === 'string' ? row.request : inflateRawSync(row.request).toString('utf8');
  }

  stats(): { entries: number; byModel: Array<{ model: string; kind: string; entries: number; promptTokens: number; completionTokens: number }> } {
    this.#merge();
    const entries = (this.#db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n;
    const byModel = this.#db
      .prepare(
        'SELECT model, kind, count(*) AS entries, sum(prompt_tokens) AS promptTokens, sum(completion_tokens) AS completionTokens FROM calls GROUP BY model, kind ORDER BY model, kind',
      )
      .all() as Array<{ model: string; kind: string; entries: number; promptTokens: number; completionTokens: number }>;
    return { entries, byModel };
  }

  clear(model?: string): number {
    this.#merge();
    endRead(this.#journal);
    const result = model === undefined ? this.#db.prepare('DELETE FROM calls').run() : this.#db.prepare('DELETE FROM calls WHERE model = ?').run(model);
    return result.changes;
  }
}
