/**
 * Across runs of any method: which settings and models are present, run identity (two runs with
 * one label are never merged), headline tables and rankings built from the summaries'
 * `metricDefs` alone, and table output as Markdown and CSV.
 */
import { formatMetric, headlineDefs, type MethodSummary } from './method-summary.js';
import { flagged } from './summary-warnings.js';

/** The settings present: those in `order` first, in that order, then the others alphabetically. */
export function settingsOf(summaries: readonly MethodSummary[], order: readonly string[] = []): string[] {
  const present = [...new Set(summaries.map((s) => s.setting))];
  return present.sort(
    (a, b) => order.indexOf(a) + 99 * Number(!order.includes(a)) - (order.indexOf(b) + 99 * Number(!order.includes(b))) || a.localeCompare(b),
  );
}

/**
 * Run identity: tables have one row per model label, so two different runs that carry the same
 * label (two models whose specs end alike, or one model judged two ways) would be merged into
 * one row, one silently hiding the other. Such runs are never merged: each gets its label plus
 * what tells it apart (the model's identity, else its run id, else where it was read from), and
 * the caller is told.
 */
export function distinguishRuns<S extends MethodSummary>(summaries: readonly S[], sources: readonly string[] = []): { summaries: S[]; renamed: string[] } {
  const byLabel = new Map<string, number[]>();
  summaries.forEach((s, i) => byLabel.set(s.model, [...(byLabel.get(s.model) ?? []), i]));
  const out = [...summaries];
  const renamed: string[] = [];
  const short = (id: string) => (id.length > 28 ? `${id.slice(0, 12)}…${id.slice(-15)}` : id);
  // What tells runs apart, in order of preference: something all settings of one evaluation share
  // (the folder its files are in, the model's identity), then the run itself.
  const tags: Array<(s: S, i: number) => string | undefined> = [
    (_s, i) => (sources[i] && /[\\/]/.test(sources[i]!) ? sources[i]!.replace(/[\\/][^\\/]*$/, '') : undefined),
    (s) => (s.modelIdentity ? short(s.modelIdentity) : undefined),
    (s) => (s.runId ? `run ${s.runId.slice(0, 8)}` : undefined),
    (_s, i) => sources[i] ?? `#${i + 1}`,
  ];
  for (const [label, indexes] of byLabel) {
    const group = indexes.map((i) => summaries[i]!);
    const identities = new Set(group.map((s) => s.modelIdentity ?? '?'));
    if (identities.size <= 1 && new Set(group.map((s) => s.setting)).size === group.length) continue;
    // The first kind of tag that makes every (tag, setting) of the group unique; the position as a last resort.
    const tagOf =
      tags.find((tag) => {
        const keys = indexes.map((i) => tag(summaries[i]!, i));
        return keys.every((k) => k !== undefined) && new Set(keys.map((k, n) => `${k}\u0000${group[n]!.setting}`)).size === keys.length;
      }) ?? ((_s: S, i: number) => `#${i + 1}`);
    for (const i of indexes) {
      const name = `${label} [${tagOf(summaries[i]!, i)}]`;
      out[i] = { ...summaries[i]!, model: name };
      renamed.push(`${label} (${summaries[i]!.setting}) -> ${name}`);
    }
  }
  return { summaries: out, renamed };
}

export function modelsOf(summaries: readonly MethodSummary[]): string[] {
  return [...new Set(summaries.map((s) => s.model))];
}

export function toMarkdown(table: { header: string[]; rows: string[][] }): string {
  const esc = (c: string) => c.replace(/\|/g, '\\|');
  return [
    `| ${table.header.map(esc).join(' | ')} |`,
    `| ${table.header.map(() => '---').join(' | ')} |`,
    ...table.rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

/**
 * A number as a spreadsheet reads one (`-0.25`, `+3`, `1e-5`, `12%`), also with the tables' marks
 * after it (`-12.50†`, `+0.13 *`), or the tables' `-` for no value: left as it is in a CSV cell
 * (none of them can be run as a formula).
 */
const CSV_NUMBER = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?%?(?: ?[†*])*|-)$/i;

/**
 * A table as CSV. A text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is
 * prefixed with `'`, so a spreadsheet shows it as text instead of running it as a formula (OWASP's
 * advice against CSV injection: a model's label or an input's field may be `=HYPERLINK(...)`); a
 * number (`-0.25`) stays a number.
 */
export function toCsv(table: { header: string[]; rows: string[][] }): string {
  const cell = (raw: string) => {
    const c = /^[=+\-@\t\r]/.test(raw) && !CSV_NUMBER.test(raw) ? `'${raw}` : raw;
    return /[",\n\r]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c;
  };
  return `${[table.header, ...table.rows].map((r) => r.map(cell).join(',')).join('\n')}\n`;
}

/** Runs ranked by a metric in one setting, best first (the direction from the metric's definition). */
export function rankRuns(summaries: readonly MethodSummary[], metric: string, setting: string): Array<{ model: string; value: number }> {
  const def = summaries.find((s) => s.metricDefs.some((d) => d.id === metric))?.metricDefs.find((d) => d.id === metric);
  const better = def?.better === 'lower' ? 1 : -1;
  return summaries
    .filter((s) => s.setting === setting && s.metrics[metric] !== null && s.metrics[metric] !== undefined)
    .map((s) => ({ model: s.model, value: s.metrics[metric]! }))
    .sort((a, b) => better * (a.value - b.value) || a.model.localeCompare(b.model));
}

/**
 * One row per model, the headline metrics of each setting as columns (`<setting> <label> (↑/↓)`),
 * values as the metric's format says, with a dagger where a warning of the run concerns the
 * value: any method's summary table, from its metricDefs alone.
 */
export function headlineTable(summaries: readonly MethodSummary[], order: readonly string[] = []): { header: string[]; rows: string[][] } {
  const defs = headlineDefs(summaries[0]?.metricDefs ?? []);
  const settings = settingsOf(summaries, order);
  const header = ['Model', ...settings.flatMap((s) => defs.map((d) => `${s} ${d.label} (${d.better === 'higher' ? '↑' : '↓'})`))];
  const rows = modelsOf(summaries).map((model) => [
    model,
    ...settings.flatMap((setting) => {
      const s = summaries.find((x) => x.model === model && x.setting === setting);
      return defs.map((d) => (s ? flagged(formatMetric(d, s.metrics[d.id]), s, d.id) : ''));
    }),
  ]);
  return { header, rows };
}

export interface PairedTest {
  /** A metric id of the runs' method. */
  metric: string;
  a: string;
  b: string;
  /** The setting both runs are in (runs are paired within a setting). */
  setting?: string;
  /** a - b on the full data. */
  difference: number | null;
  interval: [number, number] | null;
  /** Two-sided bootstrap p-value for "no difference". */
  p: number | null;
  questions: number;
}
