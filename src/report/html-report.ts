/**
 * `llmkb report`: one self-contained HTML file (inline CSS and SVG charts; no script, no font,
 * no network) with the paper's tables and figures for any set of runs, and each run's
 * breakdowns. Per-item records are aggregated, so the file stays small for 30 models x 3
 * settings. Every piece of model or user text is escaped.
 */
import { correlate, effects, modelsOf, settingsOf, TABLE2_PAIRS, TABLE_TITLES, type PairedTest } from '../analysis/compare-runs.js';
import type { MetricDef } from '../methods/method.js';
import { reliabilityMethod } from '../methods/reliability/reliability-method.js';
import { METRIC_KEYS } from '../methods/reliability/metrics/reliability-metrics.js';
import { formatPercent, type RunSummary, type ScoredRecord } from '../methods/reliability/metrics/summarize-run.js';
import type { ExecutionRecord } from '../methods/reliability/evaluate-model.js';
import { departures, PROTOCOL_CHOICES, PROTOCOL_TITLES, protocolDifferences } from '../methods/reliability/protocol.js';
import { VERSION } from '../version.js';
import { escapeHtml } from './escape-html.js';
import { isMetricKey, PairedResampler } from './significance.js';
import { renderSvg } from './charts.js';
import { answerTypeFigure, consistencyFigure, correctWrongFigure, effectFigures, rankingFigure, scatterFigure, subtypeFigure, type Figure } from './paper-figures.js';

export { escapeHtml };

function htmlTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, className = ''): string {
  return `<table class="${className}"><thead><tr>${header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c, i) => (i === 0 ? `<th scope="row">${escapeHtml(c)}</th>` : `<td>${escapeHtml(c)}</td>`)).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

/** Vega's SVG, with anything that is not drawing removed (it contains none, but the page promises no script). */
function safeSvg(svg: string): string {
  return svg.replace(/<script[\s\S]*?<\/script>/gi, '').replace(/\son\w+="[^"]*"/gi, '');
}

/** A figure, or, when the runs do not carry what it needs, one line saying what to add. */
async function figure(f: Figure): Promise<string> {
  if (!f.spec) return `<figure class="chart empty" id="${escapeHtml(f.id)}"><figcaption><strong>${escapeHtml(f.title)}</strong>: not drawn. ${escapeHtml(f.note ?? '')}</figcaption></figure>`;
  const caption = f.caption.startsWith('Figure') ? f.caption : `${f.title}. ${f.caption}`;
  return `<figure class="chart" id="${escapeHtml(f.id)}">${safeSvg(await renderSvg(f.spec))}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.6rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{margin-top:1.4rem}
.scroll{overflow-x:auto;max-width:100%;margin:.6rem 0}
table{border-collapse:collapse;font-size:12.5px}th,td{border:1px solid #e1e1e1;padding:3px 7px;text-align:right;vertical-align:top}table.paper{font-size:12px}table.paper td,table.paper th{padding:2px 5px}
thead th{background:#f5f5f7;text-align:center;white-space:nowrap}tbody th{text-align:left;font-weight:500;white-space:nowrap}
table.paper tbody th{position:sticky;left:0;background:#fff}table.paper td{white-space:nowrap;font-variant-numeric:tabular-nums}
table.paper thead tr:first-child th.group{border-bottom:2px solid #999}table.paper td.first,table.paper th.first{border-left:2px solid #999}
.ci{display:block;color:#777;font-size:10px}td.best{font-weight:700}td.tie{text-decoration:underline}
.warn{background:#fff4e5;border:1px solid #f0b35a;padding:.6rem .9rem;border-radius:6px}
.charts{display:flex;flex-wrap:wrap;gap:1.4rem}figure.chart{margin:0;max-width:100%;overflow-x:auto}figcaption{font-size:12px;color:#555;max-width:640px}
figure.empty{border:1px dashed #ccc;padding:.5rem .8rem;border-radius:6px;max-width:560px}
.sig{font-weight:700}#departures h2{margin-top:0;border:0;font-size:1.1rem}#departures .runs{color:#666}table.protocol td{text-align:left}code{background:#f5f5f7;padding:0 3px;border-radius:3px}details{margin:.4rem 0}
table.examples td{text-align:left;max-width:32rem;overflow-wrap:anywhere}p.note{color:#555;font-size:12px}
@media print{body{margin:0;max-width:none;font-size:10pt}h2{break-after:avoid}table,figure{break-inside:avoid}.scroll{overflow:visible}
  table.paper{font-size:7.5pt}table.paper tbody th{position:static}details::details-content{content-visibility:visible;display:contents}details>summary{list-style:none}a{color:inherit;text-decoration:none}}
@page{size:A4 landscape;margin:12mm}
`;

/**
 * "Departures from the paper's protocol": one line per choice that some run made differently
 * from the paper, naming the runs; and what differs between the runs shown side by side.
 */
function protocolBox(summaries: readonly RunSummary[]): string {
  const byChoice = new Map<string, string[]>();
  for (const s of summaries) {
    if (!s.protocol) continue;
    for (const { choice, entry } of departures(s.protocol)) {
      const line = `${PROTOCOL_TITLES[choice]}: ${entry.choice}${entry.status === 'nondeterministic' ? ' (nondeterministic)' : ''}${entry.note ? ` — ${entry.note}` : ''}`;
      byChoice.set(line, [...(byChoice.get(line) ?? []), `${s.model} (${s.setting})`]);
    }
  }
  const differences = protocolDifferences(summaries.map((s) => ({ name: `${s.model} (${s.setting})`, protocol: s.protocol })));
  if (byChoice.size === 0 && differences.length === 0) return '';
  const all = summaries.length;
  const items = [...byChoice.entries()].map(([line, runs]) => `<li>${escapeHtml(line)} <span class="runs">[${runs.length === all ? 'all runs' : escapeHtml(runs.join(', '))}]</span></li>`);
  const diff = differences.length ? `<p><strong>The runs shown together differ in protocol:</strong></p><ul>${differences.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>` : '';
  return `<section class="warn" id="departures"><h2>Departures from the paper's protocol</h2>${items.length ? `<ul>${items.join('')}</ul>` : ''}${diff}<p>Each choice, its default and its measured effect: README, "How close to the paper is a run?".</p></section>`;
}

function protocolTable(s: RunSummary, execution: ExecutionRecord | undefined): string {
  const rows: string[][] = [];
  if (s.protocol) {
    for (const c of PROTOCOL_CHOICES) {
      const e = s.protocol.entries[c];
      if (e) rows.push([PROTOCOL_TITLES[c], e.choice, e.status, e.note ?? '']);
    }
    rows.push(['seed', String(s.protocol.seed), '', '']);
    rows.push(['compute backend', s.protocol.computeBackend, '', '']);
    for (const [file, hash] of Object.entries(s.protocol.datasets)) rows.push([`data: ${file}`, hash.slice(0, 16), '', 'sha256 (first 16 hex digits)']);
  }
  if (execution) {
    if (execution.command) rows.push(['command', execution.command, '', '']);
    rows.push(['ran', `${execution.startedAt} → ${execution.finishedAt}`, '', `llmkb ${execution.llmkbVersion}, Node ${execution.node}`]);
    for (const [role, a] of Object.entries(execution.calls)) rows.push([`calls: ${role}`, `${a.calls} (${a.cacheHits} cached, ${a.requests} requests)`, '', `tokens ${a.promptTokens} in + ${a.completionTokens} out`]);
  }
  return rows.length ? `<h4>Protocol</h4>${htmlTable(['Choice', 'this run', 'status', 'note'], rows, 'protocol')}` : '';
}

/** The metric definitions of the runs' method (summary v2 carries them; v1 summaries are reliability runs). */
function metricDefsOf(summaries: readonly RunSummary[]): Map<string, MetricDef> {
  const own = (summaries[0] as unknown as { metricDefs?: MetricDef[] } | undefined)?.metricDefs;
  return new Map((own ?? reliabilityMethod.metricDefs).map((d) => [d.id, d]));
}

/** The paper's Tables 9-11: the metric ids of each, four per prompt setting. */
const PAPER_TABLES: Record<'9' | '10' | '11', string[]> = {
  '9': ['WR', 'CR', 'NCR', 'UR'],
  '10': ['C_wrong_seen', 'C_wrong_unseen', 'C_wrong', 'C_correct'],
  '11': ['CWR', 'CCR', 'NCCR', 'IUR'],
};

type Mark = 'best' | 'tie' | undefined;

/**
 * Significance marks: in each setting and column, the best run is bold and the runs that the
 * paired bootstrap (1000 resamples over the questions both answered) cannot tell from it
 * (p >= 0.05) are underlined. Needs the runs' records; without them only the best is marked.
 */
function significanceMarks(summaries: readonly RunSummary[], records: ReadonlyArray<readonly ScoredRecord[] | undefined>, metrics: readonly string[], defs: ReadonlyMap<string, MetricDef>): Map<string, Mark> {
  const marks = new Map<string, Mark>();
  const resampler = new PairedResampler();
  for (const setting of settingsOf(summaries)) {
    const runs = summaries.map((s, i) => ({ s, i })).filter(({ s }) => s.setting === setting);
    if (runs.length < 2) continue;
    for (const metric of metrics) {
      const def = defs.get(metric);
      const valued = runs.filter(({ s }) => s.metrics[metric as never] !== null && s.metrics[metric as never] !== undefined);
      if (valued.length < 2 || !def) continue;
      const sign = def.better === 'higher' ? 1 : -1;
      const best = valued.reduce((a, b) => (sign * ((b.s.metrics[metric as never] as number) - (a.s.metrics[metric as never] as number)) > 0 ? b : a));
      marks.set(`${best.i}/${metric}`, 'best');
      const bestRecords = records[best.i];
      if (!bestRecords) continue;
      for (const { s, i } of valued) {
        if (i === best.i || !records[i]) continue;
        if (s.metrics[metric as never] === best.s.metrics[metric as never]) {
          marks.set(`${i}/${metric}`, 'best');
          continue;
        }
        const p = isMetricKey(metric) ? resampler.p(bestRecords, records[i]!, metric) : null;
        if (p !== null && p >= 0.05) marks.set(`${i}/${metric}`, 'tie');
      }
    }
  }
  return marks;
}

/** A paper table: a row per model, a column group per prompt setting (grouped header), each value with its 95% CI. */
function paperTableHtml(summaries: readonly RunSummary[], table: '9' | '10' | '11', defs: ReadonlyMap<string, MetricDef>, marks: ReadonlyMap<string, Mark>): string {
  const settings = settingsOf(summaries);
  const ids = PAPER_TABLES[table];
  const label = (id: string) => `${defs.get(id)?.label ?? id} ${defs.get(id)?.better === 'lower' ? '↓' : '↑'}`;
  const head = `<thead><tr><th rowspan="2" scope="col">Model</th>${settings.map((s) => `<th class="group first" colspan="${ids.length}" scope="colgroup">${escapeHtml(s)}</th>`).join('')}</tr><tr>${settings.map(() => ids.map((id, k) => `<th scope="col"${k === 0 ? ' class="first"' : ''} title="${escapeHtml(defs.get(id)?.description ?? '')}">${escapeHtml(label(id))}</th>`).join('')).join('')}</tr></thead>`;
  const rows = modelsOf(summaries).map((model) => `<tr><th scope="row">${escapeHtml(model)}</th>${settings.map((setting) => {
    const i = summaries.findIndex((x) => x.model === model && x.setting === setting);
    const s = summaries[i];
    return ids.map((id, k) => {
      const first = k === 0 ? 'first' : '';
      if (!s) return `<td class="${first}"></td>`;
      const v = s.metrics[id as never] as number | null;
      const ci = s.intervals[id as never] as [number, number] | null | undefined;
      const mark = marks.get(`${i}/${id}`) ?? '';
      return `<td class="${`${first} ${mark}`.trim()}">${escapeHtml(formatPercent(v))}${ci ? `<span class="ci">[${escapeHtml(formatPercent(ci[0], 1))}, ${escapeHtml(formatPercent(ci[1], 1))}]</span>` : ''}</td>`;
    }).join('');
  }).join('')}</tr>`);
  return `<div class="scroll"><table class="paper" id="table${table}">${head}<tbody>${rows.join('')}</tbody></table></div>`;
}

/** A few responses of each label, spread over the run (every k-th), with the question and the accepted answer. */
function examplesHtml(records: readonly ScoredRecord[] | undefined, perLabel = 3): string {
  if (!records || records.length === 0) return '';
  const rows: string[] = [];
  for (const label of ['correct', 'wrong', 'uninformative'] as const) {
    const all = records.filter((r) => r.label === label);
    const step = Math.max(1, Math.floor(all.length / perLabel));
    const picked = all.filter((_, i) => i % step === 0).slice(0, perLabel);
    for (const r of picked) {
      const q = typeof r.question === 'string' ? r.question : r.id;
      const answers = Array.isArray(r.answers) ? (r.answers as unknown[]).filter((a): a is string => typeof a === 'string') : [];
      const response = typeof r.response === 'string' ? r.response : '';
      rows.push(`<tr><th scope="row">${escapeHtml(label)}${r.uninformativeType ? ` (${escapeHtml(r.uninformativeType)})` : ''}</th><td>${escapeHtml(q)}</td><td>${escapeHtml(answers[0] ?? (r.dataset === 'unseen' ? '(unseen: no answer)' : ''))}</td><td>${escapeHtml(response.length > 240 ? `${response.slice(0, 239)}…` : response)}</td></tr>`);
    }
  }
  return rows.length ? `<h4>Example responses</h4><div class="scroll"><table class="examples"><thead><tr><th>label</th><th>question</th><th>accepted answer</th><th>response</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>` : '';
}

export interface ReportOptions {
  title?: string;
  pairedTests?: readonly PairedTest[];
  executions?: readonly ExecutionRecord[];
  /** Each run's scored records (same order as the summaries): significance marks and example responses. */
  records?: ReadonlyArray<readonly ScoredRecord[] | undefined>;
}

export async function renderReport(summaries: readonly RunSummary[], options: ReportOptions = {}): Promise<string> {
  const title = options.title ?? 'llmkb report: reliability of LLMs as knowledge bases';
  const settings = settingsOf(summaries);
  const defs = metricDefsOf(summaries);
  const records = options.records ?? [];
  const hasRecords = summaries.some((_, i) => records[i]);
  const parts: string[] = [];
  parts.push(`<h1>${escapeHtml(title)}</h1>`);
  parts.push(`<p>${summaries.length} run(s), ${new Set(summaries.map((s) => s.model)).size} model(s), settings: ${escapeHtml(settings.join(', '))}. Metrics as defined by Zheng, Lapata &amp; Pan (values x100, 95% bootstrap CIs below each value); made by llmkb ${escapeHtml(VERSION)}.</p>`);
  parts.push(protocolBox(summaries));
  const approximate = summaries.filter((s) => s.approximate);
  if (approximate.length > 0) {
    parts.push(`<p class="warn">Approximate: ${approximate.length} run(s) were judged without a judge LLM (lexical rule): ${escapeHtml(approximate.map((s) => `${s.model} (${s.setting})`).join(', '))}.</p>`);
  }

  const marks = significanceMarks(summaries, records, Object.values(PAPER_TABLES).flat(), defs);
  const markNote = summaries.length < 2 || settings.every((st) => summaries.filter((s) => s.setting === st).length < 2)
    ? ''
    : hasRecords
      ? '<p class="note">Bold: the best run of the setting in that column; underlined: not significantly different from it (paired bootstrap over the shared questions, 1000 resamples, p ≥ 0.05).</p>'
      : '<p class="note">Bold: the best run of the setting in that column. Significance marks need the runs\' records (<code>.records.jsonl</code> beside each summary).</p>';
  for (const t of ['9', '10', '11'] as const) {
    parts.push(`<h2>${escapeHtml(TABLE_TITLES[t])}</h2>${paperTableHtml(summaries, t, defs, marks)}`);
  }
  parts.push(markNote);

  parts.push('<h2>Correlations across models (Table 2)</h2>');
  const corrRows = TABLE2_PAIRS.map(([x, y]) => [`${x} vs ${y}`, ...settings.map((s) => {
    const c = correlate(summaries, x, y, s);
    return c.r === null ? `- (n=${c.n})` : `${c.r.toFixed(2)}${c.p! < 0.05 ? '*' : ''} (p=${c.p!.toPrecision(2)}, n=${c.n})`;
  })]);
  parts.push(`<div class="scroll">${htmlTable(['Comparison', ...settings], corrRows)}</div><p class="note">Pearson's R across the runs of each setting; * p &lt; 0.05; "-" where fewer than three runs have both metrics.</p>`);

  const headline = [...defs.values()].filter((d) => d.headline).map((d) => d.id);
  parts.push('<h2>Figures</h2><div class="charts">');
  parts.push(await figure(scatterFigure(summaries, defs, 'UR', 'NCR', 'fig7a', 'Figure 7(a): factuality on seen (NCR) vs unseen (UR) knowledge; dashed line y = x.')));
  parts.push(await figure(scatterFigure(summaries, defs, 'C_correct', 'C_wrong', 'fig7b', 'Figure 7(b): consistency on wrong vs correct responses; lower right is better.')));
  parts.push(await figure(scatterFigure(summaries, defs, 'IUR', 'NCCR', 'fig7c', 'Figure 7(c): reliability on seen (NCCR) vs unseen (IUR) knowledge; dashed line y = x.')));
  for (const id of ['NCCR', 'IUR']) if (defs.get(id)) parts.push(await figure(rankingFigure(summaries, defs.get(id)!)));
  parts.push(await figure(answerTypeFigure(summaries)));
  parts.push(await figure(subtypeFigure(summaries)));
  parts.push(await figure(consistencyFigure(summaries)));
  parts.push(await figure(correctWrongFigure(summaries)));
  for (const f of effectFigures(summaries, headline)) parts.push(await figure(f));
  parts.push('</div>');

  const fx = effects(summaries);
  if (fx.size.length + fx.fineTuning.length + fx.icl.length > 0) {
    parts.push('<h2>Size, fine-tuning and in-context learning (Figure 3, as numbers)</h2>');
    const metricCols = headline;
    if (fx.size.length) parts.push(`<h3>By model size</h3><div class="scroll">${htmlTable(['Setting / size', 'runs', ...metricCols], fx.size.map((r) => [`${r.setting} / ${r.sizeClass}`, String(r.runs), ...metricCols.map((k) => formatPercent(r.metrics[k] ?? null))]))}</div>`);
    if (fx.fineTuning.length) parts.push(`<h3>Base vs fine-tuned</h3><div class="scroll">${htmlTable(['Setting / type', 'runs', ...metricCols], fx.fineTuning.map((r) => [`${r.setting} / ${r.fineTuned ? 'fine-tuned' : 'base'}`, String(r.runs), ...metricCols.map((k) => formatPercent(r.metrics[k] ?? null))]))}</div>`);
    if (fx.icl.length) parts.push(`<h3>Change from zero-shot (mean over models)</h3><div class="scroll">${htmlTable(['Setting', 'models', ...metricCols], fx.icl.map((r) => [r.setting, String(r.models), ...metricCols.map((k) => formatPercent(r.meanChangeFromZeroShot[k] ?? null))]))}</div>`);
  }

  if (options.pairedTests && options.pairedTests.length > 0) {
    parts.push('<h2>Paired bootstrap tests</h2>');
    parts.push(`<div class="scroll">${htmlTable(['A vs B', 'metric', 'A - B', '95% CI', 'p', 'questions'], options.pairedTests.map((t) => [`${t.a} vs ${t.b}`, t.metric, `${formatPercent(t.difference)}${t.p !== null && t.p < 0.05 ? '*' : ''}`, t.interval ? `[${formatPercent(t.interval[0])}, ${formatPercent(t.interval[1])}]` : '-', t.p === null ? '-' : t.p.toPrecision(2), String(t.questions)]))}</div>`);
  }

  parts.push('<h2>Runs</h2>');
  for (const [index, s] of summaries.entries()) {
    const metricRows = [...defs.values()].map((d) => [d.label, formatPercent(s.metrics[d.id as never]), s.intervals[d.id as never] ? `[${formatPercent(s.intervals[d.id as never]![0])}, ${formatPercent(s.intervals[d.id as never]![1])}]` : '-']);
    const sourceRows = Object.entries(s.breakdowns.bySource).map(([source, g]) => [source, String(g.counts.seen + g.counts.unseen), formatPercent(g.metrics.CR), formatPercent(g.metrics.WR), formatPercent(g.metrics.UR), formatPercent(g.metrics.C_correct), formatPercent(source.startsWith('T') ? g.metrics.C_wrong_unseen : g.metrics.C_wrong_seen), formatPercent(g.metrics.NCCR), formatPercent(g.metrics.IUR)]);
    const c = s.counts;
    parts.push(`<details><summary><strong>${escapeHtml(s.model)}</strong> · ${escapeHtml(s.setting)} · N=${c.seen} (correct ${c.seenCorrect}, wrong ${c.seenWrong}, uninformative ${c.seenUninformative}) · L=${c.unseen} (wrong ${c.unseenWrong}, uninformative ${c.unseenUninformative})${s.approximate ? ' · approximate' : ''}</summary>
<div class="scroll">${htmlTable(['Metric', 'value', `${Math.round(100 * s.bootstrap.confidence)}% CI (${s.bootstrap.resamples} resamples)`], metricRows)}</div>
<div class="scroll">${htmlTable(['Source / template', 'n', 'CR', 'WR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'], sourceRows)}</div>
${examplesHtml(records[index])}
<p>Data: ${escapeHtml(Object.entries(s.datasetChecksums).map(([k, v]) => `${k} ${v.slice(0, 19)}…`).join('; ') || 'n/a')}${s.modelIdentity ? ` · model <code>${escapeHtml(s.modelIdentity)}</code>` : ''}</p>
${protocolTable(s, options.executions?.find((e) => e.runId === s.runId && e.setting === s.setting))}</details>`);
  }

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title><style>${CSS}</style></head>
<body>
${parts.join('\n')}
</body></html>
`;
}
