/**
 * Writes the study's Slurm scripts or Kubernetes manifests into its results folder and, for
 * Slurm, submits them: the array with `sbatch --parsable`, then the merge job with
 * `--dependency=afterany:<array>` (it runs however the tasks end, merges what finished and names
 * what did not). Nothing is applied to Kubernetes: it has no dependency between Jobs, and a
 * cluster's credentials are the user's to use.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { makeFolder, writeFileAtomic } from '../io/files.js';
import { LlmkbError } from '../errors.js';
import { k8sManifests, type K8sJob, type K8sSettings } from './k8s-manifests.js';
import { slurmFiles, slurmScripts, type ClusterJob, type TaskResources } from './slurm-scripts.js';
import type { ClusterSettings } from './cluster-config.js';

export function writeSlurmScripts(job: ClusterJob, resources: TaskResources): { shards: string; merge: string; logs: string } {
  const files = slurmFiles(job.resultsDir);
  // Slurm does not make the folder of --output: a task whose log folder is missing fails unseen.
  makeFolder(files.logs);
  const scripts = slurmScripts(job, resources);
  writeFileAtomic(files.shards, scripts.shards);
  writeFileAtomic(files.merge, scripts.merge);
  for (const f of [files.shards, files.merge]) chmodSync(f, 0o755);
  return { shards: files.shards, merge: files.merge, logs: files.logs };
}

function sbatch(args: string[], what: string): string {
  const r = spawnSync('sbatch', ['--parsable', ...args], { encoding: 'utf8' });
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new LlmkbError(missing ? 'sbatch is not on PATH: this machine cannot submit Slurm jobs' : `sbatch could not be run: ${r.error.message}`, {
      hint: 'Run the command on a login node of the cluster, or add --dry-run to write the scripts only and submit them there (sbatch shards.sbatch, then sbatch --dependency=afterany:<its id> merge.sbatch).',
    });
  }
  const id = /^(\d+)(;\S+)?\s*$/.exec(r.stdout ?? '')?.[1];
  if (r.status !== 0 || id === undefined) {
    throw new LlmkbError(`sbatch refused the ${what} (exit ${r.status}): ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ')}`, {
      hint: "Check the partition, account and resources in the study's cluster: section (or the flags), and the script it names.",
    });
  }
  return id;
}

export function submitSlurm(files: { shards: string; merge: string }): { arrayId: string; mergeId: string } {
  const arrayId = sbatch([files.shards], 'array of shards');
  let mergeId: string;
  try {
    mergeId = sbatch([`--dependency=afterany:${arrayId}`, files.merge], 'merge job');
  } catch (error) {
    if (error instanceof LlmkbError)
      throw new LlmkbError(`${error.message} (the array is submitted as job ${arrayId})`, {
        hint: `Submit the merge by hand: sbatch --dependency=afterany:${arrayId} ${files.merge}`,
      });
    throw error;
  }
  return { arrayId, mergeId };
}

export const K8S_FOLDER = 'kubernetes';

export function writeK8sManifests(
  job: K8sJob,
  cluster: ClusterSettings | undefined,
  resources: Pick<ClusterSettings, 'gpus' | 'cpus' | 'mem' | 'time' | 'setup'>,
  image: string | undefined,
): { shards: string; merge: string; names: { shards: string; merge: string } } {
  const manifests = k8sManifests(job, cluster?.kubernetes as K8sSettings | undefined, resources, image);
  const dir = join(job.resultsDir, K8S_FOLDER);
  makeFolder(dir);
  const files = { shards: join(dir, 'shards-job.yaml'), merge: join(dir, 'merge-job.yaml') };
  writeFileAtomic(files.shards, manifests.shards);
  writeFileAtomic(files.merge, manifests.merge);
  return { ...files, names: manifests.names };
}
