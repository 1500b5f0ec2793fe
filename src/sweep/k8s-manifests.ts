/**
 * `llmkb sweep STUDY --k8s`: the study as two batch/v1 Jobs, written as YAML and never applied.
 * The shards are an Indexed Job (`completionMode: Indexed`, one completion per shard; a pod finds
 * its shard from JOB_COMPLETION_INDEX and LLMKB_SHARD_COUNT, each shard retried on its own
 * (`backoffLimitPerIndex`) without stopping the others); the merge is a plain Job, applied once
 * the Indexed Job has ended (Kubernetes has no dependency between Jobs). Every pod mounts the
 * PersistentVolumeClaim that holds the study's folder, so the shards' folders meet there.
 */
import { posix, relative } from 'node:path';
import { stringify } from 'yaml';
import { LlmkbError } from '../errors.js';
import type { ClusterSettings } from './cluster-config.js';
import { SHARD_STORE, SHARDS_FOLDER } from './cluster-layout.js';
import { shellWord } from './slurm-scripts.js';

export interface K8sJob {
  name: string;
  /** The study file and results folder on this machine (the results folder's place relative to the study's folder is kept). */
  studyFile: string;
  studyDir: string;
  resultsDir: string;
  count: number;
  /** `sweep` options for the shards (`--limit 6`), as words. */
  sweepArgs: string[];
}

export type K8sSettings = NonNullable<ClusterSettings['kubernetes']>;
type Resources = Pick<ClusterSettings, 'gpus' | 'cpus' | 'mem' | 'time' | 'setup'>;

/** An RFC 1123 label for the Jobs' names (at most 63 characters with the suffix). */
function objectName(name: string, suffix: string): string {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63 - suffix.length - 7) || 'study';
  return `llmkb-${base}${suffix}`.replace(/-+$/, '');
}

/** Slurm's sizes (64G: GiB) as Kubernetes quantities (64Gi); a bare number is MiB, as in Slurm. */
export function memoryQuantity(mem: string): string {
  const m = /^(\d+)([KMGT]?)$/.exec(mem)!;
  return `${m[1]}${m[2] ? `${m[2]}i` : 'Mi'}`;
}

/** Slurm's time limits (minutes, H:M:S, D-H:M:S) in seconds. */
export function timeSeconds(time: string): number {
  const m = /^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$/.exec(time)!;
  const days = Number(m[1] ?? 0);
  const parts = [m[2], m[3], m[4]].filter((p) => p !== undefined).map(Number);
  // Slurm: "M", "M:S", "H:M:S"; with days: "D-H", "D-H:M", "D-H:M:S".
  const [h, min, s] = m[1] !== undefined ? [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0] : parts.length === 3 ? parts : [0, parts[0] ?? 0, parts[1] ?? 0];
  return ((days * 24 + h!) * 60 + min!) * 60 + s!;
}

