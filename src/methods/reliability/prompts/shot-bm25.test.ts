import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import { Bm25Index, topK } from './shot-bm25.js';

/** The definition topK keeps to: every allowed index sorted by score, highest first, then by index. */
function fullSort(scores: ArrayLike<number>, k: number, allowed: (i: number) => boolean): number[] {
  return Array.from(scores, (score, i) => ({ score, i }))
    .filter(({ i }) => allowed(i))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, k)
    .map(({ i }) => i);
}

describe('topK', () => {
  it('gives the order of a full sort (ties by index), with excluded indices skipped', () => {
    const rng = SeededRandom.stream(7, 'topk-test');
    for (let round = 0; round < 200; round++) {
      const n = rng.int(0, 40);
      // Few distinct values, so ties are common; zeros as BM25 gives for documents without a query term.
      const scores = Float64Array.from({ length: n }, () => rng.int(0, 4) / 2);
      const banned = rng.int(0, Math.max(0, n - 1));
      const allowed = (i: number) => i !== banned;
      for (const k of [0, 1, 2, 4, n + 3]) assert.deepEqual(topK(scores, k, allowed), fullSort(scores, k, allowed), `round ${round}, k ${k}`);
    }
  });

  it('ranks BM25 nearest questions as before', () => {
    const index = new Bm25Index(['who wrote hamlet', 'who wrote macbeth', 'capital of france', 'who painted the mona lisa']);
    const scores = index.scores('who wrote the tempest');
    assert.deepEqual(
      topK(scores, 2, () => true),
      fullSort(scores, 2, () => true),
    );
    assert.deepEqual(
      topK(scores, 2, () => true),
      [0, 1],
    );
  });
});
