/**
 * The end of a sweep (and of `llmkb merge`): each model's report over its settings, and the
 * comparison over every run of the study: the paper's Tables 9-11 and Table 2's correlations as
 * Markdown and CSV, rankings, effects (Figure 3) and paired bootstrap tests in analysis.json,
 * and report.html. report.html is what `llmkb report` writes for the same summary files in the
 * study's order; everything here depends on the results only (paths relative to the folder),
 * so the same results give the same bytes on any machine.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compareRuns, distinctRuns } from '../analysis/compare-methods.js';
import { filesWithNotices, noticesJson, noticesMarkdown, runNotices } from '../analysis/run-notices.js';
import { makeFolder, writeFileAtomic } from '../io/files.js';
import type { ExecutionRecord, MethodSummary } from '../methods/method-summary.js';
import { loadResultRun } from '../runs/load-runs.js';
import { resultFiles, runReportFile } from '../io/result-files.js';
import { renderReport } from '../report/html-report.js';

/** Where a run's result files are, relative to the study's results folder. */
export interface RunFiles {
  label: string;
  method: string;
  /** The study's `methods:` entry, when its name is not the method's id (the same method twice). */
  entry?: string;
  setting: string;
  /** `<folder>/<stem>.<setting><suffix>` without `.summary.json`. */
  base: string;
}

export interface LoadedStudyRun {
  files: RunFiles;
  summary: MethodSummary;
  records: readonly object[] | undefined;
  execution: ExecutionRecord | undefined;
}

/** The runs whose summary exists in `outDir`, in the given order, with their records; the others are returned as missing. */
export async function loadStudyRuns(outDir: string, runs: readonly RunFiles[]): Promise<{ loaded: LoadedStudyRun[]; missing: RunFiles[] }> {
  const loaded: LoadedStudyRun[] = [];
  const missing: RunFiles[] = [];
  for (const files of runs) {
    const { summary } = resultFiles(join(outDir, files.base));
    if (!existsSync(summary)) {
      missing.push(files);
      continue;
    }
    const run = await loadResultRun(summary, { resamples: 1000, seed: 42 });
    loaded.push({ files, summary: run.summary, records: run.records, execution: run.execution });
  }
  return { loaded, missing };
}

/** Rewrites one model's report over all of its runs (as `llmkb eval` writes it), in `dir`. */
export async function writeModelReport(dir: string, label: string, runs: readonly LoadedStudyRun[], suffix: string): Promise<void> {
  if (runs.length === 0) return;
  const html = await renderReport(
    runs.map((r) => r.summary),
    { title: `llmkb report: ${label}`, executions: runs.flatMap((r) => (r.execution ? [r.execution] : [])), records: runs.map((r) => r.records) },
  );
  writeFileAtomic(runReportFile(dir, label, suffix), html);
}

export interface StudyComparison {
  markdown: string;
  warnings: string[];
  files: string[];
}

/**
 * What `llmkb compare --out DIR` writes for the study's runs (the method's own tables, e.g. the
 * paper's Tables 9-11 and Table 2's correlations, rankings, effects and paired tests, and
 * analysis.json), and report.html as `llmkb report FILES --title TITLE` renders it.
 */
export async function writeStudyComparison(
  outDir: string,
  runs: readonly LoadedStudyRun[],
  options: { title: string; resamples?: number; seed?: number },
): Promise<StudyComparison> {
  const resamples = options.resamples ?? 1000;
  const seed = options.seed ?? 42;
  const { runs: compared, warnings } = distinctRuns(
    runs.map((r) => ({ summary: r.summary, ...(r.records ? { records: r.records } : {}), source: resultFiles(r.files.base).summary })),
  );
  const result = await compareRuns(compared, { resamples, seed });
  makeFolder(outDir);
  const files: string[] = [];
  const write = (name: string, content: string) => {
    writeFileAtomic(join(outDir, name), content);
    files.push(name);
  };
  // Every table carries its runs' notices (approximate runs, departures, warnings), as eval's table and the report do.
  const summaries = compared.map((r) => r.summary);
  for (const [name, content] of Object.entries(filesWithNotices(result.files, summaries))) write(name, content);
  write('analysis.json', `${JSON.stringify({ schema: 'llmkb-analysis-v1', ...result.analysis, notices: noticesJson(summaries), warnings }, null, 2)}\n`);
  // The runs' records as `llmkb report` reads them beside the summaries: the same significance marks and examples.
  write(
    'report.html',
    await renderReport(
      compared.map((r) => r.summary),
      {
        title: options.title,
        executions: runs.flatMap((r) => (r.execution ? [r.execution] : [])),
        records: compared.map((r) => (r.records?.length ? r.records : undefined)),
      },
    ),
  );
  const notices = noticesMarkdown(summaries);
  return { markdown: notices ? `${result.markdown.replace(/\n*$/, '\n')}\n${notices}` : result.markdown, warnings, files };
}

/** A finished job of sweep.json with its run's notices (approximate, departures, warnings), as every output of the sweep carries them. */
export function withNotices<J extends { status: string }>(job: J, loaded: readonly LoadedStudyRun[], files: RunFiles): J {
  const run = job.status === 'done' ? loaded.find((l) => l.files.base === files.base) : undefined;
  return run ? { ...job, notices: runNotices(run.summary) } : job;
}
