/** Summary files of the schema before v2, read as the v2 summary the same run writes now (imports nothing heavy: a method's definition uses it). */
import type { MetricDef } from './metric-def.js';
import { SUMMARY_SCHEMA } from './summary-schema.js';

/**
 * A v1 summary as the v2 summary the same run writes now: `method` after `schema`, `metricDefs`
 * before `metrics`, every other field as it was and where it was.
 */
export function migrateSummary(v1: Record<string, unknown>, method: { id: string; version: string }, metricDefs: readonly MetricDef[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(v1)) {
    if (key === 'schema') {
      out.schema = SUMMARY_SCHEMA;
      out.method = { id: method.id, version: method.version };
      continue;
    }
    if (key === 'metrics') out.metricDefs = metricDefs.map((d) => ({ ...d }));
    out[key] = value;
  }
  return out;
}
