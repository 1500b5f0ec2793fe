/**
 * The one question format every stage reads and writes: JSONL, one object per line.
 *
 *   {"id":"nq-3f2a9c01d4","dataset":"seen","source":"nq","question":"who wrote ...",
 *    "answers":["Bobby Scott"],"answerType":"person","sourceId":"NQ-open.dev.jsonl:2"}
 *
 * Users can bring their own question sets in this format.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { fileAccessError, InputFileError } from '../errors.js';

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

/**
 * A UTF-8 text file, without a leading byte-order mark (editors on Windows add one, and
 * JSON.parse rejects it). Errors name the path and what to do.
 */
export function readTextFile(file: string, what = 'file'): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw fileAccessError(file, error, 'read', what);
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export interface ReadJsonlOptions {
  /**
   * Records carry an `id` that must be unique in the file: a repeated id would be counted twice
   * by the metrics and collide in the run store, so it is refused naming both lines.
   */
  uniqueIds?: boolean;
  /** Accept a file with no records (default: refused, as no stage has anything to do with one). */
  allowEmpty?: boolean;
}

/** Parses a JSONL file line by line with `schema`; errors name the file, line and field. */
export function readJsonl<T>(file: string, schema: z.ZodType<T>, what = 'record', options: ReadJsonlOptions = {}): T[] {
  const text = readTextFile(file);
  const out: T[] = [];
  const lineOfId = new Map<string, number>();
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
    if (options.uniqueIds) {
      const id = (parsed.data as { id?: unknown }).id;
      if (typeof id === 'string') {
        const first = lineOfId.get(id);
        if (first !== undefined) throw new InputFileError(file, i + 1, 'id', `duplicate id "${id}" (lines ${first} and ${i + 1})`, `Every ${what} needs a unique id: remove or rename one of the two.`);
        lineOfId.set(id, i + 1);
      }
    }
    out.push(parsed.data);
  }
  if (out.length === 0 && !options.allowEmpty) {
    throw new InputFileError(file, undefined, undefined, `no ${what}s (the file is empty)`, 'Give a file with one JSON object per line; an empty file usually means an earlier step did not finish.');
  }
  return out;
}

/** Reads a question set and checks ids are unique. */
export function readQAItems(file: string): QAItem[] {
  return readJsonl(file, qaItemSchema, 'question', { uniqueIds: true });
}

export function toJsonl(records: readonly unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + (records.length > 0 ? '\n' : '');
}

/** Writes a file atomically: a crash leaves the old file or the new one, never half of one. */
export function writeFileAtomic(file: string, content: string | Uint8Array): void {
  // Checked first so that a folder given as the output leaves nothing beside it.
  let isDir = false;
  try {
    isDir = statSync(file).isDirectory();
  } catch {
    // Not there yet (the usual case), or unreadable: the write below reports it.
  }
  if (isDir) throw fileAccessError(file, Object.assign(new Error('is a directory'), { code: 'EISDIR' }), 'write');
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, content);
    renameSync(tmp, file);
  } catch (error) {
    // Never leave the temporary file behind: the output is all or nothing.
    try {
      rmSync(tmp, { force: true });
    } catch {
      // The folder itself is unusable: there is no temporary file to remove.
    }
    throw fileAccessError(file, error, 'write');
  }
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
