/**
 * The reliability method's numbers against hand computations: every metric of section 2
 * (Eq. 1-10) on a small run worked out on paper below, each edge case docs/method.md states,
 * the summary's breakdowns, and the bootstrap intervals against percentiles computed here from
 * the same resamples.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  computeMetrics,
  countRecords,
  METRIC_KEYS,
  type MetricKey,
  type Metrics,
  type MetricRecord,
} from '../../src/methods/reliability/metrics/reliability-metrics.js';
import { bootstrapIntervals, summarizeRun, type ScoredRecord } from '../../src/methods/reliability/metrics/summarize-run.js';
import { SeededRandom } from '../../src/sampling/seeded-random.js';

function near(actual: number | null | undefined, expected: number | null, what: string): void {
  if (expected === null) {
    assert.equal(actual, null, `${what}: undefined (null), got ${actual}`);
    return;
  }
  assert.equal(typeof actual, 'number', `${what}: expected ${expected}, got ${actual}`);
  assert.ok(Math.abs(actual! - expected) < 1e-12, `${what}: expected ${expected}, got ${actual}`);
}

function assertMetrics(actual: Metrics, expected: Partial<Record<MetricKey, number | null>>, where: string): void {
  for (const [k, v] of Object.entries(expected)) near(actual[k as MetricKey], v, `${where} ${k}`);
}

const rec = (dataset: 'seen' | 'unseen', label: MetricRecord['label'], consistency: number | null = null): MetricRecord => ({ dataset, label, consistency });

/**
 * The worked run. Seen (N = 10): 4 correct with Cons 1, 0.5, 0.75 and one without a Cons; 3
 * wrong with Cons 0.25, 0.5, 0; 3 uninformative. Unseen (L = 8): 5 uninformative; 3 wrong with
 * Cons 0.6, 0.2, 0.4.
 *
 *   CR = 4/10 = 0.4            WR = 3/10 = 0.3           NCR = 0.4 - 0.3 = 0.1
 *   UR = 5/8 = 0.625
 *   C_correct = (1 + 0.5 + 0.75)/3 = 0.75      (the record without Cons is left out)
 *   C_wrong^s = (0.25 + 0.5 + 0)/3 = 0.25      C_wrong^u = (0.6 + 0.2 + 0.4)/3 = 0.4
 *   C_wrong = (0.25 + 0.4)/2 = 0.325
 *   CCR = 0.4 x 0.75 = 0.3     CWR = 0.3 x 0.25 = 0.075  NCCR = 0.3 - 0.075 = 0.225
 *   IUR = 1 - (1 - 0.625) x 0.4 = 1 - 0.15 = 0.85
 */
const WORKED: MetricRecord[] = [
  rec('seen', 'correct', 1),
  rec('seen', 'correct', 0.5),
  rec('seen', 'correct', 0.75),
  rec('seen', 'correct', null),
  rec('seen', 'wrong', 0.25),
  rec('seen', 'wrong', 0.5),
  rec('seen', 'wrong', 0),
  rec('seen', 'uninformative'),
  rec('seen', 'uninformative'),
  rec('seen', 'uninformative'),
  rec('unseen', 'uninformative'),
  rec('unseen', 'uninformative'),
  rec('unseen', 'uninformative'),
  rec('unseen', 'uninformative'),
  rec('unseen', 'uninformative'),
  rec('unseen', 'wrong', 0.6),
  rec('unseen', 'wrong', 0.2),
  rec('unseen', 'wrong', 0.4),
];
const WORKED_METRICS = {
  CR: 0.4,
  WR: 0.3,
  NCR: 0.1,
  UR: 0.625,
  C_correct: 0.75,
  C_wrong_seen: 0.25,
  C_wrong_unseen: 0.4,
  C_wrong: 0.325,
  CCR: 0.3,
  CWR: 0.075,
  NCCR: 0.225,
  IUR: 0.85,
};

