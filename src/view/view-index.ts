/**
 * What `llmkb view` reads: the runs of the run store and the result files of a folder
 * (`<label>.<setting>.summary.json` + `.records.jsonl`), and an index of their items in SQLite
 * (a table plus FTS5 over question and response) that the pages query with paging, so a page
 * never holds more than one page of items and the server's memory does not grow with a run.
 *
 * The index is a separate SQLite file (beside the store, or in the results folder), attached to
 * the store's connection: the store's own schema is never changed. A run is (re)imported when
 * its fingerprint changes (records added, a stage redone, a file rewritten), so opening a run a
 * second time costs nothing, and a run still being evaluated is picked up as it grows. A store
 * run is imported in one SQL statement (json_extract over its records, no JSON parsed in
 * JavaScript); a records file is streamed line by line.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { inflateRawSync } from 'node:zlib';
import { ftsQuery } from '../corpus/index.js';
import { findMethod, getMethod } from '../methods/registry.js';
import type { MetricDef, ViewItemField } from '../methods/method.js';
import { openDatabase, SqliteDatabase, type Db } from '../store/database.js';

export type RunKind = 'store' | 'file';

export interface StageState {
  stage: string;
  status: string;
  records: number;
}

export interface ViewRun {
  /** URL-safe key: the store run id, or `f-` + a hash of the records file's path. */
  key: string;
  kind: RunKind;
  runId?: string;
  label: string;
  setting: string;
  method: string;
  model?: string;
  updatedAt?: string;
  stages: StageState[];
  summaryFile?: string;
  recordsFile?: string;
  executionFile?: string;
}

/** A run's summary as the view needs it, whatever the method (summary v1 or v2). */
export interface ViewSummary {
  method: string;
  metricDefs: readonly MetricDef[];
  metrics: Record<string, number | null>;
  intervals: Record<string, [number, number] | null>;
  approximate: boolean;
  /** Intervals not computed yet (shown once the run is opened). */
  intervalsPending?: boolean;
  /** The whole summary, for method-specific parts (breakdowns, protocol). */
  raw: Record<string, unknown>;
}

export interface ItemFilter {
  label?: string;
  subtype?: string;
  source?: string;
  answerType?: string;
  dataset?: string;
  consistencyMin?: number;
  consistencyMax?: number;
  text?: string;
}

export interface ItemRow {
  id: number;
  item_id: string;
  seq: number;
  dataset: string | null;
  source: string | null;
  answer_type: string | null;
  label: string | null;
  subtype: string | null;
  consistency: number | null;
  judged_by: string | null;
  question: string | null;
  response: string | null;
}

export interface ScoredRow {
  [field: string]: unknown;
  id: string;
  dataset: 'seen' | 'unseen';
  source: string;
  answerType: string | null;
  label: 'correct' | 'wrong' | 'uninformative';
  uninformativeType: 'none' | 'unsure' | 'repetition' | null;
  consistency: number | null;
  approximate?: boolean;
}

// 3: another method's items are indexed by its own fields (EvaluationMethod.view.itemFields).
const INDEX_VERSION = 3;

const INDEX_SCHEMA = `
CREATE TABLE IF NOT EXISTS vi.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vi.sources (
  run_key TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  items INTEGER NOT NULL,
  summary TEXT,
  summary_fingerprint TEXT,
  -- the run's items are in items_fts (built on the first text search, so opening a run stays fast)
  fts INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS vi.items (
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
CREATE UNIQUE INDEX IF NOT EXISTS vi.items_run_item ON items (run_key, item_id);
CREATE INDEX IF NOT EXISTS vi.items_run_seq ON items (run_key, seq);
CREATE INDEX IF NOT EXISTS vi.items_run_label ON items (run_key, label, seq);
CREATE INDEX IF NOT EXISTS vi.items_run_source ON items (run_key, source, label);
CREATE VIRTUAL TABLE IF NOT EXISTS vi.items_fts USING fts5(question, response, content='items', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
`;

