/**
 * The run, item and comparison pages of `llmkb view`: the generic frame (stages, warnings,
 * metrics, charts, the compare table), with each method's own parts from its view
 * (`MethodView.runSections`, `itemPage`, `pairedRows`).
 */
import type { TopLevelSpec } from 'vega-lite';
import type { MetricDef } from '../methods/method.js';
import type { PairedRow } from '../methods/method-presentation.js';
import { FLAG } from '../methods/summary-warnings.js';
import { formatResampledP, isSignificant, pairedTestsNote, significanceStar } from '../methods/significance-format.js';
import {
  countsTable,
  esc,
  flagOf,
  isStageRun,
  formatInterval,
  formatMetric,
  headlineDefs,
  itemHref,
  itemsHref,
  itemTitlesOf,
  layout,
  metricsTable,
  pre,
  qs,
  runHref,
  warningsOf,
} from './view-pages.js';
import type { ViewIndex, ViewRun } from './view-index.js';
import type { ViewSummary } from './view-summary.js';
import { compareItems, countsBy, facets, itemRow } from './view-queries.js';
import { selectionParams } from './item-fields.js';

async function svg(spec: TopLevelSpec): Promise<string> {
  const { renderSvg } = await import('../methods/render-svg.js');
  return (await renderSvg(spec)).replace(/<script[\s\S]*?<\/script>/gi, '');
}

/** Headline metrics with their CIs as bars with error bars, on the metric's own range. */
function metricChart(defs: readonly MetricDef[], summary: ViewSummary): TopLevelSpec | undefined {
  const shown = headlineDefs(defs).filter((d) => d.format === 'percent' && summary.metrics[d.id] !== null && summary.metrics[d.id] !== undefined);
  if (shown.length === 0) return undefined;
  const lo = Math.min(...shown.map((d) => d.range[0])) * 100;
  const hi = Math.max(...shown.map((d) => d.range[1])) * 100;
  const values = shown.map((d) => ({
    metric: `${d.label} ${d.better === 'higher' ? '↑' : '↓'}`,
    value: 100 * summary.metrics[d.id]!,
    lo: summary.intervals[d.id] ? 100 * summary.intervals[d.id]![0] : null,
    hi: summary.intervals[d.id] ? 100 * summary.intervals[d.id]![1] : null,
  }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Headline metrics (x100) with 95% CIs',
    width: 380,
    height: { step: 22 },
    data: { values },
    layer: [
      {
        mark: { type: 'bar', color: '#4c78a8' },
        encoding: {
          y: { field: 'metric', type: 'nominal', sort: null, title: null, axis: { labelLimit: 0 } },
          x: { field: 'value', type: 'quantitative', title: 'x100', scale: { domain: [lo, hi] } },
        },
      },
      {
        mark: { type: 'rule', color: 'black' },
        encoding: { y: { field: 'metric', type: 'nominal', sort: null }, x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } },
      },
    ],
  } as unknown as TopLevelSpec;
}

