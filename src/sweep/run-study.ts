/**
 * `llmkb sweep STUDY`: every (model, method, setting) of a study as a resumable run of the same
 * pipeline `llmkb eval` runs (`evaluateModel`), then the comparison over all of them.
 *
 * Scheduling: models behind servers run side by side while the requests they may have in flight
 * together stay within the study's `concurrency` (a model's share: its per-endpoint concurrency
 * times its endpoints, clamped to the budget); in-process (GGUF) models run one at a time, each
 * unloaded before the next is loaded, alongside the server models. A model's settings run one
 * after another. A failed model does not stop the others: the sweep ends with the comparison of
 * what finished, then fails naming what did not; running it again continues every run where it
 * stopped (the run store and the call cache), so an interrupted sweep costs nothing twice.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { entryOptions, type ModelEntry } from '../config/config.js';
import { writeFileAtomic } from '../io/files.js';
import { isLlmkbError } from '../errors.js';
import { evaluateModel, type ExecutionRecord } from '../methods/reliability/evaluate-model.js';
import type { ModelExecutor } from '../executor/model-executor.js';
import { ANSWER_MAX_TOKENS } from '../methods/reliability/defaults.js';
import type { RunMeta } from '../methods/reliability/metrics/summarize-run.js';
import { Progress } from '../progress/progress.js';
import { parseModelSpec } from '../providers/model-spec.js';
import type { CallCache } from '../store/call-cache.js';
import type { RunStore } from '../store/run-store.js';
import { VERSION } from '../version.js';
import { ModelPool, type BatchOptions } from './model-pool.js';
import { prefixedStream } from './prefixed-stream.js';
import { costOf, type RoleCost, type RoleTokens } from './study-cost.js';
import { loadStudyRuns, writeModelReport, writeStudyComparison, type RunFiles } from './study-report.js';
import { inShard, isInProcess, modelFolder, questionCount, resultSuffix, studyJobs, type Shard, type StudyJob } from './study-jobs.js';
import { STUDY_ROLES, type Study, type StudyRole } from './study.js';

export interface SweepOptions {
  study: Study;
  outDir: string;
  runs: RunStore;
  /** null: `--no-cache`. */
  cache: CallCache | null;
  cacheDir: string;
  shard?: Shard;
  /** The command line, for the execution records. */
  command?: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** `--batch`: judge, distractor and time-filter calls through the Batch API (poll and gather times in ms). */
  batch?: { pollMs?: number; gatherMs?: number };
}

/** The roles `--batch` sends through the Batch API: those whose latency does not matter. */
export const BATCH_ROLES: readonly StudyRole[] = ['judge', 'distractor', 'timeFilter'];

export interface SweepJobResult {
  label: string;
  method: string;
  setting: string;
  status: 'done' | 'failed' | 'other shard';
  runId?: string;
  summary?: string;
  error?: string;
}

/** `sweep.json` (or `sweep.shard-I-of-N.json`): what a sweep ran, on which shard, and what it cost. */
export interface SweepRecord {
  schema: 'llmkb-sweep-v1';
  study: { file: string; name: string; checksum: string };
  /** What the results depend on: `llmkb merge` refuses shards whose fingerprints differ. */
  fingerprint: string;
  shard: Shard | null;
  command?: string;
  startedAt: string;
  finishedAt: string;
  llmkbVersion: string;
  /** Every run of the study in the study's order, with where its files are (relative to the results folder). */
  runs: Array<RunFiles & { method: string }>;
  title: string;
  suffix: string;
  jobs: SweepJobResult[];
  /** This invocation's calls per role, summed over its runs (a resumed run counts what it paid for now). */
  tokens: Record<string, RoleTokens>;
  cost: Record<string, RoleCost>;
  /** Models served by several replicas: calls each replica answered and failed over this invocation's runs, times taken out. */
  replicas?: Record<string, Array<{ url: string; served: number; failed: number; trips: number }>>;
  /** `--batch`: the batches submitted, per role model. */
  batches?: Array<{ model: string; id: string; requests: number; status: string; failed: number }>;
}

export interface SweepResult {
  record: SweepRecord;
  recordFile: string;
  markdown: string;
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
  const spec = parseModelSpec(model.entry.spec);
  const endpoints = spec.provider === 'openai-compatible' ? spec.baseURLs.length : 1;
  const wanted = model.entry.concurrency ?? (spec.provider === 'openai-compatible' && spec.flavor === 'openai' ? 16 : 64);
  const perEndpoint = Math.max(1, Math.min(wanted, Math.floor(budget / endpoints)));
  return { perEndpoint, units: Math.min(budget, perEndpoint * endpoints) };
}

