/**
 * What the paper's figures share: the Figure type (a Vega-Lite spec, or a note saying why there
 * is none), the spec's schema and config (no label cut), values as percentages, and the colours
 * of the metrics (the paper's Figure 3 lines).
 */
import type { TopLevelSpec } from 'vega-lite';

export interface Figure {
  id: string;
  title: string;
  caption: string;
  spec?: TopLevelSpec;
  /** Why there is no chart, and what to add to get one. */
  note?: string;
}

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
/** A share as a percentage with two decimals (null stays null). */
export const pct = (v: number | null | undefined) => (v === null || v === undefined ? null : Math.round(v * 10000) / 100);
/** Colours of the paper's Figure 3 lines: NCR blue, UR orange, C_correct green, C_wrong red, NCCR purple, IUR brown. */
export const METRIC_COLORS: Record<string, string> = {
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

/** A Vega-Lite spec with the figures' schema and config. */
export function spec(s: Record<string, unknown>): TopLevelSpec {
  return { $schema: SCHEMA, config: CONFIG, ...s } as unknown as TopLevelSpec;
}
