/**
 * `llmkb merge --from-store`: another store's call cache and runs folded into this one (rows
 * already here are kept; a stage done in either is done).
 */
import { existsSync } from 'node:fs';
import { FileAccessError } from '../errors.js';
import { openDatabase, type Db } from './database.js';

/** Folds another store's call cache and runs into `into` (rows already there are kept). */
export function foldStore(into: Db, file: string): { calls: number; runs: number; records: number } {
  if (!existsSync(file)) throw new FileAccessError(file, `store ${file} not found`, { code: 'ENOENT', hint: 'Give the --store file each shard ran with.' });
  // Opened once on its own first: an older store is brought to the current schema.
  openDatabase(file).close();
  into.prepare('ATTACH DATABASE ? AS shard').run(file);
  try {
    return into.transaction(() => {
      const calls = into
        .prepare(
          'INSERT OR IGNORE INTO calls (key, model, kind, response, prompt_tokens, completion_tokens, latency_ms, created_at, request) SELECT key, model, kind, response, prompt_tokens, completion_tokens, latency_ms, created_at, request FROM shard.calls ORDER BY id',
        )
        .run().changes;
      const runs = into
        .prepare('INSERT OR IGNORE INTO runs (id, spec, created_at, updated_at) SELECT id, spec, created_at, updated_at FROM shard.runs')
        .run().changes;
      into
        .prepare(`INSERT INTO run_stages (run_id, stage, status, info, updated_at) SELECT run_id, stage, status, info, updated_at FROM shard.run_stages WHERE true
        ON CONFLICT(run_id, stage) DO UPDATE SET status = CASE WHEN excluded.status = 'done' THEN 'done' ELSE run_stages.status END, info = COALESCE(run_stages.info, excluded.info)`)
        .run();
      const records = into
        .prepare(
          'INSERT OR IGNORE INTO run_records (run_id, stage, item_id, seq, record, created_at) SELECT run_id, stage, item_id, seq, record, created_at FROM shard.run_records',
        )
        .run().changes;
      into
        .prepare(
          'INSERT OR IGNORE INTO run_paid_calls (run_id, key, role, process, requests, prompt_tokens, completion_tokens) SELECT run_id, key, role, process, requests, prompt_tokens, completion_tokens FROM shard.run_paid_calls',
        )
        .run();
      return { calls: Number(calls), runs: Number(runs), records: Number(records) };
    })();
  } finally {
    into.prepare('DETACH DATABASE shard').run();
  }
}
