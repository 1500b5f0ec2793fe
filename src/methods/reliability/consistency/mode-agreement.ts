/**
 * The answer-mode check a run prints after its consistency stage: the MCQs of a few seeded
 * sampled pairs are asked again in the other answer mode (generate vs logprobs). It is a check on
 * the run, not part of its metrics: Cons(q, r) is read from the MCQ answers, and the paper reads
 * them by generating (`--mode generate`); the line says how much the run's consistency metrics
 * would move if they were read the other way, and what a reader should do about it.
 */
import type { AnswerMode } from './mcq.js';

export interface ModeAgreement {
  /** Pairs whose MCQs were asked again. */
  pairs: number;
  mcqs: number;
  /** MCQs where both modes chose the same option (or both none). */
  agree: number;
  /** MCQs whose answer in the run's own mode names no option. */
  invalid: number;
  rate: number;
}

/** Agreement from which a run's consistency metrics are read as not depending on the answer mode. */
export const MODE_AGREEMENT_HIGH = 0.9;

/** The line the run prints; empty when no MCQ was re-asked. */
export function modeAgreementLine(setting: string, mode: AnswerMode, a: ModeAgreement): string {
  if (a.mcqs === 0) return '';
  const other = mode === 'logprobs' ? 'generate' : 'logprobs';
  const head = `${setting}: answer-mode check (a check, not part of the metrics): the ${a.mcqs} MCQs of ${a.pairs} seeded sampled pair(s), asked again in ${other} mode, got the option the run's ${mode} mode chose in ${a.agree}/${a.mcqs} (${(100 * a.rate).toFixed(1)}%)`;
  const invalid = a.invalid > 0 ? `; ${a.invalid} of them name no option in ${mode} mode (invalid answers count as not choosing the response)` : '';
  const reading =
    a.rate >= MODE_AGREEMENT_HIGH
      ? `. Read: the consistency metrics (C_correct, C_wrong, NCCR, IUR) hardly depend on how MCQ answers are read.`
      : `. Read: the consistency metrics (C_correct, C_wrong, NCCR, IUR) depend on how MCQ answers are read; compare this run only with runs of the same --mode${mode === 'generate' ? '' : " (the paper's is generate)"}.`;
  return `${head}${invalid}${reading}`;
}
