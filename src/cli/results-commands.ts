/**
 * `llmkb metrics`, `compare` and `report`: a run's summary, and the analysis and HTML report over
 * several runs, of any method. Runs come from result files (summaries, or records files) and the
 * store (`--run ID`), read through src/runs/; each method shows its own tables through its
 * presentation. `compare` and `report` are one library call each (`compareResults`,
 * `reportRuns`), their result printed. The modules load inside the actions (start-up time).
 */
import { type Command, Option } from 'commander';
import { LlmkbError } from '../errors.js';
import type { MethodSummary, RunMeta } from '../methods/method-summary.js';
import type { LoadedRun } from '../runs/load-runs.js';
import type { Workspace } from '../workspace.js';
import { checkOutputFile, checkOutputFolder, collect, positiveInteger, positiveNumber, wholeNumber } from '../methods/cli-options.js';
import { requireFile } from '../io/require-path.js';
import { escapeControls } from '../terminal-text.js';

/** `--params`, `--fine-tuned`, `--base`: what the cross-model analyses group runs by. */
export function metaFrom(opts: { params?: number; fineTuned?: boolean; base?: boolean }): RunMeta | undefined {
  if (opts.fineTuned && opts.base)
    throw new LlmkbError('--fine-tuned and --base both given', { hint: 'A model is either instruction-tuned / RLHF (--fine-tuned) or a base model (--base).' });
  const meta: RunMeta = {};
  if (opts.params !== undefined) meta.paramsB = opts.params;
  if (opts.fineTuned) meta.fineTuned = true;
  if (opts.base) meta.fineTuned = false;
  return Object.keys(meta).length ? meta : undefined;
}

/** A summary as plain text: the method's own layout, else its metrics from metricDefs. */
async function formatSummary(summary: MethodSummary): Promise<string> {
  const { findMethod } = await import('../methods/registry.js');
  const { formatMetric } = await import('../methods/method-summary.js');
  const method = findMethod(summary.method.id);
  const own = method?.presentation ? (await method.presentation()).formatSummary : undefined;
  if (own) return own(summary);
  const lines = [
    `${summary.model}  ${summary.setting}  (${Object.entries(summary.counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')})${summary.approximate ? '  [APPROXIMATE]' : ''}`,
  ];
  for (const d of summary.metricDefs) {
    const ci = summary.intervals[d.id];
    lines.push(
      `${d.label.padEnd(20)} ${formatMetric(d, summary.metrics[d.id]).padStart(8)}   ${ci ? `[${formatMetric(d, ci[0])}, ${formatMetric(d, ci[1])}]` : '-'}`,
    );
  }
  return lines.join('\n');
}

