/**
 * The items behind each reliability metric in the viewer: the items a metric's value is computed
 * from (its denominator, paper section 2), so the runs list, the run page and its breakdowns link
 * each value to them.
 */
import type { MetricItems } from '../../method-presentation.js';

/** The items behind each metric, as the metric defines them (its denominator; paper section 2). */
export const METRIC_ITEMS: Readonly<Record<string, MetricItems>> = {
  CR: { selection: { dataset: 'seen' }, title: 'the seen questions (its denominator)' },
  WR: { selection: { dataset: 'seen' }, title: 'the seen questions (its denominator)' },
  NCR: { selection: { dataset: 'seen' }, title: 'the seen questions (CR - WR: both over them)' },
  UR: { selection: { dataset: 'unseen' }, title: 'the unseen questions (its denominator)' },
  C_correct: { selection: { dataset: 'seen', label: 'correct' }, title: 'the correct seen responses (Cons(q, r) averaged over them)' },
  C_wrong_seen: { selection: { dataset: 'seen', label: 'wrong' }, title: 'the wrong seen responses (Cons(q, r) averaged over them)' },
  C_wrong_unseen: { selection: { dataset: 'unseen', label: 'wrong' }, title: 'the wrong unseen responses (Cons(q, r) averaged over them)' },
  C_wrong: { selection: { label: 'wrong' }, title: 'the wrong responses, seen and unseen (the mean of their two averages)' },
  CCR: { selection: { dataset: 'seen' }, title: 'the seen questions (CR x C_correct)' },
  CWR: { selection: { dataset: 'seen' }, title: 'the seen questions (WR x C_wrong^s)' },
  NCCR: { selection: { dataset: 'seen' }, title: 'the seen questions (CCR - CWR)' },
  IUR: { selection: { dataset: 'unseen' }, title: 'the unseen questions (from UR and C_wrong^u)' },
};
