/**
 * Paired differences between two CONNER runs that scored the same queries (two generators, or two
 * settings of one generator): per metric, A's value minus B's over the items both runs have a
 * value for, each computed as the summary computes it (a mean, or helpfulness's ratio over the
 * set: ../summary/metric-aggregates.ts), with a percentile bootstrap interval that resamples those
 * items jointly (seeded: one stream per pair and metric) and the two-sided bootstrap p-value for
 * "no difference", as the reliability method's paired tests compute theirs.
 */
import type { PairedTest } from '../../run-tables.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import { DEFAULT_CHOICES, type ScoringChoices } from '../conner-choices.js';
import type { ScoredKnowledge } from '../scoring/scored-knowledge.js';
import { metricAggregate, type ItemParts } from '../summary/metric-aggregates.js';

/** A paired test as every method's compare prints it; `questions`: the queries with a value in both runs. */
export type ConnerPairedDifference = PairedTest;

/** Items of both runs, matched by id (in A's order). */
export function sharedItems(a: readonly ScoredKnowledge[], b: readonly ScoredKnowledge[]): Array<[ScoredKnowledge, ScoredKnowledge]> {
  const byId = new Map(b.map((r) => [r.id, r]));
  return a.filter((r) => byId.has(r.id)).map((r) => [r, byId.get(r.id)!]);
}

type Choices = Pick<ScoringChoices, 'factualityRule' | 'aggregation'>;

export function pairedDifference(
  pairs: ReadonlyArray<readonly [ScoredKnowledge, ScoredKnowledge]>,
  metric: string,
  options: { names: [string, string]; resamples: number; seed: number; choices?: [Choices, Choices] },
): ConnerPairedDifference {
  const [ca, cb] = options.choices ?? [DEFAULT_CHOICES, DEFAULT_CHOICES];
  const aggA = metricAggregate(metric, ca);
  const aggB = metricAggregate(metric, cb);
  const both: Array<[ItemParts, ItemParts]> = [];
  for (const [x, y] of pairs) {
    const px = aggA.parts(x);
    const py = aggB.parts(y);
    if (px !== null && py !== null) both.push([px, py]);
  }
  const base = { metric, a: options.names[0], b: options.names[1], questions: both.length };
  const difference = (indices: Iterable<number>): number | null => {
    let na = 0,
      da = 0,
      nb = 0,
      db = 0;
    for (const i of indices) {
      const [pa, pb] = both[i]!;
      na += pa.num;
      da += pa.den;
      nb += pb.num;
      db += pb.den;
    }
    const va = aggA.finish(na, da);
    const vb = aggB.finish(nb, db);
    return va === null || vb === null ? null : va - vb;
  };
  if (both.length === 0) return { ...base, difference: null, interval: null, p: null };
  const observed = difference(both.keys());
  if (observed === null || options.resamples <= 0 || both.length < 2) return { ...base, difference: observed, interval: null, p: null };
  const rng = SeededRandom.stream(options.seed, 'conner-paired', options.names[0], options.names[1], metric);
  const diffs: number[] = [];
  for (let b = 0; b < options.resamples; b++) {
    const drawn = Array.from({ length: both.length }, () => rng.int(0, both.length - 1));
    const d = difference(drawn);
    if (d !== null) diffs.push(d);
  }
  if (diffs.length === 0) return { ...base, difference: observed, interval: null, p: null };
  diffs.sort((u, v) => u - v);
  const at = (q: number): number => diffs[Math.min(diffs.length - 1, Math.max(0, Math.round(q * (diffs.length - 1))))]!;
  const below = diffs.filter((m) => m <= 0).length / diffs.length;
  const above = diffs.filter((m) => m >= 0).length / diffs.length;
  return { ...base, difference: observed, interval: [at(0.025), at(0.975)], p: Math.min(1, 2 * Math.min(below, above)) };
}
