/**
 * Judging one response (paper section 3.3; docs/reliability.md, "Judging one response"): uninformative
 * rules first; then, for seen questions, SQuAD-normalised exact match against every accepted
 * answer, then the judge LLM with the paper's Table 7 prompt; an unseen question's informative
 * response is wrong (it has no answer anyone could know). Without a judge LLM, a documented
 * lexical rule decides instead and every record says its label is approximate.
 */
import { z } from 'zod';
import { qaItemSchema } from '../data/qa-item.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import { judgePrompt } from '../prompts/paper-prompts.js';
import { LEXICAL_JUDGE_ID, lexicalMatch } from './lexical-match.js';
import { normalizeAnswer } from '../../../text/normalize-answer.js';
import { detectUninformative, normalizeOnce, type UninformativeType } from './uninformative.js';

export type Label = 'correct' | 'wrong' | 'uninformative';

/** A record to judge: a question (the item format) plus the model's response. */
export const responseRecordSchema = qaItemSchema.and(z.object({ response: z.string() }).passthrough());
export type ResponseRecord = z.infer<typeof responseRecordSchema>;

export interface Decision {
  /** `rule:...`, `exact-match`, `llm:<model identity>`, `lexical`. */
  by: string;
  detail?: string;
  /** The judge LLM's raw replies (first attempt, and the retry if the first was unparseable). */
  replies?: string[];
  /** Cache keys of the judge calls: the exact exchange is in the store's call cache. */
  callKeys?: string[];
}

/** A labelled record, as `llmkb judge` writes it (read back by the consistency and metrics stages). */
export const judgedRecordSchema = responseRecordSchema.and(
  z
    .object({
      label: z.enum(['correct', 'wrong', 'uninformative']),
      uninformativeType: z.enum(['none', 'unsure', 'repetition']).nullable(),
      judgedBy: z.string(),
      decision: z.object({ by: z.string() }).passthrough(),
      approximate: z.boolean().optional(),
    })
    .passthrough(),
);

export type JudgedRecord = ResponseRecord & {
  label: Label;
  uninformativeType: UninformativeType | null;
  judgedBy: string;
  decision: Decision;
  /** True when no judge LLM was used for a seen, informative, non-exact response. */
  approximate?: boolean;
};

/** Strict parse of the Table 7 reply: it must start with yes or no. */
export function parseJudgeReply(reply: string): boolean | undefined {
  const first = reply
    .trim()
    .toLowerCase()
    .match(/^[a-z]+/)?.[0];
  return first === 'yes' ? true : first === 'no' ? false : undefined;
}

/** Lenient parse for the retry: the first standalone yes/no, if exactly one of them occurs. */
function parseJudgeReplyLenient(reply: string): boolean | undefined {
  const words = reply.toLowerCase().match(/\b(yes|no)\b/g) ?? [];
  const kinds = new Set(words);
  return kinds.size === 1 ? words[0] === 'yes' : undefined;
}

/** The part of judging that needs no model: uninformative rules, exact match, unseen = wrong. */
export function judgeByRules(record: ResponseRecord): JudgedRecord | undefined {
  const verdict = detectUninformative(record.response, record.question);
  if (verdict)
    return {
      ...record,
      label: 'uninformative',
      uninformativeType: verdict.type,
      judgedBy: verdict.rule,
      decision: { by: verdict.rule, detail: verdict.detail },
    };
  if (record.dataset === 'unseen') {
    return {
      ...record,
      label: 'wrong',
      uninformativeType: null,
      judgedBy: 'rule:unseen-informative',
      decision: { by: 'rule:unseen-informative', detail: 'an informative answer to an unseen question is wrong' },
    };
  }
  // The rules above normalised the same text unless it had prompt scaffolding (normalizeOnce).
  const normalized = normalizeOnce(record.response);
  // No length shortcut: lower-casing can lengthen a string ("İ" becomes "i̇", two code units).
  const match = record.answers.find((a) => normalizeAnswer(a) === normalized);
  if (match !== undefined)
    return { ...record, label: 'correct', uninformativeType: null, judgedBy: 'exact-match', decision: { by: 'exact-match', detail: `matches "${match}"` } };
  return undefined;
}

export interface JudgeStats {
  judgeCalls: number;
  unparseableReplies: number;
  lexicalFallbacks: number;
}

/** `judgedBy` of a record whose judge replies could not be parsed, so the lexical rule decided. */
export const JUDGE_REPLY_UNPARSEABLE = 'lexical (judge reply unparseable)';

export class ResponseJudge {
  readonly #judge: ModelExecutor | undefined;
  readonly stats: JudgeStats = { judgeCalls: 0, unparseableReplies: 0, lexicalFallbacks: 0 };

  constructor(options: { judge?: ModelExecutor } = {}) {
    this.#judge = options.judge;
  }

  get usesLLM(): boolean {
    return this.#judge !== undefined;
  }

  /** Returns the judged record and whether every model call it needed came from the cache. */
  async judge(record: ResponseRecord): Promise<{ record: JudgedRecord; cached: boolean }> {
    const byRule = judgeByRules(record);
    if (byRule) return { record: byRule, cached: false };
    if (!this.#judge) return { record: this.#lexical(record, 'lexical'), cached: false };
    const by = `llm:${this.#judge.model.cacheIdentity}`;
    const prompt = judgePrompt(record.question, record.answers, record.response.trim());
    const first = await this.#judge.complete({ prompt, maxTokens: 5 });
    this.stats.judgeCalls += 1;
    const replies = [first.value.text];
    const callKeys = [first.key];
    let verdict = parseJudgeReply(first.value.text);
    let cached = first.cached;
    if (verdict === undefined) {
      // One retry with room for a preamble ("Correctness: yes"), parsed leniently.
      this.stats.unparseableReplies += 1;
      const retry = await this.#judge.complete({ prompt, maxTokens: 20 });
      this.stats.judgeCalls += 1;
      replies.push(retry.value.text);
      callKeys.push(retry.key);
      cached &&= retry.cached;
      verdict = parseJudgeReplyLenient(retry.value.text);
      if (verdict === undefined) {
        this.stats.unparseableReplies += 1;
        this.stats.lexicalFallbacks += 1;
        const fallback = this.#lexical(record, JUDGE_REPLY_UNPARSEABLE);
        return { record: { ...fallback, decision: { ...fallback.decision, replies, callKeys } }, cached };
      }
    }
    return {
      record: { ...record, label: verdict ? 'correct' : 'wrong', uninformativeType: null, judgedBy: by, decision: { by, replies, callKeys } },
      cached,
    };
  }

  #lexical(record: ResponseRecord, by: string): JudgedRecord {
    const m = lexicalMatch(record.response, record.answers, { question: record.question });
    const detail = `${LEXICAL_JUDGE_ID}${m.rule ? ` ${m.rule}` : ''}: ${m.detail}`;
    return { ...record, label: m.correct ? 'correct' : 'wrong', uninformativeType: null, judgedBy: by, decision: { by, detail }, approximate: true };
  }
}
