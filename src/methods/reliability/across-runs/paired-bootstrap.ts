/**
 * The paired bootstrap test between two runs on one metric (NCCR, IUR...): questions both runs
 * answered are resampled with replacement, the metric recomputed for both runs on the same
 * resample, and the differences give a 95% interval and a two-sided p-value.
 */
import { createHash } from 'node:crypto';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import type { PairedTest } from '../../run-tables.js';
import type { ScoredRecord } from '../metrics/summarize-run.js';
import { addToSums, emptySums, type MetricKey, metricsFromSums } from '../metrics/reliability-metrics.js';

/**
 * Paired bootstrap over questions both runs answered: resample question ids with replacement,
 * recompute the metric for both models on the same resample, and look at the differences.
 *
 * Comparing many runs makes this test for every pair, and done pair by pair it costs
 * resamples x questions for each of them (quadratic in the runs). But when both runs hold the
 * same questions in the same order (runs of one question set, as `llmkb eval` writes them), the
 * resampled indices are the same for every pair (one seeded stream per metric), so each run's
 * metric on each resample is computed once and remembered, and a pair costs `resamples`
 * subtractions. The numbers are the same as pair by pair, bit for bit; other pairs take the
 * general path.
 */
export function pairedBootstrap(
  a: readonly ScoredRecord[],
  b: readonly ScoredRecord[],
  metric: MetricKey,
  options: { names: [string, string]; resamples?: number; seed?: number },
): PairedTest {
  const resamples = options.resamples ?? 1000;
  const seed = options.seed ?? 42;
  if (a.length === b.length && a.length > 0 && orderSignature(a) === orderSignature(b)) {
    const va = perRunResamples(a, metric, resamples, seed);
    const vb = perRunResamples(b, metric, resamples, seed);
    const difference = va.full === null || vb.full === null ? null : va.full - vb.full;
    const diffs: number[] = [];
    for (let i = 0; i < resamples; i++) {
      const x = va.values[i]!;
      const y = vb.values[i]!;
      if (x !== null && y !== null) diffs.push(x - y);
    }
    return pairedResult(metric, options.names, difference, diffs, resamples, a.length);
  }
  return pairedBootstrapPairwise(a, b, metric, { ...options, resamples, seed });
}

const signatures = new WeakMap<readonly ScoredRecord[], string>();

/** Which questions a run holds, in which order, seen or unseen: runs with equal signatures pair index by index. */
function orderSignature(records: readonly ScoredRecord[]): string {
  let sig = signatures.get(records);
  if (sig === undefined) {
    const hash = createHash('sha256');
    for (const r of records) hash.update(`${r.id}\u0000${r.dataset}\u0001`);
    sig = hash.digest('hex');
    signatures.set(records, sig);
  }
  return sig;
}

/** The resampled indices of one stream (seed, metric) for a question list with this many seen and unseen questions. */
const drawsCache = new Map<string, { seen: Int32Array; unseen: Int32Array }>();

function draws(seenCount: number, unseenCount: number, metric: MetricKey, resamples: number, seed: number): { seen: Int32Array; unseen: Int32Array } {
  const key = `${seenCount}/${unseenCount}/${metric}/${resamples}/${seed}`;
  let d = drawsCache.get(key);
  if (!d) {
    const rng = SeededRandom.stream(seed, 'paired-bootstrap', metric);
    const seen = new Int32Array(resamples * seenCount);
    const unseen = new Int32Array(resamples * unseenCount);
    for (let i = 0; i < resamples; i++) {
      for (let j = 0; j < seenCount; j++) seen[i * seenCount + j] = rng.int(0, seenCount - 1);
      for (let j = 0; j < unseenCount; j++) unseen[i * unseenCount + j] = rng.int(0, unseenCount - 1);
    }
    // Only the latest few: a comparison uses one question set per setting and two metrics.
    if (drawsCache.size >= 8) drawsCache.delete(drawsCache.keys().next().value!);
    drawsCache.set(key, (d = { seen, unseen }));
  }
  return d;
}

const perRunCache = new WeakMap<readonly ScoredRecord[], Map<string, { full: number | null; values: Array<number | null> }>>();

