/**
 * A summary's warnings (`MethodSummary.warnings`) as every output shows them: the warning itself
 * beside the run, and a dagger on each value of a metric it names, so a flagged number is never
 * read as a plain one. A warning that names no metric concerns the whole run: all its values are
 * flagged.
 */
import type { MethodSummary, SummaryWarning } from './method-summary.js';

/** The mark on a flagged value. */
export const FLAG = '†';

type Warned = Pick<MethodSummary, 'warnings'> & { metrics?: Readonly<Record<string, number | null | undefined>> };

/** The warnings that concern a metric's value in the run (none when it has no value: `-` is not misread). */
export function warningsOn(summary: Warned, metric: string): SummaryWarning[] {
  if (summary.metrics && (summary.metrics[metric] === null || summary.metrics[metric] === undefined)) return [];
  return (summary.warnings ?? []).filter((w) => !w.metrics || w.metrics.includes(metric));
}

export function isFlagged(summary: Warned | undefined, metric: string): boolean {
  return summary !== undefined && warningsOn(summary, metric).length > 0;
}

/** A value as shown in a table: with the dagger when the run's warnings name its metric (an empty cell stays empty). */
export function flagged(text: string, summary: Warned | undefined, metric: string): string {
  return text !== '' && isFlagged(summary, metric) ? `${text}${FLAG}` : text;
}

/** The dagger for a value of a ranking (a model in a setting) when a warning of that run concerns the metric, else nothing. */
export function rankedFlag(
  summaries: ReadonlyArray<Pick<MethodSummary, 'model' | 'setting' | 'warnings' | 'metrics'>>,
  setting: string,
  model: string,
  metric: string,
): string {
  return isFlagged(
    summaries.find((s) => s.setting === setting && s.model === model),
    metric,
  )
    ? FLAG
    : '';
}

/** Whether any of the runs has a warning. */
export function anyWarnings(summaries: readonly Warned[]): boolean {
  return summaries.some((s) => (s.warnings?.length ?? 0) > 0);
}

/** One line per warning of each run: `model (setting): message`. */
export function warningLines(summaries: ReadonlyArray<Pick<MethodSummary, 'model' | 'setting' | 'warnings'>>): string[] {
  return summaries.flatMap((s) => (s.warnings ?? []).map((w) => `${s.model} (${s.setting}): ${w.message}`));
}

/** What the dagger means, said once under a table that has one. */
export const FLAG_NOTE = `${FLAG}: the run's summary warns about this value (see the warnings).`;

/** The warnings of the runs as a Markdown section (empty when there are none), for `llmkb compare`. */
export function warningsMarkdown(summaries: ReadonlyArray<Pick<MethodSummary, 'model' | 'setting' | 'warnings'>>): string {
  const lines = warningLines(summaries);
  return lines.length ? `## Warnings\n\n${lines.map((l) => `- ${l}`).join('\n')}\n\n${FLAG_NOTE}\n` : '';
}

/** A run's warnings as analysis.json lists them. */
export function warningsJson(summary: Pick<MethodSummary, 'warnings'>): SummaryWarning[] {
  return (summary.warnings ?? []).map((w) => ({ message: w.message, ...(w.metrics ? { metrics: [...w.metrics] } : {}) }));
}
