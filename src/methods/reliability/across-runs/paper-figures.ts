/**
 * The paper's Figures 4-7, 11 and 12 as Vega-Lite specs over any set of runs, one figure per
 * comparison (prompt settings are a colour or a facet inside it, never a copy of the figure). A
 * figure whose data the runs do not carry is not drawn empty: it says in one line what is missing.
 * Axes span each metric's own range from its definition (UR 0..100, NCR -100..100), and no label
 * is cut. Figures 3 and 8-10 (effects of size, fine-tuning and prompt setting) are in
 * effect-figures.ts; what all figures share is in figure-spec.ts.
 */
import type { MetricDef } from '../../method.js';
import type { RunSummary } from '../metrics/summarize-run.js';
import { pearson, settingsOf, uninformativeShares } from './compare-runs.js';
import { type Figure, METRIC_COLORS, pct, spec } from './figure-spec.js';
import { placeLabels } from './scatter-labels.js';
import { FLAG, isFlagged } from '../../summary-warnings.js';
import { formatAnalyticP } from '../../significance-format.js';

/** Font size of the model labels of a scatter plot (px). */
const LABEL_FONT = 8;

/** A run's label in a figure of these metrics: with the dagger when a warning of the run concerns one of them. */
function marked(s: RunSummary, ...metrics: string[]): string {
  return metrics.some((m) => isFlagged(s, m)) ? `${s.model}${FLAG}` : s.model;
}

/** What the dagger means, when a figure's labels carry one. */
function flagNote(values: ReadonlyArray<{ model: string }>): string {
  return values.some((v) => v.model.endsWith(FLAG)) ? ` ${FLAG}: a warning of the run concerns its values here (Read with care, above).` : '';
}

function domainOf(def: MetricDef | undefined): [number, number] {
  return def ? [def.range[0] * 100, def.range[1] * 100] : [0, 100];
}

/** Widest a figure is drawn (px): the report's column at 1,400 px with room for a legend, so no figure scrolls sideways. */
const FIGURE_WIDTH = 1080;
/** Width of a character of an axis label (px; Vega's default 10 px sans-serif averages less). */
const LABEL_CHAR = 5.5;

/**
 * How many panels of a figure fit side by side in FIGURE_WIDTH: each is its plot, its y-axis
 * labels (the models, on every panel when `independentY`, else once per row) and the axis.
 */
function panelColumns(values: readonly object[], panel: Record<string, unknown>, panels: number, independentY: boolean): number {
  const yField = 'model';
  const labels = Math.max(0, ...values.map((v) => String((v as Record<string, unknown>)[yField] ?? '').length)) * LABEL_CHAR + 16;
  const width = panel.width as number | { step: number };
  const xField = ((panel.layer as Array<{ encoding: { x: { field: string } } }> | undefined)?.[0] ?? (panel as { encoding: { x: { field: string } } })).encoding
    .x.field;
  const plot = typeof width === 'number' ? width : width.step * new Set(values.map((v) => (v as Record<string, unknown>)[xField])).size;
  const fit = Math.floor((FIGURE_WIDTH - (independentY ? 0 : labels)) / (plot + 24 + (independentY ? labels : 0)));
  return Math.max(1, Math.min(panels, fit));
}

/**
 * A figure of panels, one per value of `column.field` (the prompt settings, or the metrics),
 * each drawn by `panel`, side by side as far as they fit in FIGURE_WIDTH and wrapped onto more
 * rows beyond; `independentY`: each panel orders its own rows (rankings).
 */
function panelFigure(
  head: { id: string; title: string; caption: string },
  values: readonly object[],
  column: { field: string; sort: readonly string[] },
  panel: Record<string, unknown>,
  independentY = false,
): Figure {
  const panels = new Set(values.map((v) => (v as Record<string, unknown>)[column.field])).size;
  return {
    ...head,
    spec: spec({
      title: head.title,
      data: { values },
      facet: { field: column.field, type: 'nominal', sort: column.sort, title: null },
      columns: panelColumns(values, panel, panels, independentY),
      ...(independentY ? { resolve: { scale: { y: 'independent' } } } : {}),
      spec: panel,
    }),
  };
}

