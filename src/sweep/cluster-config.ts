/**
 * What a study file says about running on a cluster: its `cluster:` section (how many shards,
 * split by run or by model, each task's resources, the Slurm and Kubernetes particulars) and a
 * model's `serve:` command (the task starts the model's own server on a free port). Neither
 * changes the results: the study's fingerprint leaves them out.
 */
import { z } from 'zod';

/** A model's own server, started by the task that runs it: `{port}` is replaced by a free port. */
export const serveSchema = z
  .object({
    /** A shell command that serves the model on `{port}` (e.g. `vllm serve MODEL --port {port}`). */
    command: z
      .string()
      .min(1)
      .regex(/\{port\}/, 'must contain {port}: the task picks a free port and puts it there'),
    /** A URL that answers 2xx once the server is ready (default http://127.0.0.1:{port}/v1/models). */
    health: z
      .string()
      .regex(/^https?:\/\/\S+$/, 'must be an http(s) URL, e.g. http://127.0.0.1:{port}/v1/models')
      .optional(),
    /** Seconds to wait for the health URL (default 900: a large model loads for minutes). */
    timeout: z.number().positive().max(86_400).optional(),
  })
  .strict();
export type ServeSettings = z.infer<typeof serveSchema>;

/** A value that goes into an `#SBATCH --name=value` line as it is: no spaces, quotes or line breaks. */
const slurmWord = z.string().regex(/^[A-Za-z0-9._,:@+%=/-]+$/, 'letters, digits and . _ , : @ + % = / - only');

const slurmSchema = z
  .object({
    partition: slurmWord.optional(),
    account: slurmWord.optional(),
    qos: slurmWord.optional(),
    /** `#SBATCH` lines of the user's own, written into the array's script as they are. */
    extra: z.array(z.string().regex(/^#SBATCH\s+\S/, 'must be a line starting with "#SBATCH ", e.g. "#SBATCH --constraint=a100"')).optional(),
    /** `#SBATCH` lines for the merge job alone (it needs no GPU). */
    mergeExtra: z.array(z.string().regex(/^#SBATCH\s+\S/, 'must be a line starting with "#SBATCH "')).optional(),
  })
  .strict();

const kubernetesSchema = z
  .object({
    /** The container image, with llmkb (and the model servers) installed. */
    image: z.string().min(1).regex(/^\S+$/, 'an image name without spaces'),
    /** The PersistentVolumeClaim that holds the study's folder (and its results), shared by every pod. */
    claim: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'a Kubernetes object name (lower case, digits, "-", ".")'),
    /** Where the claim is mounted in the container (default /work). */
    mountPath: z
      .string()
      .regex(/^\/\S*$/, 'an absolute path')
      .optional(),
    /** The study file's path in the container (default: MOUNT/<the study file's name>). */
    study: z
      .string()
      .regex(/^\/\S*$/, 'an absolute path')
      .optional(),
    namespace: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'a Kubernetes namespace name')
      .optional(),
    /** Retries of a failed shard (the Job's backoffLimitPerIndex; default 1). */
    retries: z.number().int().min(0).max(100).optional(),
    /** Shards running at once (default: all). */
    parallelism: z.number().int().min(1).optional(),
    /** The extended resource a GPU is (default nvidia.com/gpu). */
    gpuResource: z
      .string()
      .regex(/^[a-z0-9.-]+\/[a-z0-9.-]+$/, 'a resource name such as nvidia.com/gpu')
      .optional(),
    /** How the container runs llmkb (default: llmkb). */
    command: z.string().min(1).optional(),
  })
  .strict();

export const clusterSchema = z
  .object({
    /** Shards of the study (default: one per run, or one per model with `split: model`). */
    shards: z.number().int().min(1).max(100_000).optional(),
    /** `run`: every n-th run (default); `model`: every n-th model with all its runs (one server start per model). */
    split: z.enum(['run', 'model']).optional(),
    /** Per task: GPUs, CPUs, memory (Slurm style: 64G), time limit (Slurm style: 12:00:00 or 1-00:00:00). */
    gpus: z.number().int().min(0).optional(),
    cpus: z.number().int().min(1).optional(),
    mem: z
      .string()
      .regex(/^\d+[KMGT]?$/, 'a size such as 64G, 512M (Slurm style)')
      .optional(),
    time: z
      .string()
      .regex(/^(\d+-)?\d+(:\d+){0,2}$/, 'a time limit such as 90 (minutes), 12:00:00 or 2-00:00:00')
      .optional(),
    /** Shell lines each task runs before llmkb (module load, a virtualenv). */
    setup: z.array(z.string()).optional(),
    /** How a Slurm task runs llmkb (default: this Node and this llmkb). */
    command: z.string().min(1).optional(),
    slurm: slurmSchema.optional(),
    kubernetes: kubernetesSchema.optional(),
  })
  .strict();
export type ClusterSettings = z.infer<typeof clusterSchema>;
