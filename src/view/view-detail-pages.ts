/**
 * The run, item and comparison pages of `llmkb view`.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { MetricDef } from '../methods/method.js';
import { findMethod } from '../methods/registry.js';
import { countsTable, esc, formatInterval, formatMetric, headlineDefs, itemHref, itemsHref, layout, metricsTable, pre, qs, runHref } from './view-pages.js';
import type { ViewIndex, ViewRun, ViewSummary } from './view-index.js';

const LABEL_COLORS = { domain: ['correct', 'wrong', 'uninformative', '(no label)'], range: ['#2e7d32', '#c62828', '#9e9e9e', '#bdbdbd'] };

async function svg(spec: TopLevelSpec): Promise<string> {
  const { renderSvg } = await import('../report/render-svg.js');
  return (await renderSvg(spec)).replace(/<script[\s\S]*?<\/script>/gi, '');
}

/** Headline metrics with their CIs as bars with error bars, on the metric's own range. */
function metricChart(defs: readonly MetricDef[], summary: ViewSummary): TopLevelSpec | undefined {
  const shown = headlineDefs(defs).filter((d) => d.format === 'percent' && summary.metrics[d.id] !== null && summary.metrics[d.id] !== undefined);
  if (shown.length === 0) return undefined;
  const lo = Math.min(...shown.map((d) => d.range[0])) * 100;
  const hi = Math.max(...shown.map((d) => d.range[1])) * 100;
  const values = shown.map((d) => ({ metric: `${d.label} ${d.better === 'higher' ? '↑' : '↓'}`, value: 100 * summary.metrics[d.id]!, lo: summary.intervals[d.id] ? 100 * summary.intervals[d.id]![0] : null, hi: summary.intervals[d.id] ? 100 * summary.intervals[d.id]![1] : null }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Headline metrics (x100) with 95% CIs',
    width: 380,
    height: { step: 22 },
    data: { values },
    layer: [
      { mark: { type: 'bar', color: '#4c78a8' }, encoding: { y: { field: 'metric', type: 'nominal', sort: null, title: null, axis: { labelLimit: 0 } }, x: { field: 'value', type: 'quantitative', title: 'x100', scale: { domain: [lo, hi] } } } },
      { mark: { type: 'rule', color: 'black' }, encoding: { y: { field: 'metric', type: 'nominal', sort: null }, x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } } },
    ],
  } as unknown as TopLevelSpec;
}

function labelChart(rows: ReadonlyArray<{ grp: string | null; label: string | null; n: number }>): TopLevelSpec | undefined {
  if (rows.length === 0) return undefined;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Labels by source / template',
    width: 380,
    height: { step: 14 },
    data: { values: rows.map((r) => ({ source: r.grp ?? '(none)', label: r.label ?? '(no label)', n: r.n })) },
    mark: 'bar',
    encoding: {
      y: { field: 'source', type: 'nominal', title: null, sort: null, axis: { labelLimit: 0 } },
      x: { field: 'n', type: 'quantitative', stack: 'normalize', title: 'share of items', axis: { format: '%' } },
      color: { field: 'label', type: 'nominal', scale: LABEL_COLORS, title: null },
      order: { field: 'label' },
    },
  } as unknown as TopLevelSpec;
}