describe('reliability metrics (paper section 2) by hand', () => {
  it('every metric of the worked run, Eq. 1-10', () => {
    assertMetrics(computeMetrics(WORKED), WORKED_METRICS, 'worked');
    assert.deepEqual(Object.keys(computeMetrics(WORKED)).sort(), [...METRIC_KEYS].sort(), 'all twelve, no more');
  });

  it('counts: N, L, each label, and the correct/wrong responses without a Cons', () => {
    assert.deepEqual(countRecords(WORKED), {
      seen: 10,
      seenCorrect: 4,
      seenWrong: 3,
      seenUninformative: 3,
      unseen: 8,
      unseenWrong: 3,
      unseenUninformative: 5,
      unseenCorrect: 0,
      consistencyMissing: 1,
    });
  });

  it('the order of the records does not matter', () => {
    assertMetrics(computeMetrics([...WORKED].reverse()), WORKED_METRICS, 'reversed');
  });

  it('no seen questions: the seen metrics are undefined, never 0', () => {
    const m = computeMetrics(WORKED.filter((r) => r.dataset === 'unseen'));
    assertMetrics(
      m,
      { CR: null, WR: null, NCR: null, C_correct: null, C_wrong_seen: null, CCR: null, CWR: null, NCCR: null, UR: 0.625, C_wrong_unseen: 0.4, IUR: 0.85 },
      'unseen only',
    );
    near(m.C_wrong, 0.4, 'C_wrong is the one defined side (C_wrong^u)');
  });

  it('no unseen questions: UR, C_wrong^u and IUR are undefined; C_wrong is C_wrong^s', () => {
    const m = computeMetrics(WORKED.filter((r) => r.dataset === 'seen'));
    assertMetrics(m, { UR: null, C_wrong_unseen: null, IUR: null, C_wrong: 0.25, CR: 0.4, NCCR: 0.225 }, 'seen only');
  });

  it('nothing correct: CR = 0, C_correct undefined, CCR = 0 (a rate of 0 times an undefined mean), NCCR = -CWR', () => {
    const m = computeMetrics([rec('seen', 'wrong', 0.5), rec('seen', 'wrong', 1), rec('seen', 'uninformative'), rec('seen', 'uninformative')]);
    assertMetrics(m, { CR: 0, WR: 0.5, NCR: -0.5, C_correct: null, C_wrong_seen: 0.75, CCR: 0, CWR: 0.375, NCCR: -0.375 }, 'none correct');
  });

  it('nothing wrong on seen questions: CWR = 0, C_wrong^s undefined, C_wrong is C_wrong^u', () => {
    const m = computeMetrics([rec('seen', 'correct', 0.5), rec('seen', 'uninformative'), rec('unseen', 'wrong', 0.3), rec('unseen', 'uninformative')]);
    assertMetrics(m, { WR: 0, C_wrong_seen: null, CWR: 0, CCR: 0.25, NCCR: 0.25, C_wrong_unseen: 0.3, C_wrong: 0.3, UR: 0.5, IUR: 0.85 }, 'none wrong');
  });

  it("UR = 1: C_wrong^u is undefined but IUR = 1, as the paper's tables show it", () => {
    const m = computeMetrics([rec('seen', 'correct', 1), rec('unseen', 'uninformative'), rec('unseen', 'uninformative')]);
    assertMetrics(m, { UR: 1, C_wrong_unseen: null, IUR: 1, C_wrong: null }, 'UR = 1');
  });

  it('UR = 0 and every wrong unseen answer fully consistent: IUR = 0', () => {
    assertMetrics(computeMetrics([rec('unseen', 'wrong', 1), rec('unseen', 'wrong', 1)]), { UR: 0, C_wrong_unseen: 1, IUR: 0 }, 'UR = 0');
  });

  it('wrong answers without any Cons: the consistency means are undefined, and so is what is built on them', () => {
    const m = computeMetrics([rec('seen', 'correct', 0.5), rec('seen', 'wrong', null), rec('unseen', 'wrong', null), rec('unseen', 'uninformative')]);
    assertMetrics(m, { C_wrong_seen: null, CWR: null, NCCR: null, C_wrong_unseen: null, C_wrong: null, IUR: null, CCR: 0.25, UR: 0.5 }, 'no Cons');
  });

  it('a correct or wrong response without a Cons is left out of its mean, not counted as 0', () => {
    // Wrong seen: Cons 0.5 and one without; wrong unseen: Cons 0.2 and one without.
    const m = computeMetrics([
      rec('seen', 'correct', 1),
      rec('seen', 'wrong', 0.5),
      rec('seen', 'wrong', null),
      rec('unseen', 'wrong', 0.2),
      rec('unseen', 'wrong', null),
    ]);
    assertMetrics(m, { C_correct: 1, C_wrong_seen: 0.5, C_wrong_unseen: 0.2, C_wrong: 0.35, CWR: (2 / 3) * 0.5, IUR: 0.8 }, 'missing Cons');
  });

  it('an unseen response labelled correct (impossible by the method) is counted, and its Cons goes to C_wrong^u', () => {
    const records = [rec('unseen', 'correct', 0.9), rec('unseen', 'wrong', 0.1)];
    assert.equal(countRecords(records).unseenCorrect, 1);
    assertMetrics(computeMetrics(records), { C_wrong_unseen: 0.5, UR: 0 }, 'unseen correct');
  });

  it('an empty run: every metric undefined', () => {
    for (const k of METRIC_KEYS) assert.equal(computeMetrics([])[k], null, k);
  });
});