/** Figure 7: two metrics across runs, one colour per prompt setting, y = x where both share a scale; R per setting in the caption. */
export function scatterFigure(
  summaries: readonly RunSummary[],
  defs: ReadonlyMap<string, MetricDef>,
  x: string,
  y: string,
  id: string,
  caption: string,
): Figure {
  const title = `${defs.get(y)?.label ?? y} vs ${defs.get(x)?.label ?? x}`;
  const points = summaries
    .filter((s) => s.metrics[x as never] !== null && s.metrics[y as never] !== null && s.metrics[x as never] !== undefined)
    .map((s) => ({ model: marked(s, x, y), setting: s.setting, x: pct(s.metrics[x as never]), y: pct(s.metrics[y as never]) }));
  if (points.length === 0)
    return {
      id,
      title,
      caption,
      note: `No run has both ${x} and ${y} defined (${y === 'C_wrong' || x === 'C_correct' ? 'consistency needs correct and wrong responses' : 'see the tables'}).`,
    };
  const settings = settingsOf(summaries);
  const rs = settings.map((setting) => {
    const p = points.filter((d) => d.setting === setting);
    const { r, p: pv } = pearson(
      p.map((d) => d.x!),
      p.map((d) => d.y!),
    );
    return r === null ? `${setting}: R undefined (n = ${p.length})` : `${setting}: R = ${r.toFixed(2)}, p = ${formatAnalyticP(pv!)} (n = ${p.length})`;
  });
  const xd = domainOf(defs.get(x));
  const yd = domainOf(defs.get(y));
  const layer: Record<string, unknown>[] = [];
  const size = { width: 380, height: 300 };
  const lo = Math.max(xd[0], yd[0]);
  const hi = Math.min(xd[1], yd[1]);
  if (lo < hi)
    layer.push({
      data: {
        values: [
          { x: lo, y: lo },
          { x: hi, y: hi },
        ],
      },
      mark: { type: 'line', color: '#999', strokeDash: [4, 3] },
      encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } },
    });
  layer.push({
    data: { values: points },
    mark: { type: 'point', filled: true, size: 60, opacity: 0.85 },
    encoding: {
      x: { field: 'x', type: 'quantitative', title: `${defs.get(x)?.label ?? x} (x100)`, scale: { domain: xd, nice: false } },
      y: { field: 'y', type: 'quantitative', title: `${defs.get(y)?.label ?? y} (x100)`, scale: { domain: yd, nice: false } },
      color: { field: 'setting', type: 'nominal', sort: settings, title: 'setting' },
      shape: { field: 'setting', type: 'nominal', sort: settings, title: 'setting' },
    },
  });
  // Labels where they fit beside their point (one per place, naming every run there), the others named in the caption.
  const { labels, unlabelled: missing } = placeLabels(
    points.map((p) => ({ x: p.x!, y: p.y!, text: p.model })),
    { x: xd, y: yd, ...size, fontSize: LABEL_FONT, pointRadius: 5 },
  );
  if (labels.length)
    layer.push({
      data: { values: labels },
      mark: { type: 'text', align: 'left', baseline: 'middle', fontSize: LABEL_FONT, color: '#555' },
      encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' }, text: { field: 'text' } },
    });
  const shown = 8;
  const unlabelled = [...new Set(missing)];
  const left =
    unlabelled.length === 0
      ? ''
      : ` Not labelled (no room beside the point): ${unlabelled.slice(0, shown).join('; ')}${unlabelled.length > shown ? ` and ${unlabelled.length - shown} more` : ''}.`;
  return { id, title, caption: `${caption} ${rs.join('; ')}.${left}${flagNote(points)}`, spec: spec({ title, ...size, layer }) };
}