export async function runPage(index: ViewIndex, run: ViewRun): Promise<string> {
  const { items } = await index.ensureItems(run);
  const summary = await index.summary(run);
  const parts: string[] = [`<h1>${esc(run.label)} <span class="muted">· ${esc(run.setting)} · ${esc(run.method)}</span></h1>`];
  parts.push(`<p><a class="button" href="${esc(itemsHref(run))}">All ${items} items</a> ${run.stages.map((s) => `<span class="stage ${esc(s.status)}">${esc(s.stage)}: ${esc(s.status)}${s.records >= 0 ? ` (${s.records})` : ''}</span>`).join(' ')}</p>`);
  if (run.model) parts.push(`<p class="muted small">model <code>${esc(run.model)}</code>${run.runId ? ` · run <code>${esc(run.runId)}</code>` : ''}${run.summaryFile ? ` · summary <code>${esc(run.summaryFile)}</code>` : ''}</p>`);
  if (summary) {
    const protocol = summary.raw.protocol as { entries?: Record<string, { status?: string; choice?: string; note?: string }> } | undefined;
    const departed = protocol?.entries ? Object.entries(protocol.entries).filter(([, e]) => e.status && e.status !== 'paper') : [];
    if (summary.approximate || departed.length) {
      parts.push(`<div class="warn"><strong>Departures from the paper's protocol</strong><ul>${summary.approximate ? '<li>labels partly from the lexical rule (no judge LLM): approximate</li>' : ''}${departed.map(([c, e]) => `<li>${esc(c)}: ${esc(e.choice ?? '')} ${e.note ? `— ${esc(e.note)}` : ''}</li>`).join('')}</ul></div>`);
    }
    parts.push('<h2>Metrics</h2>');
    parts.push(metricsTable(summary.metricDefs, summary));
  } else parts.push('<p class="empty">No summary for this run yet (no labelled items).</p>');
  const titles = findMethod(run.method)?.view?.itemTitles;
  if (titles) {
    // Another method's run: its items by label (e.g. CONNER's factuality label), each count a link.
    const mc = summary ? metricChart(summary.metricDefs, summary) : undefined;
    if (mc) parts.push(`<h2>Charts</h2><div class="charts"><figure class="chart">${await svg(mc)}</figure></div>`);
    const byLabel = index.facets(run, 'label');
    const title = titles.label ?? 'label';
    parts.push(`<h2>Items by ${esc(title)}</h2><p class="muted">Each count links to the items behind it.</p><div class="scroll"><table class="counts"><thead><tr><th>${esc(title)}</th><th>items</th></tr></thead><tbody>${byLabel.map((r) => `<tr><th scope="row">${esc(r.value ?? '(none)')}</th><td class="num"><a href="${esc(itemsHref(run, { label: r.value ?? '(none)' }))}">${r.n}</a></td></tr>`).join('')}</tbody></table></div>`);
    return layout(`${run.label} · ${run.setting}`, parts.join('\n'), [[`${run.label} · ${run.setting}`]]);
  }
  const bySource = index.counts(run, 'source');
  const charts: string[] = [];
  const mc = summary ? metricChart(summary.metricDefs, summary) : undefined;
  if (mc) charts.push(`<figure class="chart">${await svg(mc)}</figure>`);
  const labelRows = index.db.prepare('SELECT source AS grp, label, count(*) AS n FROM vi.items WHERE run_key = ? GROUP BY source, label').all(run.key) as Array<{ grp: string | null; label: string | null; n: number }>;
  const lc = labelChart(labelRows.sort((x, y) => (x.grp ?? '').localeCompare(y.grp ?? '', 'en', { numeric: true })));
  if (lc) charts.push(`<figure class="chart">${await svg(lc)}</figure>`);
  if (charts.length) parts.push(`<h2>Charts</h2><div class="charts">${charts.join('')}</div>`);
  parts.push('<h2>Breakdowns</h2><p class="muted">Each count links to the items behind it.</p>');
  const groups = (summary?.raw.breakdowns as { bySource?: Record<string, { metrics: Record<string, number | null> }> } | undefined)?.bySource ?? {};
  const groupDefs = summary ? headlineDefs(summary.metricDefs).filter((d) => Object.values(groups).some((g) => d.id in g.metrics)) : [];
  const seenSources = bySource.filter((r) => !/^T\d+$/.test(r.grp ?? ''));
  const templates = bySource.filter((r) => /^T\d+$/.test(r.grp ?? ''));
  const extra = (g: string) => groupDefs.map((d) => formatMetric(d, groups[g]?.metrics[d.id]));
  parts.push(countsTable(run, 'By source', 'source', seenSources, extra, groupDefs.map((d) => d.label)));
  if (templates.length) parts.push(countsTable(run, 'By UnseenQA template', 'source', templates, extra, groupDefs.map((d) => d.label)));
  parts.push(countsTable(run, 'By answer type', 'answer_type', index.counts(run, 'answer_type')));
  parts.push(countsTable(run, 'Uninformative responses by sub-type', 'subtype', index.counts(run, 'subtype', "AND label = 'uninformative'")));
  return layout(`${run.label} · ${run.setting}`, parts.join('\n'), [[`${run.label} · ${run.setting}`]]);
}

