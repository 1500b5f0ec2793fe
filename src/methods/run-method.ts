/**
 * The runner: one run of any evaluation method. `prepareMethod` checks the method's options and
 * its roles' model kinds before any call and reads or builds its inputs, once for every setting;
 * `runMethod` opens one resumable run in the store (a second call with the same inputs resumes
 * it), runs the method's stages in order, and streams the run's output records once: into the
 * method's summary and, with an output folder, into `<stem>.<setting>.records.jsonl` beside
 * `.summary.json` and `.run.json` (src/io/result-files.ts).
 */
import { checksumOfLines } from '../io/checksum.js';
import { LlmkbError } from '../errors.js';
import { makeFolder } from '../io/files.js';
import type { ModelExecutor } from '../executor/model-executor.js';
import type { ProgressOptions } from '../progress/progress.js';
import { describeRuntime } from '../providers/language-model.js';
import { requireKind } from '../providers/model-kinds.js';
import { limitSample } from '../sampling/limit-items.js';
import type { Db } from '../store/database.js';
import type { RunStore } from '../store/run-store.js';
import { JsonlWriter, resultFileString, runResultFiles, runSuffix, writeJsonFile, type ResultFiles } from '../io/result-files.js';
import { VERSION } from '../version.js';
import type { EvaluationMethod, PreparedInputs, SummarizedRun } from './method.js';
import { addCalls, addReplicas, noCalls, type CallCounts } from './call-counts.js';
import type { ExecutionRecord, MethodSummary, RunMeta } from './method-summary.js';
import { checkMethodOptions } from './method-options.js';
import { openMethodRun } from './open-run.js';

/** The method's inputs, ready for its runs (every setting and every model of one evaluation). */
export interface Prepared extends PreparedInputs {
  method: EvaluationMethod;
  options: Record<string, unknown>;
  seed: number;
  quick: boolean;
}

/** Refuses a setting the method does not have. */
export function checkSetting(method: EvaluationMethod, setting: string): void {
  if (method.settings ? !method.settings.includes(setting) : setting !== 'default') {
    throw new LlmkbError(`method "${method.id}" has no setting "${setting}"`, { hint: `Its settings: ${(method.settings ?? ['default']).join(', ')}.` });
  }
}

export interface PrepareMethodOptions {
  /** The method's options (checked against `method.options`). */
  options?: Record<string, unknown>;
  /** Executors of the roles known before the runs (all but the model under test, in a sweep). */
  roles?: Readonly<Record<string, ModelExecutor>>;
  seed?: number;
  quick?: boolean;
  cacheDir?: string;
  /** Relative paths in the options are read from here (default: the working directory). */
  baseDir?: string;
  /** The settings that will run (default: all of the method's). */
  settings?: readonly string[];
  /** The store's database (corpora). */
  db?: Db;
  log?: (line: string) => void;
}

export const DEFAULT_SEED = 42;

/** Checks every given role's model kind, and that no role is unknown. */
function checkRoleKinds(method: EvaluationMethod, roles: Readonly<Record<string, ModelExecutor>>): void {
  for (const id of Object.keys(roles)) {
    if (!method.roles.some((r) => r.id === id))
      throw new LlmkbError(`method "${method.id}" has no role "${id}"`, { hint: `Its roles: ${method.roles.map((r) => r.id).join(', ')}.` });
  }
  for (const role of method.roles) {
    const executor = roles[role.id];
    if (executor) requireKind(executor.model, role.kind, role.id);
  }
}

/** Checks that every role has a model of the kind it needs, before any model call. */
export function checkRoles(method: EvaluationMethod, roles: Readonly<Record<string, ModelExecutor>>): void {
  for (const role of method.roles) {
    if (role.required && !roles[role.id])
      throw new LlmkbError(`method "${method.id}" needs a model for role "${role.id}" (${role.kind})`, { hint: `Give one: ${role.description}.` });
  }
  checkRoleKinds(method, roles);
}

/** The role whose model a run evaluates: the method's first required role. */
export function subjectRole(method: EvaluationMethod): string {
  const role = method.roles.find((r) => r.required) ?? method.roles[0];
  if (!role) throw new LlmkbError(`method "${method.id}" has no role to run`);
  return role.id;
}

export async function prepareMethod(method: EvaluationMethod, options: PrepareMethodOptions = {}): Promise<Prepared> {
  const roles = options.roles ?? {};
  checkRoleKinds(method, roles);
  const methodOptions = checkMethodOptions(method, options.options ?? {}, { baseDir: options.baseDir ?? process.cwd() });
  const settings = options.settings ?? method.settings ?? ['default'];
  for (const setting of settings) checkSetting(method, setting);
  const ctx = {
    settings,
    options: methodOptions,
    roles,
    seed: options.seed ?? DEFAULT_SEED,
    quick: options.quick ?? false,
    cacheDir: options.cacheDir ?? '.llmkb/cache',
    baseDir: options.baseDir ?? process.cwd(),
    ...(options.db ? { db: options.db } : {}),
    log: options.log ?? (() => {}),
  };
  method.check?.(ctx);
  const inputs = await method.prepare(ctx);
  const ids = new Set<string>();
  for (const item of inputs.items) {
    if (ids.has(item.id))
      throw new LlmkbError(`method "${method.id}": duplicate item id "${item.id}"`, {
        hint: 'Every item of a run needs a unique id: remove or rename the repeated one in the input.',
      });
    ids.add(item.id);
  }
  return { ...inputs, method, options: methodOptions, seed: ctx.seed, quick: ctx.quick };
}

