/**
 * The run store: a run (model x dataset x prompt setting x seed, plus any other parameter that
 * changes its results) has a stable id derived from exactly those, so running the same command
 * again opens the same run and continues it. Each stage keeps one record per item; a record is
 * written in its own transaction, so an interrupted stage resumes at the first missing item, and
 * a stage marked done is never redone.
 */
import { createHash } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { canonicalJson } from './call-cache.js';
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

export class RunStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Opens the run with this spec, creating it if new. */
  open(spec: RunSpec): Run {
    const id = runId(spec);
    const now = new Date().toISOString();
    this.#db
      .prepare('INSERT INTO runs (id, spec, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET updated_at = excluded.updated_at')
      .run(id, canonicalJson(spec), now, now);
    return new Run(this.#db, id, spec);
  }

  get(id: string): Run | undefined {
    const row = this.#db.prepare('SELECT spec FROM runs WHERE id = ?').get(id) as { spec: string } | undefined;
    return row ? new Run(this.#db, id, JSON.parse(row.spec) as RunSpec) : undefined;
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

export class Run {
  readonly id: string;
  readonly spec: RunSpec;
  readonly #db: Db;
  readonly #save: Statement<unknown[]>;

  constructor(db: Db, id: string, spec: RunSpec) {
    this.#db = db;
    this.id = id;
    this.spec = spec;
    this.#save = db.prepare(
      'INSERT INTO run_records (run_id, stage, item_id, seq, record, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(run_id, stage, item_id) DO UPDATE SET record = excluded.record, seq = excluded.seq',
    );
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
    this.#save.run(this.id, stage, itemId, seq, JSON.stringify(record), new Date().toISOString());
  }

  /** Records of a stage in item order (`seq`), keyed by item id. */
  records<T>(stage: string): Map<string, T> {
    const rows = this.#db.prepare('SELECT item_id, record FROM run_records WHERE run_id = ? AND stage = ? ORDER BY seq').all(this.id, stage) as Array<{ item_id: string; record: string }>;
    return new Map(rows.map((r) => [r.item_id, JSON.parse(r.record) as T]));
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