export function registerResultsCommands(program: Command, workspace: (command: Command) => Workspace): void {
  program
    .command('metrics')
    .description("one run's metrics, with 95% bootstrap intervals and its method's breakdowns")
    .option('-i, --input <file>', 'a records file (e.g. the output of `llmkb consistency`) or a summary file')
    .option('--run <id>', 'a run in the store instead of a file (see `llmkb runs`)')
    .addOption(new Option('--format <format>', 'output').choices(['table', 'json']).default('table'))
    .option('--name <label>', 'how the model is shown (default: from the file name)')
    .option('--setting <name>', 'the setting the records were made in (default: from the records)')
    .option('--resamples <n>', 'bootstrap resamples', positiveInteger, 1000)
    .option('--seed <n>', 'bootstrap seed', wholeNumber, 42)
    .option('--params <billions>', 'parameter count, for the size analysis of `llmkb compare`', positiveNumber)
    .option('--fine-tuned', 'the model is instruction-tuned / RLHF (for the fine-tuning analysis)')
    .option('--base', 'the model is a base model')
    .action(
      async (
        opts: {
          input?: string;
          run?: string;
          format: 'table' | 'json';
          name?: string;
          setting?: string;
          resamples: number;
          seed: number;
          params?: number;
          fineTuned?: boolean;
          base?: boolean;
        },
        command: Command,
      ) => {
        let loaded: LoadedRun;
        if (opts.run !== undefined) {
          const { loadStoredRun } = await import('../runs/load-runs.js');
          const ws = workspace(command);
          try {
            loaded = await loadStoredRun(ws.runs, opts.run, { resamples: opts.resamples, seed: opts.seed, storePath: ws.storePath });
          } finally {
            await ws.close();
          }
        } else {
          if (opts.input === undefined)
            throw new LlmkbError('nothing to score', { hint: 'Pass --input FILE (a records or summary file) or --run ID (a run in the store).' });
          const meta = metaFrom(opts);
          const { loadResultRun } = await import('../runs/load-runs.js');
          loaded = await loadResultRun(requireFile(opts.input, 'Give a records file (e.g. from `llmkb consistency`) or a summary file.'), {
            resamples: opts.resamples,
            seed: opts.seed,
            ...(opts.name ? { model: opts.name } : {}),
            ...(opts.setting ? { setting: opts.setting } : {}),
            ...(meta ? { meta } : {}),
          });
        }
        process.stdout.write(opts.format === 'json' ? `${JSON.stringify(loaded.summary, null, 2)}\n` : `${await formatSummary(loaded.summary)}\n`);
      },
    );

  program
    .command('compare')
    .description(
      "runs side by side: each method's own tables (the reliability paper's Tables 9-11 and correlations, CONNER's Tables 2-3, ...), rankings and paired tests",
    )
    .argument('[files...]', 'summary files (written by eval, sweep, metrics --format json) or records files (.jsonl)')
    .option('--run <id>', 'a run in the store (repeatable)', collect)
    .option('--out <dir>', 'also write the tables as Markdown and CSV, and analysis.json, here')
    .option('--resamples <n>', 'bootstrap resamples for records files and paired tests', positiveInteger, 1000)
    .option('--seed <n>', 'bootstrap seed', wholeNumber, 42)
    .option('--json', 'print the analysis (runs, tables, correlations, rankings, effects, paired tests, warnings) as JSON')
    .action(async (files: string[], opts: { run?: string[]; out?: string; resamples: number; seed: number; json?: boolean }, command: Command) => {
      if (opts.out !== undefined) checkOutputFolder(opts.out);
      const { compareResults } = await import('../analysis/compare-results.js');
      const { loadResultRun, loadStoredRun } = await import('../runs/load-runs.js');
      const loaded: LoadedRun[] = [];
      for (const f of files)
        loaded.push(
          await loadResultRun(requireFile(f, 'Give summary files written by `llmkb eval` / `llmkb sweep`, or records files (.jsonl).'), {
            resamples: opts.resamples,
            seed: opts.seed,
          }),
        );
      if (opts.run?.length) {
        const ws = workspace(command);
        try {
          for (const id of opts.run) loaded.push(await loadStoredRun(ws.runs, id, { resamples: opts.resamples, seed: opts.seed, storePath: ws.storePath }));
        } finally {
          await ws.close();
        }
      }
      if (loaded.length === 0) throw new LlmkbError('nothing to compare', { hint: 'Give summary / records files, or --run ID for runs in the store.' });
      // The comparison is one library call; the command prints it.
      const result = await compareResults(loaded, {
        resamples: opts.resamples,
        seed: opts.seed,
        log: (line) => process.stderr.write(`${escapeControls(line)}\n`),
        ...(opts.out === undefined ? {} : { out: opts.out }),
      });
      process.stdout.write(opts.json ? `${JSON.stringify(result.analysis, null, 2)}\n` : result.markdown);
      if (opts.out) process.stderr.write(`wrote ${result.wrote} to ${opts.out}\n`);
    });

  program
    .command('report')
    .description('one self-contained HTML report (tables and charts) for several runs of any methods')
    .argument('<files...>', 'summary files or records files (.jsonl)')
    .option('-o, --output <file>', 'HTML file', 'llmkb-report.html')
    .option('--title <text>', 'page title')
    .action(async (files: string[], opts: { output: string; title?: string }) => {
      const { reportRuns } = await import('../report/runs-report.js');
      const { loadResultRun } = await import('../runs/load-runs.js');
      checkOutputFile(opts.output, files);
      const loaded: LoadedRun[] = [];
      for (const f of files)
        loaded.push(
          await loadResultRun(requireFile(f, 'Give summary files written by `llmkb eval` / `llmkb sweep`, or records files (.jsonl).'), {
            resamples: 1000,
            seed: 42,
          }),
        );
      await reportRuns(loaded, {
        output: opts.output,
        log: (line) => process.stderr.write(`${escapeControls(line)}\n`),
        ...(opts.title ? { title: opts.title } : {}),
      });
      process.stdout.write(`report -> ${opts.output}\n`);
    });
}
