/**
 * The one SQLite file that holds the call cache and the run store.
 *
 * WAL journaling: readers never block the writer, and a commit is one append to the log, so a
 * process killed at any moment (Ctrl-C, kill -9) leaves every committed row intact and no
 * half-written one. `synchronous=NORMAL` skips the fsync per commit; after a power loss the
 * last few commits may be missing, never corrupt, and a resumed run simply redoes them.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { errnoCode, fileAccessError, FileAccessError, LlmkbError } from '../errors.js';

/**
 * Which SQLite binding this Node runs. better-sqlite3 12 is the last line that runs on Node 20
 * (still supported: it is what many machines have), but on Node 24.19+ it aborts at exit
 * ("Assertion failed: (env) != nullptr" in Statement::~Statement, not fixed in 12.x); 13 fixes
 * that but needs N-API 10 (Node 22.14+; on Node 20 it crashes). 13 is an optional dependency under
 * the alias `better-sqlite3-node22` (its engines say Node >= 22, so npm installs it only there, and
 * Node 20 installs without an engine warning); it loads its prebuilt binary. This picks the one
 * that runs. Their APIs are the same.
 */
export function sqliteDriver(nodeVersion: string = process.versions.node): 'better-sqlite3' | 'better-sqlite3-node22' {
  const [major = 0, minor = 0] = nodeVersion.split('.').map(Number);
  // N-API 10 came with Node 22.14 and 23.6.
  return major >= 24 || (major === 23 && minor >= 6) || (major === 22 && minor >= 14) ? 'better-sqlite3-node22' : 'better-sqlite3';
}

/**
 * The better-sqlite3 `Database` class for this Node (see `sqliteDriver`). A tree installed by an
 * older Node has no `better-sqlite3-node22`: 12 is used then, and `openDatabase` says how to
 * reinstall if its binary was built for another Node.
 */
function loadSqlite(): typeof BetterSqlite3 {
  const require = createRequire(import.meta.url);
  if (sqliteDriver() === 'better-sqlite3-node22') {
    try {
      return require('better-sqlite3-node22') as typeof BetterSqlite3;
    } catch (error) {
      if (errnoCode(error) !== 'MODULE_NOT_FOUND') throw error;
    }
  }
  return require('better-sqlite3') as typeof BetterSqlite3;
}

export const SqliteDatabase: typeof BetterSqlite3 = loadSqlite();

export type Db = BetterSqlite3.Database;

/**
 * 3: run records in rowid order with a unique index (schema 2's clustered table is rebuilt
 * once), the long ones stored raw-DEFLATEd (a BLOB in `record`; run-store.ts:
 * DEFLATE_RECORDS_FROM), and cached calls may wait in a journal file beside the store (see
 * CallCache) before they move into `calls`; text records are read as they are. The number keeps
 * an older llmkb from misreading a newer store.
 */
const SCHEMA_VERSION = 3;

/**
 * The call cache (schema 2). Keys are SHA-256 hashes, i.e. random: a table clustered on them
 * (schema 1: `WITHOUT ROWID` with the key as a 64-character text primary key) inserts every row
 * at a random place, splits pages half-empty and spills large rows into overflow pages, which
 * makes the store several times the size of its data and rewrites a random page per call. Schema 2 appends rows in rowid order (dense pages, one growing end) and
 * finds them through a unique index on the 32-byte binary key; the request (the prompt, for the
 * record: it is never read back to answer a call) is stored deflated.
 */
const CALLS_TABLE = `
CREATE TABLE IF NOT EXISTS calls (
  id INTEGER PRIMARY KEY,
  key BLOB NOT NULL,
  model TEXT NOT NULL,
  kind TEXT NOT NULL,
  response TEXT NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  latency_ms REAL NOT NULL,
  created_at TEXT NOT NULL,
  -- raw DEFLATE of the request's canonical JSON (text as is in rows migrated from schema 1)
  request BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS calls_key ON calls (key);
`;

