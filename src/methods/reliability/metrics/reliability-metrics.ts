/**
 * The method's metrics (Zheng, Lapata & Pan, section 2), from labelled records with Cons(q, r):
 *
 *   CR = N_correct / N, WR = N_wrong / N                  (Eq. 2)
 *   NCR = CR - WR                                          (Eq. 1)
 *   UR = L_uninformative / L                               (Eq. 3)
 *   C_correct = mean Cons over correct seen responses       (Eq. 5)
 *   C_wrong^s, C_wrong^u = mean Cons over wrong seen / unseen responses (Eq. 7, 8)
 *   C_wrong = (C_wrong^s + C_wrong^u) / 2                  (Eq. 6)
 *   CCR = CR * C_correct, CWR = WR * C_wrong^s, NCCR = CCR - CWR   (Eq. 9)
 *   IUR = 1 - (1 - UR) * C_wrong^u                         (Eq. 10)
 *
 * Edge cases as the paper's tables treat them: a mean over an empty set is undefined (null,
 * shown "-", never 0); C_wrong is then the one defined side; IUR = 1 when UR = 1; a rate of 0
 * times an undefined mean is 0 (CCR = 0 when nothing is correct).
 */
export const METRIC_KEYS = ['CR', 'WR', 'NCR', 'UR', 'C_correct', 'C_wrong_seen', 'C_wrong_unseen', 'C_wrong', 'CCR', 'CWR', 'NCCR', 'IUR'] as const;
export type MetricKey = (typeof METRIC_KEYS)[number];
export type Metrics = Record<MetricKey, number | null>;

export interface MetricRecord {
  dataset: 'seen' | 'unseen';
  label: 'correct' | 'wrong' | 'uninformative';
  consistency?: number | null;
}

// A type, not an interface: it is also a summary's `Record<string, number>` of counts.
export type MetricCounts = {
  /** N: seen questions. */
  seen: number;
  seenCorrect: number;
  seenWrong: number;
  seenUninformative: number;
  /** L: unseen questions. */
  unseen: number;
  unseenWrong: number;
  unseenUninformative: number;
  /** Unseen responses labelled correct: impossible by the method; counted so input errors show. */
  unseenCorrect: number;
  /** Correct/wrong responses without a Cons(q, r) (left out of the consistency means). */
  consistencyMissing: number;
};

/** Rate times a mean: 0 when the rate is 0 (nothing to be consistent about), else undefined if the mean is. */
function rateTimesMean(rate: number | null, m: number | null): number | null {
  if (rate === null) return null;
  if (rate === 0) return 0;
  return m === null ? null : rate * m;
}

export function countRecords(records: readonly MetricRecord[]): MetricCounts {
  const c: MetricCounts = {
    seen: 0,
    seenCorrect: 0,
    seenWrong: 0,
    seenUninformative: 0,
    unseen: 0,
    unseenWrong: 0,
    unseenUninformative: 0,
    unseenCorrect: 0,
    consistencyMissing: 0,
  };
  for (const r of records) {
    if (r.dataset === 'seen') {
      c.seen++;
      if (r.label === 'correct') c.seenCorrect++;
      else if (r.label === 'wrong') c.seenWrong++;
      else c.seenUninformative++;
    } else {
      c.unseen++;
      if (r.label === 'wrong') c.unseenWrong++;
      else if (r.label === 'uninformative') c.unseenUninformative++;
      else c.unseenCorrect++;
    }
    if (r.label !== 'uninformative' && (r.consistency === null || r.consistency === undefined)) c.consistencyMissing++;
  }
  return c;
}

/** Metrics from per-group sums: the form the bootstrap needs (no allocation per resample). */
export interface MetricSums {
  n: number;
  nCorrect: number;
  nWrong: number;
  l: number;
  lUninformative: number;
  consCorrectSum: number;
  consCorrectCount: number;
  consWrongSeenSum: number;
  consWrongSeenCount: number;
  consWrongUnseenSum: number;
  consWrongUnseenCount: number;
}

export function metricsFromSums(s: MetricSums): Metrics {
  const CR = s.n > 0 ? s.nCorrect / s.n : null;
  const WR = s.n > 0 ? s.nWrong / s.n : null;
  const NCR = CR === null || WR === null ? null : CR - WR;
  const UR = s.l > 0 ? s.lUninformative / s.l : null;
  const C_correct = s.consCorrectCount > 0 ? s.consCorrectSum / s.consCorrectCount : null;
  const C_wrong_seen = s.consWrongSeenCount > 0 ? s.consWrongSeenSum / s.consWrongSeenCount : null;
  const C_wrong_unseen = s.consWrongUnseenCount > 0 ? s.consWrongUnseenSum / s.consWrongUnseenCount : null;
  const C_wrong = C_wrong_seen !== null && C_wrong_unseen !== null ? (C_wrong_seen + C_wrong_unseen) / 2 : (C_wrong_seen ?? C_wrong_unseen);
  const CCR = rateTimesMean(CR, C_correct);
  const CWR = rateTimesMean(WR, C_wrong_seen);
  const NCCR = CCR === null || CWR === null ? null : CCR - CWR;
  const IUR = UR === null ? null : UR === 1 ? 1 : C_wrong_unseen === null ? null : 1 - (1 - UR) * C_wrong_unseen;
  return { CR, WR, NCR, UR, C_correct, C_wrong_seen, C_wrong_unseen, C_wrong, CCR, CWR, NCCR, IUR };
}

/** Sums of no record: what addToSums starts from. */
export function emptySums(): MetricSums {
  return {
    n: 0,
    nCorrect: 0,
    nWrong: 0,
    l: 0,
    lUninformative: 0,
    consCorrectSum: 0,
    consCorrectCount: 0,
    consWrongSeenSum: 0,
    consWrongSeenCount: 0,
    consWrongUnseenSum: 0,
    consWrongUnseenCount: 0,
  };
}

export function sumsOf(records: readonly MetricRecord[]): MetricSums {
  const s = emptySums();
  for (const r of records) addToSums(s, r);
  return s;
}

export function addToSums(s: MetricSums, r: MetricRecord): void {
  const cons = r.consistency ?? null;
  if (r.dataset === 'seen') {
    s.n++;
    if (r.label === 'correct') {
      s.nCorrect++;
      if (cons !== null) {
        s.consCorrectSum += cons;
        s.consCorrectCount++;
      }
    } else if (r.label === 'wrong') {
      s.nWrong++;
      if (cons !== null) {
        s.consWrongSeenSum += cons;
        s.consWrongSeenCount++;
      }
    }
  } else {
    s.l++;
    if (r.label === 'uninformative') s.lUninformative++;
    else if (cons !== null) {
      // Unseen answers are uninformative or wrong (section 2.1); a "correct" unseen label is counted as wrong here.
      s.consWrongUnseenSum += cons;
      s.consWrongUnseenCount++;
    }
  }
}

export function computeMetrics(records: readonly MetricRecord[]): Metrics {
  return metricsFromSums(sumsOf(records));
}
