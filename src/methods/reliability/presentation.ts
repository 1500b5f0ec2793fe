/**
 * How reliability runs are shown: the paper's tables and figures (compare, report), a run's
 * counts and examples, the table `llmkb eval` prints, and the viewer's columns and pages.
 */
import { basename } from 'node:path';
import { readJsonl } from '../../io/jsonl.js';
import { recordsFileBase } from '../../io/result-files.js';
import type { MethodPresentation } from '../method-presentation.js';
import type { MethodSummary, RunMeta } from '../method-summary.js';
import { compareReliability } from './across-runs/compare-reliability.js';
import { reportSections } from './across-runs/report-sections.js';
import { runDetails, runHeadline } from './across-runs/run-details.js';
import { checkReliabilitySummary } from './check-summary.js';
import { formatPercent, formatSummary, scoredRecordSchema, summarizeRun, type RunSummary } from './metrics/summarize-run.js';
import { departures } from './protocol.js';
import type { MetricKey } from './metrics/reliability-metrics.js';
import { invalidShare } from './metrics/mcq-answers.js';
import { FLAG_NOTE, flagged } from '../summary-warnings.js';
import { reliabilityView } from './view/reliability-view.js';

/** Invalid MCQ answers of a run as the table shows them, e.g. `450/450 (100.0%)`; `-` when the run does not count them. */
function invalidMcqCell(s: RunSummary): string {
  const { mcqAnswers: answers, invalidMcqAnswers: invalid } = s.counts;
  return answers === undefined || invalid === undefined ? '-' : `${invalid}/${answers} (${invalidShare({ answers, invalid })})`;
}

const TABLE_METRICS: ReadonlyArray<[MetricKey, string, number]> = [
  ['NCR', 'NCR', 8],
  ['UR', 'UR', 8],
  ['C_correct', 'C_correct', 10],
  ['C_wrong', 'C_wrong', 9],
  ['NCCR', 'NCCR', 8],
  ['IUR', 'IUR', 8],
];

/** The table `llmkb eval` prints for one model's settings, with what a reader must know first and a dagger on every value a warning names. */
function resultTable(summaries: readonly MethodSummary[]): string {
  const runs = summaries as readonly RunSummary[];
  const lines: string[] = [];
  if (runs.some((s) => s.approximate)) lines.push('[APPROXIMATE: no judge LLM, lexical rule]');
  const departed = new Set(
    runs
      .flatMap((s) => (s.protocol ? departures(s.protocol) : []))
      .map((d) => `${d.choice} ${d.entry.choice}${d.entry.status === 'nondeterministic' ? ' (nondeterministic)' : ''}`),
  );
  if (departed.size) lines.push(`departures from the paper's protocol: ${[...departed].join('; ')}`);
  lines.push(`${'setting'.padEnd(12)}${TABLE_METRICS.map(([, label, w]) => label.padStart(w)).join('')}  invalid MCQ answers`);
  for (const s of runs)
    lines.push(
      `${s.setting.padEnd(12)}${TABLE_METRICS.map(([k, , w]) => flagged(formatPercent(s.metrics[k]), s, k).padStart(w)).join('')}  ${invalidMcqCell(s)}`,
    );
  const warnings = runs.flatMap((s) => (s.warnings ?? []).map((w) => `WARNING ${s.setting}: ${w.message}`));
  if (warnings.length) lines.push(...warnings, FLAG_NOTE);
  return lines.join('\n');
}

/** A scored record: a judged response with its data set. */
const claimsRecord = (record: Record<string, unknown>): boolean => 'label' in record && 'dataset' in record;

/**
 * A JSONL file of scored records (`llmkb consistency` output) with no summary beside it,
 * summarised: the setting from the records unless given, the model from the file name
 * (`<model>.<setting>.records.jsonl`) unless given. Undefined when the file is not of this method.
 */
function summarizeRecordsFile(
  file: string,
  first: Record<string, unknown>,
  options: { resamples: number; seed: number; model?: string; setting?: string; meta?: RunMeta },
) {
  if (!claimsRecord(first)) return undefined;
  const records = readJsonl(file, scoredRecordSchema, 'scored record', { uniqueIds: true });
  const setting = options.setting ?? (typeof records[0]!.setting === 'string' ? (records[0]!.setting as string) : 'unknown');
  const stem = basename(recordsFileBase(file));
  const model = options.model ?? (stem.endsWith(`.${setting}`) ? stem.slice(0, -setting.length - 1) : stem);
  return {
    summary: summarizeRun(records, { model, setting, resamples: options.resamples, seed: options.seed, ...(options.meta ? { meta: options.meta } : {}) }),
    records,
  };
}

export const reliabilityPresentation: MethodPresentation = {
  reportTitle: 'llmkb report: reliability of LLMs as knowledge bases',
  approximateNote: 'were judged without a judge LLM (lexical rule)',
  checkSummary: checkReliabilitySummary,
  recordSchema: scoredRecordSchema,
  claimsRecord,
  summarizeRecordsFile,
  compare: compareReliability,
  reportSections,
  runHeadline,
  runDetails,
  formatSummary: (summary) => formatSummary(summary as RunSummary),
  resultTable,
  view: reliabilityView,
};
