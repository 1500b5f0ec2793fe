import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXIT_CODES, LlmkbError } from '../errors.js';
import { shardFromEnvironment, type ShardAutoOptions } from './shard-auto.js';

const study: ShardAutoOptions = { units: 4, unitNoun: 'runs' };
const array = (id: number, min: number, max: number, count = max - min + 1) => ({
  SLURM_ARRAY_TASK_ID: String(id),
  SLURM_ARRAY_TASK_MIN: String(min),
  SLURM_ARRAY_TASK_MAX: String(max),
  SLURM_ARRAY_TASK_COUNT: String(count),
  SLURM_ARRAY_JOB_ID: '77',
});

function refusal(env: NodeJS.ProcessEnv, options: ShardAutoOptions = study): LlmkbError {
  try {
    shardFromEnvironment(env, options);
  } catch (error) {
    assert.ok(error instanceof LlmkbError, String(error));
    assert.equal(error.exitCode, EXIT_CODES.usage);
    return error;
  }
  assert.fail(`no refusal for ${JSON.stringify(env)}`);
}

describe('--shard auto', () => {
  it("a Slurm array task: index from the task id and the array's first id, count from the array", () => {
    assert.deepEqual(shardFromEnvironment(array(1, 0, 1), study), { index: 2, count: 2, source: 'Slurm array task 1 of 0-1' });
    assert.deepEqual(shardFromEnvironment(array(0, 0, 3), study), { index: 1, count: 4, source: 'Slurm array task 0 of 0-3' });
    assert.equal(shardFromEnvironment(array(3, 1, 4), study).index, 3, 'a 1-based array: ids 1-4 are shards 1-4');
  });

  it('a task re-submitted on its own (sbatch --array=2) with the count given stays the shard it was', () => {
    assert.deepEqual(shardFromEnvironment(array(2, 2, 2), { ...study, count: 4 }), { index: 3, count: 4, source: 'Slurm array task 2 of 2-2' });
    assert.equal(shardFromEnvironment(array(3, 1, 3), { ...study, studyShards: 4, count: 4 }).index, 4);
    assert.equal(shardFromEnvironment({ ...array(1, 1, 1), LLMKB_SHARD_COUNT: '2' }, study).index, 2, 'the count from LLMKB_SHARD_COUNT');
  });

  it('a pod of a Kubernetes Indexed Job: index from JOB_COMPLETION_INDEX, count from the flag or LLMKB_SHARD_COUNT', () => {
    assert.deepEqual(shardFromEnvironment({ JOB_COMPLETION_INDEX: '0', LLMKB_SHARD_COUNT: '3' }, study), {
      index: 1,
      count: 3,
      source: 'Kubernetes completion index 0',
    });
    assert.deepEqual(shardFromEnvironment({ JOB_COMPLETION_INDEX: '2' }, { ...study, count: 3 }).index, 3);
  });

  it('refuses, saying what to set: neither, both, no count for a pod, bad numbers', () => {
    assert.match(refusal({}).message, /neither SLURM_ARRAY_TASK_ID \(a Slurm array task\) nor JOB_COMPLETION_INDEX/);
    assert.match(refusal({ SLURM_JOB_ID: '5' }).hint!, /not an array has no task id/);
    assert.match(refusal({ ...array(0, 0, 1), JOB_COMPLETION_INDEX: '0' }).message, /both SLURM_ARRAY_TASK_ID \(0\) and JOB_COMPLETION_INDEX \(0\) are set/);
    const pod = refusal({ JOB_COMPLETION_INDEX: '1' });
    assert.match(pod.message, /gives this pod's index but not how many shards/);
    assert.match(pod.hint!, /--shard-count N, or set LLMKB_SHARD_COUNT=N/);
    assert.match(refusal({ JOB_COMPLETION_INDEX: '3', LLMKB_SHARD_COUNT: '3' }).message, /JOB_COMPLETION_INDEX 3 is no shard of 3/);
    assert.match(refusal({ SLURM_ARRAY_TASK_ID: 'x1' }).message, /SLURM_ARRAY_TASK_ID="x1" is not a whole number/);
    assert.match(refusal({ SLURM_ARRAY_TASK_ID: '1' }).message, /not SLURM_ARRAY_TASK_MIN and _MAX/);
    assert.match(refusal({ JOB_COMPLETION_INDEX: '0', LLMKB_SHARD_COUNT: '0' }).message, /LLMKB_SHARD_COUNT=0/);
  });

  it('refuses an array that does not match the study: a step or list, ids beyond the count, another cluster.shards, more shards than runs', () => {
    assert.match(refusal(array(2, 0, 6, 4)).message, /the array 0-6 has 4 tasks, not 7: a step/);
    assert.match(refusal(array(5, 4, 5), { ...study, count: 4 }).message, /array task ids 4-5 do not fit 4 shards/);
    const other = refusal(array(0, 0, 2), { ...study, studyShards: 4 });
    assert.match(other.message, /Slurm array task 0 of 0-2 makes 3 shards, but the study's cluster.shards is 4/);
    assert.match(other.hint!, /--array=0-3/);
    const big = refusal(array(0, 0, 5), { units: 2, unitNoun: 'models' });
    assert.match(big.message, /6 shards, but the study has 2 models: shards 3-6 would run nothing/);
    assert.match(refusal(array(9, 0, 3)).message, /outside the array 0-3/);
  });
});
