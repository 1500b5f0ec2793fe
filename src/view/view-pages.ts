/**
 * The pages of `llmkb view`, rendered on the server as HTML: every piece of model or user text
 * goes through `escapeHtml`, so a response containing `<script>` is shown as text. Metrics are
 * shown from the method's metric definitions (`metricDefs`), so any method's runs appear without
 * code of their own. Charts are Vega-Lite rendered to SVG on the server (no script, no network).
 */
import { escapeHtml } from '../methods/html-parts.js';
import type { MetricDef, ViewItemField } from '../methods/method.js';
import type { ExtraCell, MethodView } from '../methods/method-presentation.js';
import type { SummaryWarning } from '../methods/method-summary.js';
import { FLAG, warningsOn } from '../methods/summary-warnings.js';
import { findMethod } from '../methods/registry.js';
import type { ViewRun } from './view-index.js';
import type { ViewSummary } from './view-summary.js';
import type { ItemFilter, ItemRow } from './view-queries.js';
import { fieldColumns, fieldFiltersHtml, fieldHeader, formatField, selectionParams, sortParam } from './item-fields.js';

export const esc = (v: unknown): string => escapeHtml(v === null || v === undefined ? '' : String(v));

/** A query string from parameters, leaving out empty ones. */
export function qs(params: Record<string, string | number | boolean | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '' && v !== false) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

export function formatMetric(def: Pick<MetricDef, 'format'>, value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  return def.format === 'percent' ? (100 * value).toFixed(2) : Number.isInteger(value) ? String(value) : value.toFixed(3);
}

export function formatInterval(def: Pick<MetricDef, 'format'>, ci: [number, number] | null | undefined): string {
  return ci ? `[${formatMetric(def, ci[0])}, ${formatMetric(def, ci[1])}]` : '';
}

