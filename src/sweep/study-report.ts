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
import { correlate, distinguishRuns, effects, pairedBootstrap, paperTable, ranking, settingsOf, TABLE2_PAIRS, TABLE_TITLES, toCsv, toMarkdown, type PairedTest } from '../analysis/compare-runs.js';
import { readTextFile, writeFileAtomic } from '../io/files.js';
import { readJsonl } from '../io/jsonl.js';
import { fileAccessError, InputFileError } from '../errors.js';
import type { ExecutionRecord } from '../methods/reliability/evaluate-model.js';
import { protocolDifferences } from '../methods/reliability/protocol.js';
import type { MetricKey } from '../methods/reliability/metrics/reliability-metrics.js';
import { formatPercent, scoredRecordSchema, type RunSummary, type ScoredRecord } from '../methods/reliability/metrics/summarize-run.js';
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
  summary: RunSummary;
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
    const summary = readJson(`${base}.summary.json`) as RunSummary;
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

/** Tables, correlations, rankings, effects, paired tests and report.html over the study's runs. */
export async function writeStudyComparison(outDir: string, runs: readonly LoadedStudyRun[], options: { title: string; resamples?: number; seed?: number }): Promise<StudyComparison> {
  const resamples = options.resamples ?? 1000;
  const seed = options.seed ?? 42;
  const { summaries, renamed } = distinguishRuns(runs.map((r) => r.summary), runs.map((r) => r.files.base));
  const warnings = [
    ...renamed.map((r) => `runs with the same label are shown apart: ${r}`),
    ...protocolDifferences(summaries.map((s) => ({ name: `${s.model} (${s.setting})`, protocol: s.protocol }))).map((d) => `the runs differ in protocol: ${d}`),
  ];
  const settings = settingsOf(summaries);
  const out: string[] = [];
  for (const t of ['9', '10', '11'] as const) out.push(`## ${TABLE_TITLES[t]}\n\n${toMarkdown(paperTable(summaries, t))}\n`);
  const correlations = settings.flatMap((s) => TABLE2_PAIRS.map(([x, y]) => correlate(summaries, x, y, s)));
  const corrTable = {
    header: ['Comparison', ...settings],
    rows: TABLE2_PAIRS.map(([x, y]) => [
      `${x} vs ${y}`,
      ...settings.map((s) => {
        const c = correlations.find((k) => k.x === x && k.y === y && k.setting === s)!;
        return c.r === null ? '-' : `${c.r.toFixed(2)}${c.p! < 0.05 ? '*' : ''} (p=${c.p!.toPrecision(2)})`;
      }),
    ]),
  };
  out.push(`## Table 2: Pearson correlations across models (* p < 0.05)\n\n${toMarkdown(corrTable)}\n`);
  const rankings = Object.fromEntries(settings.map((s) => [s, Object.fromEntries((['NCR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'] as MetricKey[]).map((m) => [m, ranking(summaries, m, s)]))]));
  for (const s of settings) out.push(`## Rankings (${s})\n\n${['NCCR', 'IUR'].map((m) => `${m}: ${(rankings[s]![m] as Array<{ model: string; value: number }>).map((r, i) => `${i + 1}. ${r.model} ${formatPercent(r.value)}`).join(', ')}`).join('\n')}\n`);
  const pairedTests: PairedTest[] = [];
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length; j++) {
      const a = runs[i]!;
      const b = runs[j]!;
      if (summaries[i]!.setting !== summaries[j]!.setting || a.records.length === 0 || b.records.length === 0) continue;
      for (const metric of ['NCCR', 'IUR'] as MetricKey[]) pairedTests.push(pairedBootstrap(a.records, b.records, metric, { names: [summaries[i]!.model, summaries[j]!.model], resamples, seed }));
    }
  }
  const pairedTable = { header: ['A vs B', 'metric', 'A - B', '95% CI', 'p'], rows: pairedTests.map((t) => [`${t.a} vs ${t.b}`, t.metric, formatPercent(t.difference), t.interval ? `[${formatPercent(t.interval[0])}, ${formatPercent(t.interval[1])}]` : '-', t.p === null ? '-' : t.p.toPrecision(2)]) };
  if (pairedTests.length) out.push(`## Paired bootstrap tests\n\n${toMarkdown(pairedTable)}\n`);
  const tables = Object.fromEntries((['9', '10', '11'] as const).map((t) => [`table${t}`, paperTable(summaries, t)]));
  const analysis = {
    runs: runs.map((r, i) => ({ label: summaries[i]!.model, setting: r.summary.setting, runId: r.summary.runId ?? null, source: `${r.files.base}.summary.json` })),
    ...tables,
    correlations,
    rankings,
    effects: effects(summaries),
    pairedTests,
    warnings,
  };
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
  for (const t of ['9', '10', '11'] as const) {
    const table = paperTable(summaries, t);
    write(`table${t}.md`, `${toMarkdown(table)}\n`);
    write(`table${t}.csv`, toCsv(table));
  }
  write('correlations.md', `${toMarkdown(corrTable)}\n`);
  write('correlations.csv', toCsv({ header: ['x', 'y', 'setting', 'n', 'r', 'p'], rows: correlations.map((c) => [c.x, c.y, c.setting, String(c.n), c.r === null ? '' : String(c.r), c.p === null ? '' : String(c.p)]) }));
  if (pairedTests.length) write('paired-tests.md', `${toMarkdown(pairedTable)}\n`);
  write('analysis.json', `${JSON.stringify(analysis, null, 2)}\n`);
  // As `llmkb report FILES --title TITLE` renders it (no paired tests there either).
  write('report.html', await renderReport(summaries, { title: options.title, executions: runs.flatMap((r) => (r.execution ? [r.execution] : [])) }));
  return { markdown: out.join('\n'), warnings, files };
}
