/**
 * How every paired test of any method is shown: its p-value, its significance mark and the note
 * that explains both. A resampling p-value (bootstrap or permutation, R resamples) is never
 * exactly 0: no difference was seen in the R resamples, so p < 1/R, and that is what is printed.
 * A star needs p < 0.05 and at least MIN_PAIRED_N paired items: on fewer, a resampling test's
 * p-value says little (on 3 queries, every resample repeats the same few values), so no
 * difference is called significant there, whatever its p.
 */

/** Fewest paired items (questions, queries) for a paired test's star. */
export const MIN_PAIRED_N = 30;
/** Level of a paired test's star. */
export const ALPHA = 0.05;

/** A resampling p-value as printed: `-` when there is none, `< 1/R` below the floor, else two significant digits. */
export function formatResampledP(p: number | null, resamples: number): string {
  if (p === null || Number.isNaN(p)) return '-';
  const floor = 1 / resamples;
  if (p < floor) return `< ${Number(floor.toPrecision(2))}`;
  return p.toPrecision(2);
}

/** Whether a paired test may be called significant: p < ALPHA on MIN_PAIRED_N or more paired items. */
export function isSignificant(p: number | null, n: number): boolean {
  return p !== null && p < ALPHA && n >= MIN_PAIRED_N;
}

/** The star of a paired test (`*`), or nothing. */
export function significanceStar(p: number | null, n: number): string {
  return isSignificant(p, n) ? '*' : '';
}

/** The note under a table of paired tests: the test, its resamples, what a star needs, the p floor. */
export function pairedTestsNote(options: { resamples: number; seed?: number; items?: string }): string {
  const items = options.items ?? 'questions';
  return `Paired bootstrap over the ${items} both runs answered (${options.resamples} resamples${options.seed === undefined ? '' : `, seed ${options.seed}`}); n: the ${items} paired; * p < ${ALPHA} on n >= ${MIN_PAIRED_N} (no star on fewer: too few ${items} to call a difference); p < ${Number((1 / options.resamples).toPrecision(2))} when no resample crossed zero.`;
}

/** Smallest analytic p-value printed as a number (Pearson's t test): below it, `< 0.0001`; never `0`. */
const ANALYTIC_FLOOR = 1e-4;

/** An analytic p-value (a correlation's t test) as printed: two significant digits, `< 0.0001` below that. */
export function formatAnalyticP(p: number): string {
  return p < ANALYTIC_FLOOR ? `< ${ANALYTIC_FLOOR.toFixed(4)}` : p.toPrecision(2);
}