/** The method a summary or run belongs to; runs written before the method seam are reliability runs. */
function methodOf(summary: Record<string, unknown> | undefined): string {
  return typeof summary?.method === 'string' ? summary.method : typeof (summary?.method as { id?: unknown } | undefined)?.id === 'string' ? String((summary!.method as { id: string }).id) : 'reliability';
}

/** Metric definitions: the summary's own (summary v2 carries them), else the registered method's. */
export function metricDefsOf(summary: Record<string, unknown>): readonly MetricDef[] {
  if (Array.isArray(summary.metricDefs)) return summary.metricDefs as MetricDef[];
  try {
    return getMethod(methodOf(summary)).metricDefs;
  } catch {
    // An unknown method: its metrics as plain numbers.
    const metrics = (summary.metrics ?? {}) as Record<string, unknown>;
    return Object.keys(metrics).map((id) => ({ id, label: id, description: '', range: [0, 1] as [number, number], better: 'higher' as const, format: 'number' as const }));
  }
}

export function viewSummary(summary: Record<string, unknown>): ViewSummary {
  return {
    method: methodOf(summary),
    metricDefs: metricDefsOf(summary),
    metrics: (summary.metrics ?? {}) as Record<string, number | null>,
    intervals: (summary.intervals ?? {}) as Record<string, [number, number] | null>,
    approximate: summary.approximate === true,
    raw: summary,
  };
}

function hashKey(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * The consistency stage's score without parsing its record: the record (distractors and every
 * MCQ, tens of kilobytes) starts with the score, as the stage writes it; anything else is parsed.
 */
const CONSISTENCY_SQL = `CASE WHEN substr(c.head, 1, 15) = '{"consistency":' THEN CASE WHEN substr(c.head, 16, 4) = 'null' THEN NULL ELSE CAST(substr(c.head, 16) AS REAL) END END`;

const QUESTION_FIELDS = ['question', 'query', 'prompt'] as const;
const RESPONSE_FIELDS = ['response', 'knowledge', 'answer'] as const;

/** Where the index columns are in a record: the reliability records' fields, unless the method says otherwise. */
const DEFAULT_FIELDS: Record<ViewItemField | 'judgedBy', string | readonly string[]> = {
  label: '$.label',
  subtype: '$.uninformativeType',
  source: '$.source',
  answerType: '$.answerType',
  dataset: '$.dataset',
  consistency: '$.consistency',
  judgedBy: '$.judgedBy',
  question: QUESTION_FIELDS.map((f) => `$.${f}`),
  response: RESPONSE_FIELDS.map((f) => `$.${f}`),
};