export async function runPage(index: ViewIndex, run: ViewRun): Promise<string> {
  const { items, problems } = await index.ensureItems(run);
  const stageRun = isStageRun(run);
  // A run of single stages is no evaluation: its items and counts, without metrics.
  const summary = stageRun ? undefined : await index.summary(run);
  const view = await index.view(run);
  const parts: string[] = [`<h1>${esc(run.label)} <span class="muted">· ${esc(run.setting)} · ${esc(run.method)}</span></h1>`];
  if (run.labels.length > 1)
    parts.push(
      `<p class="warn">One run under ${run.labels.length} labels: ${esc(run.labels.join(', '))}. They name the same model file (the same results), so the store keeps one run for all of them.</p>`,
    );
  parts.push(
    `<p><a class="button" href="${esc(itemsHref(run))}">All ${items} items</a> ${run.stages.map((s) => `<span class="stage ${esc(s.status)}">${esc(s.stage)}: ${esc(s.status)}${s.records >= 0 ? ` (${s.records})` : ''}</span>`).join(' ')}</p>`,
  );
  if (run.stages.some((s) => s.status === 'stopped'))
    parts.push(
      '<p class="warn">This run stopped before it finished (interrupted, or a stage failed): its numbers cover the items done so far. Running the same command again resumes it.</p>',
    );
  if (run.unreadable || problems.length)
    parts.push(
      `<div class="warn"><strong>Not everything could be read</strong><ul>${[...(run.unreadable ? [run.unreadable] : []), ...problems].map((p) => `<li>${esc(p)}</li>`).join('')}</ul></div>`,
    );
  if (run.modelIdentity)
    parts.push(
      `<p class="muted small">model <code>${esc(run.modelIdentity)}</code>${run.runId ? ` · run <code>${esc(run.runId)}</code>` : ''}${run.files?.has.summary ? ` · summary <code>${esc(run.files.summary)}</code>` : ''}</p>`,
    );
  if (summary) {
    const protocol = summary.raw.protocol as { entries?: Record<string, { status?: string; choice?: string; note?: string }> } | undefined;
    const departed = protocol?.entries ? Object.entries(protocol.entries).filter(([, e]) => e.status && e.status !== 'paper') : [];
    if (summary.approximate || departed.length) {
      parts.push(
        `<div class="warn"><strong>Departures from the paper's protocol</strong><ul>${summary.approximate ? '<li>approximate: part of the scoring departs from the paper (see the choices below)</li>' : ''}${departed.map(([c, e]) => `<li>${esc(c)}: ${esc(e.choice ?? '')} ${e.note ? `— ${esc(e.note)}` : ''}</li>`).join('')}</ul></div>`,
      );
    }
    const warnings = warningsOf(summary);
    if (warnings.length)
      parts.push(
        `<div class="warn" id="warnings"><strong>Read with care</strong><ul>${warnings.map((w) => `<li>${esc(w.message)}${w.metrics?.length ? ` <span class="muted small">[flags ${esc(w.metrics.join(', '))}]</span>` : ''}</li>`).join('')}</ul><p class="small">${FLAG} marks each value a warning concerns.</p></div>`,
      );
    parts.push('<h2>Metrics</h2>');
    parts.push('<p class="muted small">Each value links to the items it is computed from.</p>');
    parts.push(metricsTable(summary.metricDefs, summary, { run, view }));
    const mc = metricChart(summary.metricDefs, summary);
    if (mc) parts.push(`<h2>Charts</h2><div class="charts"><figure class="chart">${await svg(mc)}</figure></div>`);
  } else if (stageRun)
    parts.push(
      `<p class="muted">A run of the stage(s) ${esc(run.stages.map((s) => s.stage).join(', '))} only, made by a step command${view?.stageCommands?.length ? ` (<code>${esc(view.stageCommands.join(', '))}</code>, ...)` : " (the method's own commands)"}, not an evaluation: it has no metrics. <code>llmkb eval</code> runs every stage.</p>`,
    );
  else parts.push('<p class="empty">No summary for this run yet (no labelled items).</p>');
  if (view?.runSections) {
    parts.push(
      await view.runSections({
        ...(summary ? { summary: summary.raw } : {}),
        counts: (column, label) => countsBy(index, run, column, label),
        countsTable: (title, column, rows, extra, extraHeader) => countsTable(run, view, title, column, rows, extra, extraHeader),
        itemsHref: (selection) => itemsHref(run, selectionParams(selection)),
        chart: (spec) => svg(spec as TopLevelSpec),
      }),
    );
  } else {
    // Items by label (e.g. CONNER's factuality label), each count a link.
    const byLabel = facets(index, run, 'label');
    const title = itemTitlesOf(view).label ?? 'label';
    parts.push(
      `<h2>Items by ${esc(title)}</h2><p class="muted">Each count links to the items behind it.</p><div class="scroll"><table class="counts"><thead><tr><th>${esc(title)}</th><th>items</th></tr></thead><tbody>${byLabel.map((r) => `<tr><th scope="row">${esc(r.value ?? '(none)')}</th><td class="num"><a href="${esc(itemsHref(run, { label: r.value ?? '(none)' }))}">${r.n}</a></td></tr>`).join('')}</tbody></table></div>`,
    );
  }
  return layout(`${run.label} · ${run.setting}`, parts.join('\n'), [[`${run.label} · ${run.setting}`]]);
}

