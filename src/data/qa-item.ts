/**
 * The one question format every stage reads and writes: JSONL, one object per line.
 *
 *   {"id":"nq-3f2a9c01d4","dataset":"seen","source":"nq","question":"who wrote ...",
 *    "answers":["Bobby Scott"],"answerType":"person","sourceId":"NQ-open.dev.jsonl:2"}
 *
 * Users can bring their own question sets in this format.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { InputFileError } from '../errors.js';

export const ANSWER_TYPES = ['number', 'person', 'time', 'location', 'other'] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];

export const qaItemSchema = z
  .object({
    id: z.string().min(1),
    dataset: z.enum(['seen', 'unseen']),
    /** `nq`, `triviaqa`, `popqa`, `popqa-longtail`, or the UnseenQA template id (`T1`..`T20`); free text for user sets. */
    source: z.string().min(1),
    question: z.string().min(1),
    /** Accepted answers (aliases of one answer), the canonical (shown) one first. Empty for unseen questions. */
    answers: z.array(z.string()),
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

/** Parses a JSONL file line by line with `schema`; errors name the file, line and field. */
export function readJsonl<T>(file: string, schema: z.ZodType<T>, what = 'record'): T[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new InputFileError(file, undefined, undefined, 'cannot read the file', 'Check the path.');
  }
  const out: T[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new InputFileError(file, i + 1, undefined, `not valid JSON (${error instanceof Error ? error.message : String(error)})`, 'Each line must be one JSON object (JSONL).');
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InputFileError(file, i + 1, issue.path.join('.') || undefined, `${issue.message}`, `Each ${what} needs the fields documented in the README ("Record formats").`);
    }
    out.push(parsed.data);
  }
  return out;
}

/** Reads a question set and checks ids are unique. */
export function readQAItems(file: string): QAItem[] {
  const items = readJsonl(file, qaItemSchema, 'question');
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const before = seen.get(item.id);
    if (before !== undefined) {
      throw new InputFileError(file, undefined, 'id', `duplicate id "${item.id}" (items ${before + 1} and ${index + 1})`, 'Every question needs a unique id.');
    }
    seen.set(item.id, index);
  });
  return items;
}

export function toJsonl(records: readonly unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + (records.length > 0 ? '\n' : '');
}

/** Writes a file atomically: a crash leaves the old file or the new one, never half of one. */
export function writeFileAtomic(file: string, content: string | Uint8Array): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** `sha256:<hex>` of one line per record: identifies the data a run was made on. */
export function checksumOfLines<T>(records: readonly T[], line: (record: T) => string): string {
  const hash = createHash('sha256');
  for (const r of records) hash.update(`${line(r)}\n`);
  return `sha256:${hash.digest('hex')}`;
}