/** Call keys anywhere at the top of a record or its decision (the seam's helper keeps them). */
function callKeysOf(record: Record<string, unknown> | undefined): string[] {
  if (!record) return [];
  const out: string[] = [];
  const take = (v: unknown) => {
    if (typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)) out.push(v);
    else if (Array.isArray(v)) v.forEach(take);
  };
  for (const [k, v] of Object.entries(record)) if (/callKeys?$|^cacheKeys?$/.test(k)) take(v);
  return out;
}

function exchange(index: ViewIndex, key: string): string {
  const call = index.call(key);
  if (!call) return `<p class="muted small">call <code>${esc(key.slice(0, 16))}…</code> is not in this store's call cache (an evaluation still running keeps its latest calls in its journal until it ends)</p>`;
  const req = call.request as { prompt?: string; messages?: unknown; maxTokens?: number; stop?: string[] };
  const res = call.response as { text?: string; logprobs?: unknown };
  return `<div class="exchange"><p class="muted small">${esc(call.kind)} · ${esc(call.model)} · key <code>${esc(key.slice(0, 16))}…</code>${req.maxTokens ? ` · max tokens ${esc(req.maxTokens)}` : ''}${req.stop?.length ? ` · stop ${esc(JSON.stringify(req.stop))}` : ''}</p><h4>Sent</h4>${pre(req.prompt ?? req.messages ?? req, 'prompt')}<h4>Received</h4>${pre(res.text ?? res, 'response')}</div>`;
}

async function promptSection(index: ViewIndex, run: ViewRun, record: Record<string, unknown>): Promise<string> {
  const keys = callKeysOf(record);
  if (keys.length) return `<h2>Prompt sent</h2>${keys.map((k) => exchange(index, k)).join('')}`;
  const question = typeof record.question === 'string' ? record.question : undefined;
  const shots = Array.isArray(record.shots) ? (record.shots as unknown[]) : [];
  if (!question) return '';
  const { qaPrompt } = await import('../methods/reliability/prompts/paper-prompts.js');
  if (shots.length === 0 && run.kind === 'store' && run.model) {
    // Zero-shot: the prompt is the question in Table 6's template; the cache confirms it was the one sent.
    const { cacheKey } = await import('../store/call-key.js');
    const prompt = qaPrompt(question);
    const spec = index.db.prepare('SELECT spec FROM main.runs WHERE id = ?').get(run.key) as { spec: string } | undefined;
    const maxTokens = (JSON.parse(spec?.spec ?? '{}') as { params?: { maxTokens?: number } }).params?.maxTokens ?? 100;
    const key = cacheKey(run.model, 'complete', { prompt, maxTokens, stop: [], temperature: 0 });
    if (index.call(key)) return `<h2>Prompt sent</h2>${exchange(index, key)}`;
    return `<h2>Prompt sent</h2><p class="muted small">Rebuilt from Table 6's template (not found in the call cache).</p>${pre(prompt, 'prompt')}`;
  }
  if (shots.length === 0) return `<h2>Prompt sent</h2><p class="muted small">Rebuilt from Table 6's template (zero-shot).</p>${pre(qaPrompt(question), 'prompt')}`;
  return `<h2>Prompt sent</h2><p class="muted small">${shots.length} shot(s): ${esc(shots.join(', '))}. This run's records do not keep the call keys, so the exact prompt with its shots is not shown.</p>`;
}