/** The worked run as scored records, with sources, answer types and sub-types for the breakdowns. */
function scoredWorked(): ScoredRecord[] {
  const seenSources = ['nq', 'nq', 'popqa', 'triviaqa', 'nq', 'popqa', 'triviaqa', 'nq', 'popqa', 'triviaqa'];
  const subtypes = ['none', 'unsure', 'unsure', 'repetition', 'unsure', 'unsure', 'none', 'unsure'] as const;
  let u = 0;
  return WORKED.map((r, i) => {
    const seen = r.dataset === 'seen';
    const uninformativeType = r.label === 'uninformative' ? subtypes[u++]! : null;
    return {
      ...r,
      id: `i${i}`,
      source: seen ? seenSources[i]! : `T${(i % 2) + 1}`,
      answerType: seen ? null : i % 2 === 0 ? 'person' : 'number',
      uninformativeType,
    };
  });
}

describe('summarizeRun', () => {
  const records = scoredWorked();
  const s = summarizeRun(records, { model: 'm', setting: 'zero-shot', resamples: 300, seed: 5 });

  it('reports the hand-computed metrics and counts', () => {
    assertMetrics(s.metrics, WORKED_METRICS, 'summary');
    assert.equal(s.counts.seen, 10);
    assert.equal(s.counts.unseen, 8);
  });

  it("breaks down by source with each group's own metrics", () => {
    // nq: records 0 (correct 1), 1 (correct 0.5), 4 (wrong 0.25), 7 (uninformative): CR 2/4, WR 1/4, C_correct 0.75, CCR 0.375, CWR 0.0625.
    assertMetrics(
      s.breakdowns.bySource.nq!.metrics,
      { CR: 0.5, WR: 0.25, NCR: 0.25, C_correct: 0.75, C_wrong_seen: 0.25, CCR: 0.375, CWR: 0.0625, NCCR: 0.3125, UR: null },
      'nq',
    );
    // popqa: 2 (correct 0.75), 5 (wrong 0.5), 8 (uninformative).
    assertMetrics(s.breakdowns.bySource.popqa!.metrics, { CR: 1 / 3, WR: 1 / 3, C_correct: 0.75, C_wrong_seen: 0.5 }, 'popqa');
    // T1 holds the unseen records at even positions 10, 12, 14 (uninformative) and 16 (wrong, 0.2):
    // UR 3/4, C_wrong^u 0.2, IUR = 1 - 0.25 x 0.2 = 0.95.
    assertMetrics(s.breakdowns.bySource.T1!.metrics, { UR: 0.75, C_wrong_unseen: 0.2, IUR: 0.95 }, 'T1');
    // T2: 11, 13 uninformative, 15 and 17 wrong (0.6, 0.4): UR 0.5, C_wrong^u 0.5, IUR = 1 - 0.5 x 0.5.
    assertMetrics(s.breakdowns.bySource.T2!.metrics, { UR: 0.5, C_wrong_unseen: 0.5, IUR: 0.75 }, 'T2');
    assert.deepEqual(Object.keys(s.breakdowns.bySource), ['nq', 'popqa', 'T1', 'T2', 'triviaqa']);
  });

  it('breaks down unseen questions by answer type and counts uninformative sub-types', () => {
    // person: the unseen records at even positions (as T1 above); number: at odd positions (T2).
    assertMetrics(s.breakdowns.byAnswerType.unseen.person!.metrics, { UR: 0.75 }, 'person');
    assertMetrics(s.breakdowns.byAnswerType.unseen.number!.metrics, { UR: 0.5 }, 'number');
    assert.deepEqual(s.breakdowns.uninformativeTypes, { seen: { none: 1, unsure: 2, repetition: 0 }, unseen: { none: 1, unsure: 3, repetition: 1 } });
  });

  it('is byte-identical for the same records and seed, and the intervals move with the seed', () => {
    const again = summarizeRun(records, { model: 'm', setting: 'zero-shot', resamples: 300, seed: 5 });
    assert.equal(JSON.stringify({ ...again, llmkbVersion: '' }), JSON.stringify({ ...s, llmkbVersion: '' }));
    const other = summarizeRun(records, { model: 'm', setting: 'zero-shot', resamples: 300, seed: 6 });
    assert.notDeepEqual(other.intervals, s.intervals);
  });
});