/** Figure 6: runs ranked by a metric, best first, one panel per setting in one figure. */
export function rankingFigure(summaries: readonly RunSummary[], def: MetricDef): Figure {
  const title = `Ranking by ${def.label}`;
  const defined = summaries.filter((s) => s.metrics[def.id as never] !== null && s.metrics[def.id as never] !== undefined);
  // A flagged value (a warning of its run concerns it) is not ranked, as in every table: named in the caption instead.
  const values = defined.filter((s) => !isFlagged(s, def.id)).map((s) => ({ model: s.model, setting: s.setting, value: pct(s.metrics[def.id as never]) }));
  const flaggedRuns = defined.filter((s) => isFlagged(s, def.id)).map((s) => `${s.model}${FLAG} (${s.setting})`);
  const apart = flaggedRuns.length ? ` Not ranked (a warning of the run concerns its value, Read with care above): ${flaggedRuns.join(', ')}.` : '';
  const caption = `Figure 6: runs ranked by ${def.label} (${def.better} is better), one panel per prompt setting.${apart}`;
  if (values.length < 2)
    return {
      id: `rank-${def.id}`,
      title,
      caption,
      note: `A ranking needs two or more runs with the metric defined and not flagged; this report has ${values.length}.${apart}`,
    };
  return panelFigure(
    { id: `rank-${def.id}`, title, caption },
    values,
    { field: 'setting', sort: settingsOf(summaries) },
    {
      width: 200,
      height: { step: 13 },
      mark: { type: 'bar', color: METRIC_COLORS[def.id] ?? '#4c78a8' },
      encoding: {
        y: { field: 'model', type: 'nominal', sort: { field: 'value', order: def.better === 'higher' ? 'descending' : 'ascending' }, title: null },
        x: { field: 'value', type: 'quantitative', title: `${def.label} (x100)`, scale: { domain: domainOf(def) } },
      },
    },
    true,
  );
}

/** Figure 4: UR by UnseenQA answer type, a row per model and a panel per setting. */
export function answerTypeFigure(summaries: readonly RunSummary[]): Figure {
  const title = 'UR by answer type (UnseenQA)';
  const values = summaries.flatMap((s) =>
    Object.entries(s.breakdowns.byAnswerType.unseen)
      .filter(([t]) => t !== 'unknown')
      .map(([answerType, g]) => ({ model: s.model, setting: s.setting, answerType, UR: pct(g.metrics.UR) })),
  );
  const caption = 'Figure 4: UR on unseen questions grouped by answer type; darker = more often uninformative (better).';
  if (values.length === 0) return { id: 'fig4', title, caption, note: 'No unseen question carries an answer type, so UR cannot be grouped by it.' };
  return panelFigure(
    { id: 'fig4', title, caption },
    values,
    { field: 'setting', sort: settingsOf(summaries) },
    {
      width: { step: 52 },
      height: { step: 14 },
      layer: [
        {
          mark: 'rect',
          encoding: {
            x: { field: 'answerType', type: 'nominal', title: null },
            y: { field: 'model', type: 'nominal', title: null },
            color: { field: 'UR', type: 'quantitative', scale: { scheme: 'blues', domain: [0, 100] }, title: 'UR' },
          },
        },
        {
          mark: { type: 'text', fontSize: 8 },
          encoding: {
            x: { field: 'answerType', type: 'nominal' },
            y: { field: 'model', type: 'nominal' },
            text: { field: 'UR', type: 'quantitative', format: '.0f' },
            color: { condition: { test: 'datum.UR > 60', value: 'white' }, value: 'black' },
          },
        },
      ],
    },
  );
}