function mcqTable(mcqs: Array<Record<string, unknown>>, mode: string | undefined): string {
  const letters = ['A', 'B', 'C', 'D', 'E'];
  return `<div class="scroll"><table class="mcqs"><thead><tr><th>#</th><th>Options</th><th>Chosen</th><th>Parse</th>${mode === 'logprobs' ? '<th>P(chosen)</th>' : '<th>Raw output</th>'}</tr></thead><tbody>${mcqs
    .map((m, i) => {
      const options = (m.options as string[] | undefined) ?? [];
      let probability = '';
      if (mode === 'logprobs' && typeof m.raw === 'string') {
        try {
          const lps = JSON.parse(m.raw) as Record<string, number | null>;
          const ps = Object.fromEntries(Object.entries(lps).map(([k, v]) => [k, v === null ? 0 : Math.exp(v)]));
          const total = Object.values(ps).reduce((a, b) => a + b, 0);
          if (typeof m.choice === 'string') probability = `${(ps[m.choice] ?? 0).toFixed(3)}${total > 0 ? ` (${((ps[m.choice] ?? 0) / total).toFixed(3)} among the letters)` : ''}`;
        } catch {
          probability = '';
        }
      }
      const opts = options.map((o, j) => {
        const l = letters[j]!;
        const marks = [l === m.responseLetter ? '<span class="mark resp" title="the response">response</span>' : '', l === m.unsureLetter ? '<span class="mark unsure">unsure</span>' : '', l === m.choice ? '<span class="mark chosen">chosen</span>' : ''].join('');
        return `<li class="${l === m.choice ? 'chosen' : ''}"><strong>${l}.</strong> ${esc(o)} ${marks}</li>`;
      });
      return `<tr><td class="num">${i + 1}</td><td><ol class="options">${opts.join('')}</ol></td><td>${esc(m.choice ?? '–')}${m.choseResponse ? ' ✓' : ''}</td><td>${esc(m.parse)}</td><td class="text">${mode === 'logprobs' ? esc(probability) : esc(m.raw)}</td></tr>`;
    })
    .join('')}</tbody></table></div>`;
}

