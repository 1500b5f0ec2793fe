/**
 * `--fail-under METRIC=VALUE`: a metric meets its threshold when it is defined and at least the
 * value. An undefined metric (a mean over no responses) fails: a gate must not pass on nothing.
 * Shared by the exit-code gate (`failedThresholds`) and the JUnit report (`src/cli/junit.ts`).
 */
export function meetsThreshold(value: number | null | undefined, threshold: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= threshold;
}