/** The study's choices that make its results what they are (not where models are served, nor prices). */
export function studyFingerprint(study: Study): string {
  const roles = Object.fromEntries(Object.entries(study.roles).map(([role, r]) => [role, typeof r.entry === 'string' ? r.entry : r.entry.spec]));
  return JSON.stringify({
    models: study.models.map((m) => ({ label: m.label, params: m.params ?? null, tuning: m.tuning ?? null, family: m.family ?? null })),
    methods: study.methods,
    settings: study.settings,
    quick: study.quick,
    limit: study.limit ?? null,
    seed: study.seed,
    maxTokens: study.maxTokens ?? null,
    mcqs: study.mcqs ?? null,
    mode: study.mode ?? null,
    cutoff: study.cutoff,
    roles,
  });
}

function metaOf(model: Study['models'][number]): RunMeta | undefined {
  const meta: RunMeta = {};
  if (typeof model.params === 'number') meta.paramsB = model.params;
  if (model.tuning !== undefined) meta.fineTuned = model.tuning === 'fine-tuned';
  if (model.family !== undefined) meta.family = model.family;
  return Object.keys(meta).length ? meta : undefined;
}

export function studyTitle(study: Study): string {
  return `llmkb study: ${study.name}`;
}

/** Result files of a job, relative to the results folder (`suffix`: `.limit-N` or ''). */
export function jobFiles(job: StudyJob, suffix: string): RunFiles {
  const folder = modelFolder(job.model.label);
  return { label: job.model.label, setting: job.setting, base: `${folder}/${folder}.${job.setting}${suffix}` };
}

