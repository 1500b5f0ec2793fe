/**
 * `compareResults`: runs read back (result files or the store, src/runs/) compared as one call
 * (what `llmkb compare` runs; the command prints). The runs made distinct (two runs with one
 * label are shown apart, never merged) and checked for protocol differences, each method's own
 * tables, rankings and paired tests, each run's source and model spec, and what to know before
 * reading the numbers (approximate runs, departures, warnings) in every output: the Markdown, the
 * analysis document (schema llmkb-analysis-v1) and the files written to `out`, when given.
 */
import { join } from 'node:path';
import { makeFolder, writeFileAtomic } from '../io/files.js';
import type { LoadedRun } from '../runs/load-runs.js';
import { compareRuns, distinctRuns } from './compare-methods.js';
import { filesWithNotices, noticesJson, noticesMarkdown } from './run-notices.js';

export const ANALYSIS_SCHEMA = 'llmkb-analysis-v1' as const;

export interface CompareResultsOptions {
  /** Bootstrap resamples for records files and paired tests, and their seed. */
  resamples: number;
  seed: number;
  /** Also write the tables as Markdown and CSV, and analysis.json, in this folder. */
  out?: string;
  /** Where each warning goes as it is found, as `warning: ...` (the CLI: stderr); default nowhere. */
  log?: (line: string) => void;
}

export interface CompareResults {
  /** The runs compared, made distinct. */
  runs: LoadedRun[];
  /** The comparison as Markdown, the runs' notices after the tables. */
  markdown: string;
  /** The analysis document: each method's tables, rankings and tests, the runs' sources, notices and warnings. */
  analysis: {
    schema: typeof ANALYSIS_SCHEMA;
    sources: Array<{ label: string; setting: string; source: string; modelSpec?: string }>;
    notices: ReturnType<typeof noticesJson>;
    warnings: string[];
    [key: string]: unknown;
  };
  /** Protocol differences and label clashes found among the runs. */
  warnings: string[];
  /** What was written to `out` (file names), when it was given. */
  wrote?: string;
}

/** Compares `loaded`; see the module's comment. */
export async function compareResults(loaded: readonly LoadedRun[], options: CompareResultsOptions): Promise<CompareResults> {
  const { runs, warnings } = distinctRuns(loaded);
  for (const w of warnings) options.log?.(`warning: ${w}`);
  const result = await compareRuns(runs, { resamples: options.resamples, seed: options.seed });
  // Each run's file and model spec (from its execution record): what tells two models of one file name apart.
  const sources = runs.map((r) => ({
    label: r.summary.model,
    setting: r.summary.setting,
    source: r.source,
    ...(r.execution?.modelSpec ? { modelSpec: r.execution.modelSpec } : {}),
  }));
  const summaries = runs.map((r) => r.summary);
  const notices = noticesMarkdown(summaries);
  const analysis = { schema: ANALYSIS_SCHEMA, ...result.analysis, sources, notices: noticesJson(summaries), warnings };
  const markdown = notices ? `${result.markdown.replace(/\n*$/, '\n')}\n${notices}` : result.markdown;
  if (options.out !== undefined) {
    makeFolder(options.out);
    for (const [name, content] of Object.entries(filesWithNotices(result.files, summaries))) writeFileAtomic(join(options.out, name), content);
    writeFileAtomic(join(options.out, 'analysis.json'), `${JSON.stringify(analysis, null, 2)}\n`);
  }
  return { runs, markdown, analysis, warnings, ...(options.out === undefined ? {} : { wrote: result.wrote }) };
}
