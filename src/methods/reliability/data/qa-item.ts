/**
 * The one question format every stage reads and writes: JSONL, one object per line.
 *
 *   {"id":"nq-3f2a9c01d4","dataset":"seen","source":"nq","question":"who wrote ...",
 *    "answers":["Bobby Scott"],"answerType":"person","sourceId":"NQ-open.dev.jsonl:2"}
 *
 * Users can bring their own question sets in this format.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { readJsonl } from '../../../io/jsonl.js';

export const ANSWER_TYPES = ['number', 'person', 'time', 'location', 'other'] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];

/**
 * A field's error when it is missing or of the wrong type: what the field is for and an example,
 * so that a user writing their own question set can fix the line (zod's own message stays for
 * other issues, such as an empty string).
 */
function fieldError(what: string): { error: (problem: { input?: unknown; code?: string }) => string | undefined } {
  return {
    error: (problem) =>
      problem.input === undefined
        ? `missing: ${what}`
        : problem.code === 'invalid_type' || problem.code === 'invalid_value'
          ? `expected ${what}; found ${JSON.stringify(problem.input)?.slice(0, 60)}`
          : undefined,
  };
}

export const qaItemSchema = z
  .object({
    id: z.string(fieldError('a unique id for the question, e.g. "q1"')).min(1),
    dataset: z.enum(['seen', 'unseen'], fieldError('the question set, "seen" (answers known) or "unseen" (no answer exists)')),
    /** `nq`, `triviaqa`, `popqa`, `popqa-longtail`, or the UnseenQA template id (`T1`..`T20`); free text for user sets. */
    source: z.string(fieldError('the source the question comes from, for the by-source tables, e.g. "nq" or a name of your own')).min(1),
    question: z
      .string(fieldError('the question text, e.g. "What is the capital of France?"'))
      .refine((q) => q.trim() !== '', 'the question is empty or only white space'),
    /** Accepted answers (aliases of one answer), the canonical (shown) one first. Empty for unseen questions. */
    answers: z.array(z.string(), fieldError('a list of accepted answers, e.g. ["Paris"] ([] for an unseen question)')),
    answerType: z.enum(ANSWER_TYPES).nullish(),
    /** The item's id in its source data set (or file:line where the source has none). */
    sourceId: z.string().optional(),
  })
  .passthrough()
  .superRefine((item, ctx) => {
    if (item.dataset === 'seen' && item.answers.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['answers'], message: 'a seen question needs at least one accepted answer' });
    }
  });
export type QAItem = z.infer<typeof qaItemSchema>;

export function stableId(prefix: string, ...parts: string[]): string {
  return `${prefix}-${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 10)}`;
}

const KNOWN_FIELDS = new Set(['id', 'dataset', 'source', 'question', 'answers', 'answerType', 'sourceId']);

/**
 * A well-formed question as `qaItemSchema` gives it (its fields in the schema's order, then the
 * others), checked by hand: about a fifth of the schema's time, which is most of reading a large
 * question set. Undefined for anything else, which the schema then refuses naming the field.
 */
export function wellFormedQAItem(json: unknown): QAItem | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const o = json as Record<string, unknown>;
  if (typeof o.id !== 'string' || o.id === '' || (o.dataset !== 'seen' && o.dataset !== 'unseen') || typeof o.source !== 'string' || o.source === '')
    return undefined;
  if (typeof o.question !== 'string' || o.question.trim() === '' || !Array.isArray(o.answers) || !o.answers.every((a) => typeof a === 'string'))
    return undefined;
  if (o.dataset === 'seen' && o.answers.length === 0) return undefined;
  if (o.answerType !== undefined && o.answerType !== null && !(ANSWER_TYPES as readonly unknown[]).includes(o.answerType)) return undefined;
  if (o.sourceId !== undefined && typeof o.sourceId !== 'string') return undefined;
  const item: Record<string, unknown> = { id: o.id, dataset: o.dataset, source: o.source, question: o.question, answers: [...o.answers] };
  if ('answerType' in o) item.answerType = o.answerType;
  if ('sourceId' in o) item.sourceId = o.sourceId;
  for (const key in o) {
    if (key === '__proto__') return undefined;
    if (!KNOWN_FIELDS.has(key)) item[key] = o[key];
  }
  return item as QAItem;
}

/** Reads a question set and checks ids are unique. */
export function readQAItems(file: string): QAItem[] {
  return readJsonl(file, qaItemSchema, 'question', { uniqueIds: true, fast: wellFormedQAItem });
}