export async function runStudy(options: SweepOptions): Promise<SweepResult> {
  const { study, outDir } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const startedAt = new Date().toISOString();
  const jobs = studyJobs(study);
  const mine = jobs.filter((j) => inShard(j, options.shard));
  mkdirSync(outDir, { recursive: true });
  const pool = new ModelPool({ cache: options.cache, cacheDir: options.cacheDir, ...(options.env ? { env: options.env } : {}) });
  const results = new Map<number, SweepJobResult>();
  const executions = new Map<number, ExecutionRecord>();
  let suffix = '';
  const progress = new Progress(`sweep ${study.name}${options.shard ? ` (shard ${options.shard.index}/${options.shard.count})` : ''}`, mine.length);
  const budget = new Budget(study.concurrency);
  const roleEntries = STUDY_ROLES.filter((r) => study.roles[r] !== undefined);
  const batchOptions = options.batch ? { journalDir: join(outDir, 'batches'), ...options.batch, log } : undefined;
  const batched = (role: StudyRole) => (batchOptions && BATCH_ROLES.includes(role) ? batchOptions : undefined);

  /** Executors of their own for each role, per run (their accounting is the run's). */
  const roleExecutors = async (): Promise<Partial<Record<StudyRole, ModelExecutor>>> => {
    const out: Partial<Record<StudyRole, ModelExecutor>> = {};
    for (const role of roleEntries) out[role] = await pool.executor(study.roles[role]!.entry, undefined, batched(role));
    return out;
  };

  const runModel = async (model: Study['models'][number], modelJobs: StudyJob[], perEndpoint: number | undefined): Promise<void> => {
    let executor: ModelExecutor;
    try {
      executor = await pool.executor(model.entry, perEndpoint);
    } catch (error) {
      for (const job of modelJobs) results.set(job.index, { label: model.label, method: job.method, setting: job.setting, status: 'failed', error: describe(error) });
      progress.failed += modelJobs.length;
      log(`${model.label}: cannot load the model: ${describe(error)}`);
      if (!isLlmkbError(error)) throw error;
      return;
    }
    try {
      const contextSize = (executor.model as { contextSize?: unknown }).contextSize;
      const maxTokens = study.maxTokens ?? ANSWER_MAX_TOKENS;
      if (typeof contextSize === 'number' && maxTokens >= contextSize) {
        const error = `maxTokens ${maxTokens} does not fit the model's context window of ${contextSize} tokens (lower "maxTokens" in the study, or give the model a larger "contextSize")`;
        for (const job of modelJobs) results.set(job.index, { label: model.label, method: job.method, setting: job.setting, status: 'failed', error });
        progress.failed += modelJobs.length;
        log(`${model.label}: ${error}`);
        return;
      }
      const meta = metaOf(model);
      for (const job of modelJobs) {
        const roles = await roleExecutors();
        log(`[${job.index + 1}/${jobs.length}] ${model.label} · ${job.method} · ${job.setting}`);
        try {
          const result = await evaluateModel({
            model: executor,
            modelName: model.label,
            ...(options.command ? { command: options.command } : {}),
            settings: [job.setting],
            runs: options.runs,
            dataDir: study.data,
            outDir: join(outDir, modelFolder(model.label)),
            cacheDir: options.cacheDir,
            seed: study.seed,
            maxTokens,
            cutoff: study.cutoff,
            ...(roles.judge ? { judge: roles.judge } : {}),
            ...(roles.distractor ? { distractor: roles.distractor } : {}),
            ...(roles.embedder ? { embedder: roles.embedder } : {}),
            ...(study.dataDir ? { sourceDataDir: study.dataDir } : {}),
            ...(study.quick ? { quick: { seen: 50, unseen: 50, mcqs: study.mcqs ?? 5 } } : {}),
            ...(study.mcqs === undefined ? {} : { mcqs: study.mcqs }),
            ...(study.limit === undefined ? {} : { limit: study.limit }),
            ...(study.mode ? { mode: study.mode } : {}),
            ...(meta ? { meta } : {}),
            // Whole lines named by the run: several runs print into one log.
            progress: { stream: prefixedStream(`[${model.label} · ${job.setting}] `), live: false },
            log,
          });
          const file = result.summaryFiles[0]!;
          executions.set(job.index, result.executions[0]!);
          results.set(job.index, { label: model.label, method: job.method, setting: job.setting, status: 'done', runId: result.summaries[0]!.runId!, summary: file.slice(outDir.length + 1) });
          progress.tick({ cached: result.executions[0]!.calls.model!.requests === 0 });
        } catch (error) {
          results.set(job.index, { label: model.label, method: job.method, setting: job.setting, status: 'failed', error: describe(error) });
          progress.tick({ failed: true });
          log(`${model.label} · ${job.setting}: failed: ${describe(error)}`);
          if (!isLlmkbError(error)) throw error;
          // A model that cannot answer will not answer the next setting either.
          for (const rest of modelJobs.filter((j) => !results.has(j.index))) results.set(rest.index, { label: model.label, method: rest.method, setting: rest.setting, status: 'failed', error: `not run: ${model.label} failed in ${job.setting}` });
          break;
        }
      }
    } finally {
      // Unloaded when done (one GGUF in memory at a time), unless a role uses the same model.
      if (!roleEntries.some((r) => sameModel(study.roles[r]!.entry, model.entry))) await pool.release(model.entry);
    }
  };

  const byModel = new Map<string, StudyJob[]>();
  for (const job of mine) byModel.set(job.model.label, [...(byModel.get(job.model.label) ?? []), job]);
  const tasks: Array<Promise<void>> = [];
  let batches: SweepRecord['batches'] = [];
  let inProcessLane: Promise<void> = Promise.resolve();
  try {
    // Data sets first, once (every run reads them); a time-filter LLM, when given, filters SeenQA.
    if (batchOptions) {
      for (const role of BATCH_ROLES) if (study.roles[role]) pool.batchSettings(study.roles[role].entry);
      if (options.cache) {
        const { recoverBatches } = await import('./batch/batching-model.js');
        const imported = await recoverBatches(batchOptions.journalDir, options.cache, {
          apiKeyFor: (baseURL) => BATCH_ROLES.map((r) => study.roles[r]).filter((r) => r !== undefined).map((r) => pool.batchSettings(r.entry)).find((b) => b.baseURL === baseURL)?.apiKey,
          ...(batchOptions.pollMs === undefined ? {} : { pollMs: batchOptions.pollMs }),
          log,
        });
        if (imported) log(`imported ${imported} answers of earlier batches into the call cache`);
      }
    }
    await prepareData(study, pool, options, log, batched('timeFilter') ?? (study.roles.timeFilter ? undefined : batched('judge')));
    suffix = resultSuffix(study, questionCount(study));
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
    const bug = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (bug) throw bug.reason;
  } finally {
    progress.finish();
    batches = pool.batches();
    await pool.close();
  }

  // Every run of the study, found in this results folder (this shard's, earlier invocations', or merged ones).
  const allFiles = jobs.map((j) => ({ ...jobFiles(j, suffix), method: j.method }));
  const { loaded } = loadStudyRuns(outDir, allFiles);
  for (const model of study.models) {
    const folder = modelFolder(model.label);
    await writeModelReport(outDir, folder, model.label, loaded.filter((r) => r.files.label === model.label), suffix);
  }
  const comparison = loaded.length > 0 ? await writeStudyComparison(outDir, loaded, { title: studyTitle(study), seed: study.seed }) : { markdown: '', warnings: [], files: [] };
  for (const w of comparison.warnings) log(`warning: ${w}`);

  const tokens: Record<string, RoleTokens> = {};
  for (const e of executions.values()) {
    for (const [role, a] of Object.entries(e.calls)) {
      const t = (tokens[role] ??= { calls: 0, cacheHits: 0, requests: 0, promptTokens: 0, completionTokens: 0 });
      t.calls += a.calls;
      t.cacheHits += a.cacheHits;
      t.requests += a.requests;
      t.promptTokens += a.promptTokens;
      t.completionTokens += a.completionTokens;
    }
  }
  const perModelTokens = new Map<string, RoleTokens>();
  for (const [index, e] of executions) {
    const label = jobs[index]!.model.label;
    const a = e.calls.model;
    if (!a) continue;
    const t = perModelTokens.get(label) ?? { calls: 0, cacheHits: 0, requests: 0, promptTokens: 0, completionTokens: 0 };
    perModelTokens.set(label, { calls: t.calls + a.calls, cacheHits: t.cacheHits + a.cacheHits, requests: t.requests + a.requests, promptTokens: t.promptTokens + a.promptTokens, completionTokens: t.completionTokens + a.completionTokens });
  }
  const replicas: NonNullable<SweepRecord['replicas']> = {};
  for (const [index, e] of executions) {
    const reps = e.replicas?.model;
    if (!reps) continue;
    const label = jobs[index]!.model.label;
    const sum = (replicas[label] ??= reps.map((r) => ({ url: r.url, served: 0, failed: 0, trips: 0 })));
    reps.forEach((r, i) => {
      sum[i]!.served += r.served;
      sum[i]!.failed += r.failed;
      sum[i]!.trips += r.trips;
    });
  }
  const cost = costOf(study, tokens, perModelTokens, options.batch ? BATCH_ROLES : []);
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
    suffix,
    jobs: jobs.map((j) => results.get(j.index) ?? { label: j.model.label, method: j.method, setting: j.setting, status: 'other shard' as const }),
    tokens,
    cost,
    ...(Object.keys(replicas).length ? { replicas } : {}),
    ...(options.batch ? { batches } : {}),
  };
  const recordFile = join(outDir, options.shard ? `sweep.shard-${options.shard.index}-of-${options.shard.count}.json` : 'sweep.json');
  writeFileAtomic(recordFile, `${JSON.stringify(record, null, 2)}\n`);
  return { record, recordFile, markdown: comparison.markdown, failures: record.jobs.filter((j) => j.status === 'failed') };
}

