/** The run store's leases (`run_leases`): which process works on a run. */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { RunBusyError } from '../errors.js';
import { processAlive } from '../io/process-alive.js';
import type { Db } from './database.js';
import { escapeControls } from '../terminal-text.js';

/** How a store's leases behave. */
export interface LeaseOptions {
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
export class Leases {
  readonly #db: Db;
  readonly #options: LeaseOptions;
  readonly #token = `${process.pid}@${hostname()}#${randomUUID().slice(0, 8)}`;
  readonly #held = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(db: Db, options: LeaseOptions) {
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
        (this.#options.log ?? ((line: string) => process.stderr.write(`${escapeControls(line)}\n`)))(
          `waiting for run ${runId}: another llmkb process holds it (${who})`,
        );
        announced = true;
      }
      await sleep(LEASE_POLL_MS);
    }
  }

  /** Whether a live process holds the run's lease (a lease past its time, or of a dead process on this host, does not count). */
  working(runId: string): boolean {
    const row = this.#db.prepare('SELECT pid, host, expires_at FROM run_leases WHERE run_id = ?').get(runId) as
      | { pid: number; host: string; expires_at: number }
      | undefined;
    if (row === undefined || row.expires_at < Date.now()) return false;
    return row.host !== hostname() || row.pid === process.pid || processAlive(row.pid);
  }

  /** Current holder of a run's lease, if any (expired or not). */
  holder(runId: string): LeaseHolder | undefined {
    const row = this.#db.prepare('SELECT owner, pid, host, acquired_at, heartbeat_at FROM run_leases WHERE run_id = ?').get(runId) as
      | { owner: string; pid: number; host: string; acquired_at: string; heartbeat_at: string }
      | undefined;
    return row && { owner: row.owner, pid: row.pid, host: row.host, acquiredAt: row.acquired_at, heartbeatAt: row.heartbeat_at };
  }

  /** undefined: acquired; else the live holder. One IMMEDIATE transaction: two processes cannot both win. */
  #tryAcquire(runId: string): LeaseHolder | undefined {
    const host = hostname();
    return this.#db
      .transaction((): LeaseHolder | undefined => {
        const row = this.#db.prepare('SELECT owner, pid, host, acquired_at, heartbeat_at, expires_at FROM run_leases WHERE run_id = ?').get(runId) as
          | { owner: string; pid: number; host: string; acquired_at: string; heartbeat_at: string; expires_at: number }
          | undefined;
        const now = Date.now();
        const free = row === undefined || row.expires_at < now || (row.host === host && (row.pid === process.pid || !processAlive(row.pid)));
        if (!free) return { owner: row.owner, pid: row.pid, host: row.host, acquiredAt: row.acquired_at, heartbeatAt: row.heartbeat_at };
        const iso = new Date(now).toISOString();
        this.#db
          .prepare(
            'INSERT INTO run_leases (run_id, owner, pid, host, acquired_at, heartbeat_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at',
          )
          .run(runId, this.#token, process.pid, host, iso, iso, now + this.#ttl);
        return undefined;
      })
      .immediate();
  }

  #startHeartbeat(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#heartbeat(), Math.max(50, Math.floor(this.#ttl / 4)));
    // The heartbeat alone never keeps a process alive.
    this.#timer.unref();
  }

  #heartbeat(): void {
    if (!this.#db.open) {
      this.#stopHeartbeat();
      return;
    }
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
