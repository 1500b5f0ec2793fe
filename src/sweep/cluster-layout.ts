/**
 * Where a study run on a cluster keeps its files, inside its results folder RESULTS:
 *
 *   RESULTS/shards/shard-I-of-N/   a shard's results (as `sweep --out` writes them) and its own
 *                                   store (store.sqlite): shards never write to the same file
 *   RESULTS/slurm/                  shards.sbatch, merge.sbatch, logs/ (one log per array task)
 *   RESULTS/kubernetes/             shards-job.yaml, merge-job.yaml
 *   RESULTS/store.sqlite            the merge job's store: every shard's runs and cached calls
 *   RESULTS/...                     the merged results: what a one-machine sweep writes
 */
import { join } from 'node:path';
import { LlmkbError } from '../errors.js';
import { shardUnits } from './study-jobs.js';
import type { Study } from './study.js';

export const SHARDS_FOLDER = 'shards';

export function shardFolderName(index: number, count: number): string {
  return `shard-${index}-of-${count}`;
}

export function shardFolder(resultsDir: string, index: number, count: number): string {
  return join(resultsDir, SHARDS_FOLDER, shardFolderName(index, count));
}

export const SHARD_STORE = 'store.sqlite';

export function mergedStore(resultsDir: string): string {
  return join(resultsDir, 'store.sqlite');
}

/** What the split deals out, for messages. */
export function unitNoun(study: Study): string {
  return study.cluster?.split === 'model' ? 'models' : 'runs';
}

/**
 * The study's shard count: `--shard-count`, else its `cluster.shards`, else one shard per run (or
 * per model with `split: model`). More shards than that would leave some with nothing to run.
 */
export function clusterShardCount(study: Study, flag: number | undefined): number {
  const units = shardUnits(study);
  const count = flag ?? study.cluster?.shards ?? units;
  if (flag !== undefined && study.cluster?.shards !== undefined && flag !== study.cluster.shards) {
    throw new LlmkbError(`--shard-count ${flag}, but the study's cluster.shards is ${study.cluster.shards}`, {
      hint: 'Give the same number, or leave --shard-count out.',
    });
  }
  if (count > units) {
    throw new LlmkbError(
      `${count} shards, but the study has ${units} ${unitNoun(study)}: ${count === units + 1 ? `shard ${count}` : `shards ${units + 1}-${count}`} would run nothing`,
      { hint: `Use at most ${units} shards (--shard-count, or cluster.shards in the study).` },
    );
  }
  return count;
}