function sameModel(a: ModelEntry, b: ModelEntry): boolean {
  return entryOptions(a).spec === entryOptions(b).spec;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Builds the shared data sets before any run, so that parallel runs never build them at once.
 * Built as `llmkb eval` builds them (evaluateModel's own check then finds them), except that
 * SeenQA's time-sensitive questions are dropped by the study's `timeFilter` LLM when it names
 * one (else by the judge, as `eval` does, else by the keyword rule).
 */
async function prepareData(study: Study, pool: ModelPool, options: SweepOptions, log: (line: string) => void, batch?: BatchOptions): Promise<void> {
  const { existsSync } = await import('node:fs');
  const { buildRepositoryFiles, buildSeenQAFiles, buildUnseenQAFiles, DATASET_FILES } = await import('../methods/reliability/data/build-datasets.js');
  const need = Object.values(DATASET_FILES).filter((f) => !existsSync(join(study.data, f)));
  if (need.length === 0) return;
  log(`building data sets in ${study.data} (missing: ${need.join(', ')})`);
  const base = { outDir: study.data, seed: study.seed, cacheDir: options.cacheDir, ...(study.dataDir ? { dataDir: study.dataDir } : {}) };
  const filterRole = study.roles.timeFilter ?? study.roles.judge;
  if (!existsSync(join(study.data, DATASET_FILES.seenqa))) {
    const filter = filterRole ? await pool.executor(filterRole.entry, undefined, batch) : undefined;
    await buildSeenQAFiles({ ...base, perSource: 1000, ...(filter ? { timeSensitiveExecutor: filter } : {}) });
  }
  if (!existsSync(join(study.data, DATASET_FILES.unseenqa))) await buildUnseenQAFiles({ ...base, cutoff: study.cutoff });
  await buildRepositoryFiles({ ...base, cutoff: study.cutoff });
}
