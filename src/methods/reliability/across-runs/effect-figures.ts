/**
 * The paper's Figures 3 and 8-10 as Vega-Lite specs: the effect of model size, fine-tuning and
 * in-context learning, as mean metric values over the runs that carry what is needed (size,
 * base/fine-tuned, more than one prompt setting). A figure the runs cannot draw says in one line
 * what is missing and how to add it.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { RunSummary } from '../metrics/summarize-run.js';
import { settingsOf, sizeClass } from './compare-runs.js';
import { type Figure, METRIC_COLORS, pct, spec } from './figure-spec.js';

const SIZE_ORDER = ['small', 'medium', 'large'];

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
