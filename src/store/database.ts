/**
 * The one SQLite file that holds the call cache and the run store.
 *
 * WAL journaling: readers never block the writer, and a commit is one append to the log, so a
 * process killed at any moment (Ctrl-C, kill -9) leaves every committed row intact and no
 * half-written one. `synchronous=NORMAL` skips the fsync per commit; after a power loss the
 * last few commits may be missing, never corrupt, and a resumed run simply redoes them.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { LlmkbError } from '../errors.js';

export type Db = Database.Database;

const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS call_cache (
  key TEXT PRIMARY KEY,
  model TEXT NOT NULL,
  kind TEXT NOT NULL,
  request TEXT NOT NULL,
  response TEXT NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  latency_ms REAL NOT NULL,
  created_at TEXT NOT NULL
) WITHOUT ROWID;

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

CREATE TABLE IF NOT EXISTS run_records (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  stage TEXT NOT NULL,
  item_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  record TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, stage, item_id)
) WITHOUT ROWID;
`;

export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let db: Db;
  try {
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
  } catch (error) {
    throw new LlmkbError(`cannot open the llmkb store ${path}: ${error instanceof Error ? error.message : String(error)}`, {
      hint: 'Pass another file with --store, or remove a corrupt file.',
    });
  }
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    db.close();
    throw new LlmkbError(`${path} was written by a newer llmkb (store schema ${version}, this version reads ${SCHEMA_VERSION})`, {
      hint: 'Upgrade llmkb, or use another --store file.',
    });
  }
  db.exec(SCHEMA);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
  return db;
}
