/**
 * Multiple-choice re-asking (paper section 2.2 Eq. 4, section 3.3): for a (question q,
 * response r) pair, X = 20 MCQs, each with 5 options: r, 3 distractors drawn for that MCQ, and
 * "unsure", in a shuffled order; Cons(q, r) is the share of MCQs in which the model picks r.
 *
 * Prompt (a decision the paper leaves open; docs/reliability.md, "Consistency"): the QA prompt of the run's setting with
 * its instruction line replaced by the MCQ instruction of Table 6's caption, the same shots, and
 * the question followed by its options, one per line as "A. option":
 *
 *   INSTRUCTION: Please answer knowledge-related multi-choice questions directly. ...
 *   QUESTION: Who wrote Hamlet?
 *   A. Christopher Marlowe
 *   B. unsure
 *   ...
 *   ANSWER:
 *
 * All the MCQs of one question share everything up to the options, so a server with prefix
 * caching (vLLM) and the in-process runtime evaluate that prefix once.
 */
import { ANSWER_MAX_TOKENS } from '../asking/ask-questions.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import type { PromptPrefix } from '../../../executor/call-params.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import { normalizeAnswer } from '../../../text/normalize-answer.js';
import { MCQ_INSTRUCTION, qaPrompt, type Shot } from '../prompts/paper-prompts.js';

export const LETTERS = ['A', 'B', 'C', 'D', 'E'] as const;
export type Letter = (typeof LETTERS)[number];
export const UNSURE_OPTION = 'unsure';
/** Options of the paper's MCQs: the response, 3 distractors and "unsure". */
export const MCQ_OPTIONS = 5;
/** Longer options are shortened in the prompt (a 2,000-character response would crowd out the rest). */
export const MAX_OPTION_CHARS = 300;

export interface Mcq {
  options: string[];
  /** Letter of the model's original response. */
  responseLetter: Letter;
  unsureLetter: Letter;
}

export type McqParse = 'letter' | 'option-text' | 'logprobs' | 'invalid';

export interface AnsweredMcq extends Mcq {
  /** The model's raw output (generate mode) or the letters' log-probabilities (logprobs mode). */
  raw: string;
  choice: Letter | null;
  parse: McqParse;
  choseResponse: boolean;
  /** Cache key of the call that answered it. */
  callKey?: string;
}

/** A letter, either case, to its option index. */
const LETTER_INDEX: Readonly<Record<string, number>> = { A: 0, B: 1, C: 2, D: 3, E: 4, a: 0, b: 1, c: 2, d: 3, e: 4 };

function shorten(option: string): string {
  const flat = option.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_OPTION_CHARS ? `${flat.slice(0, MAX_OPTION_CHARS - 1)}…` : flat;
}

/** X MCQs for one (q, r): 3 distractors sampled per MCQ, option order shuffled per MCQ, all seeded. */
export function buildMcqs(itemId: string, response: string, distractors: readonly string[], count: number, seed: number): Mcq[] {
  const mcqs: Mcq[] = [];
  for (let i = 0; i < count; i++) {
    const rng = SeededRandom.stream(seed, 'mcq', itemId, i);
    const three = rng.sample(distractors, 3);
    const options = rng.shuffle([response, ...three, UNSURE_OPTION]).map(shorten);
    // With fewer than 3 distractors there are fewer options; letters follow the options.
    const responseIndex = options.indexOf(shorten(response));
    mcqs.push({ options, responseLetter: LETTERS[responseIndex]!, unsureLetter: LETTERS[options.lastIndexOf(UNSURE_OPTION)]! });
  }
  return mcqs;
}

export function mcqPrompt(question: string, mcq: Mcq, shots: readonly Shot[] = []): string {
  const withOptions = `${question}\n${mcq.options.map((o, i) => `${LETTERS[i]}. ${o}`).join('\n')}`;
  return qaPrompt(withOptions, shots, MCQ_INSTRUCTION);
}

/**
 * What every MCQ prompt of a question shares: everything before its first option (see
 * mcqPrompt; the QA prompt ends with "QUESTION: <question>" and "ANSWER:" lines, so the options
 * come right after the question's line). For PromptPrefix.
 */
export function mcqPromptPrefix(question: string, shots: readonly Shot[] = []): string {
  const prompt = qaPrompt(`${question}\n`, shots, MCQ_INSTRUCTION);
  return prompt.slice(0, prompt.length - '\nANSWER:'.length);
}

/**
 * Strict parse of a generated choice: one option letter ("B", "(B)", "B.", "B) text",
 * "Option B", "Answer: B"), with nothing after it that names another letter unless it is that
 * option's own text; or exactly one option's text. Anything else (two letters, another language,
 * prose) is invalid and does not count as choosing the response.
 */
