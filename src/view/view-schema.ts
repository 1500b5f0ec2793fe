/** The view index's tables: one row per item of every run opened, and FTS5 over question and response (built on a run's first text search). */

// 4: items come from each method's view (MethodView.items / itemOf); lines a records file could not read are kept per run.
export const INDEX_VERSION = 4;

export const INDEX_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources (
  run_key TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  items INTEGER NOT NULL,
  -- JSON list of the lines of its records file that could not be read
  problems TEXT,
  summary TEXT,
  summary_fingerprint TEXT,
  -- the run's items are in items_fts (built on the first text search, so opening a run stays fast)
  fts INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS items (
  id INTEGER PRIMARY KEY,
  run_key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  item_id TEXT NOT NULL,
  dataset TEXT,
  source TEXT,
  answer_type TEXT,
  label TEXT,
  subtype TEXT,
  consistency REAL,
  judged_by TEXT,
  question TEXT,
  response TEXT,
  -- the record's JSON line, for runs that only exist as files (store runs are read from the store)
  record TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS items_run_item ON items (run_key, item_id);
CREATE INDEX IF NOT EXISTS items_run_seq ON items (run_key, seq);
CREATE INDEX IF NOT EXISTS items_run_label ON items (run_key, label, seq);
CREATE INDEX IF NOT EXISTS items_run_source ON items (run_key, source, label);
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(question, response, content='items', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
`;
