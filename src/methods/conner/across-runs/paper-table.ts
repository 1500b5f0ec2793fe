/**
 * The paper's table of automatic evaluation results (CONNER Tables 2 and 3: Natural Questions and
 * Wizard of Wikipedia): a row per generator and setting, grouped by setting; the columns
 * Fact-cons. / Non-verif. / Fact-incon. (factuality, Eq. 1), Relevance (Eq. 2), Coh-sent. and
 * Coh-para. (Eq. 3-4), Inform. (Eq. 5), Helpful. (Eq. 6), Validity (Eq. 7-8). Shares as percent
 * with two decimals, scores with four, as the paper prints them; each with its bootstrap CI.
 */
import { flagged } from '../../summary-warnings.js';
import type { MetricDef } from '../../method.js';
import type { MethodSummary } from '../../method-summary.js';
import { CONNER_METRIC_DEFS, PAPER_TABLE_METRICS } from '../metric-defs.js';
import { columnsOf } from '../summary/conner-summary.js';
import { markNotAsPaper } from '../summary/paper-columns.js';

/** The paper's column groups over PAPER_TABLE_METRICS. */
export const PAPER_TABLE_GROUPS: ReadonlyArray<{ title: string; span: number }> = [
  { title: 'Factuality', span: 3 },
  { title: 'Relevance', span: 1 },
  { title: 'Coherence', span: 2 },
  { title: 'Inform.', span: 1 },
  { title: 'Helpful.', span: 2 },
  { title: 'Validity', span: 1 },
];

export const TASK_TABLES: Record<string, string> = {
  qa: "open-domain QA (the paper's Table 2: Natural Questions)",
  dialogue: "knowledge-grounded dialogue (the paper's Table 3: Wizard of Wikipedia)",
};

export function paperTableDefs(): MetricDef[] {
  return PAPER_TABLE_METRICS.map((id) => CONNER_METRIC_DEFS.find((d) => d.id === id)!);
}

/** A value as the paper prints it: `58.40%` for a share, `0.6848` for a score; `-` when undefined. */
export function paperValue(def: Pick<MetricDef, 'format'>, value: number | null | undefined): string {
  if (value === null || value === undefined) return '-';
  return def.format === 'percent' ? `${(100 * value).toFixed(2)}%` : value.toFixed(4);
}

/** An interval in the value's own format, shorter by one digit. */
export function paperInterval(def: Pick<MetricDef, 'format'>, ci: [number, number] | null | undefined): string {
  if (!ci) return '';
  return def.format === 'percent' ? `[${(100 * ci[0]).toFixed(1)}, ${(100 * ci[1]).toFixed(1)}]` : `[${ci[0].toFixed(3)}, ${ci[1].toFixed(3)}]`;
}

export const taskOf = (s: MethodSummary): string => String((s.breakdowns as { task?: unknown } | undefined)?.task ?? 'qa');

/** Runs by task (one paper table each), then by setting in order of first appearance. */
export function tableGroups(summaries: readonly MethodSummary[]): Array<{ task: string; settings: Array<{ setting: string; runs: MethodSummary[] }> }> {
  const tasks = [...new Set(summaries.map(taskOf))];
  return tasks.map((task) => {
    const ofTask = summaries.filter((s) => taskOf(s) === task);
    const settings = [...new Set(ofTask.map((s) => s.setting))];
    return { task, settings: settings.map((setting) => ({ setting, runs: ofTask.filter((s) => s.setting === setting) })) };
  });
}

/** The best value of a column among some runs, by the metric's direction (undefined with fewer than two values). */
export function bestOf(runs: readonly MethodSummary[], def: MetricDef): number | undefined {
  const values = runs.map((s) => s.metrics[def.id]).filter((v): v is number => typeof v === 'number');
  if (values.length < 2) return undefined;
  return def.better === 'lower' ? Math.min(...values) : Math.max(...values);
}

/** One task's table as rows of text cells (Markdown and CSV): `value [lo, hi]`; `**` marks the best of a setting. */
export function paperTableRows(
  settings: ReadonlyArray<{ setting: string; runs: MethodSummary[] }>,
  options: { withCi: boolean; markBest: boolean },
): { header: string[]; rows: string[][] } {
  const defs = paperTableDefs();
  const header = ['Model', 'Setting', 'n', ...defs.map((d) => `${d.label} ${d.better === 'higher' ? '↑' : '↓'}`)];
  const rows: string[][] = [];
  for (const { setting, runs } of settings) {
    const best = new Map(defs.map((d) => [d.id, bestOf(runs, d)]));
    for (const s of runs) {
      const columns = columnsOf(s);
      rows.push([
        s.model,
        setting,
        String(s.counts.items ?? ''),
        ...defs.map((d) => {
          const v = s.metrics[d.id];
          const text = `${markNotAsPaper(flagged(paperValue(d, v), s, d.id), columns[d.id])}${options.withCi && s.intervals[d.id] ? ` ${paperInterval(d, s.intervals[d.id])}` : ''}`;
          return options.markBest && typeof v === 'number' && best.get(d.id) === v ? `**${text}**` : text;
        }),
      ]);
    }
  }
  return { header, rows };
}
