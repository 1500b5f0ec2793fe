/**
 * What `llmkb view` reads: the runs listed by src/runs/ (the store's and a results folder's), and
 * an index of their items in a SQLite file of its own (a table plus FTS5 over question and
 * response) that the pages query with paging, so a page never holds more than one page of items
 * and the server's memory does not grow with a run.
 *
 * Items come from each run's method (`MethodView.items` over the run store's read API, or
 * `itemOf` per line of a records file); the store is only read through its public API. A run is
 * (re)imported when its fingerprint changes (records added, a stage redone, a file rewritten), so
 * opening a run a second time costs nothing, and a run still being evaluated is picked up as it
 * grows. Lines of a records file that cannot be read are reported with their file and line.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ItemFieldDef, MethodView, ViewItem } from '../methods/method-presentation.js';
import { LlmkbError } from '../errors.js';
import type { MethodSummary } from '../methods/method-summary.js';
import { findMethod } from '../methods/registry.js';
import { listRuns, type ListedRun } from '../runs/list-runs.js';
import { openDatabase, SqliteDatabase, type Db } from '../store/database.js';
import { inspectCall, type InspectedCall } from '../store/inspect-call.js';
import { RunStore } from '../store/run-store.js';
import { claimantOf, plainItem, readRecords } from './records-file.js';
import { INDEX_SCHEMA, INDEX_TABLES, INDEX_VERSION } from './view-schema.js';
import { viewSummary, type ViewSummary } from './view-summary.js';

export type ViewRun = ListedRun;

/** A prepared statement as the index uses it. */
interface Statement {
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): unknown;
}

/** A method's declared item fields, their names checked (they appear in addresses and the index). */
export function itemFieldsOf(view: MethodView | undefined): readonly ItemFieldDef[] {
  const fields = view?.itemFields ?? [];
  for (const f of fields) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(f.name))
      throw new LlmkbError(`item field "${f.name}" of a method's view is not a valid name`, {
        hint: 'Name each of MethodView.itemFields with letters, digits, _ or - (at most 64).',
      });
  }
  return fields;
}

const hashKey = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

export interface ViewIndexOptions {
  /** The run store (SQLite); runs and the call cache come from it when the file exists. */
  store?: string;
  /** A folder of result files (`llmkb eval --out`, `llmkb sweep --out`). */
  resultsDir?: string;
  /** Where the index lives (default: beside the store, else in the results folder). */
  indexFile?: string;
}

export class ViewIndex {
  readonly db: Db;
  readonly hasStore: boolean;
  readonly resultsDir: string | undefined;
  readonly indexFile: string;
  readonly #store: { db: Db; runs: RunStore } | undefined;
  readonly #views = new Map<string, Promise<MethodView | undefined>>();
  readonly #scanned = new Map<string, { fingerprint: string; problems: string[] }>();
  #runs: ViewRun[] | undefined;
  #runsAt = 0;
  /** Statements prepared once (the runs list asks a few per run on every load). */
  readonly #statements = new Map<string, Statement>();
  /** Summaries as last read or computed, by run key, with what they were read from (a summary file's size and time, or the run's fingerprint and whether they have intervals). */
  readonly #parsed = new Map<string, { fingerprint: string; summary: ViewSummary }>();

  constructor(options: ViewIndexOptions) {
    this.hasStore = options.store !== undefined && existsSync(options.store);
    this.resultsDir = options.resultsDir && existsSync(options.resultsDir) ? resolve(options.resultsDir) : undefined;
    this.indexFile =
      options.indexFile ??
      (this.hasStore ? join(dirname(resolve(options.store!)), 'view-index.sqlite') : join(this.resultsDir ?? '.', '.llmkb-view-index.sqlite'));
    if (this.hasStore) {
      const db = openDatabase(options.store!);
      this.#store = { db, runs: new RunStore(db) };
    }
    this.db = new SqliteDatabase(this.indexFile);
    this.db.pragma('journal_mode = WAL');
    const version = this.db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'meta'").get()
      ? (this.db.prepare("SELECT value FROM meta WHERE key = 'version'").get() as { value: string } | undefined)?.value
      : undefined;
    if (version !== undefined && version !== String(INDEX_VERSION)) {
      // An index of another version is only a cache: rebuilt.
      for (const t of INDEX_TABLES) this.db.exec(`DROP TABLE IF EXISTS ${t}`);
    }
    this.db.exec(INDEX_SCHEMA);
    this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('version', ?)").run(String(INDEX_VERSION));
  }

