/**
 * CONNER's part of `llmkb report`: the paper's table per task (grouped headers as in Tables 2-3,
 * bootstrap CIs under each value, the best run of a setting in bold), a small chart per metric
 * (each run's mean with its CI), paired differences when runs share queries, and per run the
 * scorers, factuality label counts, Somers' D with human ratings and example knowledge texts per
 * factuality label. Every piece of model text is escaped.
 */
import type { TopLevelSpec } from 'vega-lite';
import { flagged } from '../../summary-warnings.js';
import { escapeHtml, figure, htmlTable } from '../../html-parts.js';
import { pairedTestsNote } from '../../significance-format.js';
import type { MethodReportContext } from '../../method.js';
import type { MethodSummary } from '../../method-summary.js';
import { columnsOf } from '../summary/conner-summary.js';
import { markNotAsPaper, NOT_AS_PAPER_NOTE, notAsPaperLines } from '../summary/paper-columns.js';
import { analysisTables, runsByTask } from './analysis-tables.js';
import { connerPairedTests, PAIRED_HEADER, pairedRow } from './compare-conner.js';
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
    return g.span === 1
      ? `<th class="first" rowspan="2" scope="col" title="${escapeHtml(colTitle(k))}">${escapeHtml(`${g.title} ${arrow(k)}`)}</th>`
      : `<th class="group first" colspan="${g.span}" scope="colgroup">${escapeHtml(g.title)}</th>`;
  }).join('');
  at = 0;
  const subHead = PAPER_TABLE_GROUPS.flatMap((g) => {
    const k = (at += g.span) - g.span;
    return g.span === 1
      ? []
      : defs
          .slice(k, k + g.span)
          .map(
            (d, j) =>
              `<th scope="col"${j === 0 ? ' class="first"' : ''} title="${escapeHtml(colTitle(k + j))}">${escapeHtml(`${d.label} ${arrow(k + j)}`)}</th>`,
          );
  }).join('');
  const head = `<thead><tr><th rowspan="2" scope="col">Model</th><th rowspan="2" scope="col">Setting</th><th rowspan="2" scope="col">n</th>${groupHead}</tr><tr>${subHead}</tr></thead>`;
  const rows = settings.flatMap(({ setting, runs }) => {
    const best = new Map(defs.map((d) => [d.id, bestOf(runs, d)]));
    return runs.map((s, i) => {
      const columns = columnsOf(s);
      return `<tr><th scope="row">${escapeHtml(s.model)}</th>${i === 0 ? `<th scope="rowgroup" rowspan="${runs.length}">${escapeHtml(setting)}</th>` : ''}<td>${escapeHtml(String(s.counts.items ?? ''))}</td>${defs
        .map((d, k) => {
          const v = s.metrics[d.id];
          const cls = [starts.has(k) ? 'first' : '', typeof v === 'number' && best.get(d.id) === v ? 'best' : ''].filter(Boolean).join(' ');
          const ci = s.intervals[d.id];
          const why =
            columns[d.id] && !columns[d.id]!.asPaper
              ? ` title="${escapeHtml(`computed otherwise than the paper's tables: ${columns[d.id]!.departures.join(', ')}`)}"`
              : '';
          return `<td${cls ? ` class="${cls}"` : ''}${why}>${escapeHtml(markNotAsPaper(flagged(paperValue(d, v), s, d.id), columns[d.id]))}${ci ? `<span class="ci">${escapeHtml(paperInterval(d, ci))}</span>` : ''}</td>`;
        })
        .join('')}</tr>`;
    });
  });
  return `<div class="scroll"><table class="paper">${head}<tbody>${rows.join('')}</tbody></table></div>`;
}

