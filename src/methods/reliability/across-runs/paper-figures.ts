/**
 * The paper's Figures 3-12 as Vega-Lite specs over any set of runs, one figure per comparison
 * (prompt settings are a colour or a facet inside it, never a copy of the figure). A figure
 * whose data the runs do not carry (sizes, base/fine-tuned, more than one setting) is not drawn
 * empty: it says in one line what is missing and how to add it. Axes span each metric's own
 * range from its definition (UR 0..100, NCR -100..100), and no label is cut.
 */
import type { TopLevelSpec } from 'vega-lite';
import { pearson, settingsOf, sizeClass, uninformativeShares } from './compare-runs.js';
import type { MetricDef } from '../../method.js';
import type { RunSummary } from '../metrics/summarize-run.js';
import { placeLabels } from './scatter-labels.js';
import { FLAG, isFlagged } from '../../summary-warnings.js';
import { formatAnalyticP } from '../../significance-format.js';

export interface Figure {
  id: string;
  title: string;
  caption: string;
  spec?: TopLevelSpec;
  /** Why there is no chart, and what to add to get one. */
  note?: string;
}

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const pct = (v: number | null | undefined) => (v === null || v === undefined ? null : Math.round(v * 10000) / 100);
const SIZE_ORDER = ['small', 'medium', 'large'];
/** Font size of the model labels of a scatter plot (px). */
const LABEL_FONT = 8;
/** Colours of the paper's Figure 3 lines: NCR blue, UR orange, C_correct green, C_wrong red, NCCR purple, IUR brown. */
const METRIC_COLORS: Record<string, string> = {
  NCR: '#1f77b4',
  UR: '#ff7f0e',
  C_correct: '#2ca02c',
  C_wrong: '#d62728',
  NCCR: '#9467bd',
  IUR: '#8c564b',
  CR: '#2ca02c',
  WR: '#d62728',
};
const CONFIG = { axis: { labelLimit: 0, titleFontWeight: 'normal' }, legend: { labelLimit: 0 }, header: { labelLimit: 0 }, view: { stroke: '#ddd' } };

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

function spec(s: Record<string, unknown>): TopLevelSpec {
  return { $schema: SCHEMA, config: CONFIG, ...s } as unknown as TopLevelSpec;
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

interface EffectRow {
  metric: string;
  group: string;
  panel: string;
  row: string;
  value: number | null;
  runs: number;
}

function mean(values: number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

/** Mean metric values per (x group, panel, row) over the runs that carry the metadata. */
function effectRows(
  summaries: readonly RunSummary[],
  metrics: readonly string[],
  x: (s: RunSummary) => string | undefined,
  panel: (s: RunSummary) => string | undefined = () => 'all',
  row: (s: RunSummary) => string | undefined = () => 'all',
): EffectRow[] {
  const groups = new Map<string, RunSummary[]>();
  for (const s of summaries) {
    const g = x(s);
    const p = panel(s);
    const r = row(s);
    if (g === undefined || p === undefined || r === undefined) continue;
    const k = `${g}\u0000${p}\u0000${r}`;
    groups.set(k, [...(groups.get(k) ?? []), s]);
  }
  return [...groups.entries()].flatMap(([k, runs]) => {
    const [group, panelName, rowName] = k.split('\u0000') as [string, string, string];
    return metrics.map((metric) => ({
      metric,
      group,
      panel: panelName,
      row: rowName,
      runs: runs.length,
      value: pct(mean(runs.map((s) => s.metrics[metric as never] as number | null).filter((v): v is number => v !== null && v !== undefined))),
    }));
  });
}

/**
 * The rows of a figure of panels in rows and columns, with an empty row (no runs, value null)
 * for each (panel, row) cell that no run fills: Vega-Lite lays out the cells it has to add
 * itself without their place in the sort order, which puts runs in the wrong row or column.
 */
function withEveryCell(values: readonly EffectRow[]): EffectRow[] {
  const first = values[0];
  if (!first) return [];
  const panels = [...new Set(values.map((v) => v.panel))];
  const rows = [...new Set(values.map((v) => v.row))];
  const filled = new Set(values.map((v) => `${v.panel}\u0000${v.row}`));
  const empty = panels.flatMap((panel) =>
    rows.filter((row) => !filled.has(`${panel}\u0000${row}`)).map((row) => ({ metric: first.metric, group: first.group, panel, row, runs: 0, value: null })),
  );
  return [...values, ...empty];
}

function effectSpec(title: string, values: EffectRow[], xOrder: string[], xTitle: string, panels: boolean, rows: boolean): TopLevelSpec {
  const metrics = [...new Set(values.map((v) => v.metric))];
  const inner = {
    width: 170,
    height: 150,
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'group', type: 'ordinal', sort: xOrder, title: xTitle, axis: { labelAngle: 0 } },
      y: { field: 'value', type: 'quantitative', title: 'mean (x100)' },
      color: { field: 'metric', type: 'nominal', scale: { domain: metrics, range: metrics.map((m) => METRIC_COLORS[m] ?? '#888') }, title: null },
    },
  };
  if (!panels && !rows) return spec({ title, data: { values }, ...inner, width: 260, height: 200 });
  return spec({
    title,
    data: { values: rows ? withEveryCell(values) : values },
    facet: {
      ...(panels ? { column: { field: 'panel', type: 'ordinal', sort: [...SIZE_ORDER, 'base', 'fine-tuned'], title: null } } : {}),
      ...(rows ? { row: { field: 'row', type: 'ordinal', sort: ['base', 'fine-tuned'], title: null } } : {}),
    },
    spec: inner,
  });
}

