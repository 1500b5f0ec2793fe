/**
 * The output oracle's own arithmetic: the paper's metrics (Eqs. 1-10), their breakdowns, the
 * flags, Pearson's R and the effects, computed from a run's records file with nothing of
 * src/ (so a bug there cannot hide itself in the expected value).
 */
import { readFileSync } from 'node:fs';

export interface OracleRecord {
  id: string;
  dataset: 'seen' | 'unseen';
  source: string;
  answerType?: string | null;
  label: 'correct' | 'wrong' | 'uninformative';
  uninformativeType?: string | null;
  consistency?: number | null;
  consistencyDetail?: { mcqs?: number; invalid?: number };
  approximate?: boolean;
}

export const METRICS = ['CR', 'WR', 'NCR', 'UR', 'C_correct', 'C_wrong_seen', 'C_wrong_unseen', 'C_wrong', 'CCR', 'CWR', 'NCCR', 'IUR'] as const;
export type Metric = (typeof METRICS)[number];
export type Values = Record<Metric, number | null>;
export const CONSISTENCY: readonly Metric[] = ['C_correct', 'C_wrong_seen', 'C_wrong_unseen', 'C_wrong', 'CCR', 'CWR', 'NCCR', 'IUR'];

export function readRecords(file: string): OracleRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as OracleRecord);
}

const mean = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** Eqs. 1-10 over a set of records. */
export function metricsOf(records: readonly OracleRecord[]): Values {
  const seen = records.filter((r) => r.dataset === 'seen');
  const unseen = records.filter((r) => r.dataset === 'unseen');
  const cons = (rs: OracleRecord[]) => rs.map((r) => r.consistency).filter((c): c is number => typeof c === 'number');
  const CR = seen.length ? seen.filter((r) => r.label === 'correct').length / seen.length : null;
  const WR = seen.length ? seen.filter((r) => r.label === 'wrong').length / seen.length : null;
  const UR = unseen.length ? unseen.filter((r) => r.label === 'uninformative').length / unseen.length : null;
  const C_correct = mean(cons(seen.filter((r) => r.label === 'correct')));
  const C_wrong_seen = mean(cons(seen.filter((r) => r.label === 'wrong')));
  const C_wrong_unseen = mean(cons(unseen.filter((r) => r.label !== 'uninformative')));
  const C_wrong = C_wrong_seen !== null && C_wrong_unseen !== null ? (C_wrong_seen + C_wrong_unseen) / 2 : (C_wrong_seen ?? C_wrong_unseen);
  // CCR = CR x C_correct and CWR = WR x C_wrong^s, 0 when the rate is 0 (no such response).
  const CCR = CR === null ? null : CR === 0 ? 0 : C_correct === null ? null : CR * C_correct;
  const CWR = WR === null ? null : WR === 0 ? 0 : C_wrong_seen === null ? null : WR * C_wrong_seen;
  return {
    CR,
    WR,
    NCR: CR === null || WR === null ? null : CR - WR,
    UR,
    C_correct,
    C_wrong_seen,
    C_wrong_unseen,
    C_wrong,
    CCR,
    CWR,
    NCCR: CCR === null || CWR === null ? null : CCR - CWR,
    IUR: UR === null ? null : UR === 1 ? 1 : C_wrong_unseen === null ? null : 1 - (1 - UR) * C_wrong_unseen,
  };
}

export function bySource(records: readonly OracleRecord[]): Map<string, { n: number; seen: number; unseen: number; values: Values }> {
  const out = new Map<string, { n: number; seen: number; unseen: number; values: Values }>();
  for (const source of new Set(records.map((r) => r.source))) {
    const rs = records.filter((r) => r.source === source);
    out.set(source, {
      n: rs.length,
      seen: rs.filter((r) => r.dataset === 'seen').length,
      unseen: rs.filter((r) => r.dataset === 'unseen').length,
      values: metricsOf(rs),
    });
  }
  return out;
}

/** More than a tenth of the run's MCQ answers name no option: its consistency metrics are flagged. */
export function flaggedMetrics(records: readonly OracleRecord[]): Set<Metric> {
  let answers = 0;
  let invalid = 0;
  for (const r of records) {
    if (r.label === 'uninformative') continue;
    answers += r.consistencyDetail?.mcqs ?? 0;
    invalid += r.consistencyDetail?.invalid ?? 0;
  }
  return new Set(answers > 0 && invalid / answers > 0.1 ? CONSISTENCY : []);
}

export function pearson(x: readonly number[], y: readonly number[]): number | null {
  if (x.length < 3) return null;
  const mx = mean([...x])!;
  const my = mean([...y])!;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
    syy += (y[i]! - my) ** 2;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

/** The paper's size classes (section 3): small < 5B, medium 5-30B, large > 30B. */
export function sizeClass(paramsB: number): 'small' | 'medium' | 'large' {
  return paramsB < 5 ? 'small' : paramsB <= 30 ? 'medium' : 'large';
}

export { mean };

/** A value as the tables print it: x100, two decimals (`-` for none). */
export const pct = (v: number | null, digits = 2): string => (v === null ? '-' : (100 * v).toFixed(digits));
