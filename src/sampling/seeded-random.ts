/**
 * Seeded randomness for everything llmkb samples or shuffles (pure-rand's xoroshiro128+).
 * Streams are named: `SeededRandom.stream(seed, 'seenqa', 'nq')` gives the same numbers
 * whatever else was drawn before, so adding a step never shifts another step's sample.
 */
import { hash } from 'node:crypto';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

type Generator = ReturnType<typeof xoroshiro128plus>;

export class SeededRandom {
  readonly #rng: Generator;

  constructor(seed: number) {
    this.#rng = xoroshiro128plus(seed | 0);
  }

  /** An independent stream for (seed, ...names). */
  static stream(seed: number, ...names: Array<string | number>): SeededRandom {
    // One-shot hashing (no Hash object): streams are made per item and per pair.
    const digest = hash('sha256', `${seed}\u0000${names.join('\u0000')}`, 'buffer');
    return new SeededRandom(digest.readInt32LE(0));
  }

  /** Uniform integer in [from, to], both included. */
  int(from: number, to: number): number {
    return uniformInt(this.#rng, from, to);
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** `k` distinct items in random order (all of them if there are fewer). */
  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle(items).slice(0, Math.max(0, k));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }
}
