/**
 * `sweep --shard auto`: which shard this process is, from the scheduler's environment. A Slurm
 * array task has SLURM_ARRAY_TASK_ID (and the array's SLURM_ARRAY_TASK_MIN, _MAX and _COUNT); a
 * pod of a Kubernetes Indexed Job has JOB_COMPLETION_INDEX (0-based), and the shard count comes
 * from `--shard-count` or LLMKB_SHARD_COUNT (the Job's completions). Refused, naming what to set:
 * neither or both set, an array with steps or gaps, ids that do not fit the shard count, and a
 * count that does not match the study (its `cluster.shards`, or more shards than it has runs).
 *
 * With a count given, a task of a 0-based array re-submitted on its own (`sbatch --array=3`,
 * whose MIN and MAX are both 3) is still shard 4 of N: the ids are read as 0-based unless the
 * array spans exactly N ids.
 */
import { LlmkbError } from '../errors.js';
import type { Shard } from './study-jobs.js';

export interface ShardAutoOptions {
  /** `--shard-count`. */
  count?: number;
  /** The study's `cluster.shards`. */
  studyShards?: number;
  /** The most shards the study can use (its runs, or its models when split by model). */
  units: number;
  /** What `units` counts, for messages ("runs", "models"). */
  unitNoun: string;
}

export interface AutoShard extends Shard {
  /** Where it came from, for the log: "Slurm array task 3 (0-3)". */
  source: string;
}

const HINT =
  'In a Slurm array (sbatch --array=0-<N-1> ...) or a Kubernetes Indexed Job (completionMode: Indexed), --shard auto finds its shard; elsewhere give --shard i/n.';

function integer(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!/^\s*\d+\s*$/.test(raw)) throw new LlmkbError(`--shard auto: ${name}=${JSON.stringify(raw.slice(0, 40))} is not a whole number`, { hint: HINT });
  return Number(raw);
}

export function shardFromEnvironment(env: NodeJS.ProcessEnv, options: ShardAutoOptions): AutoShard {
  const slurmId = integer(env, 'SLURM_ARRAY_TASK_ID');
  const k8sIndex = integer(env, 'JOB_COMPLETION_INDEX');
  const envCount = integer(env, 'LLMKB_SHARD_COUNT');
  if (envCount === 0) throw new LlmkbError('--shard auto: LLMKB_SHARD_COUNT=0; the shard count is at least 1', { hint: HINT });
  const given = options.count ?? envCount;
  if (slurmId !== undefined && k8sIndex !== undefined) {
    throw new LlmkbError(
      `--shard auto: both SLURM_ARRAY_TASK_ID (${slurmId}) and JOB_COMPLETION_INDEX (${k8sIndex}) are set, so which one names this shard is unclear`,
      { hint: 'Unset the one that does not belong here (a Slurm job inside a pod, or a pod environment copied into a Slurm job), or give --shard i/n.' },
    );
  }
  let shard: AutoShard;
  if (slurmId !== undefined) {
    const min = integer(env, 'SLURM_ARRAY_TASK_MIN');
    const max = integer(env, 'SLURM_ARRAY_TASK_MAX');
    const tasks = integer(env, 'SLURM_ARRAY_TASK_COUNT');
    let base: number;
    let count: number;
    const range = min !== undefined && max !== undefined ? `${min}-${max}` : undefined;
    if (min !== undefined && max !== undefined) {
      const span = max - min + 1;
      if (span < 1 || slurmId < min || slurmId > max)
        throw new LlmkbError(`--shard auto: SLURM_ARRAY_TASK_ID ${slurmId} is outside the array ${range}`, { hint: HINT });
      if (tasks !== undefined && tasks !== span) {
        throw new LlmkbError(
          `--shard auto: the array ${range} has ${tasks} tasks, not ${span}: a step (--array=0-9:2) or a list of ids does not map onto shards`,
          { hint: `Submit the array as one range, --array=0-${(given ?? tasks) - 1}, or give --shard i/n.` },
        );
      }
      count = given ?? span;
      if (span === count) base = min;
      else if (min >= 0 && max <= count - 1) base = 0;
      else
        throw new LlmkbError(`--shard auto: array task ids ${range} do not fit ${count} shards (read as 0-based: 0-${count - 1})`, {
          hint: `Submit the array as --array=0-${count - 1} (re-run single tasks with --array=K, K in 0-${count - 1}), or give --shard-count to match.`,
        });
    } else {
      if (given === undefined)
        throw new LlmkbError('--shard auto: SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_MIN and _MAX, so the number of shards is unknown', {
          hint: 'Give it with --shard-count N (or LLMKB_SHARD_COUNT=N).',
        });
      count = given;
      base = 0;
    }
    const index = slurmId - base + 1;
    if (index < 1 || index > count)
      throw new LlmkbError(`--shard auto: SLURM_ARRAY_TASK_ID ${slurmId} is no shard of ${count} (0-based ids 0-${count - 1})`, { hint: HINT });
    shard = { index, count, source: `Slurm array task ${slurmId}${range ? ` of ${range}` : ''}` };
  } else if (k8sIndex !== undefined) {
    if (given === undefined) {
      throw new LlmkbError("--shard auto: JOB_COMPLETION_INDEX gives this pod's index but not how many shards there are", {
        hint: "Give the Job's completions with --shard-count N, or set LLMKB_SHARD_COUNT=N in the pod's env (the manifests `llmkb sweep --k8s` writes do).",
      });
    }
    if (k8sIndex >= given)
      throw new LlmkbError(`--shard auto: JOB_COMPLETION_INDEX ${k8sIndex} is no shard of ${given} (indexes 0-${given - 1})`, {
        hint: "Make the Job's completions and --shard-count (or LLMKB_SHARD_COUNT) the same number.",
      });
    shard = { index: k8sIndex + 1, count: given, source: `Kubernetes completion index ${k8sIndex}` };
  } else {
    throw new LlmkbError('--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm array task) nor JOB_COMPLETION_INDEX (a pod of a Kubernetes Indexed Job) is set', {
      hint: `${HINT} A Slurm job that is not an array has no task id: submit it with --array, or use llmkb sweep STUDY --slurm.`,
    });
  }
  if (options.studyShards !== undefined && shard.count !== options.studyShards) {
    throw new LlmkbError(`--shard auto: ${shard.source} makes ${shard.count} shards, but the study's cluster.shards is ${options.studyShards}`, {
      hint: `Submit an array of ${options.studyShards} tasks (--array=0-${options.studyShards - 1}), or change cluster.shards in the study.`,
    });
  }
  if (shard.count > options.units) {
    throw new LlmkbError(
      `--shard auto: ${shard.count} shards, but the study has ${options.units} ${options.unitNoun}: ${shard.count === options.units + 1 ? `shard ${shard.count}` : `shards ${options.units + 1}-${shard.count}`} would run nothing`,
      {
        hint: `Submit an array of at most ${options.units} tasks (--array=0-${options.units - 1}), or use llmkb sweep STUDY --slurm, which sizes it from the study.`,
      },
    );
  }
  return shard;
}
