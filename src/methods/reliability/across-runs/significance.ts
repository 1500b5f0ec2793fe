/**
 * Significance marks for the report's tables: is a run's value distinguishable from the best
 * run's in the same setting and column? A paired bootstrap over the questions both answered
 * (1000 resamples, seen and unseen questions resampled apart, as the CIs are), like `llmkb
 * compare`'s paired tests. To stay fast for the paper's 26 models x 3 settings x 12 metrics, each
 * run is resampled once for all metrics (its sums per resample, then every metric from them),
 * with one seeded stream of question draws shared by all runs of one question set: a pair's
 * difference on a resample is then the difference of the two runs' values on the same questions.
 */
import { createHash } from 'node:crypto';
import { addToSums, emptySums, METRIC_KEYS, type MetricKey, type Metrics, metricsFromSums } from '../metrics/reliability-metrics.js';
import type { ScoredRecord } from '../metrics/summarize-run.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';

/** Which questions a run holds, in which order: runs with equal signatures pair index by index. */
function signature(records: readonly ScoredRecord[]): string {
  const hash = createHash('sha256');
  for (const r of records) hash.update(`${r.id}\u0000${r.dataset}\u0001`);
  return hash.digest('hex');
}

export class PairedResampler {
  readonly #resamples: number;
  readonly #seed: number;
  readonly #draws = new Map<string, { seen: Int32Array; unseen: Int32Array }>();
  readonly #values = new WeakMap<readonly ScoredRecord[], { signature: string; metrics: Metrics[] }>();

  constructor(resamples = 1000, seed = 42) {
    this.#resamples = resamples;
    this.#seed = seed;
  }

  #drawsFor(sig: string, seen: number, unseen: number): { seen: Int32Array; unseen: Int32Array } {
    let d = this.#draws.get(sig);
    if (!d) {
      const rng = SeededRandom.stream(this.#seed, 'report-significance');
      d = { seen: new Int32Array(this.#resamples * seen), unseen: new Int32Array(this.#resamples * unseen) };
      for (let i = 0; i < this.#resamples; i++) {
        for (let j = 0; j < seen; j++) d.seen[i * seen + j] = rng.int(0, seen - 1);
        for (let j = 0; j < unseen; j++) d.unseen[i * unseen + j] = rng.int(0, unseen - 1);
      }
      this.#draws.set(sig, d);
    }
    return d;
  }

  /** Every metric of the run on each resample. */
  #metrics(records: readonly ScoredRecord[]): { signature: string; metrics: Metrics[] } {
    const known = this.#values.get(records);
    if (known) return known;
    const sig = signature(records);
    const seen = records.filter((r) => r.dataset === 'seen');
    const unseen = records.filter((r) => r.dataset === 'unseen');
    const d = this.#drawsFor(sig, seen.length, unseen.length);
    const metrics: Metrics[] = [];
    for (let i = 0; i < this.#resamples; i++) {
      const s = emptySums();
      for (let j = 0, o = i * seen.length; j < seen.length; j++) addToSums(s, seen[d.seen[o + j]!]!);
      for (let j = 0, o = i * unseen.length; j < unseen.length; j++) addToSums(s, unseen[d.unseen[o + j]!]!);
      metrics.push(metricsFromSums(s));
    }
    const value = { signature: sig, metrics };
    this.#values.set(records, value);
    return value;
  }

  /**
   * Two-sided bootstrap p-value of "no difference" between two runs on a metric, or null when
   * the runs do not hold the same questions in the same order, or the metric is undefined in
   * more than half of the resamples.
   */
  p(a: readonly ScoredRecord[], b: readonly ScoredRecord[], metric: MetricKey): number | null {
    const va = this.#metrics(a);
    const vb = this.#metrics(b);
    if (va.signature !== vb.signature) return null;
    let below = 0;
    let above = 0;
    let n = 0;
    for (let i = 0; i < this.#resamples; i++) {
      const x = va.metrics[i]![metric];
      const y = vb.metrics[i]![metric];
      if (x === null || y === null) continue;
      n++;
      if (x - y <= 0) below++;
      if (x - y >= 0) above++;
    }
    if (n * 2 < this.#resamples) return null;
    return Math.min(1, (2 * Math.min(below, above)) / n);
  }
}

export function isMetricKey(id: string): id is MetricKey {
  return (METRIC_KEYS as readonly string[]).includes(id);
}