/** Schema 1's cache table, moved into \`calls\` (keys from hex text to bytes) when a store of schema 1 is opened. */
const MIGRATE_1_TO_2 = `
INSERT OR REPLACE INTO calls (key, model, kind, response, prompt_tokens, completion_tokens, latency_ms, created_at, request)
  SELECT unhex(key), model, kind, response, prompt_tokens, completion_tokens, latency_ms, created_at, request FROM call_cache ORDER BY created_at;
DROP TABLE call_cache;
`;

/** Schema 1 and 2's run records (clustered, WITHOUT ROWID) into schema 3's table. */
const MIGRATE_RECORDS_TO_3 = `
CREATE TABLE run_records_3 (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  stage TEXT NOT NULL,
  item_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  record TEXT NOT NULL,
  created_at TEXT NOT NULL
);
INSERT INTO run_records_3 (run_id, stage, item_id, seq, record, created_at)
  SELECT run_id, stage, item_id, seq, record, created_at FROM run_records ORDER BY run_id, stage, seq;
DROP TABLE run_records;
ALTER TABLE run_records_3 RENAME TO run_records;
`;

const SCHEMA = `${CALLS_TABLE}

CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  spec TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS run_stages (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  stage TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'done')),
  info TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (run_id, stage)
) WITHOUT ROWID;

-- Schema 3: rows in rowid order (appended as records finish) found through a unique index;
-- schema 2 clustered them on (run, stage, item id), so records finishing in any order were
-- inserted at random places and left pages part-empty.
CREATE TABLE IF NOT EXISTS run_records (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  stage TEXT NOT NULL,
  item_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  -- JSON text, or raw DEFLATE of it (a BLOB) for long records (run-store.ts: DEFLATE_RECORDS_FROM)
  record TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS run_records_item ON run_records (run_id, stage, item_id);

-- One process works on a run at a time (see RunStore: leases). Added within schema 1: older
-- versions simply ignore the table.
CREATE TABLE IF NOT EXISTS run_leases (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  owner TEXT NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  acquired_at TEXT NOT NULL,
  heartbeat_at TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;

-- What a run's calls cost, per role, over every process that worked on it (a resumed run counts
-- the calls its killed process paid for). Added within schema 3: older versions ignore the table.
CREATE TABLE IF NOT EXISTS run_calls (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  calls INTEGER NOT NULL,
  cache_hits INTEGER NOT NULL,
  requests INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  PRIMARY KEY (run_id, role)
) WITHOUT ROWID;

-- Which run paid for a cached call (paid-calls.ts), written with the call's cache entry: the calls,
-- requests and tokens of a run over every process, killed ones included; run_calls holds the rest
-- (cache hits, failed requests). Added within schema 3: older versions ignore the table. No
-- foreign key: a call journal moves into the store whole, whatever runs there are.
CREATE TABLE IF NOT EXISTS run_paid_calls (
  run_id TEXT NOT NULL,
  key BLOB NOT NULL,
  role TEXT NOT NULL,
  process TEXT NOT NULL,
  requests INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
`;

/**
 * A store that cannot be opened or written (missing folder, no permission, read-only, a folder
 * where the file should be, not a database) as a user error naming the file; other errors as is.
 */
export function storeError(path: string, error: unknown): unknown {
  if (error instanceof LlmkbError) return error;
  const code = errnoCode(error);
  const hint = 'Pass another file with --store (or set "store" in llmkb.config.json / $LLMKB_STORE).';
  if (code === 'SQLITE_READONLY' || code?.startsWith('SQLITE_READONLY_') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
    return new FileAccessError(path, `the llmkb store ${path} is read-only (${code})`, {
      code,
      hint: `Make the file and its folder writable, or ${hint[0]!.toLowerCase()}${hint.slice(1)}`,
      cause: error,
    });
  }
  if (code === 'SQLITE_CANTOPEN' || code?.startsWith('SQLITE_CANTOPEN_') || code === 'SQLITE_IOERR' || code?.startsWith('SQLITE_IOERR_')) {
    return new FileAccessError(path, `cannot open the llmkb store ${path} (${code}): the file or its folder is missing, not writable, or a folder`, {
      code,
      hint,
      cause: error,
    });
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new FileAccessError(path, `${path} is not an llmkb store (${code})`, {
      code,
      hint: `${hint} Remove the file if it is a corrupt store.`,
      cause: error,
    });
  }
  return fileAccessError(path, error, 'write', 'the llmkb store');
}