const sizeOf = (s: RunSummary) => (s.meta?.paramsB === undefined ? undefined : sizeClass(s.meta.paramsB));
const typeOf = (s: RunSummary) => (s.meta?.fineTuned === undefined ? undefined : s.meta.fineTuned ? 'fine-tuned' : 'base');

/** Figures 3 and 8-10: the effect of size, fine-tuning and in-context learning, where the runs carry what is needed. */
export function effectFigures(summaries: readonly RunSummary[], metrics: readonly string[]): Figure[] {
  const settings = settingsOf(summaries);
  const sizes = new Set(summaries.map(sizeOf).filter(Boolean));
  const types = new Set(summaries.map(typeOf).filter(Boolean));
  const sized = summaries.filter((s) => sizeOf(s) !== undefined).length;
  const typed = summaries.filter((s) => typeOf(s) !== undefined).length;
  // Asks for --params / --fine-tuned only when some runs lack them; runs that all give one size or type have nothing to compare.
  const sizeNote =
    sizes.size >= 2
      ? undefined
      : `Needs runs of at least two size classes (small < 5B, medium 5-30B, large > 30B); ${sized} of ${summaries.length} runs give their size${sizes.size === 1 ? `, all ${[...sizes][0]}` : ''}.${sized < summaries.length ? ' Add --params to plot size (llmkb eval --params 8).' : ' Add runs of models of another size to plot size.'}`;
  const typeNote =
    types.size >= 2
      ? undefined
      : `Needs both base and fine-tuned runs; ${typed} of ${summaries.length} runs say which they are${types.size === 1 ? `, all ${[...types][0]}` : ''}.${typed < summaries.length ? ' Add --fine-tuned (and --base for base models with llmkb metrics) to plot fine-tuning.' : ` Add runs of ${[...types][0] === 'base' ? 'fine-tuned' : 'base'} models to plot fine-tuning.`}`;
  // ICL: the change from the first setting needs the same model in two settings.
  const models = new Set(summaries.map((s) => s.model));
  const multi = [...models].filter((m) => new Set(summaries.filter((s) => s.model === m).map((s) => s.setting)).size > 1);
  const iclNote =
    settings.length < 2 || multi.length === 0
      ? `Needs a model evaluated in more than one prompt setting; this report has ${settings.length === 1 ? `only ${settings[0]}` : 'no model in two settings'}. Run llmkb eval with --settings zero-shot,four-shot,four-shot-2.`
      : undefined;
  const inSetting = (setting: string) => summaries.filter((s) => s.setting === setting);
  const first = settings[0]!;
  const out: Figure[] = [];
  const fig = (id: string, title: string, caption: string, note: string | undefined, make: () => TopLevelSpec): Figure =>
    note ? { id, title, caption, note } : { id, title, caption, spec: make() };
  out.push(
    fig('fig3a', 'Figure 3(a): model size', `Mean of each metric over the runs of each size class (${first}).`, sizeNote, () =>
      effectSpec('Model size', effectRows(inSetting(first), metrics, sizeOf), SIZE_ORDER, 'size', false, false),
    ),
  );
  out.push(
    fig('fig3b', 'Figure 3(b): fine-tuning', `Mean of each metric over base and over fine-tuned runs (${first}).`, typeNote, () =>
      effectSpec('Fine-tuning', effectRows(inSetting(first), metrics, typeOf), ['base', 'fine-tuned'], null as never, false, false),
    ),
  );
  out.push(
    fig('fig3c', 'Figure 3(c): in-context learning', 'Mean of each metric per prompt setting over the models evaluated in all of them.', iclNote, () => {
      const complete = multi.filter((m) => settings.every((st) => summaries.some((s) => s.model === m && s.setting === st)));
      return effectSpec(
        'In-context learning',
        effectRows(
          summaries.filter((s) => (complete.length ? complete : multi).includes(s.model)),
          metrics,
          (s) => s.setting,
        ),
        settings,
        'setting',
        false,
        false,
      );
    }),
  );
  out.push(
    fig('fig8', 'Figure 8: model size, base and fine-tuned', `Size classes, base and fine-tuned runs apart (${first}).`, sizeNote ?? typeNote, () =>
      effectSpec('Model size by type', effectRows(inSetting(first), metrics, sizeOf, typeOf), SIZE_ORDER, 'size', true, false),
    ),
  );
  out.push(
    fig('fig9', 'Figure 9: fine-tuning by size', `Base vs fine-tuned within each size class (${first}).`, typeNote ?? sizeNote, () =>
      effectSpec('Fine-tuning by size', effectRows(inSetting(first), metrics, typeOf, sizeOf), ['base', 'fine-tuned'], 'type', true, false),
    ),
  );
  out.push(
    fig(
      'fig10',
      'Figure 10: in-context learning by size and type',
      'Each prompt setting, by size class (columns) and base/fine-tuned (rows).',
      iclNote ?? sizeNote ?? typeNote,
      () =>
        effectSpec(
          'In-context learning by size and type',
          effectRows(
            summaries.filter((s) => multi.includes(s.model)),
            metrics,
            (s) => s.setting,
            sizeOf,
            typeOf,
          ),
          settings,
          'setting',
          true,
          true,
        ),
    ),
  );
  return out;
}
