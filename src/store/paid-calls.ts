/**
 * Which run paid for a cached call: the `run_paid_calls` table (schema: database.ts). A call made
 * for a run is written with its cache entry, in the same journal frame or transaction, with the
 * run, the role and this process's token, so no kill can lose what a run paid for, and a run
 * resumed in another process tells the calls its killed process paid for (this run's calls, with
 * their tokens) from calls another run paid for (cache hits).
 */
import { randomBytes } from 'node:crypto';
import type { Db } from './database.js';

/** This process, as the ledger names it: tells calls paid by an earlier process of a run from its own. */
export const PROCESS_TOKEN = `${process.pid}~${randomBytes(6).toString('hex')}`;

/** Who paid for a call: the run and role it was made for, the process, the requests it took (retries included). */
export interface CallPayer {
  run: string;
  role: string;
  process: string;
  requests: number;
}

/** What a run's calls of one role cost, from the ledger. */
export interface PaidCalls {
  calls: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
}

const INSERT_SQL = 'INSERT OR IGNORE INTO run_paid_calls (run_id, key, role, process, requests, prompt_tokens, completion_tokens) VALUES (?, ?, ?, ?, ?, ?, ?)';

/** The statement that writes a ledger row (inside the caller's transaction). */
export function paidCallInsert(db: Db): (key: Buffer, payer: CallPayer, promptTokens: number, completionTokens: number) => void {
  const insert = db.prepare(INSERT_SQL);
  return (key, payer, promptTokens, completionTokens) => {
    insert.run(payer.run, key, payer.role, payer.process, payer.requests, promptTokens, completionTokens);
  };
}

/** Whether an earlier process (not this one) paid for this call for this run. */
export function paidEarlier(db: Db): (run: string, key: string) => boolean {
  const find = db.prepare('SELECT 1 FROM run_paid_calls WHERE run_id = ? AND key = ? AND process <> ?').pluck();
  return (run, key) => find.get(run, Buffer.from(key, 'hex'), PROCESS_TOKEN) !== undefined;
}

/** What a run's calls cost per role, from the ledger rows in the store. */
export function paidCalls(db: Db, run: string): Record<string, PaidCalls> {
  const rows = db
    .prepare(
      'SELECT role, count(*) AS calls, sum(requests) AS requests, sum(prompt_tokens) AS promptTokens, sum(completion_tokens) AS completionTokens FROM run_paid_calls WHERE run_id = ? GROUP BY role ORDER BY role',
    )
    .all(run) as Array<PaidCalls & { role: string }>;
  return Object.fromEntries(rows.map(({ role, ...c }) => [role, c]));
}
