/**
 * `llmkb sweep STUDY`: every (model, method, setting) of a study as a resumable run of the generic
 * runner (`runMethod`), then each model's report and the comparison over all of them.
 *
 * Each method entry's inputs are prepared once, before any run (data sets built once, with the
 * study's roles). Scheduling: models behind servers run side by side while the requests they may
 * have in flight together stay within the study's `concurrency` (a model's share: its
 * per-endpoint concurrency times its endpoints, clamped to the budget); in-process (GGUF) models
 * run one at a time, each unloaded before the next is loaded, alongside the server models. A
 * model's runs go one after another. A failed model does not stop the others: the sweep ends
 * with the comparison of what finished, then fails naming what did not; running it again
 * continues every run where it stopped (the run store and the call cache), so an interrupted
 * sweep costs nothing twice. What it writes of itself (`sweep.json`) is ./sweep-record.ts's.
 */
import { rmdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { entryOptions, type ModelEntry } from '../config/config.js';
import { makeFolder, writeFileAtomic } from '../io/files.js';
import { isLlmkbError, RunBusyError } from '../errors.js';
import type { ModelExecutor } from '../executor/model-executor.js';
import type { ExecutionRecord, RunMeta } from '../methods/method-summary.js';
import { addCalls, addReplicas, noCalls, sumCalls } from '../methods/call-counts.js';
import { prepareMethod, runFileSuffix, runMethod, subjectRole, type Prepared } from '../methods/run-method.js';
import { Progress } from '../progress/progress.js';
import { specTraits } from '../providers/spec-traits.js';
import type { CallCache } from '../store/call-cache.js';
import type { Db } from '../store/database.js';
import type { RunStore } from '../store/run-store.js';
import { VERSION } from '../version.js';
import { ModelPool } from './model-pool.js';
import { prefixedStream } from './prefixed-stream.js';
import { studyModelServer } from './served-model.js';
import { batchRoles, costOf, type RoleTokens } from './study-cost.js';
import { loadStudyRuns, withNotices, writeModelReport, writeStudyComparison } from './study-report.js';
import { inShard, isInProcess, jobFolder, studyJobs, type Shard, type StudyJob } from './study-jobs.js';
import { checkModelFiles } from './study-plan.js';
import type { Study, StudyMethod } from './study.js';
import { jobFiles, studyFingerprint, studyTitle, type SweepJobResult, type SweepRecord } from './sweep-record.js';
import { escapeControls } from '../terminal-text.js';

export interface SweepOptions {
  study: Study;
  outDir: string;
  runs: RunStore;
  /** The store's database (the corpora a method reads evidence from). */
  db?: Db;
  /** null: `--no-cache`. */
  cache: CallCache | null;
  cacheDir: string;
  shard?: Shard;
  /** The command line, for the execution records. */
  command?: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** `--batch`: the calls of the roles the study's methods mark batchable through the Batch API (poll and gather times in ms). */
  batch?: { pollMs?: number; gatherMs?: number };
}

export interface SweepResult {
  record: SweepRecord;
  recordFile: string;
  markdown: string;
  /** Whether this sweep wrote the comparison and report.html (some run had finished). */
  wroteReport: boolean;
  failures: SweepJobResult[];
}

/** Units of a shared budget, handed out first come, first served. */
class Budget {
  #free: number;
  readonly #queue: Array<{ units: number; resolve: () => void }> = [];
  constructor(units: number) {
    this.#free = units;
  }
  async acquire(units: number): Promise<void> {
    if (this.#queue.length === 0 && this.#free >= units) {
      this.#free -= units;
      return;
    }
    await new Promise<void>((resolve) => this.#queue.push({ units, resolve }));
  }
  release(units: number): void {
    this.#free += units;
    while (this.#queue.length > 0 && this.#free >= this.#queue[0]!.units) {
      const next = this.#queue.shift()!;
      this.#free -= next.units;
      next.resolve();
    }
  }
}

/** Per-endpoint concurrency a server model gets, and its share of the budget. */
export function budgetShare(model: Study['models'][number], budget: number): { perEndpoint: number; units: number } {
  const { endpoints, maxConnections } = specTraits(model.entry.spec);
  const wanted = model.entry.concurrency ?? maxConnections;
  const perEndpoint = Math.max(1, Math.min(wanted, Math.floor(budget / endpoints)));
  return { perEndpoint, units: Math.min(budget, perEndpoint * endpoints) };
}

function metaOf(model: Study['models'][number]): RunMeta | undefined {
  const meta: RunMeta = {};
  if (typeof model.params === 'number') meta.paramsB = model.params;
  if (model.tuning !== undefined) meta.fineTuned = model.tuning === 'fine-tuned';
  if (model.family !== undefined) meta.family = model.family;
  return Object.keys(meta).length ? meta : undefined;
}

export async function runStudy(options: SweepOptions): Promise<SweepResult> {
  const { study, outDir } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${escapeControls(line)}\n`));
  const startedAt = new Date().toISOString();
  const jobs = studyJobs(study);
  const mine = jobs.filter((j) => inShard(j, options.shard));
  // A missing model file fails before any work, as a missing input does (exit 6), not as a run that failed.
  checkModelFiles(study);
  const created = makeFolder(outDir);
  const pool = new ModelPool({
    cache: options.cache,
    cacheDir: options.cacheDir,
    ...(options.env ? { env: options.env } : {}),
    serve: studyModelServer(study, outDir, log, options.env),
  });
  const results = new Map<number, SweepJobResult>();
  const executions = new Map<number, ExecutionRecord>();
  const progress = new Progress(`sweep ${study.name}${options.shard ? ` (shard ${options.shard.index}/${options.shard.count})` : ''}`, mine.length);
  const budget = new Budget(study.concurrency);
  const batched = new Set(options.batch ? batchRoles(study) : []);
  const batchOptions = options.batch ? { journalDir: join(outDir, 'batches'), ...options.batch, log } : undefined;
  const prepared = new Map<StudyMethod, Prepared>();
  const suffixes = new Map<StudyMethod, string>();

  /** Executors of their own for each role of a method that the study names, per run (their accounting is the run's). */
  const roleExecutors = async (m: StudyMethod): Promise<Record<string, ModelExecutor>> => {
    const out: Record<string, ModelExecutor> = {};
    for (const role of m.method.roles) {
      const given = study.roles[role.id];
      if (given) out[role.id] = await pool.executor(given.entry, { kind: role.kind, ...(batchOptions && batched.has(role.id) ? { batch: batchOptions } : {}) });
    }
    return out;
  };

  const runModel = async (model: Study['models'][number], modelJobs: StudyJob[], perEndpoint: number | undefined): Promise<void> => {
    let executor: ModelExecutor;
    try {
      const subjectKind = modelJobs[0]!.method.method.roles.find((r) => r.id === subjectRole(modelJobs[0]!.method.method))!.kind;
      executor = await pool.executor(model.entry, { kind: subjectKind, ...(perEndpoint === undefined ? {} : { concurrency: perEndpoint }) });
    } catch (error) {
      for (const job of modelJobs)
        results.set(job.index, { label: model.label, method: job.method.method.id, setting: job.setting, status: 'failed', error: describe(error) });
      progress.failed += modelJobs.length;
      log(`${model.label}: cannot load the model: ${describe(error)}`);
      if (!isLlmkbError(error)) throw error;
      return;
    }
    try {
      const meta = metaOf(model);
      for (const job of modelJobs) {
        const m = job.method;
        const roles = { ...(await roleExecutors(m)), [subjectRole(m.method)]: executor };
        log(`[${job.index + 1}/${jobs.length}] ${model.label} · ${m.name} · ${job.setting}`);
        try {
          const result = await runMethod(m.method, {
            roles,
            runs: options.runs,
            prepared: prepared.get(m)!,
            setting: job.setting,
            ...(m.name === m.method.id ? {} : { entry: m.name }),
            label: model.label,
            modelSpec: model.spec,
            outDir: join(outDir, jobFolder(study, job)),
            ...(options.command ? { command: options.command } : {}),
            ...(study.limit === undefined ? {} : { limit: study.limit }),
            ...(meta ? { meta } : {}),
            // Whole lines named by the run: several runs print into one log.
            progress: { stream: prefixedStream(`[${model.label} · ${job.setting}] `), live: false },
            log,
          });
          executions.set(job.index, result.execution);
          results.set(job.index, {
            label: model.label,
            method: m.method.id,
            setting: job.setting,
            status: 'done',
            runId: result.runId,
            summary: relative(outDir, result.files!.summary),
          });
          progress.tick({ cached: Object.values(result.execution.callsHere ?? {}).every((c) => c.requests === 0) });
        } catch (error) {
          // Another process works on this study's runs (a second sweep on the same store): stop here, as eval does.
          if (error instanceof RunBusyError)
            throw new RunBusyError(
              error.message,
              'Another llmkb process works on this study with the same store: wait for it to finish, or run the same command with --wait to wait for it (finished runs are not redone).',
            );
          results.set(job.index, { label: model.label, method: m.method.id, setting: job.setting, status: 'failed', error: describe(error) });
          progress.tick({ failed: true });
          log(`${model.label} · ${m.name} · ${job.setting}: failed: ${describe(error)}`);
          if (!isLlmkbError(error)) throw error;
          // A model that cannot answer will not answer the next run either.
          for (const rest of modelJobs.filter((j) => !results.has(j.index)))
            results.set(rest.index, {
              label: model.label,
              method: rest.method.method.id,
              setting: rest.setting,
              status: 'failed',
              error: `not run: ${model.label} failed in ${m.name} · ${job.setting}`,
            });
          break;
        }
      }
    } finally {
      // Unloaded when done (one GGUF in memory at a time), unless a role uses the same model.
      if (!Object.values(study.roles).some((r) => sameModel(r.entry, model.entry))) await pool.release(model.entry);
    }
  };

  const byModel = new Map<string, StudyJob[]>();
  for (const job of mine) byModel.set(job.model.label, [...(byModel.get(job.model.label) ?? []), job]);
  const tasks: Array<Promise<void>> = [];
  let batches: SweepRecord['batches'] = [];
  let inProcessLane: Promise<void> = Promise.resolve();
  try {
    if (batchOptions) {
      const apis = await Promise.all([...batched].map((role) => pool.batchApi(study.roles[role]!.entry)));
      if (options.cache) {
        const { recoverBatches } = await import('./batch/batching-model.js');
        const imported = await recoverBatches(batchOptions.journalDir, options.cache, {
          apiFor: (endpoint) => apis.find((api) => api.endpoint === endpoint),
          ...(batchOptions.pollMs === undefined ? {} : { pollMs: batchOptions.pollMs }),
          log,
        });
        if (imported) log(`imported ${imported} answers of earlier batches into the call cache`);
      }
    }
    // Each method's inputs first, once (every run reads them; data sets are built here, never by two runs at once).
    for (const m of study.methods) {
      const p = await prepareMethod(m.method, {
        options: m.options,
        roles: await roleExecutors(m),
        seed: study.seed,
        quick: study.quick,
        cacheDir: options.cacheDir,
        baseDir: study.dir,
        settings: m.settings,
        ...(options.db ? { db: options.db } : {}),
        log,
      });
      prepared.set(m, p);
      suffixes.set(m, runFileSuffix(p, study.limit));
    }
    for (const modelJobs of byModel.values()) {
      const model = modelJobs[0]!.model;
      if (isInProcess(model)) {
        inProcessLane = inProcessLane.then(() => runModel(model, modelJobs, undefined));
        continue;
      }
      const share = budgetShare(model, study.concurrency);
      tasks.push(
        (async () => {
          await budget.acquire(share.units);
          try {
            await runModel(model, modelJobs, share.perEndpoint);
          } finally {
            budget.release(share.units);
          }
        })(),
      );
    }
    tasks.push(inProcessLane);
    const settled = await Promise.allSettled(tasks);
    const stopped = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (stopped) throw stopped.reason;
  } catch (error) {
    // Stopped before the record is written (a missing input, another process holding the study's runs): leave no empty folder behind.
    for (const folder of [...created].reverse()) {
      try {
        rmdirSync(folder);
      } catch {
        // Not empty (a run or another process wrote there): kept.
      }
    }
    throw error;
  } finally {
    progress.finish();
    batches = pool.batches();
    await pool.close();
  }

  // Every run of the study, found in this results folder (this shard's, earlier invocations', or merged ones).
  const allFiles = jobs.map((j) => jobFiles(study, j, suffixes.get(j.method) ?? ''));
  const { loaded } = await loadStudyRuns(outDir, allFiles);
  for (const model of study.models) {
    const own = loaded.filter((r) => r.files.label === model.label);
    const folder = jobFolder(study, { model, method: study.methods[0]! }).split('/')[0]!;
    await writeModelReport(join(outDir, folder), model.label, own, suffixes.size === 1 ? [...suffixes.values()][0]! : '');
  }
  const comparison =
    loaded.length > 0 ? await writeStudyComparison(outDir, loaded, { title: studyTitle(study), seed: study.seed }) : { markdown: '', warnings: [], files: [] };
  for (const w of comparison.warnings) log(`warning: ${w}`);

  // What the runs of this invocation cost, over every process that worked on them; and what this process made.
  const tokens = sumCalls([...executions.values()].map((e) => e.calls));
  const tokensHere = sumCalls([...executions.values()].map((e) => e.callsHere));
  const perModelTokens = new Map<string, RoleTokens>();
  const replicas: NonNullable<SweepRecord['replicas']> = {};
  for (const [index, e] of executions) {
    const label = jobs[index]!.model.label;
    const subject = subjectRole(jobs[index]!.method.method);
    const a = e.calls[subject];
    if (a) perModelTokens.set(label, addCalls(perModelTokens.get(label) ?? noCalls(), a));
    const reps = e.replicas?.[subject];
    if (reps) replicas[label] = addReplicas(replicas[label], reps);
  }
  const cost = costOf(study, tokens, perModelTokens, [...batched]);
  const record: SweepRecord = {
    schema: 'llmkb-sweep-v1',
    study: { file: study.file, name: study.name, checksum: study.checksum },
    fingerprint: studyFingerprint(study),
    shard: options.shard ?? null,
    ...(options.command ? { command: options.command } : {}),
    startedAt,
    finishedAt: new Date().toISOString(),
    llmkbVersion: VERSION,
    runs: allFiles,
    title: studyTitle(study),
    suffix: [...new Set(suffixes.values())].join(''),
    jobs: jobs.map((j) =>
      withNotices(
        results.get(j.index) ?? { label: j.model.label, method: j.method.method.id, setting: j.setting, status: 'other shard' as const },
        loaded,
        allFiles[j.index]!,
      ),
    ),
    tokens,
    tokensHere,
    cost,
    ...(Object.keys(replicas).length ? { replicas } : {}),
    ...(options.batch ? { batches } : {}),
  };
  const recordFile = join(outDir, options.shard ? `sweep.shard-${options.shard.index}-of-${options.shard.count}.json` : 'sweep.json');
  writeFileAtomic(recordFile, `${JSON.stringify(record, null, 2)}\n`);
  return { record, recordFile, markdown: comparison.markdown, wroteReport: loaded.length > 0, failures: record.jobs.filter((j) => j.status === 'failed') };
}

function sameModel(a: ModelEntry, b: ModelEntry): boolean {
  return entryOptions(a).spec === entryOptions(b).spec;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
