/**
 * The reliability method's sections of the HTML report: the paper's Tables 9-11 (grouped
 * headers, 95% CIs, significance marks from a paired bootstrap when the runs' records are
 * given), Table 2's correlations, Figures 3-12 (one per comparison; the ones the runs lack
 * what for are left out and named in one line), and Figure 3's effects as numbers.
 */
import { escapeHtml, flagMark, htmlTable } from '../../html-parts.js';
import { anyWarnings, FLAG, isFlagged } from '../../summary-warnings.js';
import type { MethodReportContext, MetricDef } from '../../method.js';
import type { MethodSummary } from '../../method-summary.js';
import { formatPercent, type RunSummary, type ScoredRecord } from '../metrics/summarize-run.js';
import { correlate, effects, modelsOf, settingsOf, TABLE2_PAIRS, TABLE_TITLES } from './compare-runs.js';
import { answerTypeFigure, consistencyFigure, correctWrongFigure, rankingFigure, scatterFigure, subtypeFigure } from './paper-figures.js';
import { effectFigures } from './effect-figures.js';
import type { Figure } from './figure-spec.js';
import { isMetricKey, PairedResampler } from './significance.js';
import { ALPHA, formatAnalyticP, isSignificant, MIN_PAIRED_N } from '../../significance-format.js';
import { RELIABILITY_METRIC_DEFS } from '../metrics/metric-defs.js';

/** Vega's SVG, with anything that is not drawing removed (it contains none, but the page promises no script). */
function safeSvg(svg: string): string {
  return svg.replace(/<script[\s\S]*?<\/script>/gi, '').replace(/\son\w+="[^"]*"/gi, '');
}

