/**
 * The run store: a run (model x dataset x prompt setting x seed, plus any other parameter that
 * changes its results) has a stable id derived from exactly those, so running the same command
 * again opens the same run and continues it. Each stage keeps one record per item; records are
 * committed in small groups as they are made (runStoredStage), so an interrupted stage resumes
 * with the items it has no record for, and a stage marked done is never redone.
 */
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Statement } from 'better-sqlite3';
import { RunBusyError } from '../errors.js';
import { canonicalJson } from './call-key.js';
import { SMALL_DEFLATE, SMALL_INFLATE } from './compression.js';
import { processAlive } from './process-alive.js';
import type { Db } from './database.js';

export interface RunSpec {
  /** The model's cache identity (content, not location). */
  model: string;
  /** Checksum of the question set. */
  dataset: string;
  setting: string;
  seed: number;
  /** Any other parameter that changes results (max tokens, number of MCQs, judge identity...). */
  params?: Record<string, unknown>;
  /** Shown in listings; not part of the id. */
  label?: string;
}

export type StageStatus = 'pending' | 'running' | 'done';

export interface RunInfo {
  id: string;
  spec: RunSpec;
  createdAt: string;
  updatedAt: string;
  stages: Array<{ stage: string; status: StageStatus; records: number }>;
}

export function runId(spec: RunSpec): string {
  const { label: _label, ...identity } = spec;
  return createHash('sha256').update(canonicalJson(identity)).digest('hex').slice(0, 16);
}

export interface RunStoreOptions {
  /** Another process holds a run: wait for it (polling) instead of refusing. */
  waitForLease?: boolean;
  /** A lease not renewed for this long is stale and may be taken over (default 60 s). */
  leaseTtlMs?: number;
  /** Where "waiting for ..." goes; default stderr. */
  log?: (line: string) => void;
}

/** Who holds a run. */
export interface LeaseHolder {
  owner: string;
  pid: number;
  host: string;
  acquiredAt: string;
  heartbeatAt: string;
}

const DEFAULT_LEASE_TTL_MS = 60_000;
const LEASE_POLL_MS = 1_000;


/**
 * Leases: one process works on a run at a time. Two processes on the same run (two terminals,
 * a re-run while the first is still going) would otherwise make every model call twice. A lease
 * is a row naming the owner (pid@host) that the owner renews every quarter TTL; it is taken over
 * when it expires or, on the same host, as soon as its process is gone (kill -9, crash). A process
 * holds its leases until the workspace is closed; leases are per process, so several stages or
 * workspaces of one process share them.
 */
class Leases {
  readonly #db: Db;
  readonly #options: RunStoreOptions;
  readonly #token = `${process.pid}@${hostname()}#${randomUUID().slice(0, 8)}`;
  readonly #held = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(db: Db, options: RunStoreOptions) {
    this.#db = db;
    this.#options = options;
  }

  get #ttl(): number {
    return this.#options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  }

  /** Takes the run's lease (immediately, or after waiting with `waitForLease`), or throws RunBusyError. */
  async acquire(runId: string): Promise<void> {
    if (this.#held.has(runId)) return;
    let announced = false;
    for (;;) {
      const holder = this.#tryAcquire(runId);
      if (holder === undefined) {
        this.#held.add(runId);
        this.#startHeartbeat();
        return;
      }
      const who = `pid ${holder.pid} on ${holder.host}, since ${holder.acquiredAt}`;
      if (!this.#options.waitForLease) {
        throw new RunBusyError(
          `run ${runId} is being worked on by another llmkb process (${who})`,
          `Wait for it to finish, or run the same command with --wait to wait for it. A lease from a process that died is taken over ${Math.round(this.#ttl / 1000)} s after its last heartbeat (at once on the same host).`,
        );
      }
      if (!announced) {
        (this.#options.log ?? ((line: string) => process.stderr.write(`${line}\n`)))(`waiting for run ${runId}: another llmkb process holds it (${who})`);
        announced = true;
      }
      await sleep(LEASE_POLL_MS);
    }
  }

  /** Current holder of a run's lease, if any (expired or not). */
  holder(runId: string): LeaseHolder | undefined {
    const row = this.#db.prepare('SELECT owner, pid, host, acquired_at, heartbeat_at FROM run_leases WHERE run_id = ?').get(runId) as { owner: string; pid: number; host: string; acquired_at: string; heartbeat_at: string } | undefined;
    return row && { owner: row.owner, pid: row.pid, host: row.host, acquiredAt: row.acquired_at, heartbeatAt: row.heartbeat_at };
  }

  /** undefined: acquired; else the live holder. One IMMEDIATE transaction: two processes cannot both win. */
  #tryAcquire(runId: string): LeaseHolder | undefined {
    const host = hostname();
    return this.#db.transaction((): LeaseHolder | undefined => {
      const row = this.#db.prepare('SELECT owner, pid, host, acquired_at, heartbeat_at, expires_at FROM run_leases WHERE run_id = ?').get(runId) as
        | { owner: string; pid: number; host: string; acquired_at: string; heartbeat_at: string; expires_at: number }
        | undefined;
      const now = Date.now();
      const free =
        row === undefined ||
        row.expires_at < now ||
        (row.host === host && (row.pid === process.pid || !processAlive(row.pid)));
      if (!free) return { owner: row.owner, pid: row.pid, host: row.host, acquiredAt: row.acquired_at, heartbeatAt: row.heartbeat_at };
      const iso = new Date(now).toISOString();
      this.#db
        .prepare('INSERT INTO run_leases (run_id, owner, pid, host, acquired_at, heartbeat_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at')
        .run(runId, this.#token, process.pid, host, iso, iso, now + this.#ttl);
      return undefined;
    }).immediate();
  }

  #startHeartbeat(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#heartbeat(), Math.max(50, Math.floor(this.#ttl / 4)));
    // The heartbeat alone never keeps a process alive.
    this.#timer.unref();
  }

  #heartbeat(): void {
    if (!this.#db.open) return this.#stopHeartbeat();
    const now = Date.now();
    const renew = this.#db.prepare('UPDATE run_leases SET heartbeat_at = ?, expires_at = ? WHERE run_id = ? AND owner = ?');
    try {
      for (const runId of this.#held) renew.run(new Date(now).toISOString(), now + this.#ttl, runId, this.#token);
    } catch {
      // A busy store: the next beat renews it, well before the lease expires.
    }
  }

  #stopHeartbeat(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  releaseAll(): void {
    this.#stopHeartbeat();
    if (this.#db.open) {
      const release = this.#db.prepare('DELETE FROM run_leases WHERE run_id = ? AND owner = ?');
      for (const runId of this.#held) release.run(runId, this.#token);
    }
    this.#held.clear();
  }
}