  #sql(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, (statement = this.db.prepare(sql) as unknown as Statement));
    return statement;
  }

  close(): void {
    if (this.db.open) this.db.close();
    if (this.#store?.db.open) this.#store.db.close();
  }

  /**
   * How the run's method shows its items (undefined: not registered; its items are shown plainly).
   * A records file with no summary beside it belongs to the method that claims its first record.
   */
  async view(run: ViewRun): Promise<MethodView | undefined> {
    if (run.method === 'unknown' && run.files?.has.records) run.method = (await claimantOf(run.files.records)) ?? 'unknown';
    let view = this.#views.get(run.method);
    if (!view) {
      const method = findMethod(run.method);
      view = method?.presentation ? method.presentation().then((p) => p.view) : Promise.resolve(undefined);
      this.#views.set(run.method, view);
    }
    return view;
  }

  /** Every run: the store's, then result files that are not a store run. Re-listed at most once a second. */
  runs(): ViewRun[] {
    if (this.#runs && Date.now() - this.#runsAt < 1000) return this.#runs;
    this.#runs = listRuns({ ...(this.#store ? { runs: this.#store.runs } : {}), ...(this.resultsDir ? { resultsDir: this.resultsDir } : {}) });
    this.#runsAt = Date.now();
    return this.#runs;
  }

  run(key: string): ViewRun | undefined {
    return this.runs().find((r) => r.key === key);
  }

  #fingerprint(run: ViewRun): string {
    // The listing's stage states and record counts, and the run's time of its last stage change (each stage change sets it).
    if (run.kind === 'store') return hashKey(JSON.stringify([run.updatedAt ?? '', run.stages]));
    if (!run.files?.has.records) return 'none';
    const s = statSync(run.files.records);
    return `${s.size}:${s.mtimeMs}`;
  }

  /** The run's items as its method reads them (a results folder's run: from its records file, the lines it cannot read in `problems`). */
  async #readItems(
    run: ViewRun,
    view: MethodView | undefined,
    problems: string[],
    options: { text?: boolean } = {},
  ): Promise<Array<{ item: ViewItem; record?: string }>> {
    const rows: Array<{ item: ViewItem; record?: string }> = [];
    if (run.kind === 'store') {
      const stored = this.#store!.runs.get(run.key);
      if (stored && view) for (const item of view.items(stored, options)) rows.push({ item });
    } else if (run.files?.has.records) {
      await readRecords(run.files.records, problems, (record, line) => {
        const seq = rows.length;
        rows.push({ item: view ? view.itemOf(record, seq) : plainItem(record, seq), record: line });
      });
    }
    return rows;
  }

  /**
   * Makes sure the run's items are in the index (imports them on first open, again when the run
   * changed). Returns how many items it has, whether it imported now, and the lines it could not read.
   */
  async ensureItems(run: ViewRun): Promise<{ items: number; imported: boolean; problems: string[] }> {
    const fingerprint = this.#fingerprint(run);
    const known = this.#sql('SELECT fingerprint, items, problems FROM sources WHERE run_key = ?').get(run.key) as
      | { fingerprint: string; items: number; problems: string | null }
      | undefined;
    if (known && known.fingerprint === fingerprint)
      return { items: known.items, imported: false, problems: known.problems ? (JSON.parse(known.problems) as string[]) : [] };
    const view = await this.view(run);
    const fields = itemFieldsOf(view);
    const problems: string[] = [];
    const rows = await this.#readItems(run, view, problems);
    this.db
      .transaction(() => {
        this.#deleteItems(run.key);
        const insert = this.db.prepare(
          'INSERT OR REPLACE INTO items (run_key, seq, item_id, dataset, source, answer_type, label, subtype, consistency, judged_by, question, response, record) VALUES (@key, @seq, @itemId, @dataset, @source, @answerType, @label, @subtype, @consistency, @judgedBy, @question, @response, @record)',
        );
        const insertField = this.db.prepare('INSERT OR REPLACE INTO item_fields (item, run_key, name, text, num) VALUES (?, ?, ?, ?, ?)');
        const str = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? null : String(v));
        for (const { item, record } of rows) {
          const id = insert.run({
            key: run.key,
            seq: item.seq,
            itemId: item.itemId,
            dataset: str(item.dataset),
            source: str(item.source),
            answerType: str(item.answerType),
            label: str(item.label),
            subtype: str(item.subtype),
            consistency: typeof item.consistency === 'number' ? item.consistency : null,
            judgedBy: str(item.judgedBy),
            question: str(item.question),
            response: str(item.response),
            record: record ?? null,
          }).lastInsertRowid;
          for (const def of fields) {
            const value = item.fields?.[def.name];
            if (value === null || value === undefined) continue;
            if (def.kind === 'text') insertField.run(id, run.key, def.name, String(value), null);
            else {
              const num = Number(value);
              if (Number.isFinite(num)) insertField.run(id, run.key, def.name, null, num);
            }
          }
        }
        this.db
          .prepare('INSERT OR REPLACE INTO sources (run_key, fingerprint, items, problems, fts) VALUES (?, ?, ?, ?, 0)')
          .run(run.key, fingerprint, rows.length, problems.length ? JSON.stringify(problems) : null);
      })
      .immediate();
    return { items: rows.length, imported: true, problems };
  }

  /**
   * The lines of a results folder's records file that cannot be read, for the runs list: what the
   * import found when the run is indexed, else one pass over the file (kept until it changes), so
   * the list need not import every run's items.
   */
  async recordProblems(run: ViewRun): Promise<string[]> {
    if (run.kind !== 'file' || !run.files?.has.records) return [];
    const fingerprint = this.#fingerprint(run);
    const known = this.#sql('SELECT fingerprint, problems FROM sources WHERE run_key = ?').get(run.key) as
      | { fingerprint: string; problems: string | null }
      | undefined;
    if (known && known.fingerprint === fingerprint) return known.problems ? (JSON.parse(known.problems) as string[]) : [];
    const scanned = this.#scanned.get(run.key);
    if (scanned && scanned.fingerprint === fingerprint) return scanned.problems;
    const problems: string[] = [];
    await readRecords(run.files.records, problems, () => {});
    this.#scanned.set(run.key, { fingerprint, problems });
    return problems;
  }

  #deleteItems(key: string): void {
    const fts = (this.db.prepare('SELECT fts FROM sources WHERE run_key = ?').get(key) as { fts: number } | undefined)?.fts === 1;
    if (fts)
      this.db
        .prepare("INSERT INTO items_fts (items_fts, rowid, question, response) SELECT 'delete', id, question, response FROM items WHERE run_key = ?")
        .run(key);
    this.db.prepare('DELETE FROM item_fields WHERE run_key = ?').run(key);
    this.db.prepare('DELETE FROM items WHERE run_key = ?').run(key);
  }

  /** An item's records, stage by stage (store runs), or its line of the records file. */
  itemRecords(run: ViewRun, itemId: string): Record<string, Record<string, unknown>> {
    if (run.kind === 'store') return this.#store!.runs.get(run.key)?.itemRecords(itemId) ?? {};
    const row = this.db.prepare('SELECT record FROM items WHERE run_key = ? AND item_id = ?').get(run.key, itemId) as { record: string | null } | undefined;
    return row?.record ? { records: JSON.parse(row.record) as Record<string, unknown> } : {};
  }

  /** A cached call (request and response) by its cache key, when the store has it. */
  call(key: string): InspectedCall | undefined {
    return this.#store ? inspectCall(this.#store.db, key) : undefined;
  }

  /** The run's items from the index (small columns and declared fields), in item order: for summaries and paired tests. */
  viewItems(run: ViewRun): ViewItem[] {
    const items = this.db
      .prepare(
        'SELECT id, item_id AS itemId, seq, dataset, source, answer_type AS answerType, label, subtype, consistency, judged_by AS judgedBy FROM items WHERE run_key = ? ORDER BY seq',
      )
      .all(run.key) as Array<ViewItem & { id?: number }>;
    const fields = new Map<number, Record<string, string | number | null>>();
    for (const f of this.db.prepare('SELECT item, name, text, num FROM item_fields WHERE run_key = ?').all(run.key) as Array<{
      item: number;
      name: string;
      text: string | null;
      num: number | null;
    }>) {
      let of = fields.get(f.item);
      if (!of) fields.set(f.item, (of = {}));
      of[f.name] = f.num ?? f.text;
    }
    return items.map(({ id, ...item }) => ({ ...item, fields: fields.get(id!) ?? {} }));
  }

  /**
   * The run's summary: its summary file, else computed by its method from its items and kept in
   * the index until the run changes. `quick` (the runs list): without intervals, from the run's
   * items as its method reads them, so listing runs imports no run's items into the index.
   */
  async summary(run: ViewRun, options: { quick?: boolean } = {}): Promise<ViewSummary | undefined> {
    const finished = run.kind === 'file' || run.stages.every((s) => s.status === 'done');
    if (run.files?.has.summary && finished && !run.unreadable) {
      try {
        const stat = statSync(run.files.summary);
        const fingerprint = `file:${stat.size}:${stat.mtimeMs}`;
        const known = this.#parsed.get(run.key);
        if (known?.fingerprint === fingerprint) return known.summary;
        const summary = viewSummary(JSON.parse(readFileSync(run.files.summary, 'utf8').replace(/^\uFEFF/, '')) as Record<string, unknown>);
        this.#parsed.set(run.key, { fingerprint, summary });
        return summary;
      } catch {
        // Computed below instead (the runs list names the unreadable file).
      }
    }
    const view = await this.view(run);
    if (!view?.summarizeItems) return undefined;
    const fingerprint = this.#fingerprint(run);
    const known = this.#parsed.get(run.key);
    if (known && (known.fingerprint === `${fingerprint}:1` || (options.quick && known.fingerprint === `${fingerprint}:0`))) return known.summary;
    const cached = this.#sql('SELECT fingerprint, intervals, summary FROM summaries WHERE run_key = ?').get(run.key) as
      | { fingerprint: string; intervals: number; summary: string }
      | undefined;
    if (cached && cached.fingerprint === fingerprint && (cached.intervals === 1 || options.quick)) {
      const summary = { ...viewSummary(JSON.parse(cached.summary) as Record<string, unknown>), ...(cached.intervals === 1 ? {} : { intervalsPending: true }) };
      this.#parsed.set(run.key, { fingerprint: `${fingerprint}:${cached.intervals}`, summary });
      return summary;
    }
    let items: ViewItem[];
    const indexed =
      (this.#sql('SELECT fingerprint FROM sources WHERE run_key = ?').get(run.key) as { fingerprint: string } | undefined)?.fingerprint === fingerprint;
    if (options.quick && !indexed) {
      const problems: string[] = [];
      items = (await this.#readItems(run, view, problems, { text: false })).map((r) => r.item);
      // What the list says of a records file's unreadable lines, from this one pass over it.
      if (run.kind === 'file') this.#scanned.set(run.key, { fingerprint, problems });
    } else {
      await this.ensureItems(run);
      items = this.viewItems(run);
    }
    if (items.length === 0) return undefined;
    const info = {
      label: run.label,
      setting: run.setting,
      ...(run.runId ? { runId: run.runId } : {}),
      ...(run.modelIdentity ? { modelIdentity: run.modelIdentity } : {}),
    };
    // The runs list: the metrics now, their intervals (1000 resamples: seconds for a large run) once the run is opened.
    const summary: MethodSummary | undefined = await view.summarizeItems(items, info, { resamples: options.quick ? 0 : 1000 });
    if (!summary) return undefined;
    this.#sql('INSERT OR REPLACE INTO summaries (run_key, fingerprint, intervals, summary) VALUES (?, ?, ?, ?)').run(
      run.key,
      fingerprint,
      options.quick ? 0 : 1,
      JSON.stringify(summary),
    );
    const shown = { ...viewSummary(summary as unknown as Record<string, unknown>), ...(options.quick ? { intervalsPending: true } : {}) };
    this.#parsed.set(run.key, { fingerprint: `${fingerprint}:${options.quick ? 0 : 1}`, summary: shown });
    return shown;
  }

  /** The fingerprints of runs' items (for caches of what is computed from them). */
  fingerprints(keys: readonly string[]): string {
    return keys
      .map((k) => (this.db.prepare('SELECT fingerprint FROM sources WHERE run_key = ?').get(k) as { fingerprint: string } | undefined)?.fingerprint ?? '')
      .join('|');
  }
}
