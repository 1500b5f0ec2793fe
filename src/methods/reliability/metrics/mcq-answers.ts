/**
 * Invalid MCQ answers (paper section 2.2, Eq. 4): an answer from which neither an option letter
 * nor an option's text can be read counts as not choosing the response, so a model that never
 * answers in the MCQ format gets Cons(q, r) = 0 everywhere: C_wrong 0 and IUR 100, the best
 * values, measured on the answer parser rather than the model. Every run counts its invalid
 * answers (per seen/unseen question and correct/wrong response), and when they are more than
 * INVALID_MCQ_WARNING_SHARE of all MCQ answers its summary carries a warning naming the metrics
 * built on Cons(q, r).
 */
import type { SummaryWarning } from '../../method-summary.js';
import { INVALID_MCQ_WARNING_SHARE } from '../defaults.js';
import type { MetricKey } from './reliability-metrics.js';

/** What a record says of its MCQs (`consistencyDetail` of the consistency stage's output). */
export interface McqRecord {
  dataset: 'seen' | 'unseen';
  label: 'correct' | 'wrong' | 'uninformative';
  consistency?: number | null | undefined;
  consistencyDetail?: { mcqs?: number | undefined; invalid?: number | undefined } | undefined;
}

/** MCQ answers of one group of responses and how many of them were invalid. */
export interface McqAnswerCount {
  answers: number;
  invalid: number;
}

/** Per question set and label of the response re-asked: seen correct and wrong, unseen wrong (and any other label that occurs). */
export type McqAnswerBreakdown = Record<'seen' | 'unseen', Record<string, McqAnswerCount>>;

/** The metrics built on Cons(q, r) (Eqs. 5-10): what invalid answers make unreliable. */
export const CONSISTENCY_METRICS: readonly MetricKey[] = ['C_correct', 'C_wrong_seen', 'C_wrong_unseen', 'C_wrong', 'CCR', 'CWR', 'NCCR', 'IUR'];

/**
 * The run's MCQ answers and invalid ones, in total and by group; undefined when a record with a
 * Cons(q, r) does not say how many of its answers were invalid (records of an older llmkb, or
 * items without their MCQs), as a partial count would understate them.
 */
export function countMcqAnswers(records: Iterable<McqRecord>): { total: McqAnswerCount; breakdown: McqAnswerBreakdown } | undefined {
  const total = { answers: 0, invalid: 0 };
  const breakdown: McqAnswerBreakdown = {
    seen: { correct: { answers: 0, invalid: 0 }, wrong: { answers: 0, invalid: 0 } },
    unseen: { wrong: { answers: 0, invalid: 0 } },
  };
  for (const r of records) {
    if (r.label === 'uninformative') continue;
    const mcqs = r.consistencyDetail?.mcqs;
    const invalid = r.consistencyDetail?.invalid;
    if (mcqs === undefined || invalid === undefined) {
      if (r.consistency === null || r.consistency === undefined) continue;
      return undefined;
    }
    const group = (breakdown[r.dataset][r.label] ??= { answers: 0, invalid: 0 });
    group.answers += mcqs;
    group.invalid += invalid;
    total.answers += mcqs;
    total.invalid += invalid;
  }
  return { total, breakdown };
}

/** The invalid share of a group's MCQ answers, e.g. `44.0%`; `-` when it has none. */
export function invalidShare(c: McqAnswerCount): string {
  return c.answers > 0 ? `${((100 * c.invalid) / c.answers).toFixed(1)}%` : '-';
}

/** The warning a summary carries when more than INVALID_MCQ_WARNING_SHARE of its MCQ answers were invalid. */
export function invalidMcqWarning(total: McqAnswerCount): SummaryWarning | undefined {
  if (total.answers === 0 || total.invalid <= INVALID_MCQ_WARNING_SHARE * total.answers) return undefined;
  return {
    message: `${total.invalid} of ${total.answers} MCQ answers (${invalidShare(total)}) were invalid: neither an option letter nor an option's text could be read from them. Eq. 4 counts an invalid answer as not choosing the response, so the consistency metrics (C_correct, C_wrong^s, C_wrong^u, C_wrong, CCR, CWR, NCCR, IUR) measure the answer parser here more than the model (a model that never answers in the format gets C_wrong 0 and IUR 100). Read the raw MCQ answers in llmkb view; --mode logprobs reads the option letter from the model's probabilities instead.`,
    metrics: [...CONSISTENCY_METRICS],
  };
}
