/**
 * The view index's tables: one row per item of every run opened, the values of each method's
 * declared item fields, FTS5 over question and response (built on a run's first text search), and
 * the runs' summaries computed from their items (kept until the run changes).
 */

// 5: declared item fields (item_fields); summaries apart from items, so the runs list imports no items.
export const INDEX_VERSION = 5;

/** Every table of the index, dropped when the index is of another version. */
export const INDEX_TABLES = ['items_fts', 'item_fields', 'items', 'sources', 'summaries', 'meta'] as const;

export const INDEX_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources (
  run_key TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  items INTEGER NOT NULL,
  -- JSON list of the lines of its records file that could not be read
  problems TEXT,
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
-- a declared item field's value (MethodView.itemFields): text fields in text, number fields in num; filters, sorts and
-- counts reach it from the item by its key (item, name), so it needs no other index
CREATE TABLE IF NOT EXISTS item_fields (
  item INTEGER NOT NULL,
  run_key TEXT NOT NULL,
  name TEXT NOT NULL,
  text TEXT,
  num REAL,
  PRIMARY KEY (item, name)
) WITHOUT ROWID;
-- a run's summary computed from its items (a run with no summary file), for the fingerprint of its stages; intervals 0: without CIs (the runs list)
CREATE TABLE IF NOT EXISTS summaries (
  run_key TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  intervals INTEGER NOT NULL,
  summary TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(question, response, content='items', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
`;
