/**
 * Somers' D (Somers 1962), the paper's meta-evaluation statistic (section 6, Tables 9 and 18):
 * D(Y|X) = (C - D) / (pairs not tied on X), where C and D count the concordant and discordant
 * pairs. X is the human rating (0, 1, 2), Y the metric's score, as in scipy.stats.somersd(x, y).
 * No maintained JavaScript package computes it, so it is written here (O(n^2), enough for the
 * paper's 400 annotated samples; the permutation test uses the O(n log n) form below) and checked
 * against a hand computation in the test. The
 * p-value is a two-sided permutation test (seeded), not scipy's asymptotic one.
 */
import { SeededRandom } from '../../../sampling/seeded-random.js';

export function somersD(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new Error(`somersD: ${x.length} ratings for ${y.length} scores`);
  let concordant = 0;
  let discordant = 0;
  let untiedX = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const dx = Math.sign(x[i]! - x[j]!);
      if (dx === 0) continue;
      untiedX++;
      const s = dx * Math.sign(y[i]! - y[j]!);
      if (s > 0) concordant++;
      else if (s < 0) discordant++;
    }
  }
  return untiedX === 0 ? null : (concordant - discordant) / untiedX;
}

/**
 * The same D(Y|X) in O(n log n), for one X and any ordering of Y: items sorted by X, each compared
 * with the items of strictly smaller X through a Fenwick tree over the ranks of Y (ties on Y count
 * neither way). The permutation test calls it once per permutation, where the quadratic form would
 * take seconds on a pooled set of runs.
 */
export function somersDOf(x: readonly number[]): (yRanks: readonly number[], ranks: number) => number | null {
  const n = x.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => x[a]! - x[b]!);
  const groups: Array<[number, number]> = [];
  let tiedX = 0;
  for (let start = 0; start < n; ) {
    let end = start;
    while (end < n && x[order[end]!] === x[order[start]!]) end++;
    groups.push([start, end]);
    tiedX += ((end - start) * (end - start - 1)) / 2;
    start = end;
  }
  const untiedX = (n * (n - 1)) / 2 - tiedX;
  return (yRanks, ranks) => {
    if (untiedX === 0) return null;
    const tree = new Float64Array(ranks + 1);
    const below = (i: number): number => {
      let s = 0;
      for (; i > 0; i -= i & -i) s += tree[i]!;
      return s;
    };
    let diff = 0;
    let inserted = 0;
    for (const [start, end] of groups) {
      for (let k = start; k < end; k++) {
        const r = yRanks[order[k]!]!;
        // Earlier items have a smaller X: concordant when their Y is smaller, discordant when larger.
        diff += below(r - 1) - (inserted - below(r));
      }
      for (let k = start; k < end; k++) for (let i = yRanks[order[k]!]!; i <= ranks; i += i & -i) tree[i]! += 1;
      inserted += end - start;
    }
    return diff / untiedX;
  };
}

/** Dense ranks 1..r of the values (equal values, equal ranks). */
function denseRanks(y: readonly number[]): { ranks: number[]; count: number } {
  const values = [...new Set(y)].sort((a, b) => a - b);
  const rank = new Map(values.map((v, i) => [v, i + 1]));
  return { ranks: y.map((v) => rank.get(v)!), count: values.length };
}

/** D(Y|X) by the O(n log n) form. */
export function somersDSorted(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new Error(`somersD: ${x.length} ratings for ${y.length} scores`);
  const { ranks, count } = denseRanks(y);
  return somersDOf(x)(ranks, count);
}

export interface SomersResult {
  d: number | null;
  n: number;
  /** Two-sided permutation p-value: (1 + #{|D_perm| >= |D|}) / (1 + permutations). */
  pValue: number | null;
  permutations: number;
}

export function somersTest(x: readonly number[], y: readonly number[], permutations: number, seed: number): SomersResult {
  if (x.length !== y.length) throw new Error(`somersD: ${x.length} ratings for ${y.length} scores`);
  const dOf = somersDOf(x);
  const { ranks, count } = denseRanks(y);
  const d = dOf(ranks, count);
  if (d === null || permutations <= 0) return { d, n: x.length, pValue: null, permutations };
  const rng = SeededRandom.stream(seed, 'somers-permutation');
  let extreme = 0;
  for (let b = 0; b < permutations; b++) {
    const perm = dOf(rng.shuffle(ranks), count);
    if (perm !== null && Math.abs(perm) >= Math.abs(d) - 1e-12) extreme++;
  }
  return { d, n: x.length, pValue: (1 + extreme) / (1 + permutations), permutations };
}