/** A cached call as sent and received, or a note that the store does not have it. */
function exchange(index: ViewIndex, key: string): string {
  const call = index.call(key);
  if (!call)
    return `<p class="muted small">call <code>${esc(key.slice(0, 16))}…</code> is not in this store's call cache (an evaluation still running keeps its latest calls in its journal until it ends)</p>`;
  const req = call.request as { prompt?: string; messages?: unknown; maxTokens?: number; stop?: string[] };
  const res = call.response as { text?: string; logprobs?: unknown };
  return `<div class="exchange"><p class="muted small">${esc(call.kind)} · ${esc(call.model)} · key <code>${esc(key.slice(0, 16))}…</code>${req.maxTokens ? ` · max tokens ${esc(req.maxTokens)}` : ''}${req.stop?.length ? ` · stop ${esc(JSON.stringify(req.stop))}` : ''}</p><h4>Sent</h4>${pre(req.prompt ?? req.messages ?? req, 'prompt')}<h4>Received</h4>${pre(res.text ?? res, 'response')}</div>`;
}

export async function itemPage(index: ViewIndex, run: ViewRun, itemId: string): Promise<string | undefined> {
  await index.ensureItems(run);
  const row = itemRow(index, run, itemId);
  if (!row) return undefined;
  const recs = index.itemRecords(run, itemId);
  const view = await index.view(run);
  const head = `<h1>Item <code>${esc(itemId)}</code> <span class="label ${esc(row.label ?? 'none')}">${esc(row.label ?? 'no label')}</span></h1>`;
  const all = `<details><summary>All fields</summary>${Object.entries(recs)
    .map(([stage, r]) => `<h4>${esc(stage)}</h4>${pre(r)}`)
    .join('')}</details>`;
  const item = {
    itemId: row.item_id,
    seq: row.seq,
    label: row.label,
    subtype: row.subtype,
    source: row.source,
    answerType: row.answer_type,
    dataset: row.dataset,
    question: row.question,
    response: row.response,
    consistency: row.consistency,
    judgedBy: row.judged_by,
    fields: row.fields,
  };
  const body = view
    ? await view.itemPage(recs, {
        item,
        exchange: (key) => exchange(index, key),
        hasCall: (key) => index.call(key) !== undefined,
        ...(run.params ? { params: run.params } : {}),
        ...(run.modelIdentity ? { modelIdentity: run.modelIdentity } : {}),
        runLabel: run.label,
        setting: run.setting,
      })
    : `<h2>Question</h2>${pre(row.question, 'question')}<h2>Response</h2>${pre(row.response, 'response')}`;
  return layout(`Item ${itemId}`, `${head}\n${body}\n${all}`, [[`${run.label} · ${run.setting}`, runHref(run)], ['items', itemsHref(run)], [itemId]]);
}