/**
 * The suffix of a run's result files (src/io/result-files.ts): `.quick`, the method's words for
 * what else makes the run differ from its default run, `.limit-N` for a seeded sample of N items
 * (only when N cuts the items).
 */
export function runFileSuffix(prepared: Prepared, limit: number | undefined): string {
  const tags = prepared.method.resultTags?.({ options: prepared.options, items: prepared.items, quick: prepared.quick, context: prepared.context }) ?? [];
  return runSuffix({ quick: prepared.quick, tags, ...(limit !== undefined && limit < prepared.items.length ? { limit } : {}) });
}

export interface RunMethodOptions {
  /** Executors by role id; every required role needs one. */
  roles: Readonly<Record<string, ModelExecutor>>;
  runs: RunStore;
  /** From `prepareMethod`; prepared here from `options` when absent. */
  prepared?: Prepared;
  /** The method's options, when `prepared` is absent. */
  options?: Record<string, unknown>;
  /** The store's database (corpora), when `prepared` is absent. */
  db?: Db;
  quick?: boolean;
  seed?: number;
  cacheDir?: string;
  /** The spec the model under test was made from, recorded in the execution record (`.run.json`). */
  modelSpec?: string;
  /** The method's variant (default: its first setting). */
  setting?: string;
  /** How the model is shown in tables and what its result files are named by (default: the model's id). */
  label?: string;
  /** The study's `methods:` entry the run is for, when it is not the method's id (recorded, not part of the run's id). */
  entry?: string;
  /** A seeded sample of this many items (src/sampling/limit-items.ts): a run of its own, named `*.limit-N.*`. */
  limit?: number;
  /** Results folder; nothing is written without one. */
  outDir?: string;
  /** The command line, for the execution record. */
  command?: string;
  meta?: RunMeta;
  progress?: ProgressOptions;
  log?: (line: string) => void;
}

export interface MethodRunResult {
  summary: MethodSummary;
  /** What of each record the report needs (see `SummarizedRun`). */
  reportRecords?: readonly object[];
  runId: string;
  execution: ExecutionRecord;
  /** The result files, when `outDir` was given. */
  files?: ResultFiles;
}

/** How often a running run's call counts are saved to the store. */
const CALLS_SAVE_INTERVAL_MS = 2000;

/** The calls an executor made between two readings of its accounting. */
function accountingDelta(now: CallCounts, before: CallCounts): CallCounts {
  return addCalls(now, before, -1);
}