export async function itemPage(index: ViewIndex, run: ViewRun, itemId: string): Promise<string | undefined> {
  await index.ensureItems(run);
  const row = index.itemRow(run, itemId);
  if (!row) return undefined;
  const recs = index.itemRecords(run, itemId);
  const own = findMethod(run.method)?.view?.itemPage;
  if (own) {
    const head = `<h1>Item <code>${esc(itemId)}</code> <span class="label ${esc(row.label ?? 'none')}">${esc(row.label ?? 'no label')}</span></h1>`;
    const all = `<details><summary>All fields</summary>${Object.entries(recs).map(([stage, r]) => `<h4>${esc(stage)}</h4>${pre(r)}`).join('')}</details>`;
    return layout(`Item ${itemId}`, `${head}\n${await own(recs)}\n${all}`, [[`${run.label} · ${run.setting}`, runHref(run)], ['items', itemsHref(run)], [itemId]]);
  }
  const ask = recs.ask ?? recs.records ?? {};
  const judged = recs.judge ?? recs.records ?? {};
  const cons = recs.consistency as Record<string, unknown> | undefined;
  const parts: string[] = [];
  parts.push(`<h1>Item <code>${esc(itemId)}</code> <span class="label ${esc(row.label ?? 'none')}">${esc(row.label ?? 'no label')}</span></h1>`);
  parts.push(`<p class="muted">${esc(run.label)} · ${esc(run.setting)} · ${esc(row.dataset)} · source ${esc(row.source)}${row.answer_type ? ` · answer type ${esc(row.answer_type)}` : ''}</p>`);
  parts.push(`<h2>Question</h2>${pre(row.question, 'question')}`);
  const answers = (judged.answers ?? ask.answers) as string[] | undefined;
  if (answers?.length) parts.push(`<p><strong>Accepted answers</strong>: ${answers.map((a) => `<span class="answer">${esc(a)}</span>`).join(' · ')}</p>`);
  parts.push(await promptSection(index, run, ask));
  const raw = (ask.rawResponse ?? judged.rawResponse) as string | undefined;
  parts.push(`<h2>Response</h2><div class="two"><div><h4>Cut (what was judged)</h4>${pre(row.response, 'response')}</div>${raw !== undefined ? `<div><h4>Raw (everything generated)</h4>${pre(raw, 'response raw')}</div>` : ''}</div>`);
  if (ask.finishReason) parts.push(`<p class="muted small">finish reason ${esc(ask.finishReason)}${ask.shotsDropped ? ` · ${esc(ask.shotsDropped)} shot(s) dropped to fit` : ''}</p>`);
  // Why it got its label.
  const decision = judged.decision as { by?: string; detail?: string; replies?: string[]; callKeys?: string[] } | undefined;
  if (row.label) {
    parts.push(`<h2>Why "${esc(row.label)}"${row.subtype ? ` (${esc(row.subtype)})` : ''}</h2>`);
    parts.push(`<p>Decided by <code>${esc(decision?.by ?? row.judged_by ?? '?')}</code>${decision?.detail ? `: ${esc(decision.detail)}` : ''}${judged.approximate ? ' <span class="badge approx">approximate</span>' : ''}</p>`);
    const keys = decision?.callKeys ?? [];
    if (keys.length) parts.push(`<h3>Judge exchange</h3>${keys.map((k) => exchange(index, k)).join('')}`);
    else if (decision?.replies?.length) parts.push(`<h3>Judge replies</h3>${decision.replies.map((r) => pre(r)).join('')}`);
  }
  // Consistency: distractors and every MCQ.
  if (cons || row.consistency !== null) {
    parts.push(`<h2>Consistency ${row.consistency === null ? '' : `Cons = ${esc(row.consistency.toFixed(2))}`}</h2>`);
    const distractors = (cons?.distractors as { distractors?: string[]; source?: string; toppedUp?: number } | undefined);
    if (distractors?.distractors) parts.push(`<h3>Distractors <span class="muted small">(${esc(distractors.source)}${distractors.toppedUp ? `, ${esc(distractors.toppedUp)} from the answer pool` : ''})</span></h3><ol class="distractors">${distractors.distractors.map((d) => `<li>${esc(d)}</li>`).join('')}</ol>`);
    const mcqs = cons?.mcqs as Array<Record<string, unknown>> | undefined;
    if (mcqs?.length) parts.push(`<h3>MCQs (${mcqs.length}, ${esc(cons?.mode ?? '')})</h3>${mcqTable(mcqs, cons?.mode as string | undefined)}`);
    else if (judged.consistencyDetail) parts.push(`<p class="muted">The records file keeps only the counts: ${esc(JSON.stringify(judged.consistencyDetail))}. The MCQs are in the run store.</p>`);
  }
  parts.push(`<details><summary>All fields</summary>${Object.entries(recs).map(([stage, r]) => `<h4>${esc(stage)}</h4>${pre(r)}`).join('')}</details>`);
  return layout(`Item ${itemId}`, parts.join('\n'), [[`${run.label} · ${run.setting}`, runHref(run)], ['items', itemsHref(run)], [itemId]]);
}

export interface PairedRow {
  def: MetricDef;
  a: number | null;
  b: number | null;
  difference: number | null;
  interval: [number, number] | null;
  p: number | null;
}

