/**
 * A metric as a summary carries it (`metricDefs`), so that `compare`, `report` and `view` show any
 * method's numbers without its code. A module of types only: the method seam and the summary
 * schema both use it.
 */

export interface MetricDef {
  /** Key in a summary's `metrics` (e.g. the reliability method's net consistently correct rate). */
  id: string;
  label: string;
  description: string;
  /** The values the metric can take. */
  range: [number, number];
  better: 'higher' | 'lower';
  /** `percent`: shown x100 with two decimals, as the papers' tables do. */
  format: 'percent' | 'number';
  /** Where the paper defines it, e.g. `Eq. 9`. */
  equation?: string;
  /** Shown in headline tables (the paper's own headline metrics). */
  headline?: boolean;
}