/** Percentile with linear interpolation between order statistics (R's type 7, numpy's default). */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  return sorted[lo]! + (h - lo) * (sorted[Math.min(lo + 1, sorted.length - 1)]! - sorted[lo]!);
}

/**
 * The bootstrap as the summary documents it, written out here: seen and unseen questions
 * resampled separately with replacement from the named stream (seed, "bootstrap"), seen first;
 * each metric recomputed per resample from the resampled records by the formulas of section 2.
 */
function resampledMetrics(records: readonly ScoredRecord[], resamples: number, seed: number): Record<'CR' | 'UR' | 'C_correct' | 'NCCR' | 'IUR', number[]> {
  const seen = records.filter((r) => r.dataset === 'seen');
  const unseen = records.filter((r) => r.dataset === 'unseen');
  const rng = SeededRandom.stream(seed, 'bootstrap');
  const out = { CR: [] as number[], UR: [] as number[], C_correct: [] as number[], NCCR: [] as number[], IUR: [] as number[] };
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  for (let b = 0; b < resamples; b++) {
    const s = seen.map(() => seen[rng.int(0, seen.length - 1)]!);
    const u = unseen.map(() => unseen[rng.int(0, unseen.length - 1)]!);
    const cr = s.filter((r) => r.label === 'correct').length / s.length;
    const wr = s.filter((r) => r.label === 'wrong').length / s.length;
    const ur = u.filter((r) => r.label === 'uninformative').length / u.length;
    const cc = mean(s.filter((r) => r.label === 'correct' && r.consistency != null).map((r) => r.consistency!));
    const cws = mean(s.filter((r) => r.label === 'wrong' && r.consistency != null).map((r) => r.consistency!));
    const cwu = mean(u.filter((r) => r.label !== 'uninformative' && r.consistency != null).map((r) => r.consistency!));
    out.CR.push(cr);
    out.UR.push(ur);
    if (cc !== null) out.C_correct.push(cc);
    const ccr = cr === 0 ? 0 : cc === null ? null : cr * cc;
    const cwr = wr === 0 ? 0 : cws === null ? null : wr * cws;
    if (ccr !== null && cwr !== null) out.NCCR.push(ccr - cwr);
    const iur = ur === 1 ? 1 : cwu === null ? null : 1 - (1 - ur) * cwu;
    if (iur !== null) out.IUR.push(iur);
  }
  return out;
}

