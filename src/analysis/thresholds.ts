/**
 * `--fail-under METRIC=VALUE`: a metric meets its threshold when it is defined and at least the
 * value. An undefined metric (a mean over no responses) fails: a gate must not pass on nothing.
 * Shared by the exit-code gate (`failedThresholds`) and the JUnit report (`src/analysis/junit.ts`).
 */
import { EXIT_CODES, LlmkbError } from '../errors.js';
import type { EvaluationMethod } from '../methods/method.js';

export interface Threshold {
  metric: string;
  value: number;
}
export function meetsThreshold(value: number | null | undefined, threshold: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= threshold;
}

/** `--fail-under NCCR=0.2`: the metrics below their threshold (an undefined metric fails too), one line per (run, threshold). */
export function failedThresholds(
  summaries: ReadonlyArray<{ model: string; setting: string; metrics: Record<string, number | null | undefined> }>,
  thresholds: ReadonlyArray<{ metric: string; value: number }>,
): string[] {
  const failures: string[] = [];
  for (const s of summaries) {
    for (const t of thresholds) {
      const v = s.metrics[t.metric];
      if (!meetsThreshold(v, t.value))
        failures.push(`${t.metric} = ${typeof v === 'number' ? v.toFixed(4) : 'undefined'} < ${t.value} (${s.model}, ${s.setting})`);
    }
  }
  return failures;
}

/** What is wrong with a threshold for these methods' metrics (undefined: nothing). */
export function thresholdProblem(methods: readonly EvaluationMethod[], t: Threshold): string | undefined {
  const defs = methods.flatMap((m) => m.metricDefs);
  const def = defs.find((d) => d.id === t.metric);
  if (!def) {
    const near = defs.find((d) => d.id.toLowerCase() === t.metric.toLowerCase());
    return `unknown metric "${t.metric}"${near ? ` (did you mean ${near.id}?)` : ''}; the metrics are ${[...new Set(defs.map((d) => d.id))].join(', ')}`;
  }
  if (t.value < def.range[0] || t.value > def.range[1]) {
    return `${t.metric}=${t.value} is out of range: ${t.metric} lies in [${def.range.join(', ')}]${def.format === 'percent' ? `; thresholds are fractions as in the summaries: for ${t.value}% write ${t.metric}=${t.value / 100}` : ''}`;
  }
  return undefined;
}

/** Each threshold names a metric of the method the run uses and lies in that metric's range. */
export function checkThresholds(method: EvaluationMethod, thresholds: readonly Threshold[]): void {
  for (const t of thresholds) {
    const problem = thresholdProblem([method], t);
    if (problem)
      throw new LlmkbError(`--fail-under: ${problem}`, {
        exitCode: EXIT_CODES.usage,
        hint: `The metrics of method "${method.id}": ${method.metricDefs.map((d) => d.id).join(', ')}.`,
      });
  }
}
