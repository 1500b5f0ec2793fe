/**
 * `evaluate`: one model through a method, end to end, as one library call (what `llmkb eval`
 * runs; the command only parses its flags and prints the result). The model under test (the
 * config's entry for the method's subject role, else the embedded default) and the other roles'
 * models, every input checked before any work, the method's inputs prepared once, every setting
 * as a resumable run of the generic runner under one ETA, one report over the settings, the
 * model calls counted, the `failUnder` thresholds checked and the JUnit file written. It prints
 * nothing: notes go to `log`, progress lines to `progress` (both silent by default); a threshold
 * a metric misses is returned in `failures`, not thrown.
 */
import { resolve } from 'node:path';
import { EXIT_CODES, LlmkbError } from './errors.js';
import { writeFileAtomic } from './io/files.js';
import { requireFile, requireFolder } from './io/require-path.js';
import { runReportFile } from './io/result-files.js';
import { EvalProgress } from './progress/eval-progress.js';
import { formatDuration, type ProgressOptions } from './progress/progress.js';
import { DEFAULT_MODEL } from './providers/default-model.js';
import { checkOutputFile, checkOutputFolder } from './methods/cli-options.js';
import { evalSteps } from './methods/eval-eta.js';
import type { EvaluationMethod } from './methods/method.js';
import { checkMethodOptions } from './methods/method-options.js';
import type { RunMeta } from './methods/method-summary.js';
import { getMethod, listMethods } from './methods/registry.js';
import { checkRoles, checkSetting, prepareMethod, runFileSuffix, runMethod, subjectRole, type MethodRunResult } from './methods/run-method.js';
import { junitReport } from './analysis/junit.js';
import { checkThresholds, failedThresholds, type Threshold } from './analysis/thresholds.js';
import { renderReport } from './report/html-report.js';
import { defaultRunLabel } from './runs/run-labels.js';
import { Workspace } from './workspace.js';

export interface EvaluateOptions {
  /** The method: a registered method's id or the method itself (default: the first registered). */
  method?: string | EvaluationMethod;
  /** The model under test, a spec (default: the config's entry for the method's subject role, else `DEFAULT_MODEL`, downloaded once). */
  model?: string;
  /** Specs of the method's other roles by role id (`none` forces none, so the role's fallback runs); a role not given takes the config's entry. */
  roles?: Readonly<Record<string, string>>;
  /** The method's options by key (`llmkb methods` lists them), checked against the method. */
  options?: Readonly<Record<string, unknown>>;
  /** The settings to run (default: all of the method's). */
  settings?: readonly string[];
  /** The run label (default: the model file's or served model's name, with a short hash of the spec when another model's results in `out` have that name). */
  name?: string;
  /** A small seeded subset, recorded as an approximation. */
  quick?: boolean;
  /** The results folder (default `llmkb-results`). */
  out?: string;
  seed?: number;
  /** Only this many items: a seeded sample, a run of its own. */
  limit?: number;
  /** Parameter count and tuning, for cross-model analysis. */
  meta?: RunMeta;
  /** Thresholds each run's metric must reach; the ones missed come back in `failures`. */
  failUnder?: readonly Threshold[];
  /** Also write the threshold checks as JUnit XML to this file (needs `failUnder`). */
  junit?: string;
  /** The workspace (config, store, executors); a function opens it once the inputs are checked. Default: `new Workspace()`. One this call opens, it closes. */
  workspace?: Workspace | (() => Workspace);
  /** The command line recorded with each run's execution record. */
  command?: string;
  /** Where notes go (the CLI: stderr); default nowhere. */
  log?: (line: string) => void;
  /** Where each stage's progress lines go (the CLI: `{}`, stderr); default none. */
  progress?: Omit<ProgressOptions, 'overall'>;
}

export interface EvalResult {
  /** The method's id. */
  method: string;
  label: string;
  /** The spec of the model under test. */
  modelSpec: string;
  /** The HTML report over every setting. */
  report: string;
  /** One run per setting, in the order run: its summary, run id, execution record and files. */
  runs: MethodRunResult[];
  /** The model under test's calls over every run: made, and answered from the cache. */
  calls: { calls: number; requests: number; cacheHits: number };
  /** One line per (run, threshold) missed, e.g. `NCCR = 0.1000 < 0.2 (model, zero-shot)`; empty when every threshold is met. */
  failures: string[];
  /** The JUnit file, when asked for. */
  junit?: string;
}

/** The method's input files and folders, checked before any work (a typo costs nothing). */
function checkOptionPaths(method: EvaluationMethod, options: Readonly<Record<string, unknown>>): void {
  for (const o of method.options ?? []) {
    const value = options[o.key];
    if (typeof value !== 'string' || !o.path) continue;
    if (o.path === 'input-file') requireFile(value, o.description);
    else if (o.path === 'input-folder') requireFolder(value, o.description);
    else if (o.path === 'output-folder') checkOutputFolder(value, { existingMayBeReadOnly: true });
  }
}

