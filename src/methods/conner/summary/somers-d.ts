/**
 * Somers' D (Somers 1962), the paper's meta-evaluation statistic (section 6, Tables 9 and 18):
 * D(Y|X) = (C - D) / (pairs not tied on X), where C and D count the concordant and discordant
 * pairs. X is the human rating (0, 1, 2), Y the metric's score, as in scipy.stats.somersd(x, y).
 * No maintained JavaScript package computes it, so it is written here (O(n^2), enough for the
 * paper's 400 annotated samples) and checked against a hand computation in the test. The
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

export interface SomersResult {
  d: number | null;
  n: number;
  /** Two-sided permutation p-value: (1 + #{|D_perm| >= |D|}) / (1 + permutations). */
  pValue: number | null;
  permutations: number;
}

export function somersTest(x: readonly number[], y: readonly number[], permutations: number, seed: number): SomersResult {
  const d = somersD(x, y);
  if (d === null || permutations <= 0) return { d, n: x.length, pValue: null, permutations };
  const rng = SeededRandom.stream(seed, 'somers-permutation');
  let extreme = 0;
  for (let b = 0; b < permutations; b++) {
    const perm = somersD(x, rng.shuffle(y));
    if (perm !== null && Math.abs(perm) >= Math.abs(d) - 1e-12) extreme++;
  }
  return { d, n: x.length, pValue: (1 + extreme) / (1 + permutations), permutations };
}
