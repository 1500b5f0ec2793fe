/**
 * `llmkb sweep STUDY --merge-shards`: the merge job of a study run on a cluster. It looks for the
 * study's shards in RESULTS/shards/shard-I-of-N (cluster-layout.ts), folds those that finished
 * (their results and stores) into RESULTS as one machine would have written it, and names the
 * shards that left no results and the runs that failed, so the job can end non-zero.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_CODES, LlmkbError } from '../errors.js';
import type { Db } from '../store/database.js';
import { SHARD_STORE, shardFolder } from './cluster-layout.js';
import { mergeResults, type MergeResult } from './merge-results.js';
import type { SweepRecord } from './sweep-record.js';
import { slurmFiles } from './slurm-scripts.js';

export interface ShardMergeResult {
  merge: MergeResult;
  /** 1-based indexes of the shards merged. */
  merged: number[];
  /** Shards without results: `2/4 (array task 1): see RESULTS/slurm/logs/shard-1.out`. */
  missing: string[];
  /** Runs that failed in the shards merged: `label (setting): error`. */
  failed: string[];
}

export async function mergeShards(options: { resultsDir: string; count: number; into: Db; log?: (line: string) => void }): Promise<ShardMergeResult> {
  const { resultsDir, count } = options;
  const merged: number[] = [];
  const missing: string[] = [];
  const failed: string[] = [];
  for (let i = 1; i <= count; i++) {
    const dir = shardFolder(resultsDir, i, count);
    const recordFile = join(dir, `sweep.shard-${i}-of-${count}.json`);
    if (existsSync(recordFile)) {
      merged.push(i);
      try {
        const record = JSON.parse(readFileSync(recordFile, 'utf8')) as SweepRecord;
        for (const j of record.jobs) if (j.status === 'failed') failed.push(`${j.label} (${j.setting}) in shard ${i}/${count}: ${j.error ?? 'failed'}`);
      } catch {
        // mergeResults names a record it cannot read.
      }
      continue;
    }
    const log = join(slurmFiles(resultsDir).logs, `shard-${i - 1}.out`);
    missing.push(`${i}/${count} (array task ${i - 1}, completion index ${i - 1})${existsSync(log) ? `: see ${log}` : ': it left no results'}`);
  }
  if (merged.length === 0) {
    throw new LlmkbError(`none of the ${count} shards under ${join(resultsDir, 'shards')} finished (no sweep.shard-I-of-${count}.json)`, {
      exitCode: EXIT_CODES.model,
      hint: "See the shards' logs (RESULTS/slurm/logs with Slurm, kubectl logs with Kubernetes), fix the cause and run the shards again: each resumes from its own store.",
    });
  }
  const dirs = merged.map((i) => shardFolder(resultsDir, i, count));
  const stores = dirs.map((d) => join(d, SHARD_STORE)).filter((s) => existsSync(s));
  const merge = await mergeResults({ from: dirs, outDir: resultsDir, stores, into: options.into, partial: true, ...(options.log ? { log: options.log } : {}) });
  return { merge, merged, missing, failed };
}
