/**
 * Distractors for the consistency test (paper section 2.2, Figure 1(c), Table 8): 20 answers
 * similar to, yet distinct from, the model's response. From the distractor LLM's reply split on
 * [SEP]; when fewer than 3 are usable (or no distractor LLM is configured) topped up from a pool
 * of other questions' answers and other responses, same answer type first. A pool distractor is
 * never the response nor any accepted answer of the item itself (after SQuAD normalisation): an
 * MCQ that offered the gold answer beside a wrong response would ask a different question.
 */
import type { AnswerType } from '../data/qa-item.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import { normalizeAnswer } from '../../../text/normalize-answer.js';
import { declinesToAnswer } from '../judging/uninformative.js';
import { distractorPrompt } from '../prompts/paper-prompts.js';

export const DISTRACTORS_WANTED = 20;
export const MIN_DISTRACTORS = 3;

export interface DistractorDiagnostics {
  /** The reply had no [SEP]; it was split on new lines / semicolons / commas instead. */
  noSeparator: boolean;
  /** Items in the reply before cleaning. */
  itemsInReply: number;
  /** Dropped: empty, duplicates, equal to the response, "unsure"-like, or beyond the 20th. */
  droppedEmpty: number;
  droppedDuplicate: number;
  droppedEqualToResponse: number;
  droppedUnsure: number;
  droppedBeyondWanted: number;
}

export interface DistractorSet {
  distractors: string[];
  /** `llm:<identity>` or `pool`. */
  source: string;
  /** How many came from the answer pool. */
  toppedUp: number;
  diagnostics?: DistractorDiagnostics;
  /** The distractor LLM's raw reply and call key, for inspection. */
  reply?: string;
  callKey?: string;
}

function emptyDiagnostics(): DistractorDiagnostics {
  return { noSeparator: false, itemsInReply: 0, droppedEmpty: 0, droppedDuplicate: 0, droppedEqualToResponse: 0, droppedUnsure: 0, droppedBeyondWanted: 0 };
}

/** Cleans one item: numbering, bullets, surrounding quotes and trailing punctuation. */
function cleanItem(item: string): string {
  return item
    .trim()
    .replace(/^(\d+[.)]|[-*•])\s+/, '')
    .replace(/^["'“‘]+|["'”’]+$/g, '')
    .replace(/[.;,]+$/, '')
    .trim();
}

/** Splits and cleans a Table 8 reply for the response `response`. */
export function parseDistractorReply(reply: string, response: string, question = ''): { distractors: string[]; diagnostics: DistractorDiagnostics } {
  const diagnostics = emptyDiagnostics();
  // A base model may go on with the few-shot pattern ("\n\nQ: ..."): that is not part of the list.
  const body = reply.split(/\n\s*Q:/)[0]!;
  let parts: string[];
  if (/\[SEP\]/i.test(body)) {
    parts = body.split(/\[SEP\]/i);
  } else {
    diagnostics.noSeparator = true;
    parts = body.includes('\n') ? body.split('\n') : body.includes(';') ? body.split(';') : body.split(',');
  }
  diagnostics.itemsInReply = parts.length;
  const responseKey = normalizeAnswer(response);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of parts) {
    const item = cleanItem(raw);
    const key = normalizeAnswer(item);
    if (key === '') {
      diagnostics.droppedEmpty++;
      continue;
    }
    if (key === responseKey) {
      diagnostics.droppedEqualToResponse++;
      continue;
    }
    if (seen.has(key)) {
      diagnostics.droppedDuplicate++;
      continue;
    }
    if (key === 'unsure' || declinesToAnswer(item, question)) {
      diagnostics.droppedUnsure++;
      continue;
    }
    if (out.length >= DISTRACTORS_WANTED) {
      diagnostics.droppedBeyondWanted++;
      continue;
    }
    seen.add(key);
    out.push(item);
  }
  return { distractors: out, diagnostics };
}

/** What a pool draw must know of the item it draws for. */
export interface PoolItem {
  response: string;
  /** The item's accepted answers (every alias); none for an unseen question. */
  answers: readonly string[];
  answerType: AnswerType | null | undefined;
}

/** Other questions' answers and other responses, by answer type: the top-up pool. */
export class AnswerPool {
  readonly #byType = new Map<string, string[]>();
  readonly #all: string[] = [];
  readonly #keys = new Set<string>();

  add(answer: string, type: AnswerType | null | undefined): void {
    const text = answer.trim();
    const key = `${type ?? '*'}\u0000${normalizeAnswer(text)}`;
    if (text === '' || normalizeAnswer(text) === '' || this.#keys.has(key) || text.length > 200) return;
    this.#keys.add(key);
    const list = this.#byType.get(type ?? '*') ?? [];
    list.push(text);
    this.#byType.set(type ?? '*', list);
    this.#all.push(text);
  }

  /**
   * Up to `count` pool answers for an item, same type first, seeded: never the item's response,
   * any of its accepted answers, or anything in `also` (distractors it already has), whatever
   * their spelling (SQuAD normalisation).
   */
  draw(count: number, item: PoolItem, rng: SeededRandom, also: readonly string[] = []): string[] {
    const type = item.answerType;
    const excluded = new Set([item.response, ...item.answers, ...also].map(normalizeAnswer));
    const out: string[] = [];
    const take = (candidates: readonly string[]) => {
      for (const c of rng.shuffle(candidates)) {
        if (out.length >= count) return;
        const key = normalizeAnswer(c);
        if (excluded.has(key)) continue;
        excluded.add(key);
        out.push(c);
      }
    };
    if (type) take(this.#byType.get(type) ?? []);
    if (out.length < count) take(this.#all);
    return out;
  }

  get size(): number {
    return this.#all.length;
  }
}

export async function distractorsFor(options: {
  itemId: string;
  question: string;
  response: string;
  /** The item's accepted answers: a pool distractor is never one of them. */
  answers: readonly string[];
  answerType: AnswerType | null | undefined;
  pool: AnswerPool;
  seed: number;
  executor?: ModelExecutor;
}): Promise<DistractorSet & { cached: boolean }> {
  const rng = SeededRandom.stream(options.seed, 'distractors', options.itemId);
  if (!options.executor) {
    const distractors = options.pool.draw(DISTRACTORS_WANTED, options, rng);
    return { distractors, source: 'pool', toppedUp: distractors.length, cached: false };
  }
  const result = await options.executor.complete({ prompt: distractorPrompt(options.question, options.response), maxTokens: 400, stop: ['\n\nQ:', '\nQ:'] });
  const { distractors, diagnostics } = parseDistractorReply(result.value.text, options.response, options.question);
  let toppedUp = 0;
  if (distractors.length < MIN_DISTRACTORS) {
    const extra = options.pool.draw(DISTRACTORS_WANTED - distractors.length, options, rng, distractors);
    toppedUp = extra.length;
    distractors.push(...extra);
  }
  return {
    distractors,
    source: `llm:${options.executor.model.cacheIdentity}`,
    toppedUp,
    diagnostics,
    reply: result.value.text,
    callKey: result.key,
    cached: result.cached,
  };
}