/** Figure 5: shares of the uninformative sub-types among uninformative unseen responses. */
export function subtypeFigure(summaries: readonly RunSummary[]): Figure {
  const title = 'Uninformative responses by sub-type (unseen questions)';
  const values = summaries.flatMap((s) =>
    Object.entries(uninformativeShares(s))
      .filter(([, v]) => v !== null)
      .map(([subtype, share]) => ({ model: s.model, setting: s.setting, subtype, share })),
  );
  const caption = 'Figure 5: among the uninformative responses to unseen questions, the share of each sub-type (none, unsure, repetition).';
  if (values.length === 0) return { id: 'fig5', title, caption, note: 'No run has an uninformative response to an unseen question.' };
  return panelFigure(
    { id: 'fig5', title, caption },
    values,
    { field: 'setting', sort: settingsOf(summaries) },
    {
      width: 180,
      height: { step: 13 },
      mark: 'bar',
      encoding: {
        y: { field: 'model', type: 'nominal', title: null },
        x: { field: 'share', type: 'quantitative', stack: 'normalize', title: 'share', axis: { format: '%' } },
        color: {
          field: 'subtype',
          type: 'nominal',
          scale: { domain: ['none', 'unsure', 'repetition'], range: ['#bab0ac', '#4c78a8', '#f58518'] },
          title: 'sub-type',
        },
      },
    },
  );
}

/** Figure 11: C_correct and C_wrong per model, models ranked by C_correct (one panel per setting). */
export function consistencyFigure(summaries: readonly RunSummary[]): Figure {
  const title = 'C_correct and C_wrong, models ranked by C_correct';
  const values = summaries.flatMap((s) =>
    (['C_correct', 'C_wrong'] as const)
      .filter((k) => s.metrics[k] !== null)
      .map((k) => ({
        model: marked(s, 'C_correct', 'C_wrong'),
        setting: s.setting,
        metric: k,
        value: pct(s.metrics[k]),
        rankBy: pct(s.metrics.C_correct) ?? -1,
      })),
  );
  const caption = `Figure 11: a model should keep its correct answers (high C_correct) and drop its wrong ones (low C_wrong).${flagNote(values)}`;
  if (values.length === 0) return { id: 'fig11', title, caption, note: 'No run has a consistency score (no correct or wrong responses re-asked as MCQs).' };
  return panelFigure(
    { id: 'fig11', title, caption },
    values,
    { field: 'setting', sort: settingsOf(summaries) },
    {
      width: 200,
      height: { step: 13 },
      mark: { type: 'point', filled: true, size: 45 },
      encoding: {
        y: { field: 'model', type: 'nominal', sort: { field: 'rankBy', order: 'descending' }, title: null },
        x: { field: 'value', type: 'quantitative', title: 'x100', scale: { domain: [0, 100] } },
        color: {
          field: 'metric',
          type: 'nominal',
          scale: { domain: ['C_correct', 'C_wrong'], range: [METRIC_COLORS.C_correct, METRIC_COLORS.C_wrong] },
          title: null,
        },
      },
    },
    true,
  );
}

/** Figure 12: CR and WR in each prompt setting, models ranked by zero-shot CR. */
export function correctWrongFigure(summaries: readonly RunSummary[]): Figure {
  const title = 'Correct and wrong rate by prompt setting';
  const settings = settingsOf(summaries);
  const zero = new Map(summaries.filter((s) => s.setting === settings[0]).map((s) => [s.model, s.metrics.CR ?? -1]));
  const values = summaries.flatMap((s) =>
    (['CR', 'WR'] as const)
      .filter((k) => s.metrics[k] !== null)
      .map((k) => ({ model: s.model, setting: s.setting, metric: k, value: pct(s.metrics[k]), rankBy: zero.get(s.model) ?? -1 })),
  );
  const caption = `Figure 12: CR and WR under each prompt setting, models ranked by CR under ${settings[0] ?? 'the first setting'}.`;
  if (values.length === 0) return { id: 'fig12', title, caption, note: 'No run has seen questions.' };
  return panelFigure(
    { id: 'fig12', title, caption },
    values,
    { field: 'metric', sort: ['CR', 'WR'] },
    {
      width: 230,
      height: { step: 13 },
      mark: { type: 'point', filled: true, size: 45 },
      encoding: {
        y: { field: 'model', type: 'nominal', sort: { field: 'rankBy', order: 'descending' }, title: null },
        x: { field: 'value', type: 'quantitative', title: 'x100', scale: { domain: [0, 100] } },
        color: { field: 'setting', type: 'nominal', sort: settings, title: 'setting' },
        shape: { field: 'setting', type: 'nominal', sort: settings, title: 'setting' },
      },
    },
  );
}