export async function comparePage(index: ViewIndex, runs: ViewRun[], options: { only: boolean; page: number; pageSize: number; paired: (a: ViewRun, b: ViewRun) => Promise<PairedRow[]> }): Promise<string> {
  for (const r of runs) await index.ensureItems(r);
  const summaries = await Promise.all(runs.map((r) => index.summary(r)));
  const defs = summaries.find((s) => s)?.metricDefs ?? [];
  const parts: string[] = [`<h1>Compare ${runs.length} runs</h1>`];
  parts.push(`<div class="scroll"><table class="compare-metrics"><thead><tr><th>Run</th><th>Setting</th>${defs.map((d) => `<th>${esc(d.label)} ${d.better === 'higher' ? '↑' : '↓'}</th>`).join('')}</tr></thead><tbody>${runs
    .map((r, i) => `<tr><th scope="row"><a href="${esc(runHref(r))}">${esc(r.label)}</a></th><td>${esc(r.setting)}</td>${defs.map((d) => `<td class="num">${esc(formatMetric(d, summaries[i]?.metrics[d.id]))}<br><span class="ci">${esc(formatInterval(d, summaries[i]?.intervals[d.id]))}</span></td>`).join('')}</tr>`)
    .join('')}</tbody></table></div>`);
  const [a, b] = runs as [ViewRun, ViewRun];
  for (const other of runs.slice(1)) {
    const rows = await options.paired(a, other);
    if (rows.length === 0) continue;
    parts.push(`<h2>Paired difference: ${esc(a.label)} (${esc(a.setting)}) − ${esc(other.label)} (${esc(other.setting)})</h2><p class="muted small">Paired bootstrap over the questions both runs answered (1000 resamples, seed 42); * p &lt; 0.05.</p><div class="scroll"><table class="paired"><thead><tr><th>Metric</th><th>A</th><th>B</th><th>A − B</th><th>95% CI</th><th>p</th></tr></thead><tbody>${rows
      .map((r) => `<tr${r.p !== null && r.p < 0.05 ? ' class="sig"' : ''}><th scope="row">${esc(r.def.label)}</th><td class="num">${esc(formatMetric(r.def, r.a))}</td><td class="num">${esc(formatMetric(r.def, r.b))}</td><td class="num">${esc(formatMetric(r.def, r.difference))}${r.p !== null && r.p < 0.05 ? '*' : ''}</td><td class="num ci">${esc(formatInterval(r.def, r.interval))}</td><td class="num">${r.p === null ? '–' : r.p === 0 ? '&lt; 0.001' : esc(r.p.toPrecision(2))}</td></tr>`)
      .join('')}</tbody></table></div>`);
  }
  const cmp = index.compareItems(a, b, { onlyDisagreements: options.only, page: options.page, pageSize: options.pageSize });
  const keys = runs.map((r) => r.key);
  const base = (extra: Record<string, string | number | boolean | undefined>) => `/compare${qs({ runs: keys.join(','), ...extra })}`;
  const pages = Math.max(1, Math.ceil(cmp.total / options.pageSize));
  parts.push(`<h2>Items side by side: ${esc(a.label)} (${esc(a.setting)}) vs ${esc(b.label)} (${esc(b.setting)})</h2>`);
  parts.push(`<p>${cmp.shared} shared item(s), <strong>${cmp.disagreements} with different labels</strong> (shown first). ${options.only ? `<a href="${esc(base({}))}">show all</a>` : `<a href="${esc(base({ only: 1 }))}">only disagreements</a>`}</p>`);
  const pager = `<p class="pager">page ${options.page + 1} of ${pages} ${options.page > 0 ? `<a href="${esc(base({ only: options.only ? 1 : undefined, page: options.page }))}">‹ previous</a>` : ''} ${options.page + 1 < pages ? `<a rel="next" href="${esc(base({ only: options.only ? 1 : undefined, page: options.page + 2 }))}">next ›</a>` : ''}</p>`;
  parts.push(pager);
  parts.push(`<div class="scroll"><table class="side-by-side"><thead><tr><th>Question</th><th>Source</th><th>A: label</th><th>A: response</th><th>B: label</th><th>B: response</th></tr></thead><tbody>${cmp.rows
    .map((r) => `<tr class="${r.differ ? 'differ' : ''}"><td class="text">${esc(r.question)}</td><td>${esc(r.source)}</td><td><a href="${esc(itemHref(a, r.item_id))}"><span class="label ${esc(r.a_label ?? 'none')}">${esc(r.a_label ?? '–')}</span></a>${r.a_subtype ? ` <span class="muted small">${esc(r.a_subtype)}</span>` : ''}${r.a_cons === null ? '' : ` <span class="muted small">${esc(r.a_cons.toFixed(2))}</span>`}</td><td class="text response">${esc(r.a_response)}</td><td><a href="${esc(itemHref(b, r.item_id))}"><span class="label ${esc(r.b_label ?? 'none')}">${esc(r.b_label ?? '–')}</span></a>${r.b_subtype ? ` <span class="muted small">${esc(r.b_subtype)}</span>` : ''}${r.b_cons === null ? '' : ` <span class="muted small">${esc(r.b_cons.toFixed(2))}</span>`}</td><td class="text response">${esc(r.b_response)}</td></tr>`)
    .join('')}</tbody></table></div>`);
  return layout('Compare', parts.join('\n'), [['compare']]);
}
