/**
 * `llmkb report`: one self-contained HTML file (inline CSS and SVG charts; no script, no font,
 * no network) with the paper's tables and figures for any set of runs, and each run's
 * breakdowns. Per-item records are aggregated, so the file stays small for 30 models x 3
 * settings. Every piece of model or user text is escaped.
 */
import { correlate, effects, paperTable, settingsOf, TABLE2_PAIRS, TABLE_TITLES, uninformativeShares, type PairedTest } from '../analysis/compare-runs.js';
import { METRIC_KEYS } from '../methods/reliability/metrics/reliability-metrics.js';
import { formatPercent, type RunSummary } from '../methods/reliability/metrics/summarize-run.js';
import type { ExecutionRecord } from '../methods/reliability/evaluate-model.js';
import { departures, PROTOCOL_CHOICES, PROTOCOL_TITLES, protocolDifferences } from '../methods/reliability/protocol.js';
import { VERSION } from '../version.js';
import { answerTypeHeatmapSpec, rankingSpec, renderSvg, resetChartIds, scatterSpec } from './charts.js';

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function htmlTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, className = ''): string {
  return `<table class="${className}"><thead><tr>${header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c, i) => (i === 0 ? `<th scope="row">${escapeHtml(c)}</th>` : `<td>${escapeHtml(c)}</td>`)).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

/** Vega's SVG, with anything that is not drawing removed (it contains none, but the page promises no script). */
function safeSvg(svg: string): string {
  return svg.replace(/<script[\s\S]*?<\/script>/gi, '').replace(/\son\w+="[^"]*"/gi, '');
}

async function figure(spec: Parameters<typeof renderSvg>[0], caption: string): Promise<string> {
  return `<figure class="chart">${safeSvg(await renderSvg(spec))}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.6rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{margin-top:1.4rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:12.5px}th,td{border:1px solid #e1e1e1;padding:3px 7px;text-align:right}
thead th{background:#f5f5f7;position:sticky;top:0}tbody th{text-align:left;font-weight:500}
.warn{background:#fff4e5;border:1px solid #f0b35a;padding:.6rem .9rem;border-radius:6px}
.charts{display:flex;flex-wrap:wrap;gap:1.2rem}figure.chart{margin:0}figcaption{font-size:12px;color:#555;max-width:560px}
.sig{font-weight:700}#departures h2{margin-top:0;border:0;font-size:1.1rem}#departures .runs{color:#666}table.protocol td{text-align:left}code{background:#f5f5f7;padding:0 3px;border-radius:3px}details{margin:.4rem 0}
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
    for (const [role, replicas] of Object.entries(execution.replicas ?? {})) rows.push([`replicas: ${role}`, replicas.map((r) => `${r.url}: ${r.served}`).join(', '), '', `calls answered per replica; failed ${replicas.map((r) => r.failed).join('/')}, taken out ${replicas.map((r) => r.trips).join('/')} times`]);
  }
  return rows.length ? `<h4>Protocol</h4>${htmlTable(['Choice', 'this run', 'status', 'note'], rows, 'protocol')}` : '';
}

export async function renderReport(summaries: readonly RunSummary[], options: { title?: string; pairedTests?: readonly PairedTest[]; executions?: readonly ExecutionRecord[] } = {}): Promise<string> {
  const title = options.title ?? 'llmkb report: reliability of LLMs as knowledge bases';
  resetChartIds();
  const settings = settingsOf(summaries);
  const parts: string[] = [];
  parts.push(`<h1>${escapeHtml(title)}</h1>`);
  parts.push(`<p>${summaries.length} run(s), ${new Set(summaries.map((s) => s.model)).size} model(s), settings: ${escapeHtml(settings.join(', '))}. Metrics as defined by Zheng, Lapata &amp; Pan (values x100); made by llmkb ${escapeHtml(VERSION)}.</p>`);
  parts.push(protocolBox(summaries));
  const approximate = summaries.filter((s) => s.approximate);
  if (approximate.length > 0) {
    parts.push(`<p class="warn">Approximate: ${approximate.length} run(s) were judged without a judge LLM (lexical rule): ${escapeHtml(approximate.map((s) => `${s.model} (${s.setting})`).join(', '))}.</p>`);
  }

  for (const t of ['9', '10', '11'] as const) {
    const table = paperTable(summaries, t);
    parts.push(`<h2>${escapeHtml(TABLE_TITLES[t])}</h2>${htmlTable(table.header, table.rows)}`);
  }

  parts.push('<h2>Correlations across models (Table 2)</h2>');
  const corrRows = TABLE2_PAIRS.map(([x, y]) => [`${x} vs ${y}`, ...settings.map((s) => {
    const c = correlate(summaries, x, y, s);
    return c.r === null ? '-' : `${c.r.toFixed(2)} (p=${c.p!.toPrecision(2)}, n=${c.n})`;
  })]);
  parts.push(htmlTable(['Comparison', ...settings], corrRows));

  for (const setting of settings) {
    const inSetting = summaries.filter((s) => s.setting === setting);
    parts.push(`<h2>Figures: ${escapeHtml(setting)}</h2><div class="charts">`);
    parts.push(await figure(scatterSpec(inSetting, 'UR', 'NCR', setting, { diagonal: true }), 'Factuality on seen (NCR) vs unseen (UR) knowledge; red line y = x (Figure 7a).'));
    parts.push(await figure(scatterSpec(inSetting, 'C_correct', 'C_wrong', setting), 'Consistency on wrong vs correct responses (Figure 7b): lower right is better.'));
    parts.push(await figure(scatterSpec(inSetting, 'IUR', 'NCCR', setting, { diagonal: true }), 'Reliability on seen (NCCR) vs unseen (IUR) knowledge; red line y = x (Figure 7c).'));
    parts.push(await figure(rankingSpec(inSetting, 'NCCR', setting), 'Models ranked by NCCR (Figure 6).'));
    parts.push(await figure(rankingSpec(inSetting, 'IUR', setting), 'Models ranked by IUR (Figure 6).'));
    parts.push(await figure(answerTypeHeatmapSpec(inSetting, setting), 'UR by UnseenQA answer type (Figure 4): darker = more often uninformative.'));
    parts.push('</div>');
    const shares = inSetting.map((s) => {
      const sh = uninformativeShares(s);
      return [s.model, formatPercent(sh.none ?? null, 1), formatPercent(sh.unsure ?? null, 1), formatPercent(sh.repetition ?? null, 1)];
    });
    parts.push(`<h3>Uninformative responses to unseen questions by sub-type (Figure 5)</h3>${htmlTable(['Model', 'none %', 'unsure %', 'repetition %'], shares)}`);
  }

  const fx = effects(summaries);
  if (fx.size.length + fx.fineTuning.length + fx.icl.length > 0) {
    parts.push('<h2>Size, fine-tuning and in-context learning (Figure 3)</h2>');
    const metricCols = ['NCR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'];
    if (fx.size.length) parts.push(`<h3>By model size</h3>${htmlTable(['Setting / size', 'runs', ...metricCols], fx.size.map((r) => [`${r.setting} / ${r.sizeClass}`, String(r.runs), ...metricCols.map((k) => formatPercent(r.metrics[k] ?? null))]))}`);
    if (fx.fineTuning.length) parts.push(`<h3>Base vs fine-tuned</h3>${htmlTable(['Setting / type', 'runs', ...metricCols], fx.fineTuning.map((r) => [`${r.setting} / ${r.fineTuned ? 'fine-tuned' : 'base'}`, String(r.runs), ...metricCols.map((k) => formatPercent(r.metrics[k] ?? null))]))}`);
    if (fx.icl.length) parts.push(`<h3>Change from zero-shot (mean over models)</h3>${htmlTable(['Setting', 'models', ...metricCols], fx.icl.map((r) => [r.setting, String(r.models), ...metricCols.map((k) => formatPercent(r.meanChangeFromZeroShot[k] ?? null))]))}`);
  }

  if (options.pairedTests && options.pairedTests.length > 0) {
    parts.push('<h2>Paired bootstrap tests</h2>');
    parts.push(htmlTable(['A vs B', 'metric', 'A - B', '95% CI', 'p', 'questions'], options.pairedTests.map((t) => [`${t.a} vs ${t.b}`, t.metric, formatPercent(t.difference), t.interval ? `[${formatPercent(t.interval[0])}, ${formatPercent(t.interval[1])}]` : '-', t.p === null ? '-' : t.p.toPrecision(2), String(t.questions)])));
  }

  parts.push('<h2>Runs</h2>');
  for (const s of summaries) {
    const metricRows = METRIC_KEYS.map((k) => [k, formatPercent(s.metrics[k]), s.intervals[k] ? `[${formatPercent(s.intervals[k]![0])}, ${formatPercent(s.intervals[k]![1])}]` : '-']);
    const sourceRows = Object.entries(s.breakdowns.bySource).map(([source, g]) => [source, String(g.counts.seen + g.counts.unseen), formatPercent(g.metrics.CR), formatPercent(g.metrics.WR), formatPercent(g.metrics.UR), formatPercent(g.metrics.C_correct), formatPercent(source.startsWith('T') ? g.metrics.C_wrong_unseen : g.metrics.C_wrong_seen), formatPercent(g.metrics.NCCR), formatPercent(g.metrics.IUR)]);
    const c = s.counts;
    parts.push(`<details><summary><strong>${escapeHtml(s.model)}</strong> · ${escapeHtml(s.setting)} · N=${c.seen} (correct ${c.seenCorrect}, wrong ${c.seenWrong}, uninformative ${c.seenUninformative}) · L=${c.unseen} (wrong ${c.unseenWrong}, uninformative ${c.unseenUninformative})${s.approximate ? ' · approximate' : ''}</summary>
${htmlTable(['Metric', 'value', `${Math.round(100 * s.bootstrap.confidence)}% CI (${s.bootstrap.resamples} resamples)`], metricRows)}
${htmlTable(['Source / template', 'n', 'CR', 'WR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'], sourceRows)}
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
