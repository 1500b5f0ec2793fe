/**
 * The run store: a run (model x dataset x prompt setting x seed, plus any other parameter that
 * changes its results) has a stable id derived from exactly those (run-spec.ts), so running the
 * same command again opens the same run and continues it. Each stage keeps one record per item;
 * records are committed in small groups as they are made (runStoredStage), so an interrupted
 * stage resumes with the items it has no record for, and a stage marked done is never redone.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Statement } from 'better-sqlite3';
import { canonicalJson } from './call-key.js';
import { SMALL_DEFLATE, SMALL_INFLATE } from './compression.js';
import { paidCalls } from './paid-calls.js';
import { Leases, type LeaseHolder, type LeaseOptions } from './run-leases.js';
import { runId, type RunCalls, type RunInfo, type RunSpec, type StageStatus } from './run-spec.js';
import type { Db } from './database.js';

/** How the store's leases behave (./run-leases.ts). */
export type RunStoreOptions = LeaseOptions;
export type { LeaseHolder };

/**
 * Records are JSON; those longer than this are stored raw-DEFLATEd (a BLOB in the same column):
 * a consistency record holds its pair's every MCQ and shrinks to about a third, and with it the
 * run store and what a stage writes to disk. Smaller records (asked, judged) stay text: they save
 * little and are read several times, and each deflate and inflate costs time (bench/README.md).
 */
const DEFLATE_RECORDS_FROM = 2048;

function encodeRecord(record: unknown): string | Buffer {
  const json = JSON.stringify(record);
  return json.length < DEFLATE_RECORDS_FROM ? json : deflateRawSync(json, SMALL_DEFLATE);
}

function decodeRecord<T>(stored: string | Buffer): T {
  return JSON.parse(typeof stored === 'string' ? stored : inflateRawSync(stored, SMALL_INFLATE).toString('utf8')) as T;
}

/** SQL's view of a stored record: its JSON text, inflated when it was stored deflated (see encodeRecord). */
function ensureRecordFunction(db: Db): void {
  if (registered.has(db)) return;
  db.function(
    'llmkb_record',
    { deterministic: true },
    (stored: unknown) =>
      (Buffer.isBuffer(stored) || stored instanceof Uint8Array ? inflateRawSync(stored, SMALL_INFLATE).toString('utf8') : stored) as string | null,
  );
  registered.add(db);
}
const registered = new WeakSet<Db>();

export class RunStore {
  readonly #db: Db;
  readonly #leases: Leases;

  constructor(db: Db, options: RunStoreOptions = {}) {
    this.#db = db;
    this.#leases = new Leases(db, options);
  }

  /** Who holds a run's lease, if anyone. */
  leaseHolder(id: string): LeaseHolder | undefined {
    return this.#leases.holder(id);
  }

  /** Releases every run lease this store holds (Workspace.close does it). */
  releaseLeases(): void {
    this.#leases.releaseAll();
  }

  /**
   * Opens the run with this spec, creating it if new. An existing run keeps its spec; a label it
   * was not opened with before is added to its `labels`, and the method to a run that lacked it.
   */
  open(spec: RunSpec): Run {
    const id = runId(spec);
    const now = new Date().toISOString();
    return this.#db.transaction(() => {
      const row = this.#db.prepare('SELECT spec FROM runs WHERE id = ?').get(id) as { spec: string } | undefined;
      if (row === undefined) {
        this.#db.prepare('INSERT INTO runs (id, spec, created_at, updated_at) VALUES (?, ?, ?, ?)').run(id, canonicalJson(spec), now, now);
        return new Run(this.#db, id, spec, this.#leases);
      }
      const stored = JSON.parse(row.spec) as RunSpec;
      const known = [stored.label, ...(stored.labels ?? [])];
      const merged: RunSpec = {
        ...stored,
        ...(stored.method === undefined && spec.method !== undefined ? { method: spec.method } : {}),
        ...(stored.variant === undefined && spec.variant !== undefined ? { variant: spec.variant } : {}),
        ...(spec.label !== undefined && !known.includes(spec.label) ? { labels: [...(stored.labels ?? []), spec.label] } : {}),
      };
      this.#db.prepare('UPDATE runs SET spec = ?, updated_at = ? WHERE id = ?').run(canonicalJson(merged), now, id);
      return new Run(this.#db, id, { ...merged, ...(spec.label === undefined ? {} : { label: spec.label }) }, this.#leases);
    })();
  }

