/**
 * The end of a sweep (and of `llmkb merge`): each model's report over its settings, and the
 * comparison over every run of the study: the paper's Tables 9-11 and Table 2's correlations as
 * Markdown and CSV, rankings, effects (Figure 3) and paired bootstrap tests in analysis.json,
 * and report.html. report.html is what `llmkb report` writes for the same summary files in the
 * study's order; everything here depends on the results only (paths relative to the folder),
 * so the same results give the same bytes on any machine.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { compareRuns, distinctRuns } from '../analysis/compare-methods.js';
import { readTextFile, writeFileAtomic } from '../io/files.js';
import { readJsonl } from '../io/jsonl.js';
import { fileAccessError, InputFileError } from '../errors.js';
import { loadSummary } from '../methods/load-summary.js';
import type { ExecutionRecord, MethodSummary } from '../methods/method-summary.js';
import { scoredRecordSchema, type ScoredRecord } from '../methods/reliability/metrics/summarize-run.js';
import { renderReport } from '../report/html-report.js';

/** Where a run's result files are, relative to the study's results folder. */
export interface RunFiles {
  label: string;
  setting: string;
  /** `<folder>/<stem>.<setting><suffix>` without `.summary.json`. */
  base: string;
}

export interface LoadedStudyRun {
  files: RunFiles;
  summary: MethodSummary;
  records: ScoredRecord[];
  execution: ExecutionRecord | undefined;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readTextFile(file));
  } catch (error) {
    if (error instanceof SyntaxError) throw new InputFileError(file, undefined, undefined, `not valid JSON: ${error.message}`, 'A result file of `llmkb sweep` or `llmkb eval` was cut short or edited; run the sweep again to rewrite it.');
    throw error;
  }
}

/** The runs whose summary exists in `outDir`, in the given order; the others are returned as missing. */
export function loadStudyRuns(outDir: string, runs: readonly RunFiles[]): { loaded: LoadedStudyRun[]; missing: RunFiles[] } {
  const loaded: LoadedStudyRun[] = [];
  const missing: RunFiles[] = [];
  for (const files of runs) {
    const base = join(outDir, files.base);
    if (!existsSync(`${base}.summary.json`)) {
      missing.push(files);
      continue;
    }
    const summary = loadSummary(readJson(`${base}.summary.json`), `${base}.summary.json`);
    const records = existsSync(`${base}.records.jsonl`) ? readJsonl(`${base}.records.jsonl`, scoredRecordSchema, 'scored record') : [];
    const execution = existsSync(`${base}.run.json`) ? (readJson(`${base}.run.json`) as ExecutionRecord) : undefined;
    loaded.push({ files, summary, records, execution });
  }
  return { loaded, missing };
}

/** Rewrites one model's report over all of its settings found in its folder (as `llmkb eval` writes it). */
export async function writeModelReport(outDir: string, folder: string, label: string, runs: readonly LoadedStudyRun[], suffix: string): Promise<void> {
  if (runs.length === 0) return;
  const html = await renderReport(runs.map((r) => r.summary), { title: `llmkb report: ${label}`, executions: runs.flatMap((r) => (r.execution ? [r.execution] : [])) });
  writeFileAtomic(join(outDir, folder, `report${suffix}.html`), html);
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
export async function writeStudyComparison(outDir: string, runs: readonly LoadedStudyRun[], options: { title: string; resamples?: number; seed?: number }): Promise<StudyComparison> {
  const resamples = options.resamples ?? 1000;
  const seed = options.seed ?? 42;
  const { runs: compared, warnings } = distinctRuns(runs.map((r) => ({ summary: r.summary, records: r.records, source: `${r.files.base}.summary.json` })));
  const result = await compareRuns(compared, { resamples, seed });
  try {
    mkdirSync(outDir, { recursive: true });
  } catch (error) {
    throw fileAccessError(outDir, error, 'write', 'folder');
  }
  const files: string[] = [];
  const write = (name: string, content: string) => {
    writeFileAtomic(join(outDir, name), content);
    files.push(name);
  };
  for (const [name, content] of Object.entries(result.files)) write(name, content);
  write('analysis.json', `${JSON.stringify({ ...result.analysis, warnings }, null, 2)}\n`);
  // The runs' records as `llmkb report` reads them beside the summaries: the same significance marks and examples.
  write('report.html', await renderReport(compared.map((r) => r.summary), { title: options.title, executions: runs.flatMap((r) => (r.execution ? [r.execution] : [])), records: compared.map((r) => (r.records?.length ? r.records : undefined)) }));
  return { markdown: result.markdown, warnings, files };
}