export async function runMethod(method: EvaluationMethod, options: RunMethodOptions): Promise<MethodRunResult> {
  checkRoles(method, options.roles);
  const prepared =
    options.prepared ??
    (await prepareMethod(method, {
      ...(options.options ? { options: options.options } : {}),
      roles: options.roles,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.quick === undefined ? {} : { quick: options.quick }),
      ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
      ...(options.db ? { db: options.db } : {}),
      ...(options.setting === undefined ? {} : { settings: [options.setting] }),
      ...(options.log ? { log: options.log } : {}),
    }));
  if (prepared.method !== method) throw new LlmkbError(`inputs prepared for method "${prepared.method.id}" given to method "${method.id}"`);
  const log = options.log ?? (() => {});
  const subject = options.roles[subjectRole(method)]!;
  const setting = options.setting ?? method.settings?.[0] ?? 'default';
  checkSetting(method, setting);
  method.check?.({ options: prepared.options, roles: options.roles, settings: [setting], quick: prepared.quick });
  const seed = prepared.seed;
  const label = options.label ?? subject.model.modelId;
  const { items, cut: limit } = await limitSample(prepared.items, options.limit, prepared.seed, prepared.method.limitItems);
  const dataset = checksumOfLines(items, (i) => JSON.stringify(i));
  const params = method.runParams({ options: prepared.options, roles: options.roles, setting, quick: prepared.quick, context: prepared.context });
  const run = openMethodRun(options.runs, method, {
    model: subject.model.cacheIdentity,
    dataset,
    setting,
    seed,
    // Only when limited, so the ids of full runs stay what they are (resumable).
    params: { ...params, ...(limit ? { limit: limit.n } : {}) },
    label,
    ...(options.entry === undefined ? {} : { entry: options.entry }),
    variant: runFileSuffix(prepared, limit?.n).split('.').filter(Boolean),
  });
  const runtime = subject.model.runtime;
  log(`${label} · ${setting} · run ${run.id} · ${runtime ? describeRuntime(runtime) : 'server'}`);
  if (limit)
    log(`--limit ${limit.n}: ${limit.n} of ${limit.of} ${method.itemsNoun ?? 'items'} (a seeded sample; a run of its own, results named *.limit-${limit.n}.*)`);

  const startedAt = new Date().toISOString();
  const active = Object.entries(options.roles);
  const before = Object.fromEntries(active.map(([role, e]) => [role, { ...e.accounting }]));
  const replicasBefore = Object.fromEntries(active.filter(([, e]) => e.endpointStats().length > 1).map(([role, e]) => [role, e.endpointStats()]));

  // What the run's calls cost goes to the store: a call paid for with its cache entry (so a kill
  // loses none, and a run resumed after a kill counts what the killed process paid for); the rest
  // (cache hits, failed calls) every few seconds and when the stages end or fail
  // (src/executor/run-accounting.ts).
  for (const [role, e] of active) e.run.attribute({ run: run.id, role });
  const saved = Object.fromEntries(active.map(([role, e]) => [role, { ...e.run.unpaid }]));
  const saveCalls = () => {
    run.addCalls(
      Object.fromEntries(
        active.map(([role, e]) => {
          const delta = accountingDelta(e.run.unpaid, saved[role]!);
          saved[role] = { ...e.run.unpaid };
          return [role, delta];
        }),
      ),
    );
  };
  const saving = setInterval(saveCalls, CALLS_SAVE_INTERVAL_MS);
  saving.unref();
  try {
    for (const stage of method.stages) {
      await stage.run({
        run,
        items,
        context: prepared.context,
        options: prepared.options,
        roles: options.roles,
        setting,
        seed,
        ...(options.progress ? { progress: options.progress } : {}),
        log,
      });
    }
  } finally {
    clearInterval(saving);
    saveCalls();
    for (const [, e] of active) e.run.attribute(undefined);
  }

  const files = options.outDir === undefined ? undefined : runResultFiles(options.outDir, label, setting, runFileSuffix(prepared, limit?.n));
  const datasetChecksums = { questions: dataset };
  const summarize = (records: Iterable<object>) =>
    method.summarize({
      run,
      records,
      prepared: { items, context: prepared.context, options: prepared.options, roles: options.roles, quick: prepared.quick },
      model: label,
      modelIdentity: subject.model.cacheIdentity,
      setting,
      seed,
      runId: run.id,
      datasetChecksums,
      ...(limit ? { limit } : {}),
      ...(options.meta ? { meta: options.meta } : {}),
    });
  // One pass over the store: each record goes to the records file as the summary reads it.
  if (files) makeFolder(options.outDir!);
  // Files of another run under these names (same label and variant, another judge or seed, say): said, never replaced silently.
  const replaced = files ? resultFileString(files.summary, 'runId') : undefined;
  if (replaced !== undefined && replaced !== run.id)
    log(
      `note: ${files!.summary} held run ${replaced}; it is replaced by run ${run.id} (same label, setting and variant, other inputs or parameters; give --name or --out to keep both)`,
    );
  const writer = files ? new JsonlWriter(files.records) : undefined;
  const source = (await method.outputRecords(run))[Symbol.iterator]();
  const read = function* (): Generator<object> {
    for (let next = source.next(); !next.done; next = source.next()) {
      writer?.write(next.value);
      yield next.value;
    }
  };
  let summarized: SummarizedRun;
  try {
    summarized = await summarize(read());
    // Records the summary did not read still belong in the file.
    if (writer) for (let next = source.next(); !next.done; next = source.next()) writer.write(next.value);
    writer?.commit();
  } catch (error) {
    writer?.abort();
    throw error;
  } finally {
    source.return?.();
  }
  for (const [, e] of active) e.commitCalls();
  const total = run.calls();
  const execution: ExecutionRecord = {
    schema: 'llmkb-execution-v1',
    runId: run.id,
    label,
    setting,
    ...(options.modelSpec === undefined ? {} : { modelSpec: options.modelSpec }),
    ...(options.command ? { command: options.command } : {}),
    startedAt,
    finishedAt: new Date().toISOString(),
    llmkbVersion: VERSION,
    node: process.version,
    calls: Object.fromEntries(active.map(([role]) => [role, total[role] ?? noCalls()])),
    callsHere: Object.fromEntries(active.map(([role, e]) => [role, accountingDelta(e.accounting, before[role]!)])),
    ...(Object.keys(replicasBefore).length
      ? { replicas: Object.fromEntries(Object.entries(replicasBefore).map(([role, b]) => [role, addReplicas(options.roles[role]!.endpointStats(), b, -1)])) }
      : {}),
  };
  if (files) {
    writeJsonFile(files.summary, summarized.summary);
    writeJsonFile(files.execution, execution);
  }
  return {
    summary: summarized.summary,
    ...(summarized.reportRecords ? { reportRecords: summarized.reportRecords } : {}),
    runId: run.id,
    execution,
    ...(files ? { files } : {}),
  };
}
