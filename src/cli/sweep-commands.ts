import { resolve } from 'node:path';
import type { Command } from 'commander';
// Types only at the top: the sweep's modules load inside the actions (start-up time).
import { LlmkbError } from '../errors.js';
import type { Workspace } from '../workspace.js';
import { checkOutputFolder, collect, wholeNumber, positiveInteger } from '../methods/cli-options.js';
import type { ClusterFlags } from './sweep-cluster.js';
import { LIMIT_HELP } from './cli-defaults.js';
import { commandLine } from './eval-command.js';
import { requireFile, requireFolder } from '../io/require-path.js';
import type { SweepResult } from '../sweep/run-study.js';
import type { Shard } from '../sweep/study-jobs.js';
import { escapeControls } from '../terminal-text.js';

export function registerSweepCommands(program: Command, workspace: (command: Command) => Workspace): void {
  program
    .command('sweep')
    .description('a whole study from one file: every (model, method, setting) as a resumable run, then compare and report over all of them')
    .argument(
      '<study>',
      'study file (YAML or JSON): models with their metadata, methods with their settings and options, roles; see examples/paper-study.yaml and examples/conner-study.yaml',
    )
    .option(
      '--out <dir>',
      'results folder: one folder per model (as `llmkb eval` writes it), tables, analysis.json, report.html (default: "out" in the study, else llmkb-sweep)',
    )
    .option('--plan', 'print what would run, what is done already and the calls still to pay for (tokens, money with prices); run nothing')
    .option(
      '--shard <i/n>',
      'run only shard i of n (the study\'s runs split deterministically); fold the shards with `llmkb merge`; "auto": i and n from a Slurm array task or a Kubernetes Indexed Job (docs/cluster.md)',
    )
    .option(
      '--shard-count <n>',
      "how many shards (with --shard auto, --slurm, --k8s, --merge-shards; default: the study's cluster.shards, else one per run, or per model with cluster.split: model)",
      positiveInteger,
    )
    .option(
      '--slurm',
      'submit the study to Slurm: an sbatch array of its shards, each in its own folder and store under OUT/shards, and a merge job after it (afterany); prints the job ids',
    )
    .option('--dry-run', 'with --slurm: write the sbatch scripts into OUT/slurm, submit nothing')
    .option('--k8s', 'write the study as Kubernetes manifests (an Indexed Job of its shards, a merge Job) into OUT/kubernetes; applies nothing')
    .option(
      '--merge-shards',
      'the merge job of --slurm and --k8s: fold the shards that finished under OUT/shards into OUT, naming the missing ones (exit 3 when some are)',
    )
    .option('--partition <name>', 'with --slurm: the partition (overrides cluster.slurm.partition)')
    .option('--time <limit>', "with --slurm and --k8s: each task's time limit, Slurm style (12:00:00, 2-00:00:00; overrides cluster.time)")
    .option('--gpus <n>', 'with --slurm and --k8s: GPUs per task (overrides cluster.gpus)', wholeNumber)
    .option('--cpus <n>', 'with --slurm and --k8s: CPUs per task (overrides cluster.cpus)', positiveInteger)
    .option('--mem <size>', 'with --slurm and --k8s: memory per task, Slurm style (64G; overrides cluster.mem)')
    .option('--image <image>', 'with --k8s: the container image (overrides cluster.kubernetes.image)')
    .option(
      '--batch',
      "send the calls of the roles the methods mark batchable (judge, distractor, time filter; CONNER's answerer) through the OpenAI Batch API (half the price, answers within 24 h); resumable",
    )
    .option('--limit <n>', `${LIMIT_HELP}, for every run of the study (overrides "limit" in the study)`, positiveInteger)
    .option(
      '--json',
      "print the result as one JSON document (schema llmkb-sweep-result-v1: the sweep record with each run's notices, the files written, the failures) instead of the tables",
    )
    .option('--quick', 'a quick look: each method\'s seeded subset, for every run of the study (overrides "quick" in the study)')
    .action(async (studyFile: string, opts: ClusterFlags & { out?: string; json?: boolean; quick?: boolean }, command: Command) => {
      const { loadStudy } = await import('../sweep/study.js');
      const { resolveShard, runClusterMode } = await import('./sweep-cluster.js');
      const study = { ...loadStudy(studyFile), ...(opts.limit === undefined ? {} : { limit: opts.limit }), ...(opts.quick ? { quick: true } : {}) };
      const outDir = resolve(opts.out ?? study.out ?? 'llmkb-sweep');
      if (!opts.plan) checkOutputFolder(outDir);
      if (await runClusterMode(opts, study, outDir, command, workspace)) return;
      const shard = await resolveShard(opts, study, (line) => process.stderr.write(`${escapeControls(line)}\n`));
      const ws = workspace(command);
      try {
        if (opts.plan) {
          const { formatPlan, planStudy } = await import('../sweep/study-plan.js');
          process.stdout.write(formatPlan(study, planStudy(study, ws.runs, shard, opts.batch === true), shard));
          return;
        }
        const { runStudy } = await import('../sweep/run-study.js');
        const { formatMoney } = await import('../sweep/study-cost.js');
        const noCache = command.optsWithGlobals<{ cache?: boolean }>().cache === false;
        const ms = (name: string) => (process.env[name] !== undefined && Number(process.env[name]) >= 0 ? Number(process.env[name]) : undefined);
        const batch = opts.batch
          ? {
              ...(ms('LLMKB_BATCH_POLL_MS') === undefined ? {} : { pollMs: ms('LLMKB_BATCH_POLL_MS')! }),
              ...(ms('LLMKB_BATCH_GATHER_MS') === undefined ? {} : { gatherMs: ms('LLMKB_BATCH_GATHER_MS')! }),
            }
          : undefined;
        const result = await runStudy({
          study,
          outDir,
          runs: ws.runs,
          db: ws.db,
          cache: noCache ? null : ws.cache,
          cacheDir: ws.cacheDir,
          ...(shard ? { shard } : {}),
          ...(batch ? { batch } : {}),
          command: commandLine(),
        });
        const r = result.record;
        if (opts.json) {
          const { JSON_SCHEMAS } = await import('./json-output.js');
          process.stdout.write(
            `${JSON.stringify({ schema: JSON_SCHEMAS.sweep, outDir, recordFile: result.recordFile, wroteReport: result.wroteReport, record: r, failures: result.failures }, null, 2)}\n`,
          );
        } else printSweep(result, outDir, shard, formatMoney);
        if (result.failures.length > 0) {
          throw new LlmkbError(`${result.failures.length} run(s) failed: ${result.failures.map((f) => `${f.label} (${f.setting}): ${f.error}`).join('; ')}`, {
            exitCode: 3,
            hint: 'The report covers the runs that finished. Fix the cause (a server down, a missing key) and run the same command again: finished runs are not redone.',
          });
        }
      } finally {
        await ws.close();
      }
    });

  program
    .command('merge')
    .description('fold the results of `llmkb sweep --shard i/n` from several machines into one folder and store, refusing runs whose protocol differs')
    .argument('<dirs...>', "the shards' results folders")
    .requiredOption('--out <dir>', 'merged results folder (tables, analysis.json, report.html, one folder per model); required')
    .option('--from-store <file>', "a shard's store (its --store) to fold into this store (repeatable)", collect)
    .action(async (dirs: string[], opts: { out: string; fromStore?: string[] }, command: Command) => {
      for (const d of dirs) requireFolder(d, 'Give the results folders of `llmkb sweep --shard i/n` (their --out).');
      for (const s of opts.fromStore ?? []) requireFile(s, 'Give the --store file each shard ran with.');
      checkOutputFolder(opts.out);
      const { mergeResults, MergeIncompleteError } = await import('../sweep/merge-results.js');
      const ws = opts.fromStore?.length ? workspace(command) : undefined;
      const say = (result: { runs: number; markdown: string; storeRows: { calls: number; runs: number } }) => {
        process.stdout.write(result.markdown);
        process.stdout.write(
          `\nmerged ${result.runs} runs from ${dirs.length} folders into ${opts.out}${ws ? `; store ${ws.storePath}: +${result.storeRows.calls} cached calls, +${result.storeRows.runs} runs` : ''}\n`,
        );
      };
      try {
        say(
          await mergeResults({
            from: dirs.map((d) => resolve(d)),
            outDir: resolve(opts.out),
            ...(opts.fromStore ? { stores: opts.fromStore.map((s) => resolve(s)) } : {}),
            ...(ws ? { into: ws.db } : {}),
          }),
        );
      } catch (error) {
        // Some run is in no shard: what was merged is said, then the error (exit 3).
        if (error instanceof MergeIncompleteError) say(error.result);
        throw error;
      } finally {
        await ws?.close();
      }
    });
}

