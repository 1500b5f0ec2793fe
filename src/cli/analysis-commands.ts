import { closeSync, existsSync, mkdirSync, openSync, readSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
// Types only at the top (plus the dependency-free metric keys); the modules load inside the
// actions, so `llmkb --help` does not load Vega, statistics or SQLite (see cli-defaults.ts).
import type { PairedTest } from '../methods/reliability/across-models/compare-runs.js';
import type { ExecutionRecord } from '../methods/reliability/evaluate-model.js';
import type { PromptSetting } from '../methods/reliability/asking/ask-questions.js';
import { EXIT_CODES, fileAccessError, InputFileError, LlmkbError } from '../errors.js';
import { METRIC_KEYS, type MetricKey } from '../methods/reliability/metrics/reliability-metrics.js';
import type { RunMeta, RunSummary, ScoredRecord } from '../methods/reliability/metrics/summarize-run.js';
import type { MethodSummary } from '../methods/method-summary.js';
import type { Workspace } from '../workspace.js';
import { ANSWER_MAX_TOKENS, DEFAULT_MODEL, PAPER_CUTOFF, PROMPT_SETTINGS } from './cli-defaults.js';
import { checkMaxTokens, checkOutputFile, checkOutputFolder, checkSourceDataDir, collect, isoDate, optionalRoleEntry, positiveInteger, positiveNumber, requireFile, wholeNumber } from './cli-options.js';
import { LIMIT_HELP } from './eval-commands.js';

interface LoadedRun {
  summary: MethodSummary;
  /** Per-item records: the reliability method's scored records, or another method's records read beside its summary. */
  records?: readonly object[];
  /** The run's execution record (`<stem>.run.json` beside a summary), when there is one. */
  execution?: ExecutionRecord;
  /** Where it was read from: a file or `run ID`. */
  source: string;
}

/**
 * Runs read for a comparison, made distinct (run identity: two runs with one label are shown
 * apart, never merged) and checked for protocol differences; both are said on stderr.
 */
async function prepareRuns(runs: LoadedRun[]): Promise<{ runs: LoadedRun[]; warnings: string[] }> {
  const { distinctRuns } = await import('../analysis/compare-methods.js');
  const prepared = distinctRuns(runs);
  for (const w of prepared.warnings) process.stderr.write(`warning: ${w}\n`);
  return prepared;
}

/** The command line as typed (program name and arguments), for a run's execution record. */
function commandLine(): string {
  return ['llmkb', ...process.argv.slice(2)].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function metaFrom(opts: { params?: number; fineTuned?: boolean }): RunMeta | undefined {
  const meta: RunMeta = {};
  if (opts.params !== undefined) meta.paramsB = opts.params;
  if (opts.fineTuned !== undefined) meta.fineTuned = opts.fineTuned;
  return Object.keys(meta).length ? meta : undefined;
}

/**
 * Scored records from a JSONL file, summarised. Setting: from the records (as `llmkb ask` writes
 * it) unless given; model: from the file name (`<model>.<setting>.records.jsonl`) unless given.
 */
async function loadRecordsFile(file: string, options: { resamples: number; seed: number; model?: string; setting?: string; meta?: RunMeta }): Promise<LoadedRun & { summary: RunSummary; records: ScoredRecord[] }> {
  const { readJsonl } = await import('../io/jsonl.js');
  const { scoredRecordSchema, summarizeRun } = await import('../methods/reliability/metrics/summarize-run.js');
  const records = readJsonl(file, scoredRecordSchema, 'scored record', { uniqueIds: true });
  if (records.length === 0) throw new InputFileError(file, undefined, undefined, 'no records');
  const setting = options.setting ?? (typeof records[0]!.setting === 'string' ? (records[0]!.setting as string) : 'unknown');
  const stem = basename(file).replace(/(\.records)?\.jsonl$/, '');
  const model = options.model ?? (stem.endsWith(`.${setting}`) ? stem.slice(0, -setting.length - 1) : stem);
  return { summary: summarizeRun(records, { model, setting, resamples: options.resamples, seed: options.seed, ...(options.meta ? { meta: options.meta } : {}) }), records, source: file };
}

const SUMMARY_HINT = 'Give summary JSON files written by `llmkb metrics --format json` / `llmkb eval`, or scored records (.jsonl).';

/**
 * A summary file's JSON as a v2 summary (src/methods/load-summary.ts), then the method's own
 * checks when it is registered. A method that is not registered is shown from its metricDefs alone.
 */
async function readSummary(json: unknown, file: string): Promise<{ summary: MethodSummary }> {
  const { loadSummary } = await import('../methods/load-summary.js');
  const { findMethod } = await import('../methods/registry.js');
  const summary = loadSummary(json, file, SUMMARY_HINT);
  const issue = (await findMethod(summary.method.id)?.checkSummary?.(summary))?.[0];
  if (issue) throw new InputFileError(file, undefined, issue.path || undefined, issue.message, SUMMARY_HINT);
  return { summary };
}

/**
 * CONNER's records (`llmkb conner score --out`) hold no summary of their own: the run's setting,
 * scorers and protocol are in the `.summary.json` written beside them. Read alone, they would
 * fail the reliability record schema on a field the user never wrote; say what to give instead.
 */
function refuseConnerRecordsAlone(file: string): void {
  // The first line only (a records file may be hundreds of MB); a CONNER record is a few KB.
  const head = Buffer.alloc(1 << 20);
  const fd = openSync(file, 'r');
  const length = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  const first = head.subarray(0, length).toString('utf8').split('\n', 1)[0]!.replace(/^\uFEFF/, '').trim();
  let record: unknown;
  try {
    record = JSON.parse(first);
  } catch {
    return; // not JSON: the records reader names the line
  }
  const r = record as { generator?: unknown; knowledge?: unknown; scores?: unknown } | null;
  if (r !== null && typeof r === 'object' && typeof r.generator === 'string' && typeof r.knowledge === 'string' && typeof r.scores === 'object') {
    const summary = file.replace(/(\.records)?\.jsonl$/, '.summary.json');
    throw new InputFileError(file, 1, undefined, `CONNER records with no summary beside them (${summary} is missing)`, 'Give the .summary.json that `llmkb conner score --out DIR` writes beside its .records.jsonl (compare reads both), or re-score with --out: every call comes from the cache.');
  }
}

/** A summary JSON (`llmkb metrics --format json`) or a JSONL of scored records. */
async function loadRun(file: string, defaults: { resamples: number; seed: number }): Promise<LoadedRun> {
  requireFile(file, 'Give summary JSON files written by `llmkb metrics --format json` / `llmkb eval`, or scored records (.jsonl).');
  const { readTextFile } = await import('../io/files.js');
  if (file.endsWith('.jsonl')) {
    // Another method's records (`llmkb conner score --out`): read through the summary beside them.
    const beside = file.replace(/\.records\.jsonl$/, '.summary.json');
    if (beside !== file && existsSync(beside)) {
      let method: unknown;
      try {
        method = (JSON.parse(readTextFile(beside)) as { method?: { id?: unknown } }).method?.id;
      } catch {
        method = undefined; // not a summary: the records file is read on its own
      }
      if (typeof method === 'string' && method !== 'reliability') return loadRun(beside, defaults);
    }
    refuseConnerRecordsAlone(file);
    return loadRecordsFile(file, defaults);
  }
  const text = readTextFile(file);
  if (text.trim() === '') throw new InputFileError(file, undefined, undefined, 'the file is empty', 'Give summary JSON files written by `llmkb metrics --format json` / `llmkb eval`; an empty file usually means an earlier step did not finish.');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InputFileError(file, undefined, undefined, `not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { summary } = await readSummary(json, file);
  // The execution record beside a summary (`llmkb eval` writes both): shown in the report.
  const executionFile = file.replace(/\.summary\.json$/, '.run.json');
  let execution: ExecutionRecord | undefined;
  if (executionFile !== file && existsSync(executionFile)) {
    try {
      execution = JSON.parse(readTextFile(executionFile)) as ExecutionRecord;
    } catch (error) {
      // Optional: the summary is complete without it, so an unreadable one is said, not fatal.
      process.stderr.write(`warning: ${executionFile} is not readable JSON (${error instanceof Error ? error.message : String(error)}); the report shows that run without its execution record\n`);
    }
  }
  // Another method's records beside its summary (`llmkb conner score --out` writes both): its
  // compare hook pairs runs on shared items, its report shows examples. (A reliability summary's
  // records are read only by the report, below, as before.)
  let records: object[] | undefined;
  const recordsFile = file.replace(/\.summary\.json$/, '.records.jsonl');
  if (summary.method.id !== 'reliability' && recordsFile !== file && existsSync(recordsFile)) {
    const { readJsonl } = await import('../io/jsonl.js');
    const { z } = await import('zod');
    records = readJsonl(recordsFile, z.object({ id: z.string() }).passthrough(), 'record');
  }
  return { summary, source: file, ...(execution ? { execution } : {}), ...(records ? { records } : {}) };
}

/** A run in the store (from `llmkb eval`, or ask -> judge -> consistency inside one run) as scored records. */
async function loadStoredRun(ws: Workspace, id: string, defaults: { resamples: number; seed: number }): Promise<LoadedRun & { summary: RunSummary }> {
  const { summarizeRun } = await import('../methods/reliability/metrics/summarize-run.js');
  const run = ws.runs.get(id);
  if (!run) throw new LlmkbError(`no run ${id} in ${ws.storePath}`, { hint: 'List the runs with `llmkb runs`.' });
  const judged = run.records<ScoredRecord>('judge');
  if (judged.size === 0) throw new LlmkbError(`run ${id} has no judged records`, { hint: 'Run the judge stage (llmkb eval) for it first.' });
  const consistency = run.records<{ consistency: number | null }>('consistency');
  if (run.stageStatus('consistency') !== 'done') process.stderr.write(`note: run ${id}: the consistency stage is not finished; consistency metrics use the pairs done so far\n`);
  const records = [...judged.values()].map((r) => ({ ...r, consistency: consistency.get(r.id)?.consistency ?? null }));
  const summary = summarizeRun(records, { model: run.spec.label ?? run.spec.model, modelIdentity: run.spec.model, setting: run.spec.setting, datasetChecksums: { questions: run.spec.dataset }, runId: run.id, ...defaults });
  return { summary, records, source: `run ${id}` };
}

/**
 * `--fail-under METRIC=VALUE`. One scale only, the one the summaries hold: fractions. Every
 * metric lies in [-1, 1] (NCR and NCCR) or [0, 1], so a value outside [-1, 1] is a percentage
 * typed by mistake and is refused with the fraction it probably meant; a malformed number
 * (1.2.3, which Number() turns into NaN and every comparison then passes) is refused too.
 */
export function parseThreshold(value: string, previous: Array<{ metric: string; value: number }> = []): Array<{ metric: string; value: number }> {
  const m = /^\s*([A-Za-z_]+)\s*=\s*(\S+)\s*$/.exec(value);
  if (!m) throw new InvalidArgumentError(`write METRIC=VALUE with METRIC one of ${METRIC_KEYS.join(', ')} and VALUE a fraction, e.g. NCCR=0.2`);
  const metric = m[1]!;
  if (!(METRIC_KEYS as readonly string[]).includes(metric)) {
    const near = METRIC_KEYS.find((k) => k.toLowerCase() === metric.toLowerCase());
    throw new InvalidArgumentError(`unknown metric "${metric}"${near ? ` (did you mean ${near}?)` : ''}; the metrics are ${METRIC_KEYS.join(', ')}`);
  }
  // Any finite number as JavaScript writes it (0.2, .2, 2e-1, 1E-1); Number() alone, since
  // whatever it cannot read (1.2.3, 0.2x) is NaN and refused below.
  const number = Number(m[2]);
  if (!Number.isFinite(number)) throw new InvalidArgumentError(`"${m[2]}" is not a number; write ${metric}=VALUE with VALUE a fraction, e.g. ${metric}=0.2`);
  if (number > 1 || number < -1) throw new InvalidArgumentError(`${metric}=${m[2]} is out of range: thresholds are fractions as in the summaries (metrics lie in [-1, 1]); for ${number}% write ${metric}=${number / 100}`);
  return [...previous, { metric, value: number }];
}

export function registerAnalysisCommands(program: Command, workspace: (command: Command) => Workspace): void {
  program
    .command('metrics')
    .description("the paper's metrics for one run, with 95% bootstrap intervals and breakdowns")
    .option('-i, --input <file>', 'records with label and consistency (output of `llmkb consistency`)')
    .option('--run <id>', 'a run in the store instead of a file (see `llmkb runs`)')
    .addOption(new Option('--format <format>', 'output').choices(['table', 'json']).default('table'))
    .option('--model <name>', 'model name to show (default: from the file name)')
    .option('--setting <name>', 'prompt setting (default: from the records)')
    .option('--resamples <n>', 'bootstrap resamples', positiveInteger, 1000)
    .option('--seed <n>', 'bootstrap seed', wholeNumber, 42)
    .option('--params <billions>', 'parameter count, for the size analysis of `llmkb compare`', positiveNumber)
    .option('--fine-tuned', 'the model is instruction-tuned / RLHF (for the fine-tuning analysis)')
    .option('--base', 'the model is a base model')
    .action(async (opts: { input?: string; run?: string; format: 'table' | 'json'; model?: string; setting?: string; resamples: number; seed: number; params?: number; fineTuned?: boolean; base?: boolean }, command: Command) => {
      const { formatSummary } = await import('../methods/reliability/metrics/summarize-run.js');
      if (opts.run !== undefined) {
        const ws = workspace(command);
        try {
          const { summary } = await loadStoredRun(ws, opts.run, { resamples: opts.resamples, seed: opts.seed });
          process.stdout.write(opts.format === 'json' ? `${JSON.stringify(summary, null, 2)}\n` : `${formatSummary(summary)}\n`);
        } finally {
          await ws.close();
        }
        return;
      }
      if (opts.input === undefined) throw new LlmkbError('nothing to score', { hint: 'Pass --input FILE (scored records) or --run ID (a run in the store).' });
      const meta = metaFrom({ ...(opts.params === undefined ? {} : { params: opts.params }), ...(opts.fineTuned ? { fineTuned: true } : opts.base ? { fineTuned: false } : {}) });
      const { summary } = await loadRecordsFile(requireFile(opts.input, 'Score responses with `llmkb consistency` first.'), { resamples: opts.resamples, seed: opts.seed, ...(opts.model ? { model: opts.model } : {}), ...(opts.setting ? { setting: opts.setting } : {}), ...(meta ? { meta } : {}) });
      process.stdout.write(opts.format === 'json' ? `${JSON.stringify(summary, null, 2)}\n` : `${formatSummary(summary)}\n`);
    });

  program
    .command('compare')
    .description("Tables 9-11, Table 2's correlations, rankings, answer types, sub-types, effects and paired tests over several runs")
    .argument('[files...]', 'summary JSON files (llmkb metrics --format json / llmkb eval) or scored records (.jsonl)')
    .option('--run <id>', 'a run in the store (repeatable)', collect)
    .option('--out <dir>', 'also write table9/10/11 and correlations as Markdown and CSV, and analysis.json, here')
    .option('--resamples <n>', 'bootstrap resamples for records files and paired tests', positiveInteger, 1000)
    .option('--seed <n>', 'bootstrap seed', wholeNumber, 42)
    .option('--json', 'print the analysis (runs, tables, correlations, rankings, effects, paired tests, warnings) as JSON')
    .action(async (files: string[], opts: { run?: string[]; out?: string; resamples: number; seed: number; json?: boolean }, command: Command) => {
      if (opts.out !== undefined) checkOutputFolder(opts.out);
      const { compareRuns } = await import('../analysis/compare-methods.js');
      const { writeFileAtomic } = await import('../io/files.js');
      const loaded: LoadedRun[] = [];
      for (const f of files) loaded.push(await loadRun(f, { resamples: opts.resamples, seed: opts.seed }));
      if (opts.run?.length) {
        const ws = workspace(command);
        try {
          for (const id of opts.run) loaded.push(await loadStoredRun(ws, id, { resamples: opts.resamples, seed: opts.seed }));
        } finally {
          await ws.close();
        }
      }
      if (loaded.length === 0) throw new LlmkbError('nothing to compare', { hint: 'Give summary JSON / records files, or --run ID for runs in the store.' });
      const { runs, warnings } = await prepareRuns(loaded);
      const result = await compareRuns(runs, { resamples: opts.resamples, seed: opts.seed });
      const analysis = { ...result.analysis, warnings };
      process.stdout.write(opts.json ? `${JSON.stringify(analysis, null, 2)}\n` : `${result.markdown}`);
      if (opts.out) {
        try {
          mkdirSync(opts.out, { recursive: true });
        } catch (error) {
          throw fileAccessError(opts.out, error, 'write', 'folder');
        }
        for (const [name, content] of Object.entries(result.files)) writeFileAtomic(join(opts.out, name), content);
        writeFileAtomic(join(opts.out, 'analysis.json'), `${JSON.stringify(analysis, null, 2)}\n`);
        process.stderr.write(`wrote ${result.wrote} to ${opts.out}\n`);
      }
    });

  program
    .command('report')
    .description('a single self-contained HTML report (tables and charts) for several runs')
    .argument('<files...>', 'summary JSON files or scored records (.jsonl)')
    .option('-o, --output <file>', 'HTML file', 'llmkb-report.html')
    .option('--title <text>', 'page title')
    .action(async (files: string[], opts: { output: string; title?: string }) => {
      const { writeFileAtomic } = await import('../io/files.js');
      const { renderReport } = await import('../report/html-report.js');
      checkOutputFile(opts.output);
      const loaded: LoadedRun[] = [];
      for (const f of files) loaded.push(await loadRun(f, { resamples: 1000, seed: 42 }));
      const { runs } = await prepareRuns(loaded);
      const executions = runs.flatMap((r) => (r.execution ? [r.execution] : []));
      // The records beside a summary (as `llmkb eval` writes them): significance marks and example responses.
      const { readJsonl } = await import('../io/jsonl.js');
      const { scoredRecordSchema } = await import('../methods/reliability/metrics/summarize-run.js');
      const records = runs.map((r) => {
        if (r.records) return r.records;
        if (r.summary.method.id !== 'reliability') return undefined; // a scored-record file is the reliability method's
        const file = r.source.replace(/\.summary\.json$/, '.records.jsonl');
        return file !== r.source && existsSync(file) ? readJsonl(file, scoredRecordSchema, 'scored record') : undefined;
      });
      writeFileAtomic(resolve(opts.output), await renderReport(runs.map((r) => r.summary), { ...(opts.title ? { title: opts.title } : {}), executions, records }));
      process.stdout.write(`report -> ${opts.output}\n`);
    });

  program
    .command('eval')
    .description('the whole evaluation: data sets, ask, judge, consistency, metrics and report, per prompt setting')
    .option('-m, --model <spec>', `model under test (default: "model" in the config, else ${DEFAULT_MODEL})`)
    .option('--name <label>', 'the run label: how the model is shown in tables and what its result files are named by (default: the whole model spec)')
    .option('--settings <list>', 'comma-separated prompt settings', PROMPT_SETTINGS.join(','))
    .option('--quick', 'a small seeded subset (50 seen + 50 unseen questions, 5 MCQs) to see a full report in minutes')
    .option('--data <dir>', 'data set folder (built there if missing)', 'llmkb-data')
    .option('--data-dir <dir>', 'local copies of the source files for building data sets (default: $LLMKB_DATA_DIR)')
    .option('--out <dir>', 'results folder (summaries, records, report.html)', 'llmkb-results')
    .option('--seed <n>', 'seed', wholeNumber, 42)
    .option('--max-tokens <n>', 'maximum new tokens per answer', positiveInteger, ANSWER_MAX_TOKENS)
    .option('--mcqs <n>', 'MCQs per response (default 20; 5 with --quick)', positiveInteger)
    .addOption(new Option('--mode <mode>', 'MCQ answer mode (default: generate, as the paper; logprobs is faster and recorded as a departure)').choices(['logprobs', 'generate']))
    .option('--judge <spec>', 'judge LLM (default: "judge" in the config; none: lexical rule, approximate)')
    .option('--distractor <spec>', 'distractor LLM (default: "distractor" in the config; none: answer pool)')
    .option('--embedder <spec>', 'embedding model for few-shot selection (default: "embedder" in the config; none: BM25)')
    .option('--cutoff <date>', "the model's knowledge cutoff, for building UnseenQA (YYYY-MM-DD)", isoDate, PAPER_CUTOFF)
    .option('--params <billions>', 'parameter count (for cross-model analysis)', positiveNumber)
    .option('--fine-tuned', 'the model is instruction-tuned / RLHF')
    .option('--limit <n>', `${LIMIT_HELP} (seed --seed; after --quick); results named <label>.<setting>.limit-N.*`, positiveInteger)
    .option('--fail-under <METRIC=VALUE>', 'exit with code 4 when a metric is below VALUE (fraction), e.g. NCCR=0.2; repeatable', parseThreshold)
    .option('--junit <file>', 'also write the --fail-under checks as JUnit XML for CI: one test case per (run, threshold), failures with the metric value')
    .action(async (opts: { model?: string; name?: string; settings: string; quick?: boolean; data: string; dataDir?: string; out: string; seed: number; maxTokens: number; mcqs?: number; mode?: 'logprobs' | 'generate'; judge?: string; distractor?: string; embedder?: string; cutoff: string; params?: number; fineTuned?: boolean; limit?: number; failUnder?: Array<{ metric: string; value: number }>; junit?: string }, command: Command) => {
      const settings = opts.settings.split(',').map((s) => s.trim()).filter(Boolean);
      for (const s of settings) if (!(PROMPT_SETTINGS as readonly string[]).includes(s)) throw new LlmkbError(`unknown prompt setting "${s}"`, { hint: `Use any of ${PROMPT_SETTINGS.join(', ')}, comma-separated.` });
      if (settings.length === 0) throw new LlmkbError('--settings names no prompt setting', { hint: `Use any of ${PROMPT_SETTINGS.join(', ')}, comma-separated.` });
      if (opts.junit !== undefined) {
        if (!opts.failUnder?.length) throw new LlmkbError('--junit without --fail-under: no check to report', { hint: 'Add --fail-under METRIC=VALUE (repeatable); --junit FILE then writes one test case per run and threshold.' });
        checkOutputFile(opts.junit);
      }
      // Every output place before any work: a typo costs nothing, not a whole evaluation.
      checkOutputFolder(opts.out);
      checkOutputFolder(opts.data, { existingMayBeReadOnly: true });
      const sourceDataDir = checkSourceDataDir(opts.dataDir);
      const { defaultRunLabel, evaluateModel, failedThresholds, OFFLINE_HINT } = await import('../methods/reliability/evaluate-model.js');
      const { departures } = await import('../methods/reliability/protocol.js');
      const { formatPercent } = await import('../methods/reliability/metrics/summarize-run.js');
      const ws = workspace(command);
      try {
        let entry = ws.entryFor('model', opts.model);
        if (entry === undefined) {
          process.stderr.write(`no --model and no "model" in the config: using the embedded default ${DEFAULT_MODEL} (downloaded once into ${join(ws.cacheDir, 'models')})\n`);
          entry = DEFAULT_MODEL;
        }
        const spec = typeof entry === 'string' ? entry : entry.spec;
        const model = await ws.executor(entry).catch((error: unknown) => {
          // The embedded default could not be downloaded (offline): name both ways out.
          if (entry !== DEFAULT_MODEL || !(error instanceof LlmkbError) || !/download/i.test(error.message)) throw error;
          throw new LlmkbError(error.message, { hint: `${OFFLINE_HINT} ${error.hint ?? ''}`.trim(), exitCode: error.exitCode, cause: error });
        });
        checkMaxTokens(model.model, opts.maxTokens);
        const judgeEntry = optionalRoleEntry(ws, 'judge', opts.judge);
        const distractorEntry = optionalRoleEntry(ws, 'distractor', opts.distractor);
        const embedderEntry = optionalRoleEntry(ws, 'embedder', opts.embedder);
        const judge = judgeEntry ? await ws.executor(judgeEntry) : undefined;
        const distractor = distractorEntry ? await ws.executor(distractorEntry) : undefined;
        const embedder = embedderEntry ? await ws.executor(embedderEntry) : undefined;
        // Every role's model of the kind the method needs, before any call (an embedder as the model is refused here).
        const { getMethod } = await import('../methods/registry.js');
        const { checkRoles } = await import('../methods/run-method.js');
        checkRoles(getMethod('reliability'), { model, ...(judge ? { judge } : {}), ...(distractor ? { distractor } : {}), ...(embedder ? { embedder } : {}) });
        const meta = metaFrom({ ...(opts.params === undefined ? {} : { params: opts.params }), ...(opts.fineTuned ? { fineTuned: true } : {}) });
        const result = await evaluateModel({
          model, modelName: opts.name ?? defaultRunLabel(spec), command: commandLine(), settings: settings as PromptSetting[], runs: ws.runs, dataDir: resolve(opts.data), outDir: resolve(opts.out), cacheDir: ws.cacheDir, seed: opts.seed, maxTokens: opts.maxTokens, cutoff: opts.cutoff,
          ...(judge ? { judge } : {}), ...(distractor ? { distractor } : {}), ...(embedder ? { embedder } : {}),
          ...(sourceDataDir ? { sourceDataDir: resolve(sourceDataDir) } : {}),
          ...(opts.quick ? { quick: { seen: 50, unseen: 50, mcqs: opts.mcqs ?? 5 } } : {}),
          ...(opts.mcqs === undefined ? {} : { mcqs: opts.mcqs }),
          ...(opts.limit === undefined ? {} : { limit: opts.limit }),
          ...(opts.mode ? { mode: opts.mode } : {}),
          ...(meta ? { meta } : {}),
          log: (line) => process.stderr.write(`${line}\n`),
        });
        const a = model.accounting;
        process.stdout.write(`\n${opts.name ?? defaultRunLabel(spec)}${judge ? '' : '  [APPROXIMATE: no judge LLM, lexical rule]'}\n`);
        const departed = new Set(result.summaries.flatMap((s) => (s.protocol ? departures(s.protocol) : [])).map((d) => `${d.choice} ${d.entry.choice}${d.entry.status === 'nondeterministic' ? ' (nondeterministic)' : ''}`));
        if (departed.size) process.stdout.write(`departures from the paper's protocol: ${[...departed].join('; ')}\n`);
        process.stdout.write(`setting        NCR     UR   C_correct  C_wrong   NCCR    IUR\n`);
        for (const s of result.summaries) {
          const m = s.metrics;
          process.stdout.write(`${s.setting.padEnd(12)} ${formatPercent(m.NCR).padStart(6)} ${formatPercent(m.UR).padStart(6)} ${formatPercent(m.C_correct).padStart(10)} ${formatPercent(m.C_wrong).padStart(8)} ${formatPercent(m.NCCR).padStart(6)} ${formatPercent(m.IUR).padStart(6)}\n`);
        }
        process.stdout.write(`report: ${result.reportFile}\nsummaries: ${result.summaryFiles.join(', ')}\n`);
        process.stdout.write(`model calls: ${a.calls} (${a.requests} made, ${a.cacheHits} from the cache)\n`);
        if (opts.junit !== undefined) {
          const { junitReport } = await import('./junit.js');
          const { writeFileAtomic } = await import('../io/files.js');
          writeFileAtomic(resolve(opts.junit), junitReport(result.summaries, opts.failUnder ?? []));
          process.stdout.write(`junit: ${opts.junit}\n`);
        }
        const failures = failedThresholds(result.summaries, opts.failUnder ?? []);
        if (failures.length > 0) {
          throw new LlmkbError(`--fail-under: ${failures.join('; ')}`, { exitCode: EXIT_CODES.threshold, hint: 'The evaluation finished; a metric is below the threshold you set.' });
        }
      } finally {
        await ws.close();
      }
    });
}
