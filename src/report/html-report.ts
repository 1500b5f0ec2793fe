/**
 * `llmkb report`: one self-contained HTML file (inline CSS and SVG charts; no script, no font,
 * no network) for any set of runs of any method. It knows a method only through its summaries
 * (metric definitions, values, intervals, protocol) and, for a registered method, the sections
 * the method adds (the reliability method: the paper's tables and figures). Per-item records are
 * aggregated, so the file stays small for 30 models x 3 settings. Every piece of model or user
 * text is escaped.
 */
import { choicesOf, departuresOf, differencesOf } from '../methods/protocol-differences.js';
import { settingsOf, type PairedTest } from '../methods/run-tables.js';
import type { EvaluationMethod } from '../methods/method.js';
import type { MethodPresentation } from '../methods/method-presentation.js';
import { formatMetric, type ExecutionRecord, type MethodSummary } from '../methods/method-summary.js';
import { findMethod } from '../methods/registry.js';
import { VERSION } from '../version.js';
import { docsUrl } from '../docs-url.js';
import { anyWarnings, FLAG, isFlagged } from '../methods/summary-warnings.js';
import { escapeHtml, flagMark, htmlTable, ISOLATE_CSS } from '../methods/html-parts.js';
import { resetChartIds } from '../methods/render-svg.js';
import { formatResampledP, pairedTestsNote, significanceStar } from '../methods/significance-format.js';

