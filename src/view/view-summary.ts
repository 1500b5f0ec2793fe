/**
 * A run's summary as the view needs it, whatever the method: its metrics, their definitions and
 * intervals, read from a summary file or a method's computed summary.
 */
import type { MetricDef } from '../methods/method.js';

/** A run's summary as the view needs it, whatever the method. */
export interface ViewSummary {
  method: string;
  metricDefs: readonly MetricDef[];
  metrics: Record<string, number | null>;
  intervals: Record<string, [number, number] | null>;
  approximate: boolean;
  /** Intervals not computed yet (shown once the run is opened). */
  intervalsPending?: boolean;
  /** The whole summary, for method-specific parts (breakdowns, protocol). */
  raw: Record<string, unknown>;
}

export function viewSummary(summary: Record<string, unknown>): ViewSummary {
  const method = (summary.method as { id?: unknown } | undefined)?.id;
  const metrics = (summary.metrics ?? {}) as Record<string, number | null>;
  const defs = Array.isArray(summary.metricDefs)
    ? (summary.metricDefs as MetricDef[])
    : Object.keys(metrics).map((id) => ({
        id,
        label: id,
        description: '',
        range: [0, 1] as [number, number],
        better: 'higher' as const,
        format: 'number' as const,
      }));
  return {
    method: typeof method === 'string' ? method : 'unknown',
    metricDefs: defs,
    metrics,
    intervals: (summary.intervals ?? {}) as Record<string, [number, number] | null>,
    approximate: summary.approximate === true,
    raw: summary,
  };
}
