/**
 * The cluster side of `llmkb sweep` (docs/cluster.md): `--shard auto`, `--slurm` (write and
 * submit the array and merge jobs, `--dry-run` to write them only), `--k8s` (write the Indexed
 * Job and merge Job manifests) and `--merge-shards` (the merge job itself).
 */
import { realpathSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { EXIT_CODES, LlmkbError } from '../errors.js';
import type { Workspace } from '../workspace.js';
import type { Shard } from '../sweep/study-jobs.js';
import type { Study } from '../sweep/study.js';

export interface ClusterFlags {
  shard?: string;
  shardCount?: number;
  slurm?: boolean;
  k8s?: boolean;
  dryRun?: boolean;
  mergeShards?: boolean;
  partition?: string;
  time?: string;
  gpus?: number;
  cpus?: number;
  mem?: string;
  image?: string;
  limit?: number;
  quick?: boolean;
  batch?: boolean;
  plan?: boolean;
}

/** `--shard i/n` or `--shard auto` (from the scheduler's environment, checked against the study). */
export async function resolveShard(opts: ClusterFlags, study: Study, log: (line: string) => void): Promise<Shard | undefined> {
  if (opts.shard === undefined) {
    if (opts.shardCount !== undefined && !opts.slurm && !opts.k8s && !opts.mergeShards)
      throw new LlmkbError('--shard-count goes with --shard auto, --slurm, --k8s or --merge-shards', { hint: 'Give --shard i/n to run one shard by hand.' });
    return undefined;
  }
  const { parseShard, shardUnits } = await import('../sweep/study-jobs.js');
  if (opts.shard.trim() !== 'auto') {
    if (opts.shardCount !== undefined)
      throw new LlmkbError('--shard-count goes with --shard auto; --shard i/n names the count itself', { hint: 'Give --shard i/n alone.' });
    return parseShard(opts.shard);
  }
  const { shardFromEnvironment } = await import('../sweep/shard-auto.js');
  const { unitNoun } = await import('../sweep/cluster-layout.js');
  const auto = shardFromEnvironment(process.env, {
    ...(opts.shardCount === undefined ? {} : { count: opts.shardCount }),
    ...(study.cluster?.shards === undefined ? {} : { studyShards: study.cluster.shards }),
    units: shardUnits(study),
    unitNoun: unitNoun(study),
  });
  log(`--shard auto: shard ${auto.index}/${auto.count} (${auto.source})`);
  return { index: auto.index, count: auto.count };
}

const CONFLICTS: Array<[keyof ClusterFlags, string]> = [
  ['slurm', '--slurm'],
  ['k8s', '--k8s'],
  ['mergeShards', '--merge-shards'],
  ['plan', '--plan'],
];

/** The study's `cluster:` resources with the flags over them, checked as the study's fields are. */
async function resources(study: Study, opts: ClusterFlags) {
  const { clusterSchema } = await import('../sweep/cluster-config.js');
  const c = study.cluster ?? {};
  const merged = {
    ...(c.gpus === undefined && opts.gpus === undefined ? {} : { gpus: opts.gpus ?? c.gpus }),
    ...(c.cpus === undefined && opts.cpus === undefined ? {} : { cpus: opts.cpus ?? c.cpus }),
    ...(c.mem === undefined && opts.mem === undefined ? {} : { mem: opts.mem ?? c.mem }),
    ...(c.time === undefined && opts.time === undefined ? {} : { time: opts.time ?? c.time }),
    ...(c.setup ? { setup: c.setup } : {}),
    slurm: { ...c.slurm, ...(opts.partition === undefined ? {} : { partition: opts.partition }) },
  };
  const checked = clusterSchema.safeParse(merged);
  if (!checked.success) {
    const first = checked.error.issues[0]!;
    throw new LlmkbError(`--${first.path[first.path.length - 1] === 'partition' ? 'partition' : String(first.path[0])}: ${first.message}`, {
      hint: 'See docs/cluster.md for the cluster: section and its flags.',
    });
  }
  const { slurm, ...rest } = checked.data;
  return { ...rest, ...slurm };
}

/** Runs --slurm, --k8s or --merge-shards; false when none is given (a sweep as usual). */
export async function runClusterMode(
  opts: ClusterFlags,
  study: Study,
  outDir: string,
  command: Command,
  workspace: (command: Command) => Workspace,
): Promise<boolean> {
  const modes = CONFLICTS.filter(([k]) => opts[k]);
  const resourceFlags = (['partition', 'time', 'gpus', 'cpus', 'mem', 'image'] as const).filter((k) => opts[k] !== undefined);
  if (resourceFlags.length > 0 && !opts.slurm && !opts.k8s)
    throw new LlmkbError(`--${resourceFlags[0]} goes with --slurm or --k8s`, {
      hint: "Per-task resources are for the cluster's tasks: llmkb sweep STUDY --slurm --gpus 1 (or the study's cluster: section).",
    });
  if (opts.image !== undefined && !opts.k8s) throw new LlmkbError('--image goes with --k8s', { hint: 'The container image is for the Kubernetes manifests.' });
  if (modes.length === 0) {
    if (opts.dryRun)
      throw new LlmkbError('--dry-run goes with --slurm', { hint: 'llmkb sweep STUDY --slurm --dry-run writes the sbatch scripts without submitting them.' });
    return false;
  }
  if (modes.length > 1)
    throw new LlmkbError(`${modes.map(([, f]) => f).join(' and ')} do not go together`, {
      hint: 'Give one of --slurm (submit), --k8s (write manifests), --merge-shards (the merge job), --plan.',
    });
  if (opts.shard !== undefined && !opts.plan)
    throw new LlmkbError(`--shard does not go with ${modes[0]![1]}: the shards are the cluster's to run`, {
      hint: 'Leave --shard out; --shard-count sets how many shards there are.',
    });
  if (opts.dryRun && !opts.slurm) throw new LlmkbError('--dry-run goes with --slurm', { hint: '--k8s writes the manifests only, always.' });
  if (opts.plan) return false;
  const { clusterShardCount } = await import('../sweep/cluster-layout.js');
  const count = clusterShardCount(study, opts.shardCount);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const show = (file: string) => relative(process.cwd(), file) || '.';
  if (opts.mergeShards) {
    const { mergeShards } = await import('../sweep/cluster-merge.js');
    const ws = workspace(command);
    try {
      const r = await mergeShards({ resultsDir: outDir, count, into: ws.db });
      process.stdout.write(r.merge.markdown);
      out(
        `\nmerged ${r.merge.runs} runs from ${r.merged.length} of ${count} shards into ${show(outDir)}; store ${ws.storePath}: +${r.merge.storeRows.calls} cached calls, +${r.merge.storeRows.runs} runs`,
      );
      const problems = [...r.missing.map((m) => `shard ${m}`), ...r.failed];
      if (problems.length > 0) {
        throw new LlmkbError(`${r.missing.length} of ${count} shard(s) missing, ${r.failed.length} run(s) failed: ${problems.join('; ')}`, {
          exitCode: EXIT_CODES.model,
          hint: 'The report covers what finished. Run the missing shards again (each resumes from its own store; with Slurm: sbatch --array=K RESULTS/slurm/shards.sbatch), then this merge again.',
        });
      }
    } finally {
      await ws.close();
    }
    return true;
  }
  const { checkModelFiles } = await import('../sweep/study-plan.js');
  checkModelFiles(study);
  const { unitNoun } = await import('../sweep/cluster-layout.js');
  const globals = command.optsWithGlobals<{ config?: string; cache?: boolean }>();
  const sweepArgs = [
    ...(opts.limit === undefined ? [] : ['--limit', String(opts.limit)]),
    ...(opts.quick ? ['--quick'] : []),
    ...(opts.batch ? ['--batch'] : []),
  ];
  const r = await resources(study, opts);
  const split = `split by ${unitNoun(study) === 'models' ? 'model' : 'run'}`;
  if (opts.k8s) {
    const { writeK8sManifests } = await import('../sweep/cluster-submit.js');
    const files = writeK8sManifests(
      { name: study.name, studyFile: study.file, studyDir: study.dir, resultsDir: outDir, count, sweepArgs },
      study.cluster,
      r,
      opts.image,
    );
    out(`wrote ${show(files.shards)} (an Indexed Job of ${count} shard(s), ${split}) and ${show(files.merge)}; nothing is applied`);
    out(
      `run them: kubectl apply -f ${show(files.shards)}; when job/${files.names.shards} has ended (kubectl wait --for=condition=Complete job/${files.names.shards}, or Failed), kubectl apply -f ${show(files.merge)}`,
    );
    return true;
  }
  const { writeSlurmScripts, submitSlurm } = await import('../sweep/cluster-submit.js');
  const { shellWord } = await import('../sweep/slurm-scripts.js');
  const llmkb = study.cluster?.command ?? [process.execPath, realpathSync(process.argv[1]!)].map(shellWord).join(' ');
  const globalArgs = [...(globals.config ? ['--config', resolve(globals.config)] : []), ...(globals.cache === false ? ['--no-cache'] : [])];
  const files = writeSlurmScripts({ name: study.name, studyFile: study.file, resultsDir: outDir, count, cwd: process.cwd(), llmkb, globalArgs, sweepArgs }, r);
  out(`wrote ${show(files.shards)} (an array of ${count} task(s), one per shard, ${split}) and ${show(files.merge)}`);
  if (opts.dryRun) {
    out(
      `--dry-run: nothing submitted; submit them with: id=$(sbatch --parsable ${show(files.shards)}) && sbatch --dependency=afterany:$id ${show(files.merge)}`,
    );
    return true;
  }
  const ids = submitSlurm(files);
  out(`submitted: array job ${ids.arrayId} (tasks 0-${count - 1}), merge job ${ids.mergeId} (--dependency=afterany:${ids.arrayId})`);
  out(`follow them: squeue -j ${ids.arrayId},${ids.mergeId}; logs in ${show(files.logs)}; the merged report: ${show(resolve(outDir, 'report.html'))}`);
  return true;
}