export function k8sManifests(
  job: K8sJob,
  k: K8sSettings | undefined,
  r: Resources,
  image: string | undefined,
): { shards: string; merge: string; names: { shards: string; merge: string } } {
  const theImage = image ?? k?.image;
  if (!theImage || !k?.claim) {
    throw new LlmkbError(
      `--k8s needs the container image and the PersistentVolumeClaim that holds the study's folder${theImage ? '' : ' (no image)'}${k?.claim ? '' : ' (no claim)'}`,
      {
        hint: 'Add to the study: cluster: { kubernetes: { image: registry/llmkb:1, claim: my-pvc } } (the claim mounted at /work holds the study file), or give --image.',
      },
    );
  }
  const mount = k.mountPath ?? '/work';
  const studyInPod = k.study ?? posix.join(mount, job.studyFile.replace(/^.*[\\/]/, ''));
  const resultsInPod = posix.join(posix.dirname(studyInPod), relative(job.studyDir, job.resultsDir).split(/[\\/]/).join('/'));
  const shardsInPod = posix.join(resultsInPod, SHARDS_FOLDER);
  const llmkb = k.command ?? 'llmkb';
  const setup = (r.setup ?? []).map((l) => `${l}\n`).join('');
  const extra = job.sweepArgs.length ? ` ${job.sweepArgs.map(shellWord).join(' ')}` : '';
  const shardScript = `${setup}set -eu\ndir=${shellWord(shardsInPod)}/shard-$((JOB_COMPLETION_INDEX + 1))-of-${job.count}\nmkdir -p "$dir"\nexec ${llmkb} --store "$dir/${SHARD_STORE}" sweep ${shellWord(studyInPod)} --shard auto --out "$dir"${extra}\n`;
  const mergeScript = `${setup}set -eu\nexec ${llmkb} --store ${shellWord(posix.join(resultsInPod, 'store.sqlite'))} sweep ${shellWord(studyInPod)} --merge-shards --shard-count ${job.count} --out ${shellWord(resultsInPod)}\n`;
  const names = { shards: objectName(job.name, '-shards'), merge: objectName(job.name, '-merge') };
  const labels = { 'app.kubernetes.io/name': 'llmkb', 'app.kubernetes.io/part-of': objectName(job.name, '') };
  const gpuKey = k.gpuResource ?? 'nvidia.com/gpu';
  const requests: Record<string, string> = {
    ...(r.cpus ? { cpu: String(r.cpus) } : {}),
    ...(r.mem ? { memory: memoryQuantity(r.mem) } : {}),
    ...(r.gpus ? { [gpuKey]: String(r.gpus) } : {}),
  };
  // Extended resources (GPUs) must be given as limits; memory gets a limit so a pod cannot take a node's.
  const limits: Record<string, string> = { ...(r.mem ? { memory: memoryQuantity(r.mem) } : {}), ...(r.gpus ? { [gpuKey]: String(r.gpus) } : {}) };
  const volume = { name: 'study', persistentVolumeClaim: { claimName: k.claim } };
  const container = (script: string, env: Array<{ name: string; value: string }>, withResources: boolean) => ({
    name: 'llmkb',
    image: theImage,
    workingDir: mount,
    command: ['/bin/sh', '-c', script],
    ...(env.length ? { env } : {}),
    ...(withResources && (Object.keys(requests).length || Object.keys(limits).length)
      ? { resources: { ...(Object.keys(requests).length ? { requests } : {}), ...(Object.keys(limits).length ? { limits } : {}) } }
      : {}),
    volumeMounts: [{ name: 'study', mountPath: mount }],
  });
  const metadata = (name: string) => ({ name, ...(k.namespace ? { namespace: k.namespace } : {}), labels });
  const shards = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata(names.shards),
    spec: {
      completionMode: 'Indexed',
      completions: job.count,
      parallelism: Math.min(job.count, k.parallelism ?? job.count),
      backoffLimitPerIndex: k.retries ?? 1,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          ...(r.time ? { activeDeadlineSeconds: timeSeconds(r.time) } : {}),
          containers: [container(shardScript, [{ name: 'LLMKB_SHARD_COUNT', value: String(job.count) }], true)],
          volumes: [volume],
        },
      },
    },
  };
  const merge = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata(names.merge),
    spec: {
      completions: 1,
      parallelism: 1,
      backoffLimit: 0,
      template: { metadata: { labels }, spec: { restartPolicy: 'Never', containers: [container(mergeScript, [], false)], volumes: [volume] } },
    },
  };
  const head = (what: string) => `# ${what}\n# Written by \`llmkb sweep --k8s\` for ${job.studyFile}; apply it with kubectl apply -f.\n`;
  return {
    shards: `${head(`The study's ${job.count} shard(s) as an Indexed Job; then, when it has ended, apply merge-job.yaml.`)}${stringify(shards, { lineWidth: 0 })}`,
    merge: `${head("Merges the shards into the study's results folder, once the Indexed Job has ended.")}${stringify(merge, { lineWidth: 0 })}`,
    names,
  };
}
