/**
 * `reportRuns`: one self-contained HTML report over runs read back (result files or the store,
 * src/runs/), written to a file as one call (what `llmkb report` runs; the command prints where).
 * The runs are made distinct first (two runs with one label are shown apart, never merged), as
 * `compareResults` makes them.
 */
import { resolve } from 'node:path';
import { distinctRuns } from '../analysis/compare-methods.js';
import { writeFileAtomic } from '../io/files.js';
import type { LoadedRun } from '../runs/load-runs.js';
import { renderReport } from './html-report.js';

export interface ReportRunsOptions {
  /** The HTML file written. */
  output: string;
  /** The page title (default: the report's own). */
  title?: string;
  /** Where each warning of making the runs distinct goes, as `warning: ...` (the CLI: stderr); default nowhere. */
  log?: (line: string) => void;
}

/** Renders the report over `loaded` and writes it to `options.output`; returns the runs reported, made distinct. */
export async function reportRuns(loaded: readonly LoadedRun[], options: ReportRunsOptions): Promise<{ runs: LoadedRun[]; warnings: string[] }> {
  const { runs, warnings } = distinctRuns(loaded);
  for (const w of warnings) options.log?.(`warning: ${w}`);
  writeFileAtomic(
    resolve(options.output),
    await renderReport(
      runs.map((r) => r.summary),
      {
        ...(options.title ? { title: options.title } : {}),
        executions: runs.flatMap((r) => (r.execution ? [r.execution] : [])),
        records: runs.map((r) => r.records),
      },
    ),
  );
  return { runs, warnings };
}