  get(id: string): Run | undefined {
    const row = this.#db.prepare('SELECT spec FROM runs WHERE id = ?').get(id) as { spec: string } | undefined;
    return row ? new Run(this.#db, id, JSON.parse(row.spec) as RunSpec, this.#leases) : undefined;
  }

  /** Every run, most recently updated first, with its stages: records made, and `stopped` for a stage nobody works on any more. */
  list(): RunInfo[] {
    const runs = this.#db.prepare('SELECT id, spec, created_at, updated_at FROM runs ORDER BY updated_at DESC').all() as Array<{
      id: string;
      spec: string;
      created_at: string;
      updated_at: string;
    }>;
    const stages = this.#db.prepare(
      `SELECT s.stage, s.status, (SELECT count(*) FROM run_records r WHERE r.run_id = s.run_id AND r.stage = s.stage) AS records
       FROM run_stages s WHERE s.run_id = ? ORDER BY s.updated_at`,
    );
    return runs.map((r) => {
      const rows = stages.all(r.id) as Array<{ stage: string; status: StageStatus; records: number }>;
      const working = rows.some((s) => s.status === 'running') && this.#leases.working(r.id);
      return {
        id: r.id,
        spec: JSON.parse(r.spec) as RunSpec,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
        stages: rows.map((s) => (s.status === 'running' && !working ? { ...s, status: 'stopped' as const } : s)),
      };
    });
  }
}

/** Ids per query of `Run.recordsByIds` (SQLite allows 32,766 parameters). */
const RECORDS_BY_IDS = 128;

export class Run {
  readonly id: string;
  readonly spec: RunSpec;
  readonly #db: Db;
  readonly #save: Statement<unknown[]>;
  #recordById: Statement<unknown[]> | undefined;
  #recordsByIds: Statement<unknown[]> | undefined;
  readonly #leases: Leases | undefined;

