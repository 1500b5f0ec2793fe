/**
 * The two `sbatch` scripts of `llmkb sweep STUDY --slurm`: an array with one task per shard
 * (each in its own folder with its own store, so tasks never write to the same file, and a task
 * run again resumes from its store), and a merge job, submitted with
 * `--dependency=afterany:<array>`, that folds what finished into the study's results folder and
 * names the shards that did not.
 */
import { join } from 'node:path';
import type { ClusterSettings } from './cluster-config.js';
import { mergedStore, SHARD_STORE, SHARDS_FOLDER } from './cluster-layout.js';

/** One word for the shell, quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A task's resources: the study's `cluster:` section with the command line's flags over it. */
export type TaskResources = Pick<ClusterSettings, 'gpus' | 'cpus' | 'mem' | 'time' | 'setup'> & NonNullable<ClusterSettings['slurm']>;

export interface ClusterJob {
  /** The study's name: the jobs' names. */
  name: string;
  studyFile: string;
  resultsDir: string;
  count: number;
  /** The folder the tasks start in (where the command was given). */
  cwd: string;
  /** How a task runs llmkb, as shell text (e.g. `'/usr/bin/node' '/opt/llmkb/bin/llmkb.js'`). */
  llmkb: string;
  /** llmkb's global options for every task (`--config FILE`, `--no-cache`), as words. */
  globalArgs: string[];
  /** `sweep` options for the shards (`--limit 6`, `--batch`), as words. */
  sweepArgs: string[];
}

export const SLURM_FOLDER = 'slurm';

export function slurmFiles(resultsDir: string): { dir: string; shards: string; merge: string; logs: string } {
  const dir = join(resultsDir, SLURM_FOLDER);
  return { dir, shards: join(dir, 'shards.sbatch'), merge: join(dir, 'merge.sbatch'), logs: join(dir, 'logs') };
}

/** A Slurm job name from the study's name. */
function jobName(name: string): string {
  return `llmkb-${name.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60)}`;
}

function header(_job: ClusterJob, r: TaskResources, lines: string[], forMerge: boolean): string[] {
  const out = [...lines];
  if (r.partition) out.push(`#SBATCH --partition=${r.partition}`);
  if (r.account) out.push(`#SBATCH --account=${r.account}`);
  if (r.qos) out.push(`#SBATCH --qos=${r.qos}`);
  if (!forMerge) {
    if (r.time) out.push(`#SBATCH --time=${r.time}`);
    if (r.gpus) out.push(`#SBATCH --gres=gpu:${r.gpus}`);
    if (r.cpus) out.push(`#SBATCH --cpus-per-task=${r.cpus}`);
    if (r.mem) out.push(`#SBATCH --mem=${r.mem}`);
  }
  // The user's own lines, as they wrote them.
  out.push(...((forMerge ? r.mergeExtra : r.extra) ?? []));
  return out;
}

function body(job: ClusterJob, r: TaskResources): string[] {
  return ['set -euo pipefail', `cd ${shellWord(job.cwd)}`, ...(r.setup ?? [])];
}

export function slurmScripts(job: ClusterJob, r: TaskResources): { shards: string; merge: string } {
  const files = slurmFiles(job.resultsDir);
  const name = jobName(job.name);
  const shardsDir = join(job.resultsDir, SHARDS_FOLDER);
  const shards = [
    '#!/bin/bash',
    `# llmkb sweep ${job.studyFile}: ${job.count} shard(s) as a Slurm job array, one task per shard, each`,
    `# with its own results folder and store under ${shardsDir}.`,
    '# Written by `llmkb sweep --slurm`; merge.sbatch runs after the array (--dependency=afterany).',
    '# Run a task again (it resumes from its store): sbatch --array=K shards.sbatch; then sbatch merge.sbatch.',
    ...header(
      job,
      r,
      [
        `#SBATCH --job-name=${name}`,
        `#SBATCH --array=0-${job.count - 1}`,
        `#SBATCH --output=${join(files.logs, 'shard-%a.out')}`,
        '#SBATCH --open-mode=append',
      ],
      false,
    ),
    ...body(job, r),
    'shard=$((SLURM_ARRAY_TASK_ID + 1))',
    `dir=${shellWord(shardsDir)}/shard-$shard-of-${job.count}`,
    'mkdir -p "$dir"',
    `exec ${job.llmkb} ${[...job.globalArgs.map(shellWord), '--store', `"$dir/${SHARD_STORE}"`].join(' ')} sweep ${shellWord(job.studyFile)} --shard auto --shard-count ${job.count} --out "$dir"${job.sweepArgs.length ? ` ${job.sweepArgs.map(shellWord).join(' ')}` : ''}`,
    '',
  ].join('\n');
  const merge = [
    '#!/bin/bash',
    `# llmkb sweep ${job.studyFile}: merges the shards under ${shardsDir} into ${job.resultsDir}`,
    '# (the report, tables and summaries one machine writes), naming the shards that did not finish.',
    '# Submitted by `llmkb sweep --slurm` with --dependency=afterany:<the array job>.',
    ...header(job, r, [`#SBATCH --job-name=${name}-merge`, `#SBATCH --output=${join(files.logs, 'merge.out')}`, '#SBATCH --open-mode=append'], true),
    ...body(job, r),
    `exec ${job.llmkb} ${[...job.globalArgs, '--store', mergedStore(job.resultsDir)].map(shellWord).join(' ')} sweep ${shellWord(job.studyFile)} --merge-shards --shard-count ${job.count} --out ${shellWord(job.resultsDir)}`,
    '',
  ].join('\n');
  return { shards, merge };
}