export function layout(title: string, body: string, crumbs: Array<[string, string?]> = []): string {
  const nav = [['Runs', '/'] as [string, string?], ...crumbs]
    .map(([t, href]) => (href ? `<a href="${esc(href)}">${esc(t)}</a>` : `<span>${esc(t)}</span>`))
    .join(' <span class="sep">›</span> ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · llmkb view</title><link rel="stylesheet" href="/assets/view.css"><script src="/assets/view.js" defer></script></head>
<body><header class="top"><strong>llmkb view</strong> <nav>${nav}</nav></header><main>
${body}
</main></body></html>`;
}

export function runHref(run: ViewRun): string {
  return `/runs/${encodeURIComponent(run.key)}`;
}

export function itemsHref(run: ViewRun, filter: Record<string, string | number | undefined> = {}): string {
  return `${runHref(run)}/items${qs(filter)}`;
}

export function itemHref(run: ViewRun, itemId: string): string {
  return `${runHref(run)}/items/${encodeURIComponent(itemId)}`;
}

/** The protocol badge and the others of a run in the runs list; `approximateNote` says why a run of its method is approximate. */
function badges(run: ViewRun, summary: ViewSummary | undefined, approximateNote: string): string {
  const out: string[] = [];
  const protocol = summary?.raw.protocol as { entries?: Record<string, { status?: string; choice?: string }> } | undefined;
  const departed = protocol?.entries ? Object.entries(protocol.entries).filter(([, e]) => e.status && e.status !== 'paper') : [];
  if (summary?.approximate || departed.length > 0) {
    const why = [...(summary?.approximate ? [`runs marked approximate ${approximateNote}`] : []), ...departed.map(([c, e]) => `${c}: ${e.choice ?? e.status}`)];
    out.push(`<span class="badge approx" title="${esc(why.join('; '))}">approximation</span>`);
  } else if (protocol) out.push('<span class="badge paper" title="every protocol choice as in the paper">paper</span>');
  const warnings = warningsOf(summary);
  if (warnings.length) out.push(`<span class="badge approx warning" title="${esc(warnings.map((w) => w.message).join(' '))}">${FLAG} warning</span>`);
  out.push(`<span class="badge kind">${esc(run.kind === 'store' ? 'store' : 'file')}</span>`);
  return out.join(' ');
}

function stageStates(run: ViewRun): string {
  return run.stages
    .map(
      (s) =>
        `<span class="stage ${esc(s.status)}" title="${esc(`${s.stage}: ${s.status}${s.records >= 0 ? `, ${s.records} records` : ''}`)}">${esc(s.stage)}${s.records >= 0 ? ` ${s.records}` : ''}</span>`,
    )
    .join(' ');
}

/** The metrics to show in a list: the method's headline metrics, else all. */
export function headlineDefs(defs: readonly MetricDef[]): readonly MetricDef[] {
  const h = defs.filter((d) => d.headline);
  return h.length ? h : defs;
}

/** A summary's warnings as the view reads them from its JSON. */
export function warningsOf(summary: ViewSummary | undefined): SummaryWarning[] {
  const raw = summary?.raw.warnings;
  return Array.isArray(raw) ? (raw as SummaryWarning[]).filter((w) => w && typeof w.message === 'string') : [];
}

/** The dagger on a value a warning of the run concerns, its tooltip saying why (empty when none does). */
export function flagOf(summary: ViewSummary | undefined, metric: string): string {
  const on = summary ? warningsOn({ warnings: warningsOf(summary), metrics: summary.metrics }, metric) : [];
  return on.length ? `<sup class="flag" title="${esc(on.map((w) => w.message).join(' '))}">${FLAG}</sup>` : '';
}

/**
 * A metric's value as a link to the items it is computed from, as its method says
 * (`MethodView.metricItems`; else every item of the run); a missing value is no link.
 */
export function metricValue(run: ViewRun, view: MethodView | undefined, def: MetricDef, value: number | null | undefined): string {
  const text = esc(formatMetric(def, value));
  if (value === null || value === undefined || Number.isNaN(value)) return text;
  const items = view?.metricItems?.(def.id);
  return `<a class="metric" href="${esc(itemsHref(run, selectionParams(items?.selection ?? {})))}" title="${esc(`the items behind ${def.label}: ${items?.title ?? "all the run's items"}`)}">${text}</a>`;
}

function metricCell(run: ViewRun, view: MethodView | undefined, def: MetricDef, summary: ViewSummary | undefined): string {
  if (!summary) return '<td class="num"></td>';
  const v = summary.metrics[def.id];
  const ci = summary.intervals[def.id];
  return `<td class="num">${metricValue(run, view, def, v)}${flagOf(summary, def.id)}${ci ? `<br><span class="ci">${esc(formatInterval(def, ci))}</span>` : summary.intervalsPending && v !== null && v !== undefined ? '<br><span class="ci" title="computed when the run is opened">CI: open the run</span>' : ''}</td>`;
}

/**
 * A run of some of its method's stages made by a step command (`llmkb ask`, `judge`, ...: the run
 * records it), not an evaluation: an evaluation made before runs recorded their method has all of
 * the method's stages.
 */
export function isStageRun(run: ViewRun): boolean {
  if (run.evaluation) return false;
  const stages = findMethod(run.method)?.stages.map((s) => s.id);
  return stages !== undefined && !stages.every((id) => run.stages.some((s) => s.stage === id));
}

/** Stage runs: what they are (the stages they ran), without metric columns, as they are no evaluations; `commands`: the method's commands that make them. */
function stageRunsTable(runs: ReadonlyArray<{ run: ViewRun }>, commands: readonly string[] = []): string {
  const by = commands.length ? `the step commands (${commands.map((c) => `<code>${esc(c)}</code>`).join(', ')}, ...)` : "the method's own commands";
  return `<h3>Runs of single stages</h3><p class="muted small">Made by ${by}, not by <code>llmkb eval</code>: they hold the stages named, and no evaluation's metrics.</p><div class="scroll"><table class="runs stage-runs"><thead><tr><th>Label</th><th>Setting</th><th>Stages</th><th>Updated</th></tr></thead><tbody>${runs
    .map(
      ({ run }) =>
        `<tr data-run="${esc(run.key)}"><th scope="row" class="label"><a href="${esc(runHref(run))}">${esc(run.label)}</a></th><td>${esc(run.setting)}</td><td>stages: ${esc(run.stages.map((s) => s.stage).join(', '))} ${stageStates(run)}</td><td class="small">${esc(run.updatedAt?.replace('T', ' ').slice(0, 16) ?? '')}</td></tr>`,
    )
    .join('')}</tbody></table></div>`;
}

/** The runs list's badge for a run whose summary or records file could not be wholly read; its tooltip names the file and line. */
function unreadableBadge(run: ViewRun, problems: readonly string[]): string {
  const all = [...(run.unreadable ? [run.unreadable] : []), ...problems];
  return all.length ? `<br><span class="badge approx" title="${esc(all.join('\n'))}">a result file could not be read</span>` : '';
}

/** A model identity as the runs list shows it: each long hash cut to its first 12 digits (the whole identity is the cell's tooltip). */
export function shortIdentity(identity: string): string {
  return identity.replace(/([0-9a-f]{12})[0-9a-f]{12,}/gi, '$1…');
}

export async function runsPage(
  runs: ReadonlyArray<{ run: ViewRun; summary: ViewSummary | undefined; problems?: readonly string[] }>,
  where: string,
): Promise<string> {
  if (runs.length === 0)
    return layout(
      'Runs',
      `<h1>Runs</h1><p class="empty">No runs in ${esc(where)}. Run <code>llmkb eval</code> first, or point <code>llmkb view</code> at a results folder or a store (<code>--store</code>).</p>`,
    );
  const byMethod = new Map<string, Array<{ run: ViewRun; summary: ViewSummary | undefined; problems?: readonly string[] }>>();
  for (const r of runs) byMethod.set(r.run.method, [...(byMethod.get(r.run.method) ?? []), r]);
  const parts: string[] = [`<h1>Runs</h1><p class="muted">${runs.length} run(s) from ${esc(where)}. Select two or more runs to compare them.</p>`];
  parts.push(
    '<form method="get" action="/compare" id="compare-form"><p><button type="submit" id="compare-button" disabled>Compare selected</button> <span class="muted" id="compare-hint">select 2 or more</span></p>',
  );
  for (const [method, all] of byMethod) {
    const stageRuns = all.filter(({ run }) => isStageRun(run));
    const list = all.filter(({ run }) => !isStageRun(run));
    const defs = headlineDefs(list.find((r) => r.summary)?.summary?.metricDefs ?? []);
    const presentation = await findMethod(method)?.presentation?.();
    const approximateNote = presentation?.approximateNote ?? 'used an approximation';
    const view = presentation?.view;
    const commands = view?.stageCommands;
    parts.push(`<h2>${esc(method)}</h2>`);
    if (list.length === 0) {
      parts.push(stageRunsTable(stageRuns, commands));
      continue;
    }
    parts.push(
      `<div class="scroll"><table class="runs"><thead><tr><th></th><th>Label</th><th>Setting</th><th>Protocol</th>${defs.map((d) => `<th title="${esc(`${d.description}${d.equation ? ` (${d.equation})` : ''}; ${d.better} is better`)}">${esc(d.label)} ${d.better === 'higher' ? '↑' : '↓'}</th>`).join('')}<th>Stages</th><th>Updated</th></tr></thead><tbody>`,
    );
    for (const { run, summary, problems } of list) {
      parts.push(
        `<tr data-run="${esc(run.key)}"><td><input type="checkbox" name="run" value="${esc(run.key)}" aria-label="select ${esc(run.label)} ${esc(run.setting)}"></td><th scope="row" class="label"><a href="${esc(runHref(run))}">${esc(run.label)}</a>${run.modelIdentity && run.modelIdentity !== run.label ? `<br><span class="muted small identity" title="${esc(run.modelIdentity)}">${esc(shortIdentity(run.modelIdentity))}</span>` : ''}${run.labels.length > 1 ? `<br><span class="muted small" title="one model file under several labels: one run">also ${esc(run.labels.slice(1).join(', '))}</span>` : ''}${unreadableBadge(run, problems ?? [])}</th><td>${esc(run.setting)}</td><td>${badges(run, summary, approximateNote)}</td>${defs.map((d) => metricCell(run, view, d, summary)).join('')}<td>${stageStates(run)}</td><td class="small">${esc(run.updatedAt?.replace('T', ' ').slice(0, 16) ?? '')}</td></tr>`,
      );
    }
    parts.push('</tbody></table></div>');
    if (stageRuns.length) parts.push(stageRunsTable(stageRuns, commands));
  }
  parts.push('</form>');
  return layout('Runs', parts.join('\n'));
}

/** A run's metrics with their intervals; given the run, each value links to the items behind it. */
export function metricsTable(defs: readonly MetricDef[], summary: ViewSummary, of?: { run: ViewRun; view: MethodView | undefined }): string {
  return `<div class="scroll"><table class="metrics"><thead><tr><th>Metric</th><th>Value</th><th>95% CI</th><th>Better</th><th>Definition</th></tr></thead><tbody>${defs
    .map(
      (d) =>
        `<tr><th scope="row">${esc(d.label)}</th><td class="num">${of ? metricValue(of.run, of.view, d, summary.metrics[d.id]) : esc(formatMetric(d, summary.metrics[d.id]))}${flagOf(summary, d.id)}</td><td class="num ci">${esc(formatInterval(d, summary.intervals[d.id]))}</td><td>${d.better === 'higher' ? '↑ higher' : '↓ lower'}</td><td class="desc">${esc(d.description)}${d.equation ? ` <span class="muted">(${esc(d.equation)})</span>` : ''}</td></tr>`,
    )
    .join('')}</tbody></table></div>`;
}

const COUNT_TITLES = { source: 'source', answer_type: 'answer type', subtype: 'sub-type' } as const;

/** A breakdown: one row per group, a column per (dataset, label) in the method's label order, each count a link to its items. */
export function countsTable(
  run: ViewRun,
  view: MethodView | undefined,
  title: string,
  column: 'source' | 'answer_type' | 'subtype',
  rows: ReadonlyArray<{ grp: string | null; dataset: string | null; label: string | null; n: number }>,
  extra?: (group: string) => ExtraCell[],
  extraHeader: string[] = [],
  filterKey = column === 'answer_type' ? 'answerType' : column,
): string {
  if (rows.length === 0) return `<h3>${esc(title)}</h3><p class="empty">No items with a ${esc(column.replace('_', ' '))}.</p>`;
  const labelOrder = view?.labelOrder ?? [];
  const cols = [...new Set(rows.map((r) => `${r.dataset ?? ''}\u0000${r.label ?? ''}`))].sort((a, b) => {
    const [da, la] = a.split('\u0000');
    const [db, lb] = b.split('\u0000');
    return da!.localeCompare(db!) || labelOrder.indexOf(la!) - labelOrder.indexOf(lb!);
  });
  const groups = [...new Set(rows.map((r) => r.grp ?? '(none)'))];
  const header = `<tr><th>${esc(view?.countTitles?.[column] ?? COUNT_TITLES[column])}</th><th>items</th>${cols
    .map((c) => {
      const [d, l] = c.split('\u0000');
      return `<th>${esc(d || '?')} ${esc(l || '(no label)')}</th>`;
    })
    .join('')}${extraHeader.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
  const body = groups.map((g) => {
    const inGroup = rows.filter((r) => (r.grp ?? '(none)') === g);
    const total = inGroup.reduce((a, r) => a + r.n, 0);
    const cells = cols.map((c) => {
      const [d, l] = c.split('\u0000');
      const n = inGroup.find((r) => (r.dataset ?? '') === d && (r.label ?? '') === l)?.n ?? 0;
      return `<td class="num">${n === 0 ? '0' : `<a href="${esc(itemsHref(run, { [filterKey]: g, dataset: d || undefined, label: l || undefined }))}">${n}</a>`}</td>`;
    });
    return `<tr><th scope="row">${esc(g)}</th><td class="num"><a href="${esc(itemsHref(run, { [filterKey]: g }))}">${total}</a></td>${cells.join('')}${(extra?.(g) ?? []).map((x) => `<td class="num">${typeof x === 'string' ? esc(x) : x.href ? `<a href="${esc(x.href)}"${x.title ? ` title="${esc(x.title)}"` : ''}>${esc(x.text)}</a>` : esc(x.text)}</td>`).join('')}</tr>`;
  });
  return `<h3>${esc(title)}</h3><div class="scroll"><table class="counts"><thead>${header}</thead><tbody>${body.join('')}</tbody></table></div>`;
}

export interface ItemsPageData {
  run: ViewRun;
  view: MethodView | undefined;
  filter: ItemFilter;
  page: number;
  pageSize: number;
  rows: ItemRow[];
  total: number;
  facets: Record<'label' | 'subtype' | 'source' | 'answer_type' | 'dataset', Array<{ value: string | null; n: number }>>;
  /** Values of the method's declared text fields with their counts, by field name. */
  fieldFacets: Record<string, Array<{ value: string | null; n: number }>>;
  elapsedMs: number;
}

function select(
  name: string,
  title: string,
  options: Array<{ value: string | null; n: number }>,
  current: string | undefined,
  filterOut?: (v: string) => boolean,
): string {
  const opts = options.filter((o) => !filterOut || filterOut(o.value ?? '(none)'));
  return `<label>${esc(title)} <select name="${esc(name)}"><option value="">any</option>${opts
    .map((o) => {
      const v = o.value ?? '(none)';
      return `<option value="${esc(v)}"${v === current ? ' selected' : ''}>${esc(v)} (${o.n})</option>`;
    })
    .join('')}</select></label>`;
}

export function filterParams(f: ItemFilter): Record<string, string | number | undefined> {
  return { ...selectionParams(f), q: f.text, sort: sortParam(f) };
}

/** Titles of the item columns and filters: the method's own (null hides one), else plain ones. */
export function itemTitlesOf(view: MethodView | undefined): Record<ViewItemField, string | null> {
  return (
    view?.itemTitles ?? {
      label: 'label',
      subtype: null,
      source: 'source',
      answerType: null,
      dataset: 'dataset',
      question: 'Question',
      response: 'Response',
      consistency: null,
    }
  );
}

export function itemsPage(d: ItemsPageData): string {
  const { run, filter } = d;
  const t = itemTitlesOf(d.view);
  const fields = d.view?.itemFields ?? [];
  const columns = fieldColumns(fields);
  // Sources the method shows as filters of their own (e.g. UnseenQA's templates).
  const groups = (d.view?.sourceGroups ?? []).map((g) => ({ ...g, test: new RegExp(g.pattern) }));
  const grouped = (v: string) => groups.some((g) => g.test.test(v));
  const form = `<form method="get" class="filters" id="filters">
${t.label === null ? '' : select('label', t.label, d.facets.label, filter.label)}
${t.subtype === null ? '' : select('subtype', t.subtype, d.facets.subtype, filter.subtype)}
${t.source === null ? '' : select('source', t.source, d.facets.source, filter.source && !grouped(filter.source) ? filter.source : undefined, (v) => !grouped(v))}
${groups
  .map((g) => {
    const values = d.facets.source.filter((o) => g.test.test(o.value ?? ''));
    return values.length ? select(g.name, g.title, values, filter.source && g.test.test(filter.source) ? filter.source : undefined) : '';
  })
  .join('\n')}
${t.answerType === null ? '' : select('answerType', t.answerType, d.facets.answer_type, filter.answerType)}
${t.dataset === null ? '' : select('dataset', t.dataset, d.facets.dataset, filter.dataset)}
${t.consistency === null ? '' : `<label>${esc(t.consistency)} <input type="number" name="cmin" min="0" max="1" step="0.05" value="${esc(filter.consistencyMin ?? '')}" placeholder="min" class="short"> – <input type="number" name="cmax" min="0" max="1" step="0.05" value="${esc(filter.consistencyMax ?? '')}" placeholder="max" class="short"></label>`}
${fieldFiltersHtml(fields, d.fieldFacets, filter)}
${filter.sort ? `<input type="hidden" name="sort" value="${esc(sortParam(filter))}">` : ''}
<label>text <input type="search" name="q" value="${esc(filter.text ?? '')}" placeholder="${esc(`${(t.question ?? 'question').toLowerCase()} or ${(t.response ?? 'response').toLowerCase()}`)}"></label>
<button type="submit">Filter</button> <a href="${esc(itemsHref(run))}">clear</a>
</form>`;
  const pages = Math.max(1, Math.ceil(d.total / d.pageSize));
  const params = filterParams(filter);
  const pager = `<p class="pager">${d.total} item(s)${d.total > 0 ? `, page ${d.page + 1} of ${pages}` : ''} ${d.page > 0 ? `<a rel="prev" href="${esc(itemsHref(run, { ...params, page: d.page }))}">‹ previous</a>` : ''} ${d.page + 1 < pages ? `<a rel="next" href="${esc(itemsHref(run, { ...params, page: d.page + 2 }))}">next ›</a>` : ''} <span class="muted small">(${d.elapsedMs.toFixed(0)} ms)</span></p>`;
  const col = (k: ViewItemField, title: string) => (t[k] === null ? '' : `<th>${esc(title)}</th>`);
  const cell = (k: ViewItemField, html: string) => (t[k] === null ? '' : html);
  const cap = (s: string | null) => (s === null ? '' : s.charAt(0).toUpperCase() + s.slice(1));
  const table =
    d.rows.length === 0
      ? '<p class="empty">No item matches these filters.</p>'
      : `<div class="scroll"><table class="items"><thead><tr><th>#</th>${col('question', cap(t.question))}${col('response', cap(t.response))}${col('label', cap(t.label))}${col('source', cap(t.source))}${col('answerType', cap(t.answerType))}${col('consistency', d.view?.columnTitles?.consistency ?? cap(t.consistency))}${columns.map((c) => fieldHeader(c, filter, (sort) => itemsHref(run, { ...params, sort }))).join('')}</tr></thead><tbody>${d.rows
          .map(
            (r) =>
              `<tr><td class="num"><a href="${esc(itemHref(run, r.item_id))}">${r.seq + 1}</a></td>${cell('question', `<td class="text"><a href="${esc(itemHref(run, r.item_id))}">${esc(r.question)}</a></td>`)}${cell('response', `<td class="text response">${esc(r.response)}</td>`)}${cell('label', `<td><span class="label ${esc(r.label ?? 'none')}">${esc(r.label ?? '–')}</span>${r.subtype ? ` <span class="muted small">${esc(r.subtype)}</span>` : ''}</td>`)}${cell('source', `<td>${esc(r.source)}</td>`)}${cell('answerType', `<td>${esc(r.answer_type ?? '')}</td>`)}${cell('consistency', `<td class="num">${r.consistency === null ? '' : esc(r.consistency.toFixed(2))}</td>`)}${columns.map((c) => `<td class="${c.kind === 'number' ? 'num' : ''}" data-field="${esc(c.name)}">${esc(formatField(c, r.fields[c.name]))}</td>`).join('')}</tr>`,
          )
          .join('')}</tbody></table></div>`;
  return layout(
    `Items · ${run.label}`,
    `<h1>Items <span class="muted">${esc(run.label)} · ${esc(run.setting)}</span></h1>${form}${pager}${table}${d.total > d.pageSize ? pager : ''}`,
    [[`${run.label} · ${run.setting}`, runHref(run)], ['items']],
  );
}

export function pre(text: unknown, className = ''): string {
  return `<pre class="${className}" dir="auto">${esc(typeof text === 'string' ? text : JSON.stringify(text, null, 2))}</pre>`;
}