/** One metric across runs: a bar per run (mean) with its 95% CI, on the metric's range. */
export function metricSpec(summaries: readonly MethodSummary[], id: string): TopLevelSpec | undefined {
  const def = paperTableDefs().find((d) => d.id === id)!;
  const scale = def.format === 'percent' ? 100 : 1;
  const values = summaries
    .filter((s) => typeof s.metrics[id] === 'number')
    .map((s) => ({
      run: `${s.model} (${s.setting})`,
      value: s.metrics[id]! * scale,
      lo: s.intervals[id] ? s.intervals[id]![0] * scale : null,
      hi: s.intervals[id] ? s.intervals[id]![1] * scale : null,
    }));
  if (values.length === 0) return undefined;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `${def.label} ${def.better === 'lower' ? '↓' : '↑'}`,
    width: 220,
    height: { step: 14 },
    data: { values },
    layer: [
      // Not stacked: one bar per run, on the metric's own range.
      {
        mark: { type: 'bar', color: '#4c78a8' },
        encoding: {
          y: { field: 'run', type: 'nominal', sort: null, title: null, axis: { labelLimit: 0 } },
          x: {
            field: 'value',
            type: 'quantitative',
            stack: null,
            title: def.format === 'percent' ? '%' : 'score',
            scale: { domain: [def.range[0] * scale, def.range[1] * scale] },
          },
        },
      },
      {
        mark: { type: 'rule', color: 'black' },
        encoding: { y: { field: 'run', type: 'nominal', sort: null }, x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } },
      },
    ],
  } as unknown as TopLevelSpec;
}

/** The report's CONNER part, one block per task (NQ and WoW never in one table or chart). */
export async function connerReportSections(summaries: readonly MethodSummary[], context?: MethodReportContext): Promise<string[]> {
  const parts: string[] = [];
  const all = summaries.map((summary, i) => ({ summary, source: '', ...(context?.records?.[i] ? { records: context.records[i] } : {}) }));
  const defs = paperTableDefs();
  const labels = new Map(defs.map((d) => [d.id, d.label]));
  for (const { task, runs } of runsByTask(all)) {
    const title = TASK_TABLES[task] ?? task;
    const ofTask = runs.map((r) => r.summary);
    const settings = tableGroups(ofTask)[0]!.settings;
    const lines = notAsPaperLines(
      ofTask.map((s) => ({ name: `${s.model} (${s.setting})`, columns: columnsOf(s) })),
      labels,
    );
    const legend = lines.length
      ? `<p class="note">${escapeHtml(NOT_AS_PAPER_NOTE)}:</p><ul class="note">${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>`
      : '<p class="note">Every column is computed as the paper&#39;s tables were, given the scorers named.</p>';
    parts.push(
      `<h2>CONNER: automatic evaluation, ${escapeHtml(title)}</h2>${tableHtml(settings)}<p class="note">As the paper's Tables 2-3: shares in %, scores in [0, 1]; 95% bootstrap CIs below each value; bold: the best run of its setting in that column.</p>${legend}`,
    );
    const charts: string[] = [];
    for (const def of defs) {
      const spec = metricSpec(ofTask, def.id);
      if (spec) charts.push(await figure(spec, `${def.label} (${def.equation ?? ''}), ${title}: bars are means, lines 95% CIs.`));
    }
    if (charts.length)
      parts.push(
        `<h3>Each metric across runs, ${escapeHtml(title)}</h3><p class="note">Definitions: the metric table of each run below, or hover a column of the table above.</p><div class="charts">${charts.join('')}</div>`,
      );
    const paired = connerPairedTests(runs, { resamples: 1000, seed: 42 });
    if (paired.length) {
      parts.push(
        `<h3>Paired differences on shared queries, ${escapeHtml(title)}</h3><div class="scroll">${htmlTable(
          PAIRED_HEADER,
          paired.map((t) => pairedRow(t, 1000)),
        )}</div><p class="note">${escapeHtml(pairedTestsNote({ resamples: 1000, seed: 42, items: 'queries' }))}</p>`,
      );
    }
    for (const a of analysisTables(runs, { permutations: 1000, seed: 42 })) {
      parts.push(
        `<h3>${escapeHtml(a.title)}, ${escapeHtml(title)}</h3><div class="scroll">${htmlTable(a.header, a.rows)}</div><p class="note">${escapeHtml(a.note)}</p>`,
      );
    }
  }
  return parts;
}
