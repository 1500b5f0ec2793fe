/**
 * How each CONNER metric goes from items to the set, as the paper's tables report it. Most are
 * the mean of the items' values. Helpfulness (Eq. 6) is a ratio of the set's mean losses, clipped
 * after averaging (`helpfulnessAggregate`); under the sentence-label rule with
 * mean, the factuality shares count sentences over the whole set, as src/eval_exp.py does. All
 * are one form: each item gives a numerator and a denominator, the set's value is a function of
 * their sums, and a bootstrap resamples items and recomputes it (so a ratio's interval is the
 * ratio's, not the mean of per-item ratios').
 */
import type { SeededRandom } from '../../../sampling/seeded-random.js';
import type { ScoringChoices } from '../conner-choices.js';
import { sentenceLabel, type FactualityLabel } from '../scoring/factuality.js';
import type { ConnerScores, ScoredKnowledge } from '../scoring/scored-knowledge.js';

export interface MetricEstimate {
  mean: number | null;
  /** Items the metric is defined for. */
  n: number;
  ci: [number, number] | null;
}

export interface ItemParts {
  num: number;
  den: number;
}

export interface MetricAggregate {
  /** What one item adds to the set's sums; null: the metric is undefined for it. */
  parts(r: ScoredKnowledge): ItemParts | null;
  /** The set's value from the summed parts; null when undefined. */
  finish(num: number, den: number): number | null;
}

const SHARES: Record<string, FactualityLabel> = {
  fact_consistent: 'factual-consistent',
  non_verified: 'non-verified',
  fact_inconsistent: 'factual-inconsistent',
};

/** The record field of each metric id of CONNER_METRIC_DEFS with a per-item value of its own. */
const FIELD_OF: Record<string, Exclude<keyof ConnerScores, 'factualityLabel'>> = {
  factuality: 'factuality',
  relevance: 'relevance',
  coherence_sentence: 'coherenceSentence',
  coherence_paragraph: 'coherenceParagraph',
  informativeness: 'informativeness',
  helpfulness: 'helpfulness',
  helpfulness_raw: 'helpfulnessRaw',
  validity: 'validity',
};

/**
 * One item's value for a metric id of CONNER_METRIC_DEFS; null when undefined for it. A record
 * that stores a score under its metric id (the snake_case field names of method version 1) is
 * read by that name when the camelCase field is absent.
 */
export function metricValue(r: Pick<ScoredKnowledge, 'scores'>, id: string): number | null {
  const s = r.scores;
  const label = SHARES[id];
  if (label !== undefined) return s.factualityLabel === null ? null : s.factualityLabel === label ? 1 : 0;
  const field = FIELD_OF[id];
  if (field === undefined) return null;
  const v = s[field] ?? (s as unknown as Record<string, unknown>)[id];
  return typeof v === 'number' ? v : null;
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const ratio = (num: number, den: number): number | null => (den > 0 ? num / den : null);

/** Eq. 6 over the set: 1 - sum L(q,k,a) / sum L(q,k^-,a), the latter each item's mean over its u baselines. */
function helpfulnessAggregate(clip: boolean): MetricAggregate {
  return {
    parts: (r) => (r.helpfulness && r.helpfulness.baselineLosses.length > 0 ? { num: r.helpfulness.loss, den: mean(r.helpfulness.baselineLosses) } : null),
    finish: (num, den) => {
      if (!(den > 0)) return null;
      const raw = 1 - num / den;
      return clip ? Math.max(0, raw) : raw;
    },
  };
}

export function metricAggregate(id: string, choices: Pick<ScoringChoices, 'factualityRule' | 'aggregation'>): MetricAggregate {
  if (id === 'helpfulness') return helpfulnessAggregate(true);
  if (id === 'helpfulness_raw') return helpfulnessAggregate(false);
  const label = SHARES[id];
  if (label !== undefined && choices.factualityRule === 'labels' && choices.aggregation === 'mean') {
    return {
      parts: (r) =>
        r.scores.factualityLabel === null || r.sentences.length === 0
          ? null
          : { num: r.sentences.filter((s) => sentenceLabel(s.nli) === label).length, den: r.sentences.length },
      finish: ratio,
    };
  }
  return {
    parts: (r) => {
      const v = metricValue(r, id);
      return v === null ? null : { num: v, den: 1 };
    },
    finish: ratio,
  };
}

/**
 * The counts behind the factuality shares: items per label, or, under the sentence-label rule
 * with mean (where the shares count sentences over the set, as src/eval_exp.py does), sentences
 * per label over the items with a label; items without a label are counted apart, as
 * `(not scored)` or, when sentences are counted, `(items not scored)`.
 */
export function factualityLabelCounts(
  records: readonly ScoredKnowledge[],
  choices: Pick<ScoringChoices, 'factualityRule' | 'aggregation'>,
): { unit: 'items' | 'sentences'; counts: Record<string, number> } {
  const sentences = choices.factualityRule === 'labels' && choices.aggregation === 'mean';
  const counts: Record<string, number> = {};
  const add = (label: string, n = 1): void => {
    counts[label] = (counts[label] ?? 0) + n;
  };
  for (const r of records) {
    if (r.scores.factualityLabel === null) add(sentences ? '(items not scored)' : '(not scored)');
    else if (!sentences) add(r.scores.factualityLabel);
    else for (const s of r.sentences) add(sentenceLabel(s.nli));
  }
  return { unit: sentences ? 'sentences' : 'items', counts };
}

function percentile(sorted: readonly number[], p: number): number {
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** The set's value, and a percentile bootstrap interval that resamples the items and recomputes it. */
export function estimateSet(
  parts: readonly ItemParts[],
  finish: MetricAggregate['finish'],
  resamples: number,
  rng: SeededRandom,
  confidence = 0.95,
): MetricEstimate {
  if (parts.length === 0) return { mean: null, n: 0, ci: null };
  let num = 0;
  let den = 0;
  for (const p of parts) {
    num += p.num;
    den += p.den;
  }
  const value = finish(num, den);
  if (value === null || resamples <= 0) return { mean: value, n: parts.length, ci: null };
  const values: number[] = [];
  for (let b = 0; b < resamples; b++) {
    let sn = 0;
    let sd = 0;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[rng.int(0, parts.length - 1)]!;
      sn += p.num;
      sd += p.den;
    }
    const v = finish(sn, sd);
    if (v !== null) values.push(v);
  }
  if (values.length === 0) return { mean: value, n: parts.length, ci: null };
  values.sort((a, b) => a - b);
  const alpha = (1 - confidence) / 2;
  return { mean: value, n: parts.length, ci: [percentile(values, alpha), percentile(values, 1 - alpha)] };
}

/** The mean of plain values with its bootstrap interval (a metric that is a mean). */
export function estimate(values: readonly number[], resamples: number, rng: SeededRandom, confidence = 0.95): MetricEstimate {
  return estimateSet(
    values.map((v) => ({ num: v, den: 1 })),
    ratio,
    resamples,
    rng,
    confidence,
  );
}

/** One metric of a set of records. */
export function estimateMetric(
  records: readonly ScoredKnowledge[],
  id: string,
  choices: Pick<ScoringChoices, 'factualityRule' | 'aggregation'>,
  resamples: number,
  rng: SeededRandom,
): MetricEstimate {
  const agg = metricAggregate(id, choices);
  const parts = records.map((r) => agg.parts(r)).filter((p): p is ItemParts => p !== null);
  return estimateSet(parts, agg.finish, resamples, rng);
}
