/**
 * Paired differences between two CONNER runs that scored the same queries (two generators, or two
 * settings of one generator): per metric, the mean of A − B over the items both runs have a value
 * for, with a percentile bootstrap interval over those items (seeded: one stream per pair and
 * metric) and the two-sided bootstrap p-value for "no difference", as the reliability method's
 * paired tests compute theirs.
 */
import type { PairedTest } from '../../../analysis/runs.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import type { ScoredKnowledge } from '../scoring/score-knowledge.js';
import { metricValue } from '../summary/conner-summary.js';

/** A paired test as every method's compare prints it; `questions`: the queries with a value in both runs. */
export type ConnerPairedDifference = PairedTest;

/** Items of both runs, matched by id (in A's order). */
export function sharedItems(a: readonly ScoredKnowledge[], b: readonly ScoredKnowledge[]): Array<[ScoredKnowledge, ScoredKnowledge]> {
  const byId = new Map(b.map((r) => [r.id, r]));
  return a.filter((r) => byId.has(r.id)).map((r) => [r, byId.get(r.id)!]);
}

export function pairedDifference(pairs: ReadonlyArray<readonly [ScoredKnowledge, ScoredKnowledge]>, metric: string, options: { names: [string, string]; resamples: number; seed: number }): ConnerPairedDifference {
  const diffs: number[] = [];
  for (const [x, y] of pairs) {
    const vx = metricValue(x, metric);
    const vy = metricValue(y, metric);
    if (vx !== null && vy !== null) diffs.push(vx - vy);
  }
  const base = { metric, a: options.names[0], b: options.names[1], questions: diffs.length };
  if (diffs.length === 0) return { ...base, difference: null, interval: null, p: null };
  const difference = diffs.reduce((s, d) => s + d, 0) / diffs.length;
  if (options.resamples <= 0 || diffs.length < 2) return { ...base, difference, interval: null, p: null };
  const rng = SeededRandom.stream(options.seed, 'conner-paired', options.names[0], options.names[1], metric);
  const means: number[] = [];
  for (let b = 0; b < options.resamples; b++) {
    let sum = 0;
    for (let i = 0; i < diffs.length; i++) sum += diffs[rng.int(0, diffs.length - 1)]!;
    means.push(sum / diffs.length);
  }
  means.sort((u, v) => u - v);
  const at = (q: number): number => means[Math.min(means.length - 1, Math.max(0, Math.round(q * (means.length - 1))))]!;
  const below = means.filter((m) => m <= 0).length / means.length;
  const above = means.filter((m) => m >= 0).length / means.length;
  return { ...base, difference, interval: [at(0.025), at(0.975)], p: Math.min(1, 2 * Math.min(below, above)) };
}
