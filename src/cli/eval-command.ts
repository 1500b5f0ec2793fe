/**
 * `llmkb eval`: one model through any registered method (`--method`, default the first
 * registered), every setting as a resumable run of the generic runner, then one report over the
 * settings: the library's `evaluate` (src/evaluate.ts), its flags parsed and its result printed.
 * The roles' flags and the methods' options come from the registry (method-flags.ts).
 */
import { type Command, InvalidArgumentError } from 'commander';
import { EXIT_CODES, LlmkbError } from '../errors.js';
import type { EvaluationMethod } from '../methods/method.js';
import { listMethods } from '../methods/registry.js';
import type { Workspace } from '../workspace.js';
import { DEFAULT_MODEL, LIMIT_HELP } from './cli-defaults.js';
import { commaList, positiveInteger, positiveNumber, wholeNumber } from '../methods/cli-options.js';
import { addMethodFlags, foreignOptions, methodOptionValues, roleSpecOf } from './method-flags.js';
import { metaFrom } from './results-commands.js';
import { thresholdProblem } from '../analysis/thresholds.js';
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

export function registerEvalCommand(program: Command, workspace: (command: Command) => Workspace, methods: readonly EvaluationMethod[]): void {
  const first = methods[0]!;
  const command = program
    .command('eval')
    .description('evaluate one model with a method, end to end: its inputs, every stage and setting as a resumable run, the summaries and one report')
    .option('--method <id>', `the evaluation method (${methods.map((m) => m.id).join(', ')}; default ${first.id}; llmkb methods lists them)`)
    .option('-m, --model <spec>', `model under test (default: "model" in the config, else ${DEFAULT_MODEL})`)
    .option(
      '--name <label>',
      "the run label: how the model is shown in tables and what its result files are named by (default: the model file's or served model's name, with a short hash of the spec when another model's results in --out have that name)",
    )
    .option(
      '--settings <list>',
      "comma-separated settings of the method, repeatable (default: all of them; the reliability method's prompt settings, ...)",
      commaList,
    )
    .option('--quick', 'a small seeded subset for a quick look, recorded as an approximation (the method says what it keeps)')
    .option('--out <dir>', 'results folder (summaries, records, <label>.report.html)', 'llmkb-results')
    .option('--seed <n>', 'seed', wholeNumber, 42)
    .option('--limit <n>', `${LIMIT_HELP} (seed --seed; after --quick); results named <label>.<setting>.limit-N.*`, positiveInteger)
    .option('--params <billions>', 'parameter count (for cross-model analysis)', positiveNumber)
    .option('--fine-tuned', 'the model is instruction-tuned / RLHF (for cross-model analysis)')
    .option('--base', 'the model is a base model (for cross-model analysis)')
    .option('--fail-under <METRIC=VALUE>', 'exit with code 4 when a metric is below VALUE (fraction), e.g. NCCR=0.2; repeatable', parseThreshold)
    .option('--junit <file>', 'also write the --fail-under checks as JUnit XML for CI: one test case per (run, threshold), failures with the metric value')
    .option(
      '--json',
      'print the result as one JSON document (schema llmkb-eval-result-v1: the runs with their summaries and files, the report, the calls, the notices) instead of the table',
    );
  addMethodFlags(command, methods);
  command.action(async (opts: EvalOptions, cmd: Command) => {
    const { getMethod, listMethods } = await import('../methods/registry.js');
    const method = getMethod(opts.method ?? first.id);
    const foreign = foreignOptions(method, listMethods(), opts, cmd);
    if (foreign.length)
      throw new LlmkbError(`method "${method.id}" has no ${foreign.join(', ')}`, {
        exitCode: EXIT_CODES.usage,
        hint: `See llmkb eval --help: each flag names the method it belongs to; llmkb methods lists ${method.id}'s roles and options.`,
      });
    const { subjectRole } = await import('../methods/run-method.js');
    const roles: Record<string, string> = {};
    for (const role of method.roles) {
      const spec = role.id === subjectRole(method) ? undefined : roleSpecOf(role.id, opts);
      if (spec !== undefined) roles[role.id] = spec;
    }
    const meta = metaFrom(opts);
    const log = (line: string) => process.stderr.write(`${escapeControls(line)}\n`);
    // The whole evaluation is one library call; the command parses, prints and maps a missed threshold to exit code 4.
    const { evaluate } = await import('../evaluate.js');
    const result = await evaluate({
      method,
      roles,
      options: methodOptionValues(method, opts),
      out: opts.out,
      seed: opts.seed,
      quick: opts.quick === true,
      workspace: () => workspace(cmd),
      command: commandLine(),
      log,
      progress: {},
      ...(opts.model === undefined ? {} : { model: opts.model }),
      ...(opts.settings === undefined
        ? {}
        : {
            settings: opts.settings
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          }),
      ...(opts.name === undefined ? {} : { name: opts.name }),
      ...(opts.limit === undefined ? {} : { limit: opts.limit }),
      ...(meta ? { meta } : {}),
      ...(opts.failUnder === undefined ? {} : { failUnder: opts.failUnder }),
      ...(opts.junit === undefined ? {} : { junit: opts.junit }),
    });
    const summaries = result.runs.map((r) => r.summary);
    if (opts.json) {
      const { evalResultJson } = await import('./json-output.js');
      process.stdout.write(`${JSON.stringify(evalResultJson({ ...result, results: result.runs }), null, 2)}\n`);
    } else {
      const presentation = method.presentation ? await method.presentation() : undefined;
      const { headlineTable, toMarkdown } = await import('../methods/run-tables.js');
      const { FLAG_NOTE, warningLines } = await import('../methods/summary-warnings.js');
      // Without a table of its own, a method's headline metrics (flagged values marked) and every warning of its runs.
      const warned = warningLines(summaries).map((w) => `WARNING ${w}`);
      const plain = () => [toMarkdown(headlineTable(summaries, method.settings ?? [])), ...warned, ...(warned.length ? [FLAG_NOTE] : [])].join('\n');
      process.stdout.write(`\n${result.label}\n${presentation?.resultTable ? presentation.resultTable(summaries) : plain()}\n`);
      process.stdout.write(`report: ${result.report}\nsummaries: ${result.runs.map((r) => r.files!.summary).join(', ')}\n`);
      process.stdout.write(`model calls: ${result.calls.calls} (${result.calls.requests} made, ${result.calls.cacheHits} from the cache)\n`);
      if (opts.junit !== undefined) process.stdout.write(`junit: ${opts.junit}\n`);
    }
    if (result.failures.length > 0) {
      throw new LlmkbError(`--fail-under: ${result.failures.join('; ')}`, {
        exitCode: EXIT_CODES.threshold,
        hint: 'The evaluation finished; a metric is below the threshold you set.',
      });
    }
  });
}