/**
 * The page cache of a store's connection, in KiB (SQLite's default is 2 MiB). It writes (run
 * records, the call journal's moves) and reads stage records mostly in order; the call cache's
 * lookups by random key have a connection of their own and its cache (call-lookup.ts), and a
 * corpus raises this one for its searches (CORPUS_CACHE_KIB). A cap, so memory stays flat
 * however large the store grows: a larger cache fills with the run's pages and raises the peak
 * memory of a long eval, without writing less or reading faster (bench/README.md).
 */
export const STORE_CACHE_KIB = 4096;

/**
 * The page cache a connection has while a corpus is open on it, in KiB: FTS5 searches read the
 * same index pages again and again (the corpus benchmarks were measured with it).
 */
export const CORPUS_CACHE_KIB = 16384;

/** Raises a connection's page cache to at least `kib` KiB (never lowers it). */
export function raiseCacheSize(db: Db, kib: number): void {
  const size = db.pragma('cache_size', { simple: true }) as number;
  // Negative: KiB; positive: pages.
  const current = size < 0 ? -size : (size * (db.pragma('page_size', { simple: true }) as number)) / 1024;
  if (current < kib) db.pragma(`cache_size = -${kib}`);
}

export function openDatabase(path: string): Db {
  if (path !== ':memory:') {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw fileAccessError(dirname(path), error, 'write', 'the store folder');
    }
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      // A new store.
    }
    if (isDir)
      throw new FileAccessError(path, `the llmkb store ${path} is a folder, not a file`, {
        code: 'EISDIR',
        hint: 'Give a file name, e.g. --store .llmkb/llmkb.sqlite.',
      });
  }
  let db: Db | undefined;
  try {
    db = new SqliteDatabase(path);
    // A new store's pages: 8 KiB (SQLite's default is 4 KiB). Cached calls and long run records
    // are rows of hundreds to thousands of bytes, and fewer of them fit a page's end when pages
    // are small, which leaves more of the store unused. Only a file without tables takes it (an
    // existing store keeps its page size).
    if (path !== ':memory:') db.pragma('page_size = 8192');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma(`cache_size = -${STORE_CACHE_KIB}`);
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new LlmkbError(`${path} was written by a newer llmkb (store schema ${version}, this version reads ${SCHEMA_VERSION})`, {
        hint: 'Upgrade llmkb, or use another --store file.',
      });
    }
    const hasV1Cache = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'call_cache'").get() !== undefined;
    const clusteredRecords = (db: Db) =>
      (db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'run_records'").pluck().get() as string | undefined)?.includes(
        'WITHOUT ROWID',
      ) === true;
    if (hasV1Cache || clusteredRecords(db)) {
      // A store of schema 1 or 2: its cached calls and run records move to the new tables, all or nothing.
      const migrating = db;
      migrating
        .transaction(() => {
          if (clusteredRecords(migrating)) migrating.exec(MIGRATE_RECORDS_TO_3);
          migrating.exec(SCHEMA);
          if (migrating.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'call_cache'").get() !== undefined) migrating.exec(MIGRATE_1_TO_2);
          migrating.pragma(`user_version = ${SCHEMA_VERSION}`);
        })
        .immediate();
    } else {
      db.exec(SCHEMA);
      if (version !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }
  } catch (error) {
    if (db?.open) db.close();
    if (errnoCode(error) === 'ERR_DLOPEN_FAILED') {
      throw new LlmkbError(`cannot load SQLite for Node ${process.versions.node}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, {
        hint: 'llmkb was installed with another Node version: run `npm rebuild better-sqlite3` or `npm ci` again with this Node.',
        cause: error,
      });
    }
    const mapped = storeError(path, error);
    if (mapped !== error) throw mapped;
    throw new LlmkbError(`cannot open the llmkb store ${path}: ${error instanceof Error ? error.message : String(error)}`, {
      hint: 'Pass another file with --store, or remove a corrupt file.',
      cause: error,
    });
  }
  return db;
}