  constructor(db: Db, id: string, spec: RunSpec, leases?: Leases) {
    this.#db = db;
    this.#leases = leases;
    this.id = id;
    this.spec = spec;
    this.#save = db.prepare(
      'INSERT INTO run_records (run_id, stage, item_id, seq, record, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(run_id, stage, item_id) DO UPDATE SET record = excluded.record, seq = excluded.seq',
    );
  }

  /**
   * Takes this run's lease for the process (see Leases): throws RunBusyError while another live
   * process holds it, or waits for it when the store was opened with `waitForLease`.
   */
  async acquireLease(): Promise<void> {
    await this.#leases?.acquire(this.id);
  }

  stageStatus(stage: string): StageStatus {
    const row = this.#db.prepare('SELECT status FROM run_stages WHERE run_id = ? AND stage = ?').get(this.id, stage) as
      | { status: 'running' | 'done' }
      | undefined;
    return row?.status ?? 'pending';
  }

  stageInfo<T>(stage: string): T | undefined {
    const row = this.#db.prepare('SELECT info FROM run_stages WHERE run_id = ? AND stage = ?').get(this.id, stage) as { info: string | null } | undefined;
    return row?.info ? (JSON.parse(row.info) as T) : undefined;
  }

  startStage(stage: string): void {
    this.#setStage(stage, 'running', undefined, true);
  }

  /** Marks a stage done, with optional summary info (diagnostics, counts). */
  finishStage(stage: string, info?: unknown): void {
    this.#setStage(stage, 'done', info, false);
  }

  /** Forgets a stage's records so it is redone (e.g. after changing a rule). */
  resetStage(stage: string): void {
    this.#db.transaction(() => {
      this.#db.prepare('DELETE FROM run_records WHERE run_id = ? AND stage = ?').run(this.id, stage);
      this.#db.prepare('DELETE FROM run_stages WHERE run_id = ? AND stage = ?').run(this.id, stage);
    })();
  }

  /** Saves one item's record; committed before this returns. */
  saveRecord(stage: string, itemId: string, seq: number, record: unknown): void {
    this.#save.run(this.id, stage, itemId, seq, encodeRecord(record), new Date().toISOString());
  }

  /** Saves several items' records in one transaction; all are committed when this returns. */
  saveRecords(stage: string, entries: ReadonlyArray<{ itemId: string; seq: number; record: unknown }>): void {
    const now = new Date().toISOString();
    this.#db.transaction(() => {
      for (const e of entries) this.#save.run(this.id, stage, e.itemId, e.seq, encodeRecord(e.record), now);
    })();
  }

  /**
   * Records of a stage in item order (`seq`), keyed by item id. With `project`, each record is
   * read and reduced one at a time, so a stage whose records are large (every MCQ of every pair)
   * is never in memory all at once.
   */
  records<T, P = T>(stage: string, project?: (record: T) => P): Map<string, P> {
    const out = new Map<string, P>();
    const rows = this.#db
      .prepare('SELECT item_id, record FROM run_records WHERE run_id = ? AND stage = ? ORDER BY seq')
      .iterate(this.id, stage) as IterableIterator<{ item_id: string; record: string | Buffer }>;
    for (const r of rows) {
      const record = decodeRecord<T>(r.record);
      out.set(r.item_id, project ? project(record) : (record as unknown as P));
    }
    return out;
  }

  /**
   * A stage's records in item order (`seq`) as `[item id, record]`, read and decoded one at a
   * time, so a stage of any size is never in memory at once. Reads only: while the iteration is
   * open the connection cannot write (better-sqlite3), so finish it (or `return()`) before
   * saving anything; reading other records meanwhile is fine.
   */
  *entries<T, P = T>(stage: string, project?: (record: T) => P): Generator<[string, P]> {
    const rows = this.#db
      .prepare('SELECT item_id, record FROM run_records WHERE run_id = ? AND stage = ? ORDER BY seq')
      .iterate(this.id, stage) as IterableIterator<{ item_id: string; record: string | Buffer }>;
    for (const r of rows) {
      const record = decodeRecord<T>(r.record);
      yield [r.item_id, project ? project(record) : (record as unknown as P)];
    }
  }

  /**
   * Fields of a stage's records, in item order, read by SQLite (`paths`: JSON paths such as
   * `$.label`, a list tried in order), so a stage of large records is read without parsing them
   * in JavaScript: for listings and indexes that need a few fields of every record.
   */
  *project(
    stage: string,
    paths: Readonly<Record<string, string | readonly string[]>>,
  ): Generator<{ itemId: string; seq: number; fields: Record<string, unknown> }> {
    const names = Object.keys(paths);
    const columns = names.map((name, i) => {
      const list = paths[name]!;
      const each = (typeof list === 'string' ? [list] : list).map((p) => {
        if (!/^\$(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(p)) throw new Error(`Run.project: bad JSON path ${p}`);
        return `json_extract(j.record, '${p}')`;
      });
      return `${each.length === 1 ? each[0] : `coalesce(${each.join(', ')})`} AS f${i}`;
    });
    ensureRecordFunction(this.#db);
    const rows = this.#db
      .prepare(
        `SELECT j.item_id, j.seq${columns.length ? `, ${columns.join(', ')}` : ''} FROM (SELECT item_id, seq, llmkb_record(record) AS record FROM run_records WHERE run_id = ? AND stage = ? ORDER BY seq) j`,
      )
      .raw()
      .iterate(this.id, stage) as IterableIterator<unknown[]>;
    for (const row of rows) yield { itemId: row[0] as string, seq: row[1] as number, fields: Object.fromEntries(names.map((n, i) => [n, row[i + 2]])) };
  }

  /** One item's records, stage by stage. */
  itemRecords(itemId: string): Record<string, Record<string, unknown>> {
    const rows = this.#db.prepare('SELECT stage, record FROM run_records WHERE run_id = ? AND item_id = ? ORDER BY id').all(this.id, itemId) as Array<{
      stage: string;
      record: string | Buffer;
    }>;
    return Object.fromEntries(rows.map((r) => [r.stage, decodeRecord<Record<string, unknown>>(r.record)]));
  }

  /** When each stage last changed, and its state: what tells whether the run's records changed since they were read. */
  stagesState(): Array<{ stage: string; status: StageStatus; updatedAt: string; records: number }> {
    return this.#db
      .prepare(
        'SELECT s.stage, s.status, s.updated_at AS updatedAt, (SELECT count(*) FROM run_records r WHERE r.run_id = s.run_id AND r.stage = s.stage) AS records FROM run_stages s WHERE s.run_id = ? ORDER BY s.stage',
      )
      .all(this.id) as Array<{ stage: string; status: StageStatus; updatedAt: string; records: number }>;
  }

  /**
   * Adds calls made for this run (per role) to what every process before counted for it: the
   * calls not in the ledger of paid calls (cache hits, failed requests; see `calls`).
   */
  addCalls(deltas: Readonly<Record<string, RunCalls>>): void {
    const add = this.#db.prepare(
      `INSERT INTO run_calls (run_id, role, calls, cache_hits, requests, prompt_tokens, completion_tokens) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(run_id, role) DO UPDATE SET calls = calls + excluded.calls, cache_hits = cache_hits + excluded.cache_hits, requests = requests + excluded.requests,
         prompt_tokens = prompt_tokens + excluded.prompt_tokens, completion_tokens = completion_tokens + excluded.completion_tokens`,
    );
    this.#db.transaction(() => {
      for (const [role, d] of Object.entries(deltas))
        if (d.calls || d.cacheHits || d.requests || d.promptTokens || d.completionTokens)
          add.run(this.id, role, d.calls, d.cacheHits, d.requests, d.promptTokens, d.completionTokens);
    })();
  }

  /**
   * The calls made for this run per role, over every process that worked on it: those paid for
   * (paid-calls.ts: written with their cache entries, so a kill loses none; a call journal not
   * yet moved into the store is not seen, see CallCache.checkpoint) and the rest (`addCalls`).
   */
  calls(): Record<string, RunCalls> {
    const rows = this.#db
      .prepare(
        'SELECT role, calls, cache_hits AS cacheHits, requests, prompt_tokens AS promptTokens, completion_tokens AS completionTokens FROM run_calls WHERE run_id = ? ORDER BY role',
      )
      .all(this.id) as Array<RunCalls & { role: string }>;
    const out: Record<string, RunCalls> = Object.fromEntries(rows.map(({ role, ...c }) => [role, c]));
    for (const [role, p] of Object.entries(paidCalls(this.#db, this.id))) {
      const c = (out[role] ??= { calls: 0, cacheHits: 0, requests: 0, promptTokens: 0, completionTokens: 0 });
      c.calls += p.calls;
      c.requests += p.requests;
      c.promptTokens += p.promptTokens;
      c.completionTokens += p.completionTokens;
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** Ids of a stage's stored records, in item order. */
  recordIds(stage: string): string[] {
    return this.#db.prepare('SELECT item_id FROM run_records WHERE run_id = ? AND stage = ? ORDER BY seq').pluck().all(this.id, stage) as string[];
  }

  /** One item's stored record of a stage. */
  record<T>(stage: string, itemId: string): T | undefined {
    // Prepared once: stages load their items one at a time by id.
    this.#recordById ??= this.#db.prepare('SELECT record FROM run_records WHERE run_id = ? AND stage = ? AND item_id = ?').pluck();
    const row = this.#recordById.get(this.id, stage, itemId) as string | Buffer | undefined;
    return row === undefined ? undefined : decodeRecord<T>(row);
  }

  /**
   * Several items' stored records of a stage, in the order of `ids` (undefined where there is
   * none): one query per RECORDS_BY_IDS ids instead of one per id, about a third of the cost of
   * `record` per item (a stage that loads its items from the previous stage's records).
   */
  recordsByIds<T>(stage: string, ids: readonly string[]): Array<T | undefined> {
    this.#recordsByIds ??= this.#db
      .prepare(
        `SELECT item_id, record FROM run_records WHERE run_id = ? AND stage = ? AND item_id IN (${Array.from({ length: RECORDS_BY_IDS }, () => '?').join(', ')})`,
      )
      .raw();
    const out = new Array<T | undefined>(ids.length).fill(undefined);
    const at = new Map<string, number>();
    for (let start = 0; start < ids.length; start += RECORDS_BY_IDS) {
      const chunk: Array<string | null> = ids.slice(start, start + RECORDS_BY_IDS);
      at.clear();
      for (let i = 0; i < chunk.length; i++) at.set(chunk[i]!, start + i);
      // A short chunk is padded with NULL, which matches no item: one statement for every chunk.
      while (chunk.length < RECORDS_BY_IDS) chunk.push(null);
      for (const [itemId, record] of this.#recordsByIds.all(this.id, stage, ...chunk) as Array<[string, string | Buffer]>)
        out[at.get(itemId)!] = decodeRecord<T>(record);
    }
    return out;
  }

  #setStage(stage: string, status: 'running' | 'done', info: unknown, keepDone: boolean): void {
    const now = new Date().toISOString();
    const infoJson = info === undefined ? null : JSON.stringify(info);
    this.#db
      .prepare(
        `INSERT INTO run_stages (run_id, stage, status, info, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(run_id, stage) DO UPDATE SET
           status = CASE WHEN ? AND run_stages.status = 'done' THEN 'done' ELSE excluded.status END,
           info = COALESCE(excluded.info, run_stages.info), updated_at = excluded.updated_at`,
      )
      .run(this.id, stage, status, infoJson, now, keepDone ? 1 : 0);
    this.#db.prepare('UPDATE runs SET updated_at = ? WHERE id = ?').run(now, this.id);
  }
}
