/**
 * `llmkb eval`: one model through any registered method (`--method`, default the first
 * registered), every setting as a resumable run of the generic runner, then one report over the
 * settings. The roles' flags and the methods' options come from the registry (method-flags.ts).
 */
import { type Command, InvalidArgumentError } from 'commander';
import { EXIT_CODES, LlmkbError } from '../errors.js';
import type { EvaluationMethod } from '../methods/method.js';
import { listMethods } from '../methods/registry.js';
import type { Workspace } from '../workspace.js';
import { DEFAULT_MODEL, LIMIT_HELP } from './cli-defaults.js';
import { checkOutputFile, checkOutputFolder, commaList, positiveInteger, positiveNumber, wholeNumber } from '../methods/cli-options.js';
import { addMethodFlags, foreignOptions, methodOptionValues, roleSpecOf } from './method-flags.js';
import { metaFrom } from './results-commands.js';
import { requireFile, requireFolder } from '../io/require-path.js';
import { escapeControls } from '../terminal-text.js';

/**
 * `--fail-under METRIC=VALUE`: a metric of a registered method and a value in its range, checked
 * as the command line is parsed (a config default too); the method the run uses is checked to
 * have the metric once it is known (`checkThresholds`).
 */
export function parseThreshold(value: string, previous: Array<{ metric: string; value: number }> = []): Array<{ metric: string; value: number }> {
  const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S+)\s*$/.exec(value);
  if (!m) throw new InvalidArgumentError('write METRIC=VALUE with VALUE a fraction, e.g. NCCR=0.2');
  // Any finite number as JavaScript writes it (0.2, .2, 2e-1); whatever Number() cannot read (1.2.3, 0.2x) is NaN and refused.
  const number = Number(m[2]);
  if (!Number.isFinite(number)) throw new InvalidArgumentError(`"${m[2]}" is not a number; write ${m[1]}=VALUE with VALUE a fraction, e.g. ${m[1]}=0.2`);
  const threshold = { metric: m[1]!, value: number };
  const problem = thresholdProblem(listMethods(), threshold);
  if (problem) throw new InvalidArgumentError(problem);
  return [...previous, threshold];
}

/** What is wrong with a threshold for these methods' metrics (undefined: nothing). */
function thresholdProblem(methods: readonly EvaluationMethod[], t: { metric: string; value: number }): string | undefined {
  const defs = methods.flatMap((m) => m.metricDefs);
  const def = defs.find((d) => d.id === t.metric);
  if (!def) {
    const near = defs.find((d) => d.id.toLowerCase() === t.metric.toLowerCase());
    return `unknown metric "${t.metric}"${near ? ` (did you mean ${near.id}?)` : ''}; the metrics are ${[...new Set(defs.map((d) => d.id))].join(', ')}`;
  }
  if (t.value < def.range[0] || t.value > def.range[1]) {
    return `${t.metric}=${t.value} is out of range: ${t.metric} lies in [${def.range.join(', ')}]${def.format === 'percent' ? `; thresholds are fractions as in the summaries: for ${t.value}% write ${t.metric}=${t.value / 100}` : ''}`;
  }
  return undefined;
}

/** Each threshold names a metric of the method the run uses and lies in that metric's range. */
export function checkThresholds(method: EvaluationMethod, thresholds: ReadonlyArray<{ metric: string; value: number }>): void {
  for (const t of thresholds) {
    const problem = thresholdProblem([method], t);
    if (problem) throw new LlmkbError(`--fail-under: ${problem}`, { exitCode: EXIT_CODES.usage, hint: `The metrics of method "${method.id}": ${method.metricDefs.map((d) => d.id).join(', ')}.` });
  }
}

