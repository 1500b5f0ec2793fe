/**
 * `--fail-under METRIC=VALUE`: a metric meets its threshold when it is defined and at least the
 * value. An undefined metric (a mean over no responses) fails: a gate must not pass on nothing.
 * Shared by the exit-code gate (`failedThresholds`) and the JUnit report (`src/cli/junit.ts`).
 */
export function meetsThreshold(value: number | null | undefined, threshold: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= threshold;
}

/** `--fail-under NCCR=0.2`: the metrics below their threshold (an undefined metric fails too), one line per (run, threshold). */
export function failedThresholds(summaries: ReadonlyArray<{ model: string; setting: string; metrics: Record<string, number | null | undefined> }>, thresholds: ReadonlyArray<{ metric: string; value: number }>): string[] {
  const failures: string[] = [];
  for (const s of summaries) {
    for (const t of thresholds) {
      const v = s.metrics[t.metric];
      if (!meetsThreshold(v, t.value)) failures.push(`${t.metric} = ${typeof v === 'number' ? v.toFixed(4) : 'undefined'} < ${t.value} (${s.model}, ${s.setting})`);
    }
  }
  return failures;
}