/**
 * Records are JSON; those longer than this are stored raw-DEFLATEd (a BLOB in the same column):
 * a consistency record holds its pair's every MCQ (about 5,600 characters, 1,800 bytes
 * deflated), and deflated the run store is about a quarter of its size, and so is what a stage
 * writes to disk. Smaller records stay text: an asked or judged record (about 400 and 600
 * characters) saves only about 250 bytes deflated, while a deflate costs about 23 us and every
 * read (a judged record is read three times) another 9 us, about 0.3 s of a cached re-run at
 * paper scale for 1.3 MB of store.
 */
const DEFLATE_RECORDS_FROM = 2048;

function encodeRecord(record: unknown): string | Buffer {
  const json = JSON.stringify(record);
  return json.length < DEFLATE_RECORDS_FROM ? json : deflateRawSync(json, SMALL_DEFLATE);
}

function decodeRecord<T>(stored: string | Buffer): T {
  return JSON.parse(typeof stored === 'string' ? stored : inflateRawSync(stored, SMALL_INFLATE).toString('utf8')) as T;
}

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

  /** Opens the run with this spec, creating it if new. */
  open(spec: RunSpec): Run {
    const id = runId(spec);
    const now = new Date().toISOString();
    this.#db
      .prepare('INSERT INTO runs (id, spec, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET updated_at = excluded.updated_at')
      .run(id, canonicalJson(spec), now, now);
    return new Run(this.#db, id, spec, this.#leases);
  }

  get(id: string): Run | undefined {
    const row = this.#db.prepare('SELECT spec FROM runs WHERE id = ?').get(id) as { spec: string } | undefined;
    return row ? new Run(this.#db, id, JSON.parse(row.spec) as RunSpec, this.#leases) : undefined;
  }

  list(): RunInfo[] {
    const runs = this.#db.prepare('SELECT id, spec, created_at, updated_at FROM runs ORDER BY updated_at DESC').all() as Array<{ id: string; spec: string; created_at: string; updated_at: string }>;
    const stages = this.#db.prepare(
      `SELECT s.stage, s.status, (SELECT count(*) FROM run_records r WHERE r.run_id = s.run_id AND r.stage = s.stage) AS records
       FROM run_stages s WHERE s.run_id = ? ORDER BY s.updated_at`,
    );
    return runs.map((r) => ({
      id: r.id,
      spec: JSON.parse(r.spec) as RunSpec,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      stages: stages.all(r.id) as Array<{ stage: string; status: StageStatus; records: number }>,
    }));
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
    const row = this.#db.prepare('SELECT status FROM run_stages WHERE run_id = ? AND stage = ?').get(this.id, stage) as { status: 'running' | 'done' } | undefined;
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
    const rows = this.#db.prepare('SELECT item_id, record FROM run_records WHERE run_id = ? AND stage = ? ORDER BY seq').iterate(this.id, stage) as IterableIterator<{ item_id: string; record: string | Buffer }>;
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
    const rows = this.#db.prepare('SELECT item_id, record FROM run_records WHERE run_id = ? AND stage = ? ORDER BY seq').iterate(this.id, stage) as IterableIterator<{ item_id: string; record: string | Buffer }>;
    for (const r of rows) {
      const record = decodeRecord<T>(r.record);
      yield [r.item_id, project ? project(record) : (record as unknown as P)];
    }
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
    this.#recordsByIds ??= this.#db.prepare(`SELECT item_id, record FROM run_records WHERE run_id = ? AND stage = ? AND item_id IN (${Array.from({ length: RECORDS_BY_IDS }, () => '?').join(', ')})`).raw();
    const out = new Array<T | undefined>(ids.length).fill(undefined);
    const at = new Map<string, number>();
    for (let start = 0; start < ids.length; start += RECORDS_BY_IDS) {
      const chunk: Array<string | null> = ids.slice(start, start + RECORDS_BY_IDS);
      at.clear();
      for (let i = 0; i < chunk.length; i++) at.set(chunk[i]!, start + i);
      // A short chunk is padded with NULL, which matches no item: one statement for every chunk.
      while (chunk.length < RECORDS_BY_IDS) chunk.push(null);
      for (const [itemId, record] of this.#recordsByIds.all(this.id, stage, ...chunk) as Array<[string, string | Buffer]>) out[at.get(itemId)!] = decodeRecord<T>(record);
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
