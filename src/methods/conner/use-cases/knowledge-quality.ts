/**
 * The overall quality of knowledge k for query q, paper Eq. 9:
 * Q_know(q, k) = gamma^T . S_intr, S_intr = [S_fact, S_rel, S_coh_para, S_info]^T, gamma in R^4.
 * The paper does not give gamma; llmkb's default weighs the four equally (1, 1, 1, 1). A metric
 * that was not scored for an item contributes 0 and is listed in `missing`.
 */
import { InvalidArgumentError } from 'commander';
import type { GeneratedKnowledge } from '../generation/generate-knowledge.js';
import type { ScoredKnowledge } from '../scoring/score-knowledge.js';
import { metricValue } from '../summary/metric-aggregates.js';

export type Gamma = [number, number, number, number];
export const DEFAULT_GAMMA: Gamma = [1, 1, 1, 1];
export const INTRINSIC_METRICS = ['factuality', 'relevance', 'coherence_paragraph', 'informativeness'] as const;

export function knowledgeQuality(r: Pick<ScoredKnowledge, 'scores'>, gamma: Gamma): { q: number; missing: string[] } {
  let q = 0;
  const missing: string[] = [];
  INTRINSIC_METRICS.forEach((m, i) => {
    const v = metricValue(r, m);
    if (v === null) missing.push(m);
    else q += gamma[i]! * v;
  });
  return { q, missing };
}

/**
 * Which of Q's four terms ranked the texts, for the terminal: a term no text had a value for
 * (its scorer not configured) adds 0 everywhere, so Q ranks by the others.
 */
export function qTermsLine(missing: ReadonlyArray<readonly string[]>): string {
  const absent = INTRINSIC_METRICS.filter((m) => missing.length > 0 && missing.every((ms) => ms.includes(m)));
  const used = INTRINSIC_METRICS.filter((m) => !absent.includes(m));
  if (absent.length === 0) return `Q ranks by all 4 of its terms (${used.join(', ')})`;
  return `Q ranks by ${used.length} of its 4 terms (${used.join(', ') || 'none'}); not scored, so 0 for every candidate: ${absent.join(', ')} (give their scorers: --nli, --relevance, --coherence or --scorer)`;
}

/**
 * A knowledge record as it is scored for Q_know: without the gold answer and the downstream
 * answers, so that only the four intrinsic metrics of Eq. 9 are computed (helpfulness and
 * validity are not part of Q, and would cost a language-model pass per negative).
 */
export function intrinsicOnly(k: GeneratedKnowledge): GeneratedKnowledge {
  const { goldAnswer: _gold, answerWithKnowledge: _with, answerWithoutKnowledge: _without, ...rest } = k;
  return rest;
}

/** `--gamma 1,1,1,1`: four numbers, for fact, rel, coh_para, info. */
export function parseGamma(value: string): Gamma {
  const parts = value.split(',').map((p) => p.trim());
  const numbers = parts.map((p) => (p === '' ? Number.NaN : Number(p)));
  if (numbers.length !== 4 || numbers.some((n) => !Number.isFinite(n))) {
    throw new InvalidArgumentError(
      'must be four numbers separated by commas: weights of factuality, relevance, paragraph coherence, informativeness (Eq. 9), e.g. 1,1,1,1',
    );
  }
  return numbers as Gamma;
}