export async function comparePage(
  index: ViewIndex,
  runs: ViewRun[],
  options: { only: boolean; page: number; pageSize: number; paired: (a: ViewRun, b: ViewRun) => Promise<PairedRow[]> },
): Promise<string> {
  for (const r of runs) await index.ensureItems(r);
  const summaries = await Promise.all(runs.map((r) => index.summary(r)));
  const defs = summaries.find((s) => s)?.metricDefs ?? [];
  const parts: string[] = [`<h1>Compare ${runs.length} runs</h1>`];
  parts.push(
    `<div class="scroll"><table class="compare-metrics"><thead><tr><th>Run</th><th>Setting</th>${defs.map((d) => `<th>${esc(d.label)} ${d.better === 'higher' ? '↑' : '↓'}</th>`).join('')}</tr></thead><tbody>${runs
      .map(
        (r, i) =>
          `<tr><th scope="row"><a href="${esc(runHref(r))}">${esc(r.label)}</a></th><td>${esc(r.setting)}</td>${defs.map((d) => `<td class="num">${esc(formatMetric(d, summaries[i]?.metrics[d.id]))}${flagOf(summaries[i], d.id)}<br><span class="ci">${esc(formatInterval(d, summaries[i]?.intervals[d.id]))}</span></td>`).join('')}</tr>`,
      )
      .join('')}</tbody></table></div>`,
  );
  const [a, b] = runs as [ViewRun, ViewRun];
  for (const other of runs.slice(1)) {
    const rows = await options.paired(a, other);
    if (rows.length === 0) continue;
    parts.push(
      `<h2>Paired difference: ${esc(a.label)} (${esc(a.setting)}) − ${esc(other.label)} (${esc(other.setting)})</h2><p class="muted small">${esc(pairedTestsNote({ resamples: 1000, seed: 42 }))}</p><div class="scroll"><table class="paired"><thead><tr><th>Metric</th><th>A</th><th>B</th><th>A − B</th><th>95% CI</th><th>p</th><th>n</th></tr></thead><tbody>${rows
        .map(
          (r) =>
            `<tr${isSignificant(r.p, r.n) ? ' class="sig"' : ''}><th scope="row">${esc(r.def.label)}</th><td class="num">${esc(formatMetric(r.def, r.a))}</td><td class="num">${esc(formatMetric(r.def, r.b))}</td><td class="num">${esc(formatMetric(r.def, r.difference))}${significanceStar(r.p, r.n)}</td><td class="num ci">${esc(formatInterval(r.def, r.interval))}</td><td class="num">${esc(formatResampledP(r.p, 1000))}</td><td class="num">${r.n}</td></tr>`,
        )
        .join('')}</tbody></table></div>`,
    );
  }
  const cmp = compareItems(index, a, b, { onlyDisagreements: options.only, page: options.page, pageSize: options.pageSize });
  const keys = runs.map((r) => r.key);
  const base = (extra: Record<string, string | number | boolean | undefined>) => `/compare${qs({ runs: keys.join(','), ...extra })}`;
  const pages = Math.max(1, Math.ceil(cmp.total / options.pageSize));
  parts.push(`<h2>Items side by side: ${esc(a.label)} (${esc(a.setting)}) vs ${esc(b.label)} (${esc(b.setting)})</h2>`);
  parts.push(
    `<p>${cmp.shared} shared item(s), <strong>${cmp.disagreements} with different labels</strong> (shown first). ${options.only ? `<a href="${esc(base({}))}">show all</a>` : `<a href="${esc(base({ only: 1 }))}">only disagreements</a>`}</p>`,
  );
  const pager = `<p class="pager">page ${cmp.page + 1} of ${pages} ${cmp.page > 0 ? `<a href="${esc(base({ only: options.only ? 1 : undefined, page: cmp.page }))}">‹ previous</a>` : ''} ${cmp.page + 1 < pages ? `<a rel="next" href="${esc(base({ only: options.only ? 1 : undefined, page: cmp.page + 2 }))}">next ›</a>` : ''}</p>`;
  parts.push(pager);
  parts.push(
    `<div class="scroll"><table class="side-by-side"><thead><tr><th>Question</th><th>Source</th><th>A: label</th><th>A: response</th><th>B: label</th><th>B: response</th></tr></thead><tbody>${cmp.rows
      .map(
        (r) =>
          `<tr class="${r.differ ? 'differ' : ''}"><td class="text">${esc(r.question)}</td><td>${esc(r.source)}</td><td><a href="${esc(itemHref(a, r.item_id))}"><span class="label ${esc(r.a_label ?? 'none')}">${esc(r.a_label ?? '–')}</span></a>${r.a_subtype ? ` <span class="muted small">${esc(r.a_subtype)}</span>` : ''}${r.a_cons === null ? '' : ` <span class="muted small">${esc(r.a_cons.toFixed(2))}</span>`}</td><td class="text response">${esc(r.a_response)}</td><td><a href="${esc(itemHref(b, r.item_id))}"><span class="label ${esc(r.b_label ?? 'none')}">${esc(r.b_label ?? '–')}</span></a>${r.b_subtype ? ` <span class="muted small">${esc(r.b_subtype)}</span>` : ''}${r.b_cons === null ? '' : ` <span class="muted small">${esc(r.b_cons.toFixed(2))}</span>`}</td><td class="text response">${esc(r.b_response)}</td></tr>`,
      )
      .join('')}</tbody></table></div>`,
  );
  return layout('Compare', parts.join('\n'), [['compare']]);
}
