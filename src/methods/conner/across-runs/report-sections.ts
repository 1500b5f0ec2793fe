/**
 * CONNER's part of `llmkb report`: the paper's table per task (grouped headers as in Tables 2-3,
 * bootstrap CIs under each value, the best run of a setting in bold), a small chart per metric
 * (each run's mean with its CI), paired differences when runs share queries, and per run the
 * scorers, factuality label counts, Somers' D with human ratings and example knowledge texts per
 * factuality label. Every piece of model text is escaped.
 */
import type { TopLevelSpec } from 'vega-lite';
import { flagged } from '../../../analysis/summary-warnings.js';
import { formatResampledP, isSignificant, pairedTestsNote } from '../../../analysis/significance-format.js';
import { escapeHtml, figure, htmlTable } from '../../../report/html-parts.js';
import type { MethodReportContext } from '../../method.js';
import type { MethodSummary } from '../../method-summary.js';
import { connerPairedTests } from './compare-conner.js';
import { bestOf, PAPER_TABLE_GROUPS, paperInterval, paperTableDefs, paperValue, tableGroups, TASK_TABLES } from './paper-table.js';

function tableHtml(settings: ReadonlyArray<{ setting: string; runs: MethodSummary[] }>): string {
  const defs = paperTableDefs();
  let at = 0;
  const starts = new Set(PAPER_TABLE_GROUPS.map((g) => ((at += g.span), at - g.span)));
  const colTitle = (k: number): string => `${defs[k]!.description} (${defs[k]!.equation ?? ''})`;
  const arrow = (k: number): string => (defs[k]!.better === 'lower' ? '↓' : '↑');
  // A group of one column is one header cell over both rows, as in the paper.
  at = 0;
  const groupHead = PAPER_TABLE_GROUPS.map((g) => {
    const k = (at += g.span) - g.span;
    return g.span === 1 ? `<th class="first" rowspan="2" scope="col" title="${escapeHtml(colTitle(k))}">${escapeHtml(`${g.title} ${arrow(k)}`)}</th>` : `<th class="group first" colspan="${g.span}" scope="colgroup">${escapeHtml(g.title)}</th>`;
  }).join('');
  at = 0;
  const subHead = PAPER_TABLE_GROUPS.flatMap((g) => {
    const k = (at += g.span) - g.span;
    return g.span === 1 ? [] : defs.slice(k, k + g.span).map((d, j) => `<th scope="col"${j === 0 ? ' class="first"' : ''} title="${escapeHtml(colTitle(k + j))}">${escapeHtml(`${d.label} ${arrow(k + j)}`)}</th>`);
  }).join('');
  const head = `<thead><tr><th rowspan="2" scope="col">Model</th><th rowspan="2" scope="col">Setting</th><th rowspan="2" scope="col">n</th>${groupHead}</tr><tr>${subHead}</tr></thead>`;
  const rows = settings.flatMap(({ setting, runs }) => {
    const best = new Map(defs.map((d) => [d.id, bestOf(runs, d)]));
    return runs.map((s, i) => `<tr><th scope="row">${escapeHtml(s.model)}</th>${i === 0 ? `<th scope="rowgroup" rowspan="${runs.length}">${escapeHtml(setting)}</th>` : ''}<td>${escapeHtml(String(s.counts.items ?? ''))}</td>${defs.map((d, k) => {
      const v = s.metrics[d.id];
      const cls = [starts.has(k) ? 'first' : '', typeof v === 'number' && best.get(d.id) === v ? 'best' : ''].filter(Boolean).join(' ');
      const ci = s.intervals[d.id];
      return `<td${cls ? ` class="${cls}"` : ''}>${escapeHtml(flagged(paperValue(d, v), s, d.id))}${ci ? `<span class="ci">${escapeHtml(paperInterval(d, ci))}</span>` : ''}</td>`;
    }).join('')}</tr>`);
  });
  return `<div class="scroll"><table class="paper">${head}<tbody>${rows.join('')}</tbody></table></div>`;
}

/** One metric across runs: a bar per run (mean) with its 95% CI, on the metric's range. */
function metricSpec(summaries: readonly MethodSummary[], id: string): TopLevelSpec | undefined {
  const def = paperTableDefs().find((d) => d.id === id)!;
  const scale = def.format === 'percent' ? 100 : 1;
  const values = summaries.filter((s) => typeof s.metrics[id] === 'number').map((s) => ({ run: `${s.model} (${s.setting})`, value: s.metrics[id]! * scale, lo: s.intervals[id] ? s.intervals[id]![0] * scale : null, hi: s.intervals[id] ? s.intervals[id]![1] * scale : null }));
  if (values.length === 0) return undefined;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `${def.label} ${def.better === 'lower' ? '↓' : '↑'}`,
    width: 220,
    height: { step: 14 },
    data: { values },
    layer: [
      { mark: { type: 'bar', color: '#4c78a8' }, encoding: { y: { field: 'run', type: 'nominal', sort: null, title: null, axis: { labelLimit: 0 } }, x: { field: 'value', type: 'quantitative', title: def.format === 'percent' ? '%' : 'score', scale: { domain: [def.range[0] * scale, def.range[1] * scale] } } } },
      { mark: { type: 'rule', color: 'black' }, encoding: { y: { field: 'run', type: 'nominal', sort: null }, x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } } },
    ],
  } as unknown as TopLevelSpec;
}

export async function connerReportSections(summaries: readonly MethodSummary[], context?: MethodReportContext): Promise<string[]> {
  const parts: string[] = [];
  for (const { task, settings } of tableGroups(summaries)) {
    parts.push(`<h2>CONNER: automatic evaluation, ${escapeHtml(TASK_TABLES[task] ?? task)}</h2>${tableHtml(settings)}<p class="note">As the paper's Tables 2-3: shares in %, scores in [0, 1]; 95% bootstrap CIs below each value; bold: the best run of its setting in that column.</p>`);
  }
  const charts: string[] = [];
  for (const def of paperTableDefs()) {
    const spec = metricSpec(summaries, def.id);
    if (spec) charts.push(await figure(spec, `${def.label} (${def.equation ?? ''}): bars are means, lines 95% CIs.`));
  }
  if (charts.length) parts.push(`<h3>Each metric across runs</h3><p class="note">Definitions: the metric table of each run below, or hover a column of the table above.</p><div class="charts">${charts.join('')}</div>`);
  const runs = summaries.map((summary, i) => ({ summary, source: '', ...(context?.records?.[i] ? { records: context.records[i] } : {}) }));
  const paired = connerPairedTests(runs, { resamples: 1000, seed: 42 });
  if (paired.length) {
    const defs = new Map(paperTableDefs().map((d) => [d.id, d]));
    const fmt = (id: string, v: number | null): string => (v === null ? '-' : `${v > 0 ? '+' : ''}${paperValue(defs.get(id)!, v)}`);
    parts.push(`<h3>Paired differences on shared queries</h3><div class="scroll">${htmlTable(['A vs B', 'metric', 'A − B', '95% CI', 'p', 'n (items)'], paired.map((t) => [`${t.a} vs ${t.b}`, defs.get(t.metric)!.label, `${fmt(t.metric, t.difference)}${isSignificant(t.p, t.questions) ? ' *' : ''}`, t.interval ? `[${fmt(t.metric, t.interval[0])}, ${fmt(t.metric, t.interval[1])}]` : '-', formatResampledP(t.p, 1000), String(t.questions)]))}</div><p class="note">${escapeHtml(pairedTestsNote({ resamples: 1000, seed: 42, items: 'queries' }))}</p>`);
  }
  return parts;
}