describe('bootstrap intervals equal percentiles computed here', () => {
  const records = scoredWorked();
  const resamples = 400;
  const seed = 11;
  const samples = resampledMetrics(records, resamples, seed);

  it('the 95% interval is [2.5th, 97.5th] percentile of the resampled metric, for CR, UR, C_correct, NCCR and IUR', () => {
    const s = summarizeRun(records, { model: 'm', setting: 's', resamples, seed });
    assert.deepEqual(s.bootstrap, { resamples, seed, confidence: 0.95 });
    for (const k of ['CR', 'UR', 'C_correct', 'NCCR', 'IUR'] as const) {
      const ci = s.intervals[k];
      assert.ok(ci, `${k} has an interval`);
      near(ci[0], percentile(samples[k], 0.025), `${k} lower bound`);
      near(ci[1], percentile(samples[k], 0.975), `${k} upper bound`);
    }
  });

  it('a 90% interval is [5th, 95th] percentile, narrower than the 95% one', () => {
    const i90 = bootstrapIntervals(records, resamples, seed, 0.9);
    const i95 = bootstrapIntervals(records, resamples, seed, 0.95);
    near(i90.CR![0], percentile(samples.CR, 0.05), 'CR 90% lower');
    near(i90.CR![1], percentile(samples.CR, 0.95), 'CR 90% upper');
    assert.ok(i90.CR![1] - i90.CR![0] < i95.CR![1] - i95.CR![0], 'the 90% interval is narrower');
  });

  it('about 2.5% of the resamples fall below the lower bound and 2.5% above the upper one', () => {
    const ci = summarizeRun(records, { model: 'm', setting: 's', resamples, seed }).intervals.NCCR!;
    const below = samples.NCCR.filter((v) => v < ci[0]).length / samples.NCCR.length;
    const above = samples.NCCR.filter((v) => v > ci[1]).length / samples.NCCR.length;
    // At most the order statistics before the interpolated bound: (floor((n - 1) x 0.025) + 1) / n.
    const most = (Math.floor((samples.NCCR.length - 1) * 0.025) + 1) / samples.NCCR.length;
    assert.ok(below <= most && below >= 0.01, `below ${below}`);
    assert.ok(above <= most && above >= 0.01, `above ${above}`);
  });

  it('is null when the metric is undefined in more than half of the resamples', () => {
    // One correct answer with a Cons among 20 seen: C_correct is defined only when it is drawn
    // (probability 1 - 0.95^20 = 0.64); with its Cons missing it is never defined.
    const few: ScoredRecord[] = Array.from({ length: 20 }, (_, i) => ({
      id: `s${i}`,
      dataset: 'seen',
      source: 'nq',
      label: i === 0 ? 'correct' : 'wrong',
      consistency: i === 0 ? null : 0.5,
    }));
    assert.equal(bootstrapIntervals(few, 200, 1).C_correct, null);
    assert.ok(bootstrapIntervals(few, 200, 1).C_wrong_seen, 'C_wrong^s is defined in every resample');
    const withCons = few.map((r, i) => (i === 0 ? { ...r, consistency: 1 } : r));
    const defined = resampledMetrics(withCons, 200, 1).C_correct.length;
    assert.equal(bootstrapIntervals(withCons, 200, 1).C_correct === null, defined * 2 < 200, `${defined} of 200 resamples define C_correct`);
  });
});
