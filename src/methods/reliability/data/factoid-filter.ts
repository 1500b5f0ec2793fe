/**
 * SeenQA step 1, factoid question extraction (paper section 3.2): exclude "why" questions,
 * questions with more than one distinct answer, and answers longer than five tokens.
 *
 * Decisions the paper leaves open (docs/reliability.md, "SeenQA"):
 * - "why": the word "why" anywhere in the question (case-insensitive).
 * - Distinct answers: TriviaQA aliases and PopQA `possible_answers` are aliases of one answer by
 *   construction. NQ lists every annotator's short answer; two of them are the same answer when,
 *   after SQuAD normalisation, one's tokens are contained in the other's ("December 1972" in
 *   "14 December 1972 UTC"; number words count as digits, "eight" = "8"); otherwise they are distinct entities ("Bobby Scott" / "Bob Russell").
 * - Length: white-space tokens of the shortest accepted answer (an item whose answer can be given
 *   in at most five tokens is a factoid); TriviaQA's long alias variants do not count against it.
 */
import { normalizeAnswer } from '../../../text/normalize-answer.js';
import type { SourceQuestion } from './source-readers.js';

export type FactoidRejection = 'why-question' | 'multiple-answers' | 'long-answer';

export const MAX_ANSWER_TOKENS = 5;

function tokens(text: string): string[] {
  return text.trim().split(/\s+/).filter(Boolean);
}

const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
];

/** Normalised tokens, with number words written as digits ("eight" and "8" are one answer). */
function answerTokens(text: string): string[] {
  return normalizeAnswer(text)
    .split(' ')
    .filter(Boolean)
    .map((t) => {
      const n = NUMBER_WORDS.indexOf(t);
      return n === -1 ? t : String(n);
    });
}

function sameAnswer(a: string, b: string): boolean {
  const ta = answerTokens(a);
  const tb = answerTokens(b);
  if (ta.length === 0 || tb.length === 0) return true;
  const [short, long] = ta.length <= tb.length ? [ta, tb] : [tb, ta];
  const set = new Set(long);
  return short.every((t) => set.has(t));
}

/** True when the answers are all aliases of one answer (see the rule above). */
export function hasSingleAnswer(item: Pick<SourceQuestion, 'source' | 'answers'>): boolean {
  if (item.source !== 'nq' || item.answers.length <= 1) return true;
  const [first, ...rest] = item.answers;
  return rest.every((a) => sameAnswer(first!, a));
}

export function factoidRejection(item: SourceQuestion): FactoidRejection | undefined {
  if (/\bwhy\b/i.test(item.question)) return 'why-question';
  if (!hasSingleAnswer(item)) return 'multiple-answers';
  const shortest = Math.min(...item.answers.map((a) => tokens(a).length));
  if (shortest > MAX_ANSWER_TOKENS) return 'long-answer';
  return undefined;
}