/** Every setting's run and the report; see the module's comment. */
export async function evaluate(options: EvaluateOptions = {}): Promise<EvalResult> {
  const method = typeof options.method === 'object' ? options.method : getMethod(options.method ?? listMethods()[0]!.id);
  const settings = options.settings === undefined ? [...(method.settings ?? ['default'])] : [...new Set(options.settings)];
  if (settings.length === 0)
    throw new LlmkbError('--settings names no setting', {
      exitCode: EXIT_CODES.usage,
      hint: `Use any of ${(method.settings ?? ['default']).join(', ')}, comma-separated.`,
    });
  for (const s of settings) checkSetting(method, s);
  const thresholds = options.failUnder ?? [];
  checkThresholds(method, thresholds);
  if (options.junit !== undefined) {
    if (thresholds.length === 0)
      throw new LlmkbError('--junit without --fail-under: no check to report', {
        exitCode: EXIT_CODES.usage,
        hint: 'Add --fail-under METRIC=VALUE (repeatable); --junit FILE then writes one test case per run and threshold.',
      });
    const inputFiles = (method.options ?? []).filter((o) => o.path === 'input-file').map((o) => options.options?.[o.key]);
    checkOutputFile(
      options.junit,
      inputFiles.filter((v): v is string => typeof v === 'string'),
      '--junit',
    );
  }
  const methodOptions = checkMethodOptions(method, options.options ?? {}, { baseDir: process.cwd() });
  const out = options.out ?? 'llmkb-results';
  // Every place the run reads or writes, before any work: a typo costs nothing, not a whole evaluation.
  checkOutputFolder(out);
  checkOptionPaths(method, methodOptions);
  const given = options.workspace;
  const ws = given instanceof Workspace ? given : given ? given() : new Workspace();
  try {
    return await evaluateIn(ws, method, settings, methodOptions, resolve(out), options);
  } finally {
    if (!(given instanceof Workspace)) await ws.close();
  }
}

async function evaluateIn(
  ws: Workspace,
  method: EvaluationMethod,
  settings: string[],
  methodOptions: Record<string, unknown>,
  outDir: string,
  options: EvaluateOptions,
): Promise<EvalResult> {
  const log = options.log ?? (() => {});
  const subject = subjectRole(method);
  let entry = ws.entryFor(subject, options.model);
  if (entry === undefined) {
    log(`no --model and no "${subject}" in the config: using the embedded default ${DEFAULT_MODEL} (downloaded once into ${resolve(ws.cacheDir, 'models')})`);
    entry = DEFAULT_MODEL;
  }
  const spec = typeof entry === 'string' ? entry : entry.spec;
  const roles = await ws.roleExecutors(method, (role) => (role === subject ? undefined : options.roles?.[role]));
  roles[subject] = await ws.executorFor(method.roles.find((r) => r.id === subject)!.kind, entry).catch((error: unknown) => {
    // The embedded default could not be downloaded (offline): say how to run without the network.
    if (entry !== DEFAULT_MODEL || !(error instanceof LlmkbError) || !/download/i.test(error.message)) throw error;
    throw new LlmkbError(error.message, {
      hint: `Offline? Pass a local model with --model gguf:PATH (a .gguf file)${method.options?.some((o) => o.key === 'dataDir') ? " and local copies of the data sets' source files with --data-dir DIR (or LLMKB_DATA_DIR)" : ''}; otherwise check the network. ${error.hint ?? ''}`.trim(),
      exitCode: error.exitCode,
      cause: error,
    });
  });
  // Every role's model of the kind the method needs, and its options against them, before any call.
  checkRoles(method, roles);
  const { [subject]: _model, ...others } = roles;
  const prepared = await prepareMethod(method, {
    options: methodOptions,
    roles: others,
    seed: options.seed ?? 42,
    quick: options.quick === true,
    cacheDir: ws.cacheDir,
    settings,
    db: ws.db,
    log,
  });
  const limit = options.limit;
  const label = options.name ?? defaultRunLabel(spec, { outDir, identity: roles[subject]!.model.cacheIdentity });
  // One ETA for the whole evaluation (every setting and stage), shown with each stage's progress.
  const overall = new EvalProgress(
    evalSteps(method, {
      options: prepared.options,
      settings,
      quick: prepared.quick,
      items: prepared.items.length,
      ...(limit === undefined ? {} : { limit }),
      roles: new Set(Object.keys(roles)),
      label,
      baseDir: process.cwd(),
    }),
  );
  const progress = { ...(options.progress ?? { quiet: true }), overall };
  const started = performance.now();
  const runs: MethodRunResult[] = [];
  for (const setting of settings) {
    runs.push(
      await runMethod(method, {
        roles,
        runs: ws.runs,
        prepared,
        setting,
        label,
        modelSpec: spec,
        outDir,
        log,
        progress,
        ...(options.command === undefined ? {} : { command: options.command }),
        ...(limit === undefined ? {} : { limit }),
        ...(options.meta ? { meta: options.meta } : {}),
      }),
    );
  }
  log(`evaluated ${settings.length} setting(s) in ${formatDuration((performance.now() - started) / 1000)}`);
  const summaries = runs.map((r) => r.summary);
  const report = runReportFile(outDir, label, runFileSuffix(prepared, limit));
  writeFileAtomic(
    report,
    await renderReport(summaries, { title: `llmkb report: ${label}`, executions: runs.map((r) => r.execution), records: runs.map((r) => r.reportRecords) }),
  );
  const here = (r: MethodRunResult) => r.execution.callsHere?.[subject];
  const calls = runs.reduce(
    (sum, r) => ({
      calls: sum.calls + (here(r)?.calls ?? 0),
      requests: sum.requests + (here(r)?.requests ?? 0),
      cacheHits: sum.cacheHits + (here(r)?.cacheHits ?? 0),
    }),
    { calls: 0, requests: 0, cacheHits: 0 },
  );
  const thresholds = options.failUnder ?? [];
  if (options.junit !== undefined) writeFileAtomic(resolve(options.junit), junitReport(summaries, thresholds));
  return {
    method: method.id,
    label,
    modelSpec: spec,
    report,
    runs,
    calls,
    failures: failedThresholds(summaries, thresholds),
    ...(options.junit === undefined ? {} : { junit: options.junit }),
  };
}