/** One run's metric on the full data and on each paired-bootstrap resample (as run "a" of a pair with the same questions). */
function perRunResamples(
  records: readonly ScoredRecord[],
  metric: MetricKey,
  resamples: number,
  seed: number,
): { full: number | null; values: Array<number | null> } {
  let byKey = perRunCache.get(records);
  if (!byKey) perRunCache.set(records, (byKey = new Map()));
  const key = `${metric}/${resamples}/${seed}`;
  const known = byKey.get(key);
  if (known) return known;
  const seen = records.filter((r) => r.dataset === 'seen');
  const unseen = records.filter((r) => r.dataset === 'unseen');
  const full = emptySums();
  for (const r of records) addToSums(full, r);
  const d = draws(seen.length, unseen.length, metric, resamples, seed);
  // What addToSums does with each record, as small arrays: the same sums in the same order,
  // without an object lookup per draw. Seen: 1 correct, 2 wrong (+2: with a consistency score);
  // unseen: 1 uninformative, 2 with a consistency score.
  const seenCode = Uint8Array.from(
    seen,
    (r) =>
      (r.label === 'correct' ? 1 : r.label === 'wrong' ? 2 : 0) + ((r.label === 'correct' || r.label === 'wrong') && (r.consistency ?? null) !== null ? 2 : 0),
  );
  const seenCons = Float64Array.from(seen, (r) => r.consistency ?? 0);
  const unseenCode = Uint8Array.from(unseen, (r) => (r.label === 'uninformative' ? 1 : (r.consistency ?? null) !== null ? 2 : 0));
  const unseenCons = Float64Array.from(unseen, (r) => r.consistency ?? 0);
  const values: Array<number | null> = new Array(resamples);
  for (let i = 0; i < resamples; i++) {
    const s = emptySums();
    let nCorrect = 0,
      nWrong = 0,
      consCorrectSum = 0,
      consCorrectCount = 0,
      consWrongSeenSum = 0,
      consWrongSeenCount = 0;
    for (let j = 0, o = i * seen.length; j < seen.length; j++) {
      const k = d.seen[o + j]!;
      switch (seenCode[k]) {
        case 1:
          nCorrect++;
          break;
        case 2:
          nWrong++;
          break;
        case 3:
          nCorrect++;
          consCorrectSum += seenCons[k]!;
          consCorrectCount++;
          break;
        case 4:
          nWrong++;
          consWrongSeenSum += seenCons[k]!;
          consWrongSeenCount++;
          break;
        default:
          break;
      }
    }
    let lUninformative = 0,
      consWrongUnseenSum = 0,
      consWrongUnseenCount = 0;
    for (let j = 0, o = i * unseen.length; j < unseen.length; j++) {
      const k = d.unseen[o + j]!;
      const c = unseenCode[k];
      if (c === 1) lUninformative++;
      else if (c === 2) {
        consWrongUnseenSum += unseenCons[k]!;
        consWrongUnseenCount++;
      }
    }
    Object.assign(s, {
      n: seen.length,
      nCorrect,
      nWrong,
      l: unseen.length,
      lUninformative,
      consCorrectSum,
      consCorrectCount,
      consWrongSeenSum,
      consWrongSeenCount,
      consWrongUnseenSum,
      consWrongUnseenCount,
    });
    values[i] = metricsFromSums(s)[metric];
  }
  const result = { full: metricsFromSums(full)[metric], values };
  byKey.set(key, result);
  return result;
}

function pairedResult(
  metric: MetricKey,
  names: [string, string],
  difference: number | null,
  diffs: number[],
  resamples: number,
  questions: number,
): PairedTest {
  diffs.sort((x, y) => x - y);
  if (difference === null || diffs.length * 2 < resamples) return { metric, a: names[0], b: names[1], difference, interval: null, p: null, questions };
  const at = (q: number) => diffs[Math.min(diffs.length - 1, Math.max(0, Math.round(q * (diffs.length - 1))))]!;
  const below = diffs.filter((d) => d <= 0).length / diffs.length;
  const above = diffs.filter((d) => d >= 0).length / diffs.length;
  return { metric, a: names[0], b: names[1], difference, interval: [at(0.025), at(0.975)], p: Math.min(1, 2 * Math.min(below, above)), questions };
}

/** The general case, pair by pair: questions matched by id, in the order of `a`. */
export function pairedBootstrapPairwise(
  a: readonly ScoredRecord[],
  b: readonly ScoredRecord[],
  metric: MetricKey,
  options: { names: [string, string]; resamples?: number; seed?: number },
): PairedTest {
  const byId = new Map(b.map((r) => [r.id, r]));
  const pairs = a.filter((r) => byId.has(r.id)).map((r) => [r, byId.get(r.id)!] as const);
  const seen = pairs.filter(([r]) => r.dataset === 'seen');
  const unseen = pairs.filter(([r]) => r.dataset === 'unseen');
  const diffOf = (sample: Iterable<readonly [ScoredRecord, ScoredRecord]>): number | null => {
    const sa = emptySums();
    const sb = emptySums();
    for (const [ra, rb] of sample) {
      addToSums(sa, ra);
      addToSums(sb, rb);
    }
    const ma = metricsFromSums(sa)[metric];
    const mb = metricsFromSums(sb)[metric];
    return ma === null || mb === null ? null : ma - mb;
  };
  const difference = diffOf(pairs);
  const resamples = options.resamples ?? 1000;
  const rng = SeededRandom.stream(options.seed ?? 42, 'paired-bootstrap', metric);
  const diffs: number[] = [];
  for (let i = 0; i < resamples; i++) {
    const sample: Array<readonly [ScoredRecord, ScoredRecord]> = [];
    for (let j = 0; j < seen.length; j++) sample.push(seen[rng.int(0, seen.length - 1)]!);
    for (let j = 0; j < unseen.length; j++) sample.push(unseen[rng.int(0, unseen.length - 1)]!);
    const d = diffOf(sample);
    if (d !== null) diffs.push(d);
  }
  return pairedResult(metric, options.names, difference, diffs, resamples, pairs.length);
}