/** JSON paths of each index column for a run's records (paths are the method's own constants, never user input). */
function fieldPaths(method: string): Record<ViewItemField | 'judgedBy', readonly string[]> {
  const own = findMethod(method)?.view?.itemFields ?? {};
  const out = {} as Record<ViewItemField | 'judgedBy', readonly string[]>;
  for (const [k, v] of Object.entries(DEFAULT_FIELDS) as Array<[ViewItemField | 'judgedBy', string | readonly string[]]>) {
    const path = own[k as ViewItemField] ?? v;
    for (const p of typeof path === 'string' ? [path] : path) if (!/^\$(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(p)) throw new Error(`view: bad JSON path ${p}`);
    out[k] = typeof path === 'string' ? [path] : path;
  }
  return out;
}

export interface ViewIndexOptions {
  /** The run store (SQLite); runs and the call cache come from it when the file exists. */
  store?: string;
  /** A folder of result files (`llmkb eval --out`). */
  resultsDir?: string;
  /** Where the index lives (default: beside the store, else in the results folder). */
  indexFile?: string;
}

export class ViewIndex {
  readonly db: Db;
  readonly hasStore: boolean;
  readonly resultsDir: string | undefined;
  readonly indexFile: string;
  #runs: ViewRun[] | undefined;
  #runsAt = 0;
  readonly #stageCounts = new Map<string, number>();

  constructor(options: ViewIndexOptions) {
    this.hasStore = options.store !== undefined && existsSync(options.store);
    this.resultsDir = options.resultsDir && existsSync(options.resultsDir) ? resolve(options.resultsDir) : undefined;
    this.indexFile = options.indexFile ?? (this.hasStore ? join(dirname(resolve(options.store!)), 'view-index.sqlite') : join(this.resultsDir ?? '.', '.llmkb-view-index.sqlite'));
    this.db = this.hasStore ? openDatabase(options.store!) : new SqliteDatabase(':memory:');
    // The store keeps long records raw-DEFLATEd (a BLOB in the same column, see run-store.ts):
    // SQL reads every record through this, which gives its JSON text either way.
    this.db.function('llmkb_record', { deterministic: true }, (stored: unknown) => (Buffer.isBuffer(stored) || stored instanceof Uint8Array ? inflateRawSync(stored).toString('utf8') : stored) as string | null);
    this.db.prepare('ATTACH DATABASE ? AS vi').run(this.indexFile);
    this.db.pragma('vi.journal_mode = WAL');
    const version = this.db.prepare("SELECT 1 FROM vi.sqlite_schema WHERE name = 'meta'").get() ? (this.db.prepare("SELECT value FROM vi.meta WHERE key = 'version'").get() as { value: string } | undefined)?.value : undefined;
    if (version !== undefined && version !== String(INDEX_VERSION)) {
      // An index of another version is only a cache: rebuilt.
      this.db.exec('DROP TRIGGER IF EXISTS vi.items_ai; DROP TRIGGER IF EXISTS vi.items_ad');
      for (const t of ['items_fts', 'items', 'sources', 'meta']) this.db.exec(`DROP TABLE IF EXISTS vi.${t}`);
    }
    this.db.exec(INDEX_SCHEMA);
    this.db.prepare("INSERT OR REPLACE INTO vi.meta (key, value) VALUES ('version', ?)").run(String(INDEX_VERSION));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** Every run: the store's, then result files that are not a store run (by run id). Re-listed at most once a second. */
  runs(): ViewRun[] {
    if (this.#runs && Date.now() - this.#runsAt < 1000) return this.#runs;
    const runs: ViewRun[] = [];
    const storeIds = new Set<string>();
    const files = this.#resultFiles();
    const filesByRunId = new Map(files.filter((f) => f.runId).map((f) => [f.runId!, f]));
    if (this.hasStore) {
      const rows = this.db.prepare('SELECT id, spec, updated_at FROM main.runs ORDER BY updated_at DESC').all() as Array<{ id: string; spec: string; updated_at: string }>;
      const stageRows = this.db.prepare('SELECT stage, status, updated_at FROM main.run_stages WHERE run_id = ? ORDER BY updated_at');
      const count = this.db.prepare('SELECT count(*) AS n FROM main.run_records WHERE run_id = ? AND stage = ?');
      // Counting a stage's records reads all of them (they are stored inline): a finished stage is counted once.
      const stages = {
        all: (id: string): StageState[] =>
          (stageRows.all(id) as Array<{ stage: string; status: string; updated_at: string }>).map((s) => {
            const key = `${id}/${s.stage}/${s.updated_at}`;
            let records = s.status === 'done' ? this.#stageCounts.get(key) : undefined;
            if (records === undefined) {
              records = (count.get(id, s.stage) as { n: number }).n;
              if (s.status === 'done') this.#stageCounts.set(key, records);
            }
            return { stage: s.stage, status: s.status, records };
          }),
      };
      for (const r of rows) {
        const spec = JSON.parse(r.spec) as { label?: string; model: string; setting: string; params?: { method?: string } };
        const file = filesByRunId.get(r.id);
        storeIds.add(r.id);
        runs.push({
          key: r.id,
          kind: 'store',
          runId: r.id,
          label: spec.label ?? spec.model,
          setting: spec.setting,
          // `llmkb conner score` keeps its scoring runs in the store under the setting `conner-score`.
          method: typeof spec.params?.method === 'string' ? spec.params.method : spec.setting === 'conner-score' ? 'conner' : 'reliability',
          model: spec.model,
          updatedAt: r.updated_at,
          stages: stages.all(r.id) as StageState[],
          ...(file ? { summaryFile: file.summaryFile, ...(file.recordsFile ? { recordsFile: file.recordsFile } : {}), ...(file.executionFile ? { executionFile: file.executionFile } : {}) } : {}),
        });
      }
    }
    for (const f of files) {
      if (f.runId && storeIds.has(f.runId)) continue;
      if (!f.recordsFile && !f.summaryFile) continue;
      runs.push(f);
    }
    this.#runs = runs;
    this.#runsAt = Date.now();
    return runs;
  }

  run(key: string): ViewRun | undefined {
    return this.runs().find((r) => r.key === key);
  }

  /** Result files of the folder, one run per summary (or records file without a summary). */
  #resultFiles(): ViewRun[] {
    if (!this.resultsDir) return [];
    const names = readdirSync(this.resultsDir);
    const out: ViewRun[] = [];
    const stems = new Set<string>();
    for (const n of names) {
      const m = /^(.*)\.(summary\.json|records\.jsonl)$/.exec(n);
      if (m) stems.add(m[1]!);
    }
    for (const stem of [...stems].sort()) {
      const summaryFile = names.includes(`${stem}.summary.json`) ? join(this.resultsDir, `${stem}.summary.json`) : undefined;
      const recordsFile = names.includes(`${stem}.records.jsonl`) ? join(this.resultsDir, `${stem}.records.jsonl`) : undefined;
      const executionFile = names.includes(`${stem}.run.json`) ? join(this.resultsDir, `${stem}.run.json`) : undefined;
      let summary: Record<string, unknown> | undefined;
      if (summaryFile) {
        try {
          summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as Record<string, unknown>;
        } catch {
          summary = undefined;
        }
      }
      const setting = typeof summary?.setting === 'string' ? summary.setting : (/\.([a-z0-9-]+)(\.limit-\d+)?$/.exec(stem)?.[1] ?? 'unknown');
      const label = typeof summary?.model === 'string' ? summary.model : stem;
      const stat = statSync(recordsFile ?? summaryFile!);
      out.push({
        key: `f-${hashKey(resolve(recordsFile ?? summaryFile!))}`,
        kind: 'file',
        ...(typeof summary?.runId === 'string' ? { runId: summary.runId } : {}),
        label,
        setting,
        method: methodOf(summary),
        updatedAt: stat.mtime.toISOString(),
        stages: recordsFile ? [{ stage: 'records', status: 'done', records: -1 }] : [],
        ...(summaryFile ? { summaryFile } : {}),
        ...(recordsFile ? { recordsFile } : {}),
        ...(executionFile ? { executionFile } : {}),
      });
    }
    return out;
  }

  /** The stage whose records are a store run's items: the judge's (labels), else the first there is. */
  #itemStage(run: ViewRun): string | undefined {
    const names = run.stages.map((s) => s.stage);
    return names.includes('judge') ? 'judge' : names.includes('ask') ? 'ask' : names[0];
  }

  #fingerprint(run: ViewRun): string {
    if (run.kind === 'store') {
      // A finished stage changes only by being redone, which moves its updated_at; a running
      // stage also by the records it adds (counted, see runs()).
      const stages = this.db.prepare('SELECT stage, status, updated_at FROM main.run_stages WHERE run_id = ? ORDER BY stage').all(run.key);
      return hashKey(JSON.stringify([stages, run.stages]));
    }
    if (!run.recordsFile) return 'none';
    const s = statSync(run.recordsFile);
    return `${s.size}:${s.mtimeMs}`;
  }

  /**
   * Makes sure the run's items are in the index (imports them on first open, again when the run
   * changed). Returns how many items it has and whether it imported now.
   */
  async ensureItems(run: ViewRun): Promise<{ items: number; imported: boolean }> {
    const fingerprint = this.#fingerprint(run);
    const known = this.db.prepare('SELECT fingerprint, items FROM vi.sources WHERE run_key = ?').get(run.key) as { fingerprint: string; items: number } | undefined;
    if (known && known.fingerprint === fingerprint) return { items: known.items, imported: false };
    let items = 0;
    if (run.kind === 'store') {
      const stage = this.#itemStage(run);
      this.db.transaction(() => {
        this.#deleteItems(run.key);
        if (stage !== undefined) {
          const f = fieldPaths(run.method);
          const x = (k: keyof typeof f) => (f[k].length === 1 ? `json_extract(j.record, '${f[k][0]}')` : `coalesce(${f[k].map((p) => `json_extract(j.record, '${p}')`).join(', ')})`);
          items = this.db
            .prepare(
              `INSERT INTO vi.items (run_key, seq, item_id, dataset, source, answer_type, label, subtype, consistency, judged_by, question, response)
               SELECT @key, j.seq, j.item_id, ${x('dataset')}, ${x('source')}, ${x('answerType')},
                      ${x('label')}, ${x('subtype')}, ${x('consistency')}, ${x('judgedBy')}, ${x('question')}, ${x('response')}
               FROM (SELECT seq, item_id, llmkb_record(record) AS record FROM main.run_records WHERE run_id = @key AND stage = @stage) j ORDER BY j.seq`,
            )
            .run({ key: run.key, stage }).changes;
          // The consistency scores in a second pass: one sequential read of that stage's (large)
          // records instead of a lookup per item, which is several times slower.
          if (stage !== 'consistency' && run.stages.some((s) => s.stage === 'consistency')) {
            this.db
              .prepare(
                `UPDATE vi.items SET consistency = c.score FROM (SELECT item_id, ${CONSISTENCY_SQL} AS score FROM (SELECT item_id, substr(llmkb_record(record), 1, 40) AS head FROM main.run_records WHERE run_id = @key AND stage = 'consistency') AS c) AS c
                 WHERE vi.items.run_key = @key AND vi.items.item_id = c.item_id AND c.score IS NOT NULL`,
              )
              .run({ key: run.key });
          }
        }
        this.db.prepare('INSERT OR REPLACE INTO vi.sources (run_key, fingerprint, items, summary, summary_fingerprint, fts) VALUES (?, ?, ?, NULL, NULL, 0)').run(run.key, fingerprint, items);
      }).immediate();
      return { items, imported: true };
    }
    // A records file: streamed, inserted in batches inside one transaction.
    this.db.exec('BEGIN IMMEDIATE');
    try {
      this.#deleteItems(run.key);
      if (run.recordsFile) {
        this.db.exec('CREATE TEMP TABLE IF NOT EXISTS view_lines (seq INTEGER PRIMARY KEY, line TEXT NOT NULL)');
        this.db.exec('DELETE FROM temp.view_lines');
        const insert = this.db.prepare('INSERT INTO temp.view_lines (seq, line) VALUES (?, ?)');
        const lines = createInterface({ input: createReadStream(run.recordsFile, { encoding: 'utf8' }), crlfDelay: Infinity });
        let seq = 0;
        for await (const line of lines) if (line.trim() !== '') insert.run(seq++, line);
        const f = fieldPaths(run.method);
        const str1 = (p: string) => `CASE WHEN json_type(line, '${p}') = 'text' THEN json_extract(line, '${p}') END`;
        const str = (k: keyof typeof f) => (f[k].length === 1 ? str1(f[k][0]!) : `coalesce(${f[k].map(str1).join(', ')})`);
        const cons = f.consistency[0]!;
        this.db
          .prepare(
            `INSERT OR REPLACE INTO vi.items (run_key, seq, item_id, dataset, source, answer_type, label, subtype, consistency, judged_by, question, response, record)
             SELECT ?, seq, coalesce(${str1('$.id')}, CAST(seq AS TEXT)), ${str('dataset')}, ${str('source')}, ${str('answerType')}, ${str('label')}, ${str('subtype')},
                    CASE WHEN json_type(line, '${cons}') IN ('integer', 'real') THEN json_extract(line, '${cons}') END, ${str('judgedBy')},
                    ${str('question')}, ${str('response')}, line
             FROM temp.view_lines WHERE json_valid(line) ORDER BY seq`,
          )
          .run(run.key);
        this.db.exec('DELETE FROM temp.view_lines');
        items = seq;
      }
      this.db.prepare('INSERT OR REPLACE INTO vi.sources (run_key, fingerprint, items, summary, summary_fingerprint, fts) VALUES (?, ?, ?, NULL, NULL, 0)').run(run.key, fingerprint, items);
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
    return { items, imported: true };
  }

  #deleteItems(key: string): void {
    const fts = (this.db.prepare('SELECT fts FROM vi.sources WHERE run_key = ?').get(key) as { fts: number } | undefined)?.fts === 1;
    if (fts) this.db.prepare("INSERT INTO vi.items_fts (items_fts, rowid, question, response) SELECT 'delete', id, question, response FROM vi.items WHERE run_key = ?").run(key);
    this.db.prepare('DELETE FROM vi.items WHERE run_key = ?').run(key);
  }

  /** The run's items in the full-text index (once, on its first text search). */
  #ensureFts(key: string): void {
    const fts = (this.db.prepare('SELECT fts FROM vi.sources WHERE run_key = ?').get(key) as { fts: number } | undefined)?.fts;
    if (fts !== 0) return;
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO vi.items_fts (rowid, question, response) SELECT id, question, response FROM vi.items WHERE run_key = ?').run(key);
      this.db.prepare('UPDATE vi.sources SET fts = 1 WHERE run_key = ?').run(key);
    }).immediate();
  }

  #where(run: ViewRun, filter: ItemFilter): { sql: string; params: unknown[]; fts: boolean } {
    const clauses = ['i.run_key = ?'];
    const params: unknown[] = [run.key];
    const eq = (column: string, value: string | undefined) => {
      if (value === undefined || value === '') return;
      if (value === '(none)') clauses.push(`i.${column} IS NULL`);
      else {
        clauses.push(`i.${column} = ?`);
        params.push(value);
      }
    };
    eq('label', filter.label);
    eq('subtype', filter.subtype);
    eq('source', filter.source);
    eq('answer_type', filter.answerType);
    eq('dataset', filter.dataset);
    if (filter.consistencyMin !== undefined) {
      clauses.push('i.consistency >= ?');
      params.push(filter.consistencyMin);
    }
    if (filter.consistencyMax !== undefined) {
      clauses.push('i.consistency <= ?');
      params.push(filter.consistencyMax);
    }
    const match = filter.text ? ftsQuery(filter.text) : undefined;
    if (match) {
      this.#ensureFts(run.key);
      clauses.push('i.id IN (SELECT rowid FROM vi.items_fts WHERE items_fts MATCH ?)');
      params.push(match);
    }
    return { sql: clauses.join(' AND '), params, fts: match !== undefined };
  }

  /** One page of a run's items (in item order) and how many match. */
  items(run: ViewRun, filter: ItemFilter, page: number, pageSize: number): { rows: ItemRow[]; total: number } {
    const { sql, params } = this.#where(run, filter);
    const total = (this.db.prepare(`SELECT count(*) AS n FROM vi.items i WHERE ${sql}`).get(...params) as { n: number }).n;
    const rows = this.db
      .prepare(`SELECT i.id, i.item_id, i.seq, i.dataset, i.source, i.answer_type, i.label, i.subtype, i.consistency, i.judged_by, substr(i.question, 1, 300) AS question, substr(i.response, 1, 300) AS response FROM vi.items i WHERE ${sql} ORDER BY i.seq LIMIT ? OFFSET ?`)
      .all(...params, pageSize, page * pageSize) as ItemRow[];
    return { rows, total };
  }

  /** Distinct values of a column with their counts, for the filters. */
  facets(run: ViewRun, column: 'label' | 'subtype' | 'source' | 'answer_type' | 'dataset'): Array<{ value: string | null; n: number }> {
    return this.db.prepare(`SELECT ${column} AS value, count(*) AS n FROM vi.items WHERE run_key = ? GROUP BY ${column} ORDER BY ${column}`).all(run.key) as Array<{ value: string | null; n: number }>;
  }

  /** Item counts by (group, label): the breakdown tables, each count a link to its items. */
  counts(run: ViewRun, column: 'source' | 'answer_type' | 'subtype', where = ''): Array<{ grp: string | null; dataset: string | null; label: string | null; n: number }> {
    const rows = this.db.prepare(`SELECT ${column} AS grp, dataset, label, count(*) AS n FROM vi.items WHERE run_key = ? ${where} GROUP BY ${column}, dataset, label`).all(run.key) as Array<{ grp: string | null; dataset: string | null; label: string | null; n: number }>;
    // T2 before T10.
    return rows.sort((a, b) => (a.grp ?? '').localeCompare(b.grp ?? '', 'en', { numeric: true }));
  }

  itemRow(run: ViewRun, itemId: string): (ItemRow & { record: string | null }) | undefined {
    return this.db.prepare('SELECT id, item_id, seq, dataset, source, answer_type, label, subtype, consistency, judged_by, question, response, record FROM vi.items WHERE run_key = ? AND item_id = ?').get(run.key, itemId) as (ItemRow & { record: string | null }) | undefined;
  }

  /** An item's records, stage by stage (store runs), or its line of the records file. */
  itemRecords(run: ViewRun, itemId: string): Record<string, Record<string, unknown>> {
    if (run.kind === 'store') {
      const rows = this.db.prepare('SELECT stage, llmkb_record(record) AS record FROM main.run_records WHERE run_id = ? AND item_id = ?').all(run.key, itemId) as Array<{ stage: string; record: string }>;
      return Object.fromEntries(rows.map((r) => [r.stage, JSON.parse(r.record) as Record<string, unknown>]));
    }
    const row = this.itemRow(run, itemId);
    return row?.record ? { records: JSON.parse(row.record) as Record<string, unknown> } : {};
  }

  /** A cached call (request and response) by its cache key, when the store has it. */
  call(key: string): { model: string; kind: string; request: unknown; response: unknown } | undefined {
    if (!this.hasStore || !/^[0-9a-f]{64}$/.test(key)) return undefined;
    const row = this.db.prepare('SELECT model, kind, request, response FROM main.calls WHERE key = ?').get(Buffer.from(key, 'hex')) as { model: string; kind: string; request: Buffer | string; response: string } | undefined;
    if (!row) return undefined;
    const request = typeof row.request === 'string' ? row.request : inflateRawSync(row.request).toString('utf8');
    return { model: row.model, kind: row.kind, request: JSON.parse(request), response: JSON.parse(row.response) };
  }

  /** Scored records of a run from the index (small columns only), in item order, for summaries and paired tests. */
  scored(run: ViewRun): ScoredRow[] {
    return (this.db.prepare("SELECT item_id AS id, dataset, source, answer_type AS answerType, label, subtype AS uninformativeType, consistency, judged_by FROM vi.items WHERE run_key = ? AND label IS NOT NULL ORDER BY seq").all(run.key) as Array<Record<string, unknown>>).map((r) => {
      const { judged_by, ...rest } = r;
      return { ...rest, ...(judged_by === 'lexical' ? { approximate: true } : {}) } as ScoredRow;
    });
  }

  /** The run's summary: its summary file, else computed from its items (and kept in the index until the run changes). */
  async summary(run: ViewRun, options: { quick?: boolean } = {}): Promise<ViewSummary | undefined> {
    if (run.summaryFile && (run.kind === 'file' || run.stages.every((s) => s.status === 'done'))) {
      try {
        const raw = JSON.parse(readFileSync(run.summaryFile, 'utf8')) as Record<string, unknown>;
        return viewSummary(raw);
      } catch {
        // Computed below instead.
      }
    }
    if (run.method !== 'reliability') return undefined;
    const { items } = await this.ensureItems(run);
    if (items === 0) return undefined;
    const source = this.db.prepare('SELECT fingerprint, summary, summary_fingerprint FROM vi.sources WHERE run_key = ?').get(run.key) as { fingerprint: string; summary: string | null; summary_fingerprint: string | null };
    if (source.summary && source.summary_fingerprint === source.fingerprint) return viewSummary(JSON.parse(source.summary) as Record<string, unknown>);
    const records = this.scored(run);
    if (records.length === 0) return undefined;
    const { summarizeRun } = await import('../methods/reliability/metrics/summarize-run.js');
    if (options.quick) {
      // The runs list: the metrics now, their intervals (1000 resamples: seconds for a large run) once the run is opened.
      return { ...viewSummary(summarizeRun(records, { model: run.label, setting: run.setting, resamples: 0 }) as unknown as Record<string, unknown>), intervalsPending: true };
    }
    const summary = summarizeRun(records, { model: run.label, setting: run.setting, ...(run.runId ? { runId: run.runId } : {}), ...(run.model ? { modelIdentity: run.model } : {}) }) as unknown as Record<string, unknown>;
    this.db.prepare('UPDATE vi.sources SET summary = ?, summary_fingerprint = ? WHERE run_key = ?').run(JSON.stringify(summary), source.fingerprint, run.key);
    return viewSummary(summary);
  }

  /** Two runs' items side by side (joined on the item id), the ones whose labels differ first. */
  compareItems(a: ViewRun, b: ViewRun, options: { onlyDisagreements: boolean; page: number; pageSize: number }): { rows: Array<{ item_id: string; question: string | null; source: string | null; a_label: string | null; b_label: string | null; a_subtype: string | null; b_subtype: string | null; differ: number; a_response: string | null; b_response: string | null; a_cons: number | null; b_cons: number | null }>; total: number; disagreements: number; shared: number } {
    const join = 'FROM vi.items x JOIN vi.items y ON y.run_key = ? AND y.item_id = x.item_id WHERE x.run_key = ?';
    const differ = "(coalesce(x.label, '') <> coalesce(y.label, '') OR coalesce(x.subtype, '') <> coalesce(y.subtype, ''))";
    const counts = this.db.prepare(`SELECT count(*) AS shared, coalesce(sum(${differ}), 0) AS disagreements ${join}`).get(b.key, a.key) as { shared: number; disagreements: number };
    const rows = this.db
      .prepare(
        `SELECT x.item_id, substr(x.question, 1, 300) AS question, x.source, x.label AS a_label, y.label AS b_label, x.subtype AS a_subtype, y.subtype AS b_subtype, ${differ} AS differ, substr(x.response, 1, 200) AS a_response, substr(y.response, 1, 200) AS b_response, x.consistency AS a_cons, y.consistency AS b_cons
         ${join} ${options.onlyDisagreements ? `AND ${differ}` : ''} ORDER BY ${differ} DESC, x.seq LIMIT ? OFFSET ?`,
      )
      .all(b.key, a.key, options.pageSize, options.page * options.pageSize) as never;
    return { rows, total: options.onlyDisagreements ? counts.disagreements : counts.shared, disagreements: counts.disagreements, shared: counts.shared };
  }
}

export function readJsonFile(file: string | undefined): Record<string, unknown> | undefined {
  if (!file) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export { basename };