export function parseChoice(output: string, mcq: Mcq): { choice: Letter | null; parse: McqParse } {
  // The usual answer, a lone letter (" B"): what the general path below gives it, without its
  // regular expressions (100,000 MCQs in a paper-scale run).
  const trimmed = output.trim();
  if (trimmed.length === 1) {
    const index = LETTER_INDEX[trimmed];
    if (index !== undefined && index < mcq.options.length) return { choice: LETTERS[index]!, parse: 'letter' };
  }
  const text = output.split(/\n\s*(?:QUESTION|INSTRUCTION):/)[0]!.trim();
  const letters = LETTERS.slice(0, mcq.options.length);
  const lone = /^\(?([a-eA-E])\)?[.)]?$/.exec(text);
  if (lone && letters.includes(lone[1]!.toUpperCase() as Letter)) return { choice: lone[1]!.toUpperCase() as Letter, parse: 'letter' };
  const m = /^(?:(?:[Oo]ption|[Aa]nswer)\s*:?\s*)?\(?([A-E])\)?(?=$|[\s.):,;!-])[.):]?/.exec(text);
  if (m && letters.includes(m[1] as Letter)) {
    const letter = m[1] as Letter;
    const rest = text.slice(m[0].length).trim();
    const ownText = normalizeAnswer(mcq.options[LETTERS.indexOf(letter)]!);
    const firstLine = normalizeAnswer(rest.split('\n')[0]!);
    const namesAnother = new RegExp(`\\b[${letters.join('')}]\\b`).test(rest.split('\n')[0]!);
    if (!namesAnother || firstLine === ownText || firstLine.startsWith(`${ownText} `)) return { choice: letter, parse: 'letter' };
    return { choice: null, parse: 'invalid' };
  }
  const key = normalizeAnswer(text.split('\n')[0]!);
  const matches = key === '' ? [] : mcq.options.flatMap((o, i) => (normalizeAnswer(o) === key ? [i] : []));
  if (matches.length === 1) return { choice: LETTERS[matches[0]!]!, parse: 'option-text' };
  return { choice: null, parse: 'invalid' };
}

export type AnswerMode = 'logprobs' | 'generate';

/**
 * Where a generated answer ends: at the end of its answer line. `parseChoice` reads the choice
 * from the reply's first line (a letter, with its option's text at most, or an option's text), so
 * what follows is never read: stopping there saves the tokens a model writes on after its answer.
 */
export const GENERATE_STOP = ['\n'];

/**
 * A reply that stops before any text (the model begins with a line break) is asked again up to
 * the next QA block, where its answer line may follow: the choice is then read as from any reply.
 */
export const GENERATE_STOP_AFTER_BREAK = ['\nQUESTION:', '\nINSTRUCTION:'];

/**
 * Generate mode's token budget for one MCQ: room for the letter and, since a model may answer
 * with the option's text instead, for the longest option (at most about 2 characters a token,
 * numbers and rare names included), capped at the QA answer budget. A model that answers with a
 * letter and a newline stops long before it.
 */
export function generateBudget(mcq: Mcq): number {
  let longest = 0;
  for (const o of mcq.options) longest = Math.max(longest, o.length);
  return Math.min(ANSWER_MAX_TOKENS, 4 + Math.ceil(longest / 2));
}

/**
 * An answered MCQ, its fields in the order of the stored records (the records file's bytes depend
 * on it). Written out rather than spread (`{ ...mcq, raw, ... }`): the spread is slower on every
 * MCQ of a cached re-run (bench/README.md).
 */
function answeredMcq(mcq: Mcq, raw: string, choice: Letter | null, parse: McqParse, callKey: string): AnsweredMcq {
  return {
    options: mcq.options,
    responseLetter: mcq.responseLetter,
    unsureLetter: mcq.unsureLetter,
    raw,
    choice,
    parse,
    choseResponse: choice === mcq.responseLetter,
    callKey,
  };
}

/** Asks one MCQ. Returns the answered MCQ and whether the call came from the cache. */
export async function answerMcq(
  executor: ModelExecutor,
  prompt: string,
  mcq: Mcq,
  mode: AnswerMode,
  prefix?: PromptPrefix,
): Promise<{ answered: AnsweredMcq; cached: boolean; evaluatedTokens: number }> {
  const letters = LETTERS.slice(0, mcq.options.length);
  if (mode === 'logprobs') {
    const r = await executor.nextTokenLogprobs({ prompt, candidates: [...letters] });
    let best: Letter | null = null;
    let bestLp = Number.NEGATIVE_INFINITY;
    for (const l of letters) {
      const lp = r.value.logprobs[l];
      if (lp !== null && lp !== undefined && lp > bestLp) {
        best = l;
        bestLp = lp;
      }
    }
    const raw = JSON.stringify(r.value.logprobs);
    return {
      answered: answeredMcq(mcq, raw, best, best === null ? 'invalid' : 'logprobs', r.key),
      cached: r.cached,
      evaluatedTokens: r.cached ? 0 : r.value.usage.evaluatedTokens,
    };
  }
  const first = await executor.complete({ prompt, maxTokens: generateBudget(mcq), stop: GENERATE_STOP }, prefix);
  const again =
    first.value.text.trim() === '' && first.value.finishReason === 'stop'
      ? await executor.complete({ prompt, maxTokens: generateBudget(mcq), stop: GENERATE_STOP_AFTER_BREAK }, prefix)
      : undefined;
  const r = again ?? first;
  const { choice, parse } = parseChoice(r.value.text, mcq);
  return {
    answered: answeredMcq(mcq, r.value.text, choice, parse, r.key),
    cached: r.cached && first.cached,
    evaluatedTokens: (first.cached ? 0 : first.value.usage.evaluatedTokens) + (again && !again.cached ? again.value.usage.evaluatedTokens : 0),
  };
}

/** Eq. (4): Cons(q, r) = (1/X) sum_i [R_i = r]. Invalid answers count as not choosing r. */
export function consistencyScore(answered: readonly AnsweredMcq[]): number {
  if (answered.length === 0) throw new Error('Cons(q, r) needs at least one MCQ');
  return answered.filter((a) => a.choseResponse).length / answered.length;
}
