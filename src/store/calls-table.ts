/**
 * Rows of the store's `calls` table (its schema: database.ts) and the statements that write and
 * look them up.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';
import { paidCallInsert, type CallPayer } from './paid-calls.js';

/** One call as stored: the columns of `calls`. */
export interface CallRow {
  /** The 32 bytes of the cache key. */
  key: Buffer;
  model: string;
  kind: string;
  /** Raw DEFLATE of the request's canonical JSON. */
  request: Buffer;
  /** The response as JSON text. */
  response: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  createdAt: string;
  /** The run that paid for the call (written to `run_paid_calls` in the same transaction); none for a call no run paid for. */
  payer?: CallPayer | undefined;
}

const INSERT_SQL =
  'INSERT OR REPLACE INTO calls (key, model, kind, request, response, prompt_tokens, completion_tokens, latency_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';

/**
 * Writes rows into `calls` in one transaction, in the order given; a key written twice keeps its
 * last row. The table appends rows in rowid order, so calls given in the order they were answered
 * (as the call journal gives them) share table pages with the calls made close to them, which a
 * re-run looks up in about that order: it reads each page once while it is in the page cache.
 */
export function insertRows(db: Db, rows: Iterable<CallRow>): void {
  const insert = db.prepare(INSERT_SQL);
  let paid: ReturnType<typeof paidCallInsert> | undefined;
  db.transaction(() => {
    for (const r of rows) {
      insert.run(r.key, r.model, r.kind, r.request, r.response, r.promptTokens, r.completionTokens, r.latencyMs, r.createdAt);
      if (r.payer) (paid ??= paidCallInsert(db))(r.key, r.payer, r.promptTokens, r.completionTokens);
    }
  })();
}

/** A found call as an array (response JSON, prompt tokens, completion tokens, latency): cheaper to make than a row object. */
export type LookupRow = [response: string, promptTokens: number, completionTokens: number, latencyMs: number];

export type LookupStatement = Statement<[Buffer], LookupRow>;

/** The statement that finds a call by its 32-byte key. */
export function lookupStatement(db: Db): LookupStatement {
  return db.prepare('SELECT response, prompt_tokens, completion_tokens, latency_ms FROM calls WHERE key = ?').raw(true) as unknown as LookupStatement;
}