/** A drawn figure (one the runs cannot draw is left out: `notDrawn` names it). */
async function figure(f: Figure & { spec: NonNullable<Figure['spec']> }): Promise<string> {
  const { renderSvg } = await import('../../render-svg.js');
  const caption = f.caption.startsWith('Figure') ? f.caption : `${f.title}. ${f.caption}`;
  return `<figure class="chart" id="${escapeHtml(f.id)}">${safeSvg(await renderSvg(f.spec))}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

/**
 * The figures these runs cannot draw, in one line: each reason once, naming the figures it
 * keeps out (a one-run report has nine, and nine empty boxes would bury the ones drawn).
 */
function notDrawn(figures: readonly Figure[]): string {
  const byNote = new Map<string, string[]>();
  for (const f of figures) if (!f.spec) byNote.set(f.note ?? '', [...(byNote.get(f.note ?? '') ?? []), f.title]);
  if (byNote.size === 0) return '';
  const reasons = [...byNote.entries()].map(([note, titles]) => `<strong>${escapeHtml(titles.join(', '))}</strong>${note ? `: ${escapeHtml(note)}` : ''}`);
  return `<p class="note" id="not-drawn">Not drawn (these runs lack what they need): ${reasons.join(' ')}</p>`;
}

/** A model's size as the paper's Params column prints it (8B, 260K), from the run's `params` metadata; '-' when unknown. */
export function formatParams(paramsB: number | undefined): string {
  if (paramsB === undefined) return '-';
  const [value, unit] = paramsB >= 1 ? [paramsB, 'B'] : paramsB >= 1e-3 ? [paramsB * 1e3, 'M'] : [paramsB * 1e6, 'K'];
  return `${Number(value.toPrecision(3))}${unit}`;
}

/** The paper's Tables 9-11: the metric ids of each, four per prompt setting. */
const PAPER_TABLES: Record<'9' | '10' | '11', string[]> = {
  '9': ['WR', 'CR', 'NCR', 'UR'],
  '10': ['C_wrong_seen', 'C_wrong_unseen', 'C_wrong', 'C_correct'],
  '11': ['CWR', 'CCR', 'NCCR', 'IUR'],
};

type Mark = 'best' | 'tie' | undefined;
const metricOf = (s: RunSummary, id: string): number | null | undefined => s.metrics[id as never] as number | null | undefined;

/**
 * Significance marks: in each setting and column, the best run is bold and the runs that the
 * paired bootstrap (1000 resamples over the questions both answered) cannot tell from it
 * (p >= 0.05) are underlined. Needs the runs' records; without them only the best is marked.
 */
function significanceMarks(
  summaries: readonly RunSummary[],
  records: ReadonlyArray<readonly ScoredRecord[] | undefined>,
  metrics: readonly string[],
  defs: ReadonlyMap<string, MetricDef>,
): Map<string, Mark> {
  const marks = new Map<string, Mark>();
  const resampler = new PairedResampler();
  for (const setting of settingsOf(summaries)) {
    const runs = summaries.map((s, i) => ({ s, i })).filter(({ s }) => s.setting === setting);
    if (runs.length < 2) continue;
    for (const metric of metrics) {
      const def = defs.get(metric);
      // A flagged value (a warning of its run concerns it) is neither the best nor tied with it.
      const valued = runs.filter(({ s }) => metricOf(s, metric) !== null && metricOf(s, metric) !== undefined && !isFlagged(s, metric));
      if (valued.length < 2 || !def) continue;
      const sign = def.better === 'higher' ? 1 : -1;
      const best = valued.reduce((a, b) => (sign * ((metricOf(b.s, metric) as number) - (metricOf(a.s, metric) as number)) > 0 ? b : a));
      marks.set(`${best.i}/${metric}`, 'best');
      const bestRecords = records[best.i];
      if (!bestRecords) continue;
      for (const { s, i } of valued) {
        if (i === best.i || !records[i]) continue;
        if (metricOf(s, metric) === metricOf(best.s, metric)) {
          marks.set(`${i}/${metric}`, 'best');
          continue;
        }
        const p = isMetricKey(metric) ? resampler.p(bestRecords, records[i]!, metric) : null;
        if (p !== null && !isSignificant(p, Math.min(bestRecords.length, records[i]!.length))) marks.set(`${i}/${metric}`, 'tie');
      }
    }
  }
  return marks;
}

/** A paper table: a row per model, a column group per prompt setting (grouped header), each value with its 95% CI. */
function paperTableHtml(
  summaries: readonly RunSummary[],
  table: '9' | '10' | '11',
  defs: ReadonlyMap<string, MetricDef>,
  marks: ReadonlyMap<string, Mark>,
): string {
  const settings = settingsOf(summaries);
  const ids = PAPER_TABLES[table];
  const label = (id: string) => `${defs.get(id)?.label ?? id} ${defs.get(id)?.better === 'lower' ? '↓' : '↑'}`;
  const head = `<thead><tr><th rowspan="2" scope="col">Model</th><th rowspan="2" scope="col" title="Parameters, from the run's params metadata (llmkb eval --params)">Params</th>${settings.map((s) => `<th class="group first" colspan="${ids.length}" scope="colgroup">${escapeHtml(s)}</th>`).join('')}</tr><tr>${settings.map(() => ids.map((id, k) => `<th scope="col"${k === 0 ? ' class="first"' : ''} title="${escapeHtml(defs.get(id)?.description ?? '')}">${escapeHtml(label(id))}</th>`).join('')).join('')}</tr></thead>`;
  const rows = modelsOf(summaries).map(
    (model) =>
      `<tr><th scope="row">${escapeHtml(model)}</th><td>${escapeHtml(formatParams(summaries.find((x) => x.model === model && x.meta?.paramsB !== undefined)?.meta?.paramsB))}</td>${settings
        .map((setting) => {
          const i = summaries.findIndex((x) => x.model === model && x.setting === setting);
          const s = summaries[i];
          return ids
            .map((id, k) => {
              const first = k === 0 ? 'first' : '';
              if (!s) return `<td class="${first}"></td>`;
              const v = metricOf(s, id) ?? null;
              const ci = s.intervals[id as never] as [number, number] | null | undefined;
              const mark = marks.get(`${i}/${id}`) ?? '';
              const flag = flagMark(s, id);
              return `<td class="${`${first} ${mark}${flag ? ' flagged' : ''}`.trim()}">${escapeHtml(formatPercent(v))}${flag}${ci ? `<span class="ci">[${escapeHtml(formatPercent(ci[0], 1))}, ${escapeHtml(formatPercent(ci[1], 1))}]</span>` : ''}</td>`;
            })
            .join('');
        })
        .join('')}</tr>`,
  );
  return `<div class="scroll"><table class="paper" id="table${table}">${head}<tbody>${rows.join('')}</tbody></table></div>`;
}

export async function reportSections(all: readonly MethodSummary[], context: MethodReportContext = {}): Promise<string[]> {
  const summaries = all as readonly RunSummary[];
  const settings = settingsOf(summaries);
  const defs = new Map<string, MetricDef>((summaries[0]?.metricDefs ?? RELIABILITY_METRIC_DEFS).map((d) => [d.id, d]));
  const records = (context.records ?? []) as ReadonlyArray<readonly ScoredRecord[] | undefined>;
  const hasRecords = summaries.some((_, i) => records[i]);
  const parts: string[] = [];

  const marks = significanceMarks(summaries, records, Object.values(PAPER_TABLES).flat(), defs);
  for (const t of ['9', '10', '11'] as const) parts.push(`<h2>${escapeHtml(TABLE_TITLES[t])}</h2>${paperTableHtml(summaries, t, defs, marks)}`);
  const comparable = settings.some((st) => summaries.filter((s) => s.setting === st).length >= 2);
  const flags = anyWarnings(summaries) ? ` ${FLAG}: a warning of the run concerns the value (Read with care, above); such values are not ranked.` : '';
  parts.push(
    `<p class="note">Values x100, 95% bootstrap CIs below each value.${flags}${
      !comparable
        ? ''
        : hasRecords
          ? ` Bold: the best run of the setting in that column; underlined: not significantly different from it (paired bootstrap over the shared questions, 1000 resamples: p ≥ ${ALPHA}, or fewer than ${MIN_PAIRED_N} questions, too few to call a difference).`
          : " Bold: the best run of the setting in that column. Significance marks need the runs' records (<code>.records.jsonl</code> beside each summary)."
    }</p>`,
  );

  parts.push('<h2>Correlations across models (Table 2)</h2>');
  const corrRows = TABLE2_PAIRS.map(([x, y]) => [
    `${x} vs ${y}`,
    ...settings.map((s) => {
      const c = correlate(summaries, x, y, s);
      return c.r === null ? `- (n=${c.n})` : `${c.r.toFixed(2)}${c.p! < 0.05 ? '*' : ''} (p=${formatAnalyticP(c.p!)}, n=${c.n})`;
    }),
  ]);
  parts.push(
    `<div class="scroll">${htmlTable(['Comparison', ...settings], corrRows)}</div><p class="note">Pearson's R across the runs of each setting; * p &lt; 0.05; "-" where fewer than three runs have both metrics.</p>`,
  );

  const headline = [...defs.values()].filter((d) => d.headline).map((d) => d.id);
  const figures: Figure[] = [
    scatterFigure(summaries, defs, 'UR', 'NCR', 'fig7a', 'Figure 7(a): factuality on seen (NCR) vs unseen (UR) knowledge; dashed line y = x.'),
    scatterFigure(summaries, defs, 'C_correct', 'C_wrong', 'fig7b', 'Figure 7(b): consistency on wrong vs correct responses; lower right is better.'),
    scatterFigure(summaries, defs, 'IUR', 'NCCR', 'fig7c', 'Figure 7(c): reliability on seen (NCCR) vs unseen (IUR) knowledge; dashed line y = x.'),
    ...['NCCR', 'IUR'].flatMap((id) => (defs.get(id) ? [rankingFigure(summaries, defs.get(id)!)] : [])),
    answerTypeFigure(summaries),
    subtypeFigure(summaries),
    consistencyFigure(summaries),
    correctWrongFigure(summaries),
    ...effectFigures(summaries, headline),
  ];
  parts.push('<h2>Figures</h2>');
  const missing = notDrawn(figures);
  if (missing) parts.push(missing);
  parts.push('<div class="charts">');
  for (const f of figures) if (f.spec) parts.push(await figure(f as Figure & { spec: NonNullable<Figure['spec']> }));
  parts.push('</div>');

  const fx = effects(summaries);
  if (fx.size.length + fx.fineTuning.length + fx.icl.length > 0) {
    parts.push('<h2>Size, fine-tuning and in-context learning (Figure 3, as numbers)</h2>');
    const metricCols = headline;
    if (fx.size.length)
      parts.push(
        `<h3>By model size</h3><div class="scroll">${htmlTable(
          ['Setting / size', 'runs', ...metricCols],
          fx.size.map((r) => [`${r.setting} / ${r.sizeClass}`, String(r.runs), ...metricCols.map((k) => formatPercent(r.metrics[k] ?? null))]),
        )}</div>`,
      );
    if (fx.fineTuning.length)
      parts.push(
        `<h3>Base vs fine-tuned</h3><div class="scroll">${htmlTable(
          ['Setting / type', 'runs', ...metricCols],
          fx.fineTuning.map((r) => [
            `${r.setting} / ${r.fineTuned ? 'fine-tuned' : 'base'}`,
            String(r.runs),
            ...metricCols.map((k) => formatPercent(r.metrics[k] ?? null)),
          ]),
        )}</div>`,
      );
    if (fx.icl.length)
      parts.push(
        `<h3>Change from zero-shot (mean over models)</h3><div class="scroll">${htmlTable(
          ['Setting', 'models', ...metricCols],
          fx.icl.map((r) => [r.setting, String(r.models), ...metricCols.map((k) => formatPercent(r.meanChangeFromZeroShot[k] ?? null))]),
        )}</div>`,
      );
  }
  return parts;
}
