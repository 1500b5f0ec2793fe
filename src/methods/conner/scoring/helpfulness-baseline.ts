/**
 * Helpfulness as the released scripts score it (scripts/helpfulness/*.sh, src/helpfulness.py):
 * the 8-shot answer prompt and one baseline per data set.
 *
 * The prompt (src/helpfulness.py:135-176, zero_shot=False): up to 8 demonstrations
 * "Passage: {knowledge}\nQuery: {last turn}\nAnswer: {answer}" (a demonstration's knowledge with
 * its leading topic removed), each added while the words so far stay under 1,800 minus the test
 * example's, joined by a blank line, then "Passage: {k}\nQuery: {last turn}\nAnswer: " and the
 * answer, whose tokens are scored. No "Topic:" line. The scripts' demonstrations are the query's
 * line of the prompt file (8 training examples); here they are 8 other queries of the scored set,
 * drawn per query with the seed (a recorded departure), so a query's prompt is the same for every
 * generator.
 *
 * The baseline (src/helpfulness.py:109,140-141, knowledge_type=random_knowledge): one run per data
 * set whose passage for query i is the gold passage of a random demonstration of another query.
 * Here: the gold passage of one other query of the scored set, drawn per query id with the seed.
 * Its loss depends only on the query, the answer, that passage, the demonstrations and the loss
 * model, so every generator and every run on the same queries divides by the same losses: the
 * model calls are made once and kept in the call cache, and each record names the baseline by a
 * key over all of that (`baselineKey`), which `compare` checks across runs.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../store/call-key.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import type { GeneratedKnowledge } from '../generation/generate-knowledge.js';
import { baselinePool, type BaselineQuery } from './baseline-pool.js';

export { baselinePool, type BaselineQuery } from './baseline-pool.js';

/** src/helpfulness.py:31 keeps the first 8 demonstrations of a query's prompt line. */
export const RELEASED_HELPFULNESS_SHOTS = 8;
/** src/helpfulness.py:172: demonstrations are added while the prompt stays under 1,800 words. */
export const RELEASED_PROMPT_WORDS = 1800;

/** A query of the scored set as the baseline and the demonstrations use it. */

/** The baseline of one query: the passage it is scored with and the demonstrations before it. */
export interface SharedBaseline {
  /** The id of the query whose gold passage is k^-. */
  from: string;
  passage: string;
  demos: BaselineQuery[];
}

/** The query's last turn: a question, or the partner's last utterance (src/helpfulness.py:124-125). */
function lastTurn(q: Pick<BaselineQuery, 'query'>): string {
  const turns = q.query.split(' [SEP] ');
  return turns[turns.length - 1]!.trim();
}

const wordCount = (s: string): number => s.split(' ').length;

/** A demonstration's knowledge without its leading topic (src/helpfulness.py:167-168). */
function demoKnowledge(d: BaselineQuery): string {
  const k = (d.referenceKnowledge ?? '').trim();
  const topic = d.topic.trim();
  return (topic !== '' && k.startsWith(topic) ? k.slice(topic.length) : k).trim();
}

/** The scripts' helpfulness prompt before the answer: the demonstrations, then the test example (ending "Answer:"). */
export function releasedAnswerPrompt(q: Pick<BaselineQuery, 'query'>, knowledge: string, demos: readonly BaselineQuery[]): string {
  const test = `Passage: ${knowledge.trim()}\nQuery: ${lastTurn(q)}\nAnswer: `;
  let prompt = '';
  let words = 0;
  for (const d of demos) {
    const demonstration = `Passage: ${demoKnowledge(d)}\nQuery: ${lastTurn(d)}\nAnswer: ${(d.goldAnswer ?? '').trim()}`;
    if (words < RELEASED_PROMPT_WORDS - wordCount(test)) {
      prompt += `${demonstration}\n\n`;
      words += wordCount(demonstration);
    }
  }
  // The answer is scored as " {answer}" after "Answer:", the scripts' "Answer: " + answer.
  return `${prompt}${test}`.replace(/ $/, '');
}

/** One query's shared baseline: seeded by its id alone, so the same for every generator; undefined with no other query. */
export function sharedBaseline(id: string, pool: readonly BaselineQuery[], seed: number, shots = RELEASED_HELPFULNESS_SHOTS): SharedBaseline | undefined {
  const others = pool.filter((p) => p.id !== id);
  const [from] = SeededRandom.stream(seed, 'helpfulness-baseline', id).sample(others, 1);
  if (from === undefined) return undefined;
  const demos = SeededRandom.stream(seed, 'helpfulness-demos', id).sample(others, shots);
  return { from: from.id, passage: from.referenceKnowledge!, demos };
}

/**
 * The key of a data set's baseline: the loss model, the prompt form, the seed and every pool
 * query's id, question, answer and passage. Two runs with the same key divide by the same losses.
 */
export function baselineKey(scorerIdentity: string, prompt: string, seed: number, pool: readonly BaselineQuery[]): string {
  const hash = createHash('sha256').update(
    canonicalJson({ scorer: scorerIdentity, prompt, seed, pool: pool.map((p) => [p.id, p.query, p.goldAnswer, p.referenceKnowledge]) }),
  );
  return `sha256:${hash.digest('hex').slice(0, 16)}`;
}

/** The pool of one task's items (the shared baseline is per data set). */
export function poolsByTask(items: readonly GeneratedKnowledge[]): Map<string, BaselineQuery[]> {
  const out = new Map<string, BaselineQuery[]>();
  for (const task of new Set(items.map((k) => k.task))) out.set(task, baselinePool(items.filter((k) => k.task === task)));
  return out;
}
