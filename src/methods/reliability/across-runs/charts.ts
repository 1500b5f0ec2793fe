/**
 * The paper's figures as charts (Vega-Lite specs; src/methods/render-svg.ts renders them to SVG).
 */
import type { TopLevelSpec } from 'vega-lite';
import { pearson, ranking, urByAnswerType } from './compare-runs.js';
import type { MetricKey } from '../metrics/reliability-metrics.js';
import type { RunSummary } from '../metrics/summarize-run.js';

const pct = (v: number | null) => (v === null ? null : Math.round(v * 10000) / 100);

/**
 * Figure 7-style scatter of two metrics across runs of one setting (values x100), with the
 * y = x line when both axes are on one scale, and Pearson's R (p) in the title.
 */
export function scatterSpec(summaries: readonly RunSummary[], x: MetricKey, y: MetricKey, setting: string, options: { diagonal?: boolean } = {}): TopLevelSpec {
  const points = summaries
    .filter((s) => s.setting === setting && s.metrics[x] !== null && s.metrics[y] !== null)
    .map((s) => ({ model: s.model, x: pct(s.metrics[x]), y: pct(s.metrics[y]) }));
  const { r, p } = pearson(
    points.map((d) => d.x!),
    points.map((d) => d.y!),
  );
  const title = `${y} vs ${x} (${setting})${r === null ? '' : `: R = ${r.toFixed(2)}, p = ${p!.toPrecision(2)}`}`;
  const values = points.flatMap((d) => [d.x!, d.y!]);
  const lo = Math.min(0, ...values);
  const hi = Math.max(100, ...values);
  const layer: Record<string, unknown>[] = [
    {
      data: { values: points },
      mark: { type: 'point', filled: true, size: 70 },
      encoding: {
        x: { field: 'x', type: 'quantitative', title: `${x} (x100)`, scale: { domain: [lo, hi] } },
        y: { field: 'y', type: 'quantitative', title: `${y} (x100)`, scale: { domain: [lo, hi] } },
        tooltip: [{ field: 'model' }, { field: 'x' }, { field: 'y' }],
      },
    },
    {
      data: { values: points },
      mark: { type: 'text', dx: 6, align: 'left', fontSize: 9 },
      encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' }, text: { field: 'model' } },
    },
  ];
  if (options.diagonal) {
    layer.unshift({
      data: {
        values: [
          { x: lo, y: lo },
          { x: hi, y: hi },
        ],
      },
      mark: { type: 'line', color: '#d62728', strokeDash: [4, 3] },
      encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } },
    });
  }
  return { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', title, width: 420, height: 320, layer } as unknown as TopLevelSpec;
}

/** Figure 6: models ranked by a metric (best at the top). */
export function rankingSpec(summaries: readonly RunSummary[], metric: MetricKey, setting: string): TopLevelSpec {
  const values = ranking(summaries, metric, setting).map((d, i) => ({ rank: i + 1, model: d.model, value: pct(d.value) }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Ranking by ${metric} (${setting})`,
    width: 360,
    height: { step: 16 },
    data: { values },
    mark: 'bar',
    encoding: {
      y: { field: 'model', type: 'nominal', sort: { field: 'rank' }, title: null },
      x: { field: 'value', type: 'quantitative', title: `${metric} (x100)` },
      tooltip: [{ field: 'model' }, { field: 'value' }, { field: 'rank' }],
    },
  } as unknown as TopLevelSpec;
}

/** Figure 4: UR by UnseenQA answer type, one row per model, darker = higher. */
export function answerTypeHeatmapSpec(summaries: readonly RunSummary[], setting: string): TopLevelSpec {
  const values = urByAnswerType(summaries, setting).map((d) => ({ ...d, UR: pct(d.UR) }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `UR by answer type (${setting})`,
    data: { values },
    width: { step: 70 },
    height: { step: 18 },
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
        mark: { type: 'text', fontSize: 9 },
        encoding: {
          x: { field: 'answerType', type: 'nominal' },
          y: { field: 'model', type: 'nominal' },
          text: { field: 'UR', type: 'quantitative', format: '.1f' },
          color: { condition: { test: 'datum.UR > 60', value: 'white' }, value: 'black' },
        },
      },
    ],
  } as unknown as TopLevelSpec;
}
