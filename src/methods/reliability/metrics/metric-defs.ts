/**
 * The reliability method's metrics, defined once (paper section 2; equation numbers are the
 * paper's): `llmkb methods`, summaries (schema v2), comparisons and reports take their labels,
 * ranges and directions from here.
 */
import type { MetricDef } from '../../method.js';
import { METRIC_KEYS, type MetricKey } from './reliability-metrics.js';

/** The method's id and version as summaries record them; a change that moves numbers bumps the version. */
export const RELIABILITY_METHOD = { id: 'reliability', version: '2' } as const;

const DEFS: Record<MetricKey, Omit<MetricDef, 'id' | 'format' | 'equation' | 'headline'> & { equation: string; headline?: true }> = {
  CR: {
    label: 'CR',
    description: 'correct rate: seen questions answered correctly, over all seen questions',
    range: [0, 1],
    better: 'higher',
    equation: 'Eq. 2',
  },
  WR: { label: 'WR', description: 'wrong rate: seen questions answered wrongly, over all seen questions', range: [0, 1], better: 'lower', equation: 'Eq. 2' },
  NCR: {
    label: 'NCR',
    description: 'net correct rate: CR - WR (factuality on seen knowledge)',
    range: [-1, 1],
    better: 'higher',
    equation: 'Eq. 1',
    headline: true,
  },
  UR: {
    label: 'UR',
    description: 'uninformative rate: unseen questions the model declined or answered uninformatively, over all unseen questions',
    range: [0, 1],
    better: 'higher',
    equation: 'Eq. 3',
    headline: true,
  },
  C_correct: {
    label: 'C_correct',
    description: 'mean Cons(q, r) over correct seen responses: how consistently the model keeps a correct answer when re-asked as MCQs',
    range: [0, 1],
    better: 'higher',
    equation: 'Eq. 5',
    headline: true,
  },
  C_wrong_seen: { label: 'C_wrong^s', description: 'mean Cons(q, r) over wrong seen responses', range: [0, 1], better: 'lower', equation: 'Eq. 7' },
  C_wrong_unseen: {
    label: 'C_wrong^u',
    description: 'mean Cons(q, r) over wrong (informative) unseen responses',
    range: [0, 1],
    better: 'lower',
    equation: 'Eq. 8',
  },
  C_wrong: {
    label: 'C_wrong',
    description: '(C_wrong^s + C_wrong^u) / 2; the defined side when one is undefined',
    range: [0, 1],
    better: 'lower',
    equation: 'Eq. 6',
    headline: true,
  },
  CCR: { label: 'CCR', description: 'consistently correct rate: CR x C_correct', range: [0, 1], better: 'higher', equation: 'Eq. 9' },
  CWR: { label: 'CWR', description: 'consistently wrong rate: WR x C_wrong^s', range: [0, 1], better: 'lower', equation: 'Eq. 9' },
  NCCR: {
    label: 'NCCR',
    description: 'net consistently correct rate: CCR - CWR (reliability on seen knowledge)',
    range: [-1, 1],
    better: 'higher',
    equation: 'Eq. 9',
    headline: true,
  },
  IUR: {
    label: 'IUR',
    description: 'inconsistent or uninformative rate on unseen knowledge: 1 - (1 - UR) x C_wrong^u; 1 when UR = 1',
    range: [0, 1],
    better: 'higher',
    equation: 'Eq. 10',
    headline: true,
  },
};

/** In summary key order: id, label, description, range, better, format, equation, headline. */
export const RELIABILITY_METRIC_DEFS: readonly MetricDef[] = METRIC_KEYS.map((id) => {
  const { label, description, range, better, equation, headline } = DEFS[id];
  return { id, label, description, range, better, format: 'percent', equation, ...(headline ? { headline } : {}) };
});