/** The command line as typed (program name and arguments), for a run's execution record. */
export function commandLine(): string {
  return ['llmkb', ...process.argv.slice(2)].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

interface EvalOptions {
  method?: string;
  model?: string;
  name?: string;
  settings?: string;
  quick?: boolean;
  out: string;
  seed: number;
  limit?: number;
  params?: number;
  fineTuned?: boolean;
  base?: boolean;
  failUnder?: Array<{ metric: string; value: number }>;
  junit?: string;
  json?: boolean;
  [flag: string]: unknown;
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

export function registerEvalCommand(program: Command, workspace: (command: Command) => Workspace, methods: readonly EvaluationMethod[]): void {
  const first = methods[0]!;
  const command = program
    .command('eval')
    .description('evaluate one model with a method, end to end: its inputs, every stage and setting as a resumable run, the summaries and one report')
    .option('--method <id>', `the evaluation method (${methods.map((m) => m.id).join(', ')}; default ${first.id}; llmkb methods lists them)`)
    .option('-m, --model <spec>', `model under test (default: "model" in the config, else ${DEFAULT_MODEL})`)
    .option('--name <label>', "the run label: how the model is shown in tables and what its result files are named by (default: the model file's or served model's name, with a short hash of the spec when another model's results in --out have that name)")
    .option('--settings <list>', "comma-separated settings of the method, repeatable (default: all of them; the reliability method's prompt settings, ...)", commaList)
    .option('--quick', "a small seeded subset for a quick look, recorded as an approximation (the method says what it keeps)")
    .option('--out <dir>', 'results folder (summaries, records, <label>.report.html)', 'llmkb-results')
    .option('--seed <n>', 'seed', wholeNumber, 42)
    .option('--limit <n>', `${LIMIT_HELP} (seed --seed; after --quick); results named <label>.<setting>.limit-N.*`, positiveInteger)
    .option('--params <billions>', 'parameter count (for cross-model analysis)', positiveNumber)
    .option('--fine-tuned', 'the model is instruction-tuned / RLHF (for cross-model analysis)')
    .option('--base', 'the model is a base model (for cross-model analysis)')
    .option('--fail-under <METRIC=VALUE>', 'exit with code 4 when a metric is below VALUE (fraction), e.g. NCCR=0.2; repeatable', parseThreshold)
    .option('--junit <file>', 'also write the --fail-under checks as JUnit XML for CI: one test case per (run, threshold), failures with the metric value')
    .option('--json', 'print the result as one JSON document (schema llmkb-eval-result-v1: the runs with their summaries and files, the report, the calls, the notices) instead of the table');
  addMethodFlags(command, methods);
  command.action(async (opts: EvalOptions, cmd: Command) => {
    const { getMethod, listMethods } = await import('../methods/registry.js');
    const method = getMethod(opts.method ?? first.id);
    const foreign = foreignOptions(method, listMethods(), opts, cmd);
    if (foreign.length) throw new LlmkbError(`method "${method.id}" has no ${foreign.join(', ')}`, { exitCode: EXIT_CODES.usage, hint: `See llmkb eval --help: each flag names the method it belongs to; llmkb methods lists ${method.id}'s roles and options.` });
    const settings = opts.settings === undefined ? [...(method.settings ?? ['default'])] : [...new Set(opts.settings.split(',').map((s) => s.trim()).filter(Boolean))];
    if (settings.length === 0) throw new LlmkbError('--settings names no setting', { exitCode: EXIT_CODES.usage, hint: `Use any of ${(method.settings ?? ['default']).join(', ')}, comma-separated.` });
    const { checkSetting, checkRoles, prepareMethod, runMethod, subjectRole } = await import('../methods/run-method.js');
    for (const s of settings) checkSetting(method, s);
    checkThresholds(method, opts.failUnder ?? []);
    if (opts.junit !== undefined) {
      if (!opts.failUnder?.length) throw new LlmkbError('--junit without --fail-under: no check to report', { exitCode: EXIT_CODES.usage, hint: 'Add --fail-under METRIC=VALUE (repeatable); --junit FILE then writes one test case per run and threshold.' });
      const inputFiles = (method.options ?? []).filter((o) => o.path === 'input-file').map((o) => (opts as Record<string, unknown>)[o.key]);
      checkOutputFile(opts.junit, inputFiles.filter((v): v is string => typeof v === 'string'), '--junit');
    }
    const meta = metaFrom(opts);
    const { resolve } = await import('node:path');
    const { checkMethodOptions } = await import('../methods/method-options.js');
    const options = checkMethodOptions(method, methodOptionValues(method, opts), { baseDir: process.cwd() });
    // Every place the run reads or writes, before any work: a typo costs nothing, not a whole evaluation.
    checkOutputFolder(opts.out);
    checkOptionPaths(method, options);
    const ws = workspace(cmd);
    try {
      const subject = subjectRole(method);
      let entry = ws.entryFor(subject, opts.model);
      if (entry === undefined) {
        process.stderr.write(`no --model and no "${subject}" in the config: using the embedded default ${DEFAULT_MODEL} (downloaded once into ${resolve(ws.cacheDir, 'models')})\n`);
        entry = DEFAULT_MODEL;
      }
      const spec = typeof entry === 'string' ? entry : entry.spec;
      const roles = await ws.roleExecutors(method, (role) => (role === subject ? undefined : roleSpecOf(role, opts)));
      roles[subject] = await ws.executorFor(method.roles.find((r) => r.id === subject)!.kind, entry).catch((error: unknown) => {
        // The embedded default could not be downloaded (offline): say how to run without the network.
        if (entry !== DEFAULT_MODEL || !(error instanceof LlmkbError) || !/download/i.test(error.message)) throw error;
        throw new LlmkbError(error.message, { hint: `Offline? Pass a local model with --model gguf:PATH (a .gguf file)${method.options?.some((o) => o.key === 'dataDir') ? ' and local copies of the data sets\' source files with --data-dir DIR (or LLMKB_DATA_DIR)' : ''}; otherwise check the network. ${error.hint ?? ''}`.trim(), exitCode: error.exitCode, cause: error });
      });
      // Every role's model of the kind the method needs, and its options against them, before any call.
      checkRoles(method, roles);
      const log = (line: string) => process.stderr.write(`${escapeControls(line)}\n`);
      const { [subject]: _model, ...others } = roles;
      const prepared = await prepareMethod(method, { options, roles: others, seed: opts.seed, quick: opts.quick === true, cacheDir: ws.cacheDir, settings, db: ws.db, log });
      const outDir = resolve(opts.out);
      const { defaultRunLabel } = await import('../runs/run-labels.js');
      const label = opts.name ?? defaultRunLabel(spec, { outDir, identity: roles[subject]!.model.cacheIdentity });
      const { runReportFile } = await import('../io/result-files.js');
      const { runFileSuffix } = await import('../methods/run-method.js');
      // One ETA for the whole evaluation (every setting and stage), shown with each stage's progress.
      const { EvalProgress } = await import('../progress/eval-progress.js');
      const { evalSteps } = await import('./eval-eta.js');
      const overall = new EvalProgress(evalSteps(method, { options: prepared.options, settings, quick: prepared.quick, items: prepared.items.length, ...(opts.limit === undefined ? {} : { limit: opts.limit }), roles: new Set(Object.keys(roles)), label, baseDir: process.cwd() }));
      const started = performance.now();
      const results: Array<Awaited<ReturnType<typeof runMethod>>> = [];
      for (const setting of settings) {
        results.push(await runMethod(method, { roles, runs: ws.runs, prepared, setting, label, modelSpec: spec, outDir, command: commandLine(), log, progress: { overall }, ...(opts.limit === undefined ? {} : { limit: opts.limit }), ...(meta ? { meta } : {}) }));
      }
      const { formatDuration } = await import('../progress/progress.js');
      log(`evaluated ${settings.length} setting(s) in ${formatDuration((performance.now() - started) / 1000)}`);
      const summaries = results.map((r) => r.summary);
      const { renderReport } = await import('../report/html-report.js');
      const { writeFileAtomic } = await import('../io/files.js');
      const report = runReportFile(outDir, label, runFileSuffix(prepared, opts.limit));
      writeFileAtomic(report, await renderReport(summaries, { title: `llmkb report: ${label}`, executions: results.map((r) => r.execution), records: results.map((r) => r.reportRecords) }));
      const here = (r: (typeof results)[number]) => r.execution.callsHere?.[subject];
      const calls = results.reduce((sum, r) => ({ calls: sum.calls + (here(r)?.calls ?? 0), requests: sum.requests + (here(r)?.requests ?? 0), cacheHits: sum.cacheHits + (here(r)?.cacheHits ?? 0) }), { calls: 0, requests: 0, cacheHits: 0 });
      if (opts.junit !== undefined) {
        const { junitReport } = await import('./junit.js');
        writeFileAtomic(resolve(opts.junit), junitReport(summaries, opts.failUnder ?? []));
      }
      const { failedThresholds } = await import('../analysis/thresholds.js');
      const failures = failedThresholds(summaries, opts.failUnder ?? []);
      if (opts.json) {
        const { evalResultJson } = await import('./json-output.js');
        process.stdout.write(`${JSON.stringify(evalResultJson({ label, method: method.id, modelSpec: spec, report, calls, results, failures, ...(opts.junit === undefined ? {} : { junit: opts.junit }) }), null, 2)}\n`);
      } else {
        const presentation = method.presentation ? await method.presentation() : undefined;
        const { headlineTable, toMarkdown } = await import('../methods/run-tables.js');
        const { FLAG_NOTE, warningLines } = await import('../methods/summary-warnings.js');
        // Without a table of its own, a method's headline metrics (flagged values marked) and every warning of its runs.
        const warned = warningLines(summaries).map((w) => `WARNING ${w}`);
        const plain = () => [toMarkdown(headlineTable(summaries, method.settings ?? [])), ...warned, ...(warned.length ? [FLAG_NOTE] : [])].join('\n');
        process.stdout.write(`\n${label}\n${presentation?.resultTable ? presentation.resultTable(summaries) : plain()}\n`);
        process.stdout.write(`report: ${report}\nsummaries: ${results.map((r) => r.files!.summary).join(', ')}\n`);
        process.stdout.write(`model calls: ${calls.calls} (${calls.requests} made, ${calls.cacheHits} from the cache)\n`);
        if (opts.junit !== undefined) process.stdout.write(`junit: ${opts.junit}\n`);
      }
      if (failures.length > 0) {
        throw new LlmkbError(`--fail-under: ${failures.join('; ')}`, { exitCode: EXIT_CODES.threshold, hint: 'The evaluation finished; a metric is below the threshold you set.' });
      }
    } finally {
      await ws.close();
    }
  });
}
