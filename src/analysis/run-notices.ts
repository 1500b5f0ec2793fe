/**
 * What a reader must know before reading a run's numbers, as every output that shows them says
 * it: the run is approximate (part of its scoring is a stand-in), where it departs from its
 * paper's protocol (from the protocol block, titled by its method), and its summary's warnings.
 * `eval` prints them above its table and the HTML report has a box; a sweep's terminal lines,
 * Markdown, CSV and JSON files carry the same notices through these functions.
 */
import type { MethodSummary, SummaryWarning } from '../methods/method-summary.js';
import { findMethod } from '../methods/registry.js';
import { departuresOf } from '../methods/protocol-differences.js';

export interface RunNotices {
  approximate: boolean;
  /** Protocol choices where the run departs from its paper. */
  departures: Array<{ choice: string; title: string; value: string; status: string; note?: string }>;
  warnings: SummaryWarning[];
}

type Noticed = Pick<MethodSummary, 'method' | 'approximate' | 'protocol' | 'warnings'>;

export function runNotices(summary: Noticed): RunNotices {
  const titles = findMethod(summary.method.id)?.protocolChoices ?? {};
  const departures = summary.protocol
    ? departuresOf(summary.protocol, titles).map(({ choice, entry }) => ({
        choice,
        title: titles[choice] ?? choice,
        value: entry.choice,
        status: entry.status,
        ...(entry.note ? { note: entry.note } : {}),
      }))
    : [];
  return {
    approximate: summary.approximate,
    departures,
    warnings: (summary.warnings ?? []).map((w) => ({ message: w.message, ...(w.metrics ? { metrics: [...w.metrics] } : {}) })),
  };
}

/** The notices as one short text (empty when there are none), e.g. `APPROXIMATE; departures: judge lexical-v2, question set quick: 20 seen + 20 unseen; 1 warning`. */
export function noticeText(summary: Noticed): string {
  const n = runNotices(summary);
  const parts = [
    ...(n.approximate ? ['APPROXIMATE'] : []),
    ...(n.departures.length
      ? [`departures: ${n.departures.map((d) => `${d.title} ${d.value}${d.status === 'nondeterministic' ? ' (nondeterministic)' : ''}`).join(', ')}`]
      : []),
    ...(n.warnings.length ? [`${n.warnings.length} warning${n.warnings.length === 1 ? '' : 's'}: ${n.warnings.map((w) => w.message).join(' | ')}`] : []),
  ];
  return parts.join('; ');
}

/** One line per run with notices: `label (setting): notices`, for under a table of several runs. */
export function noticeLines(summaries: ReadonlyArray<Noticed & Pick<MethodSummary, 'model' | 'setting'>>): string[] {
  return summaries.flatMap((s) => {
    const text = noticeText(s);
    return text ? [`${s.model} (${s.setting}): ${text}`] : [];
  });
}

/** The notices of several runs as a Markdown section (empty when there are none). */
export function noticesMarkdown(summaries: ReadonlyArray<Noticed & Pick<MethodSummary, 'model' | 'setting'>>): string {
  const lines = noticeLines(summaries);
  return lines.length
    ? `## Notices\n\nWhat to know before reading these numbers (approximate runs, departures from the paper's protocol, warnings):\n\n${lines.map((l) => `- ${l}`).join('\n')}\n`
    : '';
}

/** The cells of a CSV text (RFC 4180: quoted cells may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\n') row.push(cell), rows.push(row), (row = []), (cell = '');
    else if (c !== '\r') cell += c;
  }
  if (cell !== '' || row.length) row.push(cell), rows.push(row);
  return rows;
}

const csvCell = (c: string) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);

/**
 * A CSV table with a `notices` column: on each row whose first cell is a run's label, the notices
 * of that model's runs (those of the row's setting when the table has a setting column). A table
 * unchanged when no run has a notice.
 */
export function csvWithNotices(csv: string, summaries: ReadonlyArray<Noticed & Pick<MethodSummary, 'model' | 'setting'>>): string {
  if (!summaries.some((s) => noticeText(s) !== '')) return csv;
  const rows = parseCsv(csv);
  if (rows.length === 0) return csv;
  const settingColumn = rows[0]!.findIndex((h) => h.trim().toLowerCase() === 'setting');
  const out = rows.map((row, i) => {
    if (i === 0) return [...row, 'notices'];
    const runs = summaries.filter((s) => s.model === row[0] && (settingColumn < 0 || row[settingColumn] === undefined || s.setting === row[settingColumn]));
    const text = runs
      .map((s) => [s, noticeText(s)] as const)
      .filter(([, t]) => t !== '')
      .map(([s, t]) => (settingColumn < 0 ? `${s.setting}: ${t}` : t))
      .join(' || ');
    return [...row, text];
  });
  return `${out.map((r) => r.map(csvCell).join(',')).join('\n')}\n`;
}

/** A comparison's files with the runs' notices: a `## Notices` section at the end of each Markdown file, a `notices` column in each CSV. */
export function filesWithNotices(
  files: Readonly<Record<string, string>>,
  summaries: ReadonlyArray<Noticed & Pick<MethodSummary, 'model' | 'setting'>>,
): Record<string, string> {
  const section = noticesMarkdown(summaries);
  return Object.fromEntries(
    Object.entries(files).map(([name, content]) => [
      name,
      name.endsWith('.md') && section ? `${content.replace(/\n*$/, '\n')}\n${section}` : name.endsWith('.csv') ? csvWithNotices(content, summaries) : content,
    ]),
  );
}

/** The notices of each run with any, as analysis.json and sweep.json list them. */
export function noticesJson(
  summaries: ReadonlyArray<Noticed & Pick<MethodSummary, 'model' | 'setting'>>,
): Array<{ label: string; setting: string } & RunNotices> {
  return summaries
    .map((s) => ({ label: s.model, setting: s.setting, ...runNotices(s) }))
    .filter((n) => n.approximate || n.departures.length > 0 || n.warnings.length > 0);
}