export { escapeHtml };

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1320px;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.6rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{margin-top:1.4rem}
.scroll{overflow-x:auto;max-width:100%;margin:.6rem 0}
table{border-collapse:collapse;font-size:12.5px}th,td{border:1px solid #e1e1e1;padding:3px 7px;text-align:right;vertical-align:top}table.paper{font-size:12px}table.paper td,table.paper th{padding:2px 5px}
thead th{background:#f5f5f7;text-align:center;white-space:nowrap}tbody th{text-align:left;font-weight:500;white-space:nowrap}
table.paper tbody th{position:sticky;left:0;background:#fff;white-space:normal;overflow-wrap:anywhere;min-width:7rem;max-width:14rem}table.paper thead tr+tr th{white-space:normal}table.paper td{white-space:nowrap;font-variant-numeric:tabular-nums}
table.paper thead tr:first-child th.group{border-bottom:2px solid #999}table.paper td.first,table.paper th.first{border-left:2px solid #999}
.ci{display:block;color:#777;font-size:10px}td.best{font-weight:700}td.tie{text-decoration:underline}
.warn{background:#fff4e5;border:1px solid #f0b35a;padding:.6rem .9rem;border-radius:6px;margin:.8rem 0}
.charts{display:flex;flex-wrap:wrap;gap:1.4rem}figure.chart{margin:0;max-width:100%;overflow-x:auto}figcaption{font-size:12px;color:#555;max-width:640px}
figure.empty{border:1px dashed #ccc;padding:.5rem .8rem;border-radius:6px;max-width:560px}
.sig{font-weight:700}sup.flag{color:#b45309;font-weight:700;cursor:help}td.flagged{background:#fff4e5}#warnings h2{margin-top:0;border:0;font-size:1.1rem}#warnings .runs{color:#666}#departures h2{margin-top:0;border:0;font-size:1.1rem}#departures .runs{color:#666}table.protocol td{text-align:left}code{background:#f5f5f7;padding:0 3px;border-radius:3px}details{margin:.4rem 0}
table.examples td{text-align:left;max-width:32rem;overflow-wrap:anywhere}p.note{color:#555;font-size:12px}
@media print{body{margin:0;max-width:none;font-size:10pt}h2{break-after:avoid}table,figure{break-inside:avoid}.scroll{overflow:visible}
  table.paper{font-size:7.5pt}table.paper tbody th{position:static}details::details-content{content-visibility:visible;display:contents}details>summary{list-style:none}a{color:inherit;text-decoration:none}}
@page{size:A4 landscape;margin:12mm}
`;

interface MethodGroup {
  id: string;
  method: EvaluationMethod | undefined;
  presentation: MethodPresentation | undefined;
  summaries: MethodSummary[];
}

/** The runs of each method, in the order the methods first appear, with the method's presentation. */
async function byMethod(summaries: readonly MethodSummary[]): Promise<MethodGroup[]> {
  const groups = new Map<string, MethodSummary[]>();
  for (const s of summaries) groups.set(s.method.id, [...(groups.get(s.method.id) ?? []), s]);
  return Promise.all(
    [...groups.entries()].map(async ([id, group]) => {
      const method = findMethod(id);
      return { id, method, presentation: method?.presentation ? await method.presentation() : undefined, summaries: group };
    }),
  );
}

const titlesOf = (s: MethodSummary): Readonly<Record<string, string>> => findMethod(s.method.id)?.protocolChoices ?? {};

/**
 * "Departures from the paper's protocol": one line per choice that some run made differently
 * from the paper, naming the runs; and what differs between the runs shown side by side.
 */
function protocolBox(summaries: readonly MethodSummary[], groups: readonly MethodGroup[]): string {
  const byChoice = new Map<string, string[]>();
  for (const s of summaries) {
    if (!s.protocol) continue;
    const titles = titlesOf(s);
    for (const { choice, entry } of departuresOf(s.protocol, titles)) {
      const line = `${titles[choice] ?? choice}: ${entry.choice}${entry.status === 'nondeterministic' ? ' (nondeterministic)' : ''}${entry.note ? ` — ${entry.note}` : ''}`;
      byChoice.set(line, [...(byChoice.get(line) ?? []), `${s.model} (${s.setting})`]);
    }
  }
  // Compared within each of a method's tables (`tableOf`): runs of other tables read other data by design.
  const differences = groups.flatMap((g) => {
    const tables = new Map<string, MethodSummary[]>();
    for (const s of g.summaries) {
      const table = g.method?.tableOf?.(s) ?? '';
      tables.set(table, [...(tables.get(table) ?? []), s]);
    }
    return [...tables.values()].flatMap((runs) =>
      differencesOf(
        runs.map((s) => ({ name: `${s.model} (${s.setting})`, protocol: s.protocol })),
        g.method?.protocolChoices ?? {},
        g.method?.protocolPerSetting ?? [],
      ),
    );
  });
  if (byChoice.size === 0 && differences.length === 0) return '';
  const all = summaries.length;
  const items = [...byChoice.entries()].map(
    ([line, runs]) => `<li>${escapeHtml(line)} <span class="runs">[${runs.length === all ? 'all runs' : escapeHtml(runs.join(', '))}]</span></li>`,
  );
  const diff = differences.length
    ? `<p><strong>The runs shown together differ in protocol:</strong></p><ul>${differences.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>`
    : '';
  const pages = [...new Set(groups.map((g) => g.method?.protocolDocs).filter((p): p is string => p !== undefined))];
  const links = pages.length ? pages.map((p) => `<a href="${escapeHtml(docsUrl(p))}">${escapeHtml(docsUrl(p))}</a>`).join(', ') : "the method's documentation";
  return `<section class="warn" id="departures"><h2>Departures from the paper's protocol</h2>${items.length ? `<ul>${items.join('')}</ul>` : ''}${diff}<p>Each choice, its default and what it changes: "How close to the paper is a run?", ${links}.</p></section>`;
}

/** The runs a line applies to, one entry per model with its settings ("tiny (zero-shot, four-shot)"), or "all runs". */
function runsNamed(runs: readonly MethodSummary[], all: number): string {
  if (runs.length === all) return 'all runs';
  const byModel = new Map<string, string[]>();
  for (const s of runs) byModel.set(s.model, [...(byModel.get(s.model) ?? []), s.setting]);
  return [...byModel.entries()].map(([model, settings]) => `${model} (${settings.join(', ')})`).join('; ');
}

/**
 * "Read with care": every warning of every run (what a reader must know before reading its
 * numbers), and what the dagger on a value means.
 */
function warningsBox(summaries: readonly MethodSummary[]): string {
  if (!anyWarnings(summaries)) return '';
  // One line per distinct warning (its message and the metrics it flags), naming every run it applies to.
  const lines = new Map<string, { message: string; flags: string; runs: MethodSummary[] }>();
  for (const s of summaries) {
    for (const w of s.warnings ?? []) {
      const flags = w.metrics?.length ? `flags ${w.metrics.join(', ')}` : 'flags every metric of the run';
      const key = `${w.message}\u0000${flags}`;
      const line = lines.get(key) ?? { message: w.message, flags, runs: [] };
      line.runs.push(s);
      lines.set(key, line);
    }
  }
  const items = [...lines.values()].map(
    (l) =>
      `<li><strong>${escapeHtml(runsNamed(l.runs, summaries.length))}</strong>: ${escapeHtml(l.message)} <span class="runs">[${escapeHtml(l.flags)}]</span></li>`,
  );
  return `<section class="warn" id="warnings"><h2>Read with care</h2><ul>${items.join('')}</ul><p>${FLAG} marks each value a warning concerns, in every table below.</p></section>`;
}

function protocolTable(s: MethodSummary, execution: ExecutionRecord | undefined): string {
  const rows: string[][] = [];
  if (s.protocol) {
    const titles = titlesOf(s);
    for (const c of choicesOf(s.protocol, titles)) {
      const e = s.protocol.entries[c];
      if (e) rows.push([titles[c] ?? c, e.choice, e.status, e.note ?? '']);
    }
    rows.push(['seed', String(s.protocol.seed), '', '']);
    rows.push(['compute backend', s.protocol.computeBackend, '', '']);
    for (const [file, hash] of Object.entries(s.protocol.datasets)) rows.push([`data: ${file}`, hash.slice(0, 16), '', 'sha256 (first 16 hex digits)']);
  }
  if (execution) {
    if (execution.command) rows.push(['command', execution.command, '', '']);
    rows.push(['ran', `${execution.startedAt} → ${execution.finishedAt}`, '', `llmkb ${execution.llmkbVersion}, Node ${execution.node}`]);
    for (const [role, a] of Object.entries(execution.calls))
      rows.push([
        `calls: ${role}`,
        `${a.calls} (${a.cacheHits} cached, ${a.requests} requests)`,
        '',
        `tokens ${a.promptTokens} in + ${a.completionTokens} out`,
      ]);
    for (const [role, replicas] of Object.entries(execution.replicas ?? {}))
      rows.push([
        `replicas: ${role}`,
        replicas.map((r) => `${r.url}: ${r.served}`).join(', '),
        '',
        `calls answered per replica; failed ${replicas.map((r) => r.failed).join('/')}, taken out ${replicas.map((r) => r.trips).join('/')} times`,
      ]);
  }
  return rows.length ? `<h4>Protocol</h4>${htmlTable(['Choice', 'this run', 'status', 'note'], rows, 'protocol')}` : '';
}

function runSection(
  s: MethodSummary,
  presentation: MethodPresentation | undefined,
  execution: ExecutionRecord | undefined,
  records: readonly object[] | undefined,
): string {
  const headline =
    presentation?.runHeadline?.(s) ??
    `<strong>${escapeHtml(s.model)}</strong> · ${escapeHtml(s.setting)} · ${escapeHtml(
      Object.entries(s.counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    )}${s.approximate ? ' · approximate' : ''}`;
  const ciHeader = s.bootstrap ? `${Math.round(100 * s.bootstrap.confidence)}% CI (${s.bootstrap.resamples} resamples)` : 'CI';
  const metricRows = s.metricDefs.map((d) => {
    const ci = s.intervals[d.id];
    const mark = flagMark(s, d.id);
    return `<tr><th scope="row">${escapeHtml(d.id)}</th><td${mark ? ' class="flagged"' : ''}>${escapeHtml(formatMetric(d, s.metrics[d.id]))}${mark}</td><td>${escapeHtml(ci ? `[${formatMetric(d, ci[0])}, ${formatMetric(d, ci[1])}]` : '-')}</td></tr>`;
  });
  const details = presentation?.runDetails?.(s, records);
  const warned = (s.warnings ?? []).map((w) => `<p class="warn">${escapeHtml(w.message)}</p>`).join('');
  return `<details><summary>${headline}${s.warnings?.length ? ` <sup class="flag">${FLAG}</sup>` : ''}</summary>
${warned}<div class="scroll"><table><thead><tr><th>Metric</th><th>value</th><th>${escapeHtml(ciHeader)}</th></tr></thead><tbody>${metricRows.join('')}</tbody></table></div>
${details === undefined ? '' : `${details}\n`}<p>Data: ${escapeHtml(
    Object.entries(s.datasetChecksums)
      .map(([k, v]) => `${k} ${v.slice(0, 19)}…`)
      .join('; ') || 'n/a',
  )}${s.modelIdentity ? ` · model <code>${escapeHtml(s.modelIdentity)}</code>` : ''}</p>
${protocolTable(s, execution)}</details>`;
}

/**
 * Any method's headline metrics from its metricDefs alone: a row per model, a column group per
 * setting, each value with its bootstrap CI below it; the best run of a setting in a column (by
 * the metric's `better`) is bold.
 */
function headlineHtml(summaries: readonly MethodSummary[], order: readonly string[]): string {
  const defs = (summaries[0]?.metricDefs ?? []).filter((d) => d.headline);
  const shown = defs.length ? defs : (summaries[0]?.metricDefs ?? []);
  const settings = settingsOf(summaries, order);
  const models = [...new Set(summaries.map((s) => s.model))];
  const best = new Map<string, number>();
  for (const setting of settings) {
    for (const d of shown) {
      // A flagged value (a warning of its run concerns it) is not ranked.
      const values = summaries
        .filter((s) => s.setting === setting && !isFlagged(s, d.id))
        .map((s) => s.metrics[d.id])
        .filter((v): v is number => typeof v === 'number');
      if (values.length >= 2) best.set(`${setting}/${d.id}`, d.better === 'lower' ? Math.min(...values) : Math.max(...values));
    }
  }
  const head = `<thead><tr><th rowspan="2" scope="col">Model</th>${settings.map((st) => `<th class="group first" colspan="${shown.length}" scope="colgroup">${escapeHtml(st)}</th>`).join('')}</tr><tr>${settings.map(() => shown.map((d, k) => `<th scope="col"${k === 0 ? ' class="first"' : ''} title="${escapeHtml(d.description)}">${escapeHtml(`${d.label} ${d.better === 'lower' ? '↓' : '↑'}`)}</th>`).join('')).join('')}</tr></thead>`;
  const rows = models.map(
    (model) =>
      `<tr><th scope="row">${escapeHtml(model)}</th>${settings
        .map((setting) => {
          const s = summaries.find((x) => x.model === model && x.setting === setting);
          return shown
            .map((d, k) => {
              const first = k === 0 ? 'first' : '';
              if (!s) return `<td class="${first}"></td>`;
              const v = s.metrics[d.id];
              const ci = s.intervals[d.id];
              const flag = flagMark(s, d.id);
              const mark = typeof v === 'number' && !flag && best.get(`${setting}/${d.id}`) === v ? 'best' : '';
              return `<td class="${`${first} ${mark}${flag ? ' flagged' : ''}`.trim()}">${escapeHtml(formatMetric(d, v))}${flag}${ci ? `<span class="ci">[${escapeHtml(formatMetric(d, ci[0], 1))}, ${escapeHtml(formatMetric(d, ci[1], 1))}]</span>` : ''}</td>`;
            })
            .join('');
        })
        .join('')}</tr>`,
  );
  const anyCi = summaries.some((s) => Object.values(s.intervals).some(Boolean));
  return `<div class="scroll"><table class="paper">${head}<tbody>${rows.join('')}</tbody></table></div><p class="note">${anyCi ? `${ciLevel(summaries)} bootstrap CIs below each value. ` : ''}Bold: the best run of the setting in that column.${anyWarnings(summaries) ? ` ${FLAG}: a warning of the run concerns the value (Read with care, above); such values are not ranked.` : ''}</p>`;
}

const ciLevel = (summaries: readonly MethodSummary[]): string => {
  const b = summaries.find((s) => s.bootstrap)?.bootstrap;
  return b ? `${Math.round(100 * b.confidence)}%` : 'The';
};

export interface ReportOptions {
  title?: string;
  pairedTests?: readonly PairedTest[];
  /** Resamples of the paired tests (default 1000): the floor of their p-values. */
  pairedResamples?: number;
  executions?: readonly ExecutionRecord[];
  /** Each run's per-item records (same order as the summaries), for the method's sections (significance marks) and run details (examples). */
  records?: ReadonlyArray<readonly object[] | undefined>;
}

/** How values are shown: rates x100 (as the papers print them), scores as they are. */
function scaleNote(summaries: readonly MethodSummary[]): string {
  const formats = new Set(summaries.flatMap((s) => s.metricDefs.map((d) => d.format)));
  if (!formats.has('percent')) return '';
  return formats.has('number') ? ' (rates x100, scores as they are)' : ' (values x100)';
}

export async function renderReport(summaries: readonly MethodSummary[], options: ReportOptions = {}): Promise<string> {
  const groups = await byMethod(summaries);
  const only = groups.length === 1 ? groups[0]! : undefined;
  const title = options.title ?? only?.presentation?.reportTitle ?? 'llmkb report';
  const settings = settingsOf(summaries, only?.method?.settings ?? []);
  resetChartIds();
  const parts: string[] = [];
  parts.push(`<h1>${escapeHtml(title)}</h1>`);
  const definedBy = groups.map((g) => g.method?.citation ?? g.method?.title ?? `method ${g.id}`).join('; ');
  parts.push(
    `<p>${summaries.length} run(s), ${new Set(summaries.map((s) => s.model)).size} model(s), settings: ${escapeHtml(settings.join(', '))}. Metrics as defined by ${escapeHtml(definedBy)}${scaleNote(summaries)}; made by llmkb ${escapeHtml(VERSION)}.</p>`,
  );
  parts.push(protocolBox(summaries, groups));
  parts.push(warningsBox(summaries));
  const approximate = summaries.filter((s) => s.approximate);
  if (approximate.length > 0) {
    const notes = new Set(approximate.map((s) => groups.find((g) => g.id === s.method.id)?.presentation?.approximateNote ?? 'used an approximation'));
    parts.push(
      `<p class="warn">Approximate: ${approximate.length} run(s) ${escapeHtml(notes.size === 1 ? [...notes][0]! : 'used an approximation')}: ${escapeHtml(approximate.map((s) => `${s.model} (${s.setting})`).join(', '))}.</p>`,
    );
  }

  for (const g of groups) {
    if (g.presentation?.reportSections) {
      const records = options.records;
      parts.push(...(await g.presentation.reportSections(g.summaries, records ? { records: g.summaries.map((x) => records[summaries.indexOf(x)]) } : {})));
      continue;
    }
    // Any method: its headline metrics per model and setting, from the summaries' metricDefs alone.
    parts.push(`<h2>${escapeHtml(g.method?.title ?? `method ${g.id}`)}: headline metrics</h2>${headlineHtml(g.summaries, g.method?.settings ?? [])}`);
  }

  if (options.pairedTests && options.pairedTests.length > 0) {
    parts.push('<h2>Paired bootstrap tests</h2>');
    const pct = { format: 'percent' as const };
    const resamples = options.pairedResamples ?? 1000;
    parts.push(
      htmlTable(
        ['A vs B', 'setting', 'metric', 'A - B', '95% CI', 'p', 'n (questions)'],
        options.pairedTests.map((t) => [
          `${t.a} vs ${t.b}`,
          t.setting ?? '',
          t.metric,
          `${formatMetric(pct, t.difference)}${t.difference === null ? '' : significanceStar(t.p, t.questions)}`,
          t.interval ? `[${formatMetric(pct, t.interval[0])}, ${formatMetric(pct, t.interval[1])}]` : '-',
          formatResampledP(t.p, resamples),
          String(t.questions),
        ]),
      ),
    );
    parts.push(`<p class="note">${escapeHtml(pairedTestsNote({ resamples }))}</p>`);
  }

  parts.push('<h2>Runs</h2>');
  for (const [i, s] of summaries.entries())
    parts.push(
      runSection(
        s,
        groups.find((g) => g.id === s.method.id)?.presentation,
        options.executions?.find((e) => e.runId === s.runId && e.setting === s.setting),
        options.records?.[i],
      ),
    );

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title><style>${CSS}${ISOLATE_CSS}</style></head>
<body>
${parts.join('\n')}
</body></html>
`;
}