/** A sweep's result as text: the comparison's tables (with the runs' notices), the runs done, the calls and costs, the record's path. */
function printSweep(result: SweepResult, outDir: string, shard: Shard | undefined, formatMoney: (n: number) => string): void {
  process.stdout.write(result.markdown);
  const r = result.record;
  const done = r.jobs.filter((j) => j.status === 'done').length;
  const wrote = result.wroteReport ? 'results, tables and report.html' : 'the sweep record only (no run finished)';
  process.stdout.write(
    `\n${done} of ${r.jobs.length} runs done here${shard ? ` (shard ${shard.index}/${shard.count}; ${r.jobs.filter((j) => j.status === 'other shard').length} on other shards)` : ''}; ${wrote} in ${outDir}\n`,
  );
  for (const [role, t] of Object.entries(r.tokens)) {
    const cost = r.cost[role];
    const here = r.tokensHere[role];
    process.stdout.write(
      `${role}: ${here?.calls ?? 0} calls now (${here?.requests ?? 0} made, ${here?.cacheHits ?? 0} from the cache); the runs in all: ${t.requests} requests, tokens ${t.promptTokens} in / ${t.completionTokens} out${cost && cost.money !== null ? `, cost ${formatMoney(cost.money)}` : ''}\n`,
    );
  }
  for (const [label, reps] of Object.entries(r.replicas ?? {}))
    process.stdout.write(
      `${label}: ${reps.map((x) => `${x.url} ${x.served} calls${x.failed ? ` (${x.failed} failed, taken out ${x.trips}x)` : ''}`).join('; ')}\n`,
    );
  for (const b of r.batches ?? [])
    process.stdout.write(`batch ${b.id} (${b.model}): ${b.requests} requests, ${b.status}${b.failed ? `, ${b.failed} failed (resubmitted)` : ''}\n`);
  process.stdout.write(`sweep record: ${result.recordFile}\n`);
}
