/** JSONL (one JSON object per line): every record file llmkb reads and writes. */
import type { z } from 'zod';
import { InputFileError } from '../errors.js';
import { readTextFile } from './files.js';

export interface ReadJsonlOptions {
  /**
   * Records carry an `id` that must be unique in the file: a repeated id would be counted twice
   * by the metrics and collide in the run store, so it is refused naming both lines.
   */
  uniqueIds?: boolean;
  /** Accept a file with no records (default: refused, as no stage has anything to do with one). */
  allowEmpty?: boolean;
  /**
   * A check of a parsed line without the schema, for speed on large files: the record exactly as
   * the schema would give it, or undefined to let the schema decide (and name what is wrong).
   */
  fast?: (json: unknown) => unknown;
}

/** `query` -> `queries`, `record` -> `records`. */
function plural(word: string): string {
  return /[^aeiou]y$/.test(word) ? `${word.slice(0, -1)}ies` : `${word}s`;
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
      throw new InputFileError(
        file,
        i + 1,
        undefined,
        `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
        'Each line must be one JSON object (JSONL).',
      );
    }
    const checked = options.fast?.(json);
    const parsed = checked !== undefined ? { success: true as const, data: checked as T } : schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InputFileError(
        file,
        i + 1,
        issue.path.join('.') || undefined,
        `${issue.message}`,
        `Each ${what} needs the fields its format names (the command's --help and the docs/ page of its method).`,
      );
    }
    if (options.uniqueIds) {
      const id = (parsed.data as { id?: unknown }).id;
      if (typeof id === 'string') {
        const first = lineOfId.get(id);
        if (first !== undefined)
          throw new InputFileError(
            file,
            i + 1,
            'id',
            `duplicate id "${id}" (lines ${first} and ${i + 1})`,
            `Every ${what} needs a unique id: remove or rename one of the two.`,
          );
        lineOfId.set(id, i + 1);
      }
    }
    out.push(parsed.data);
  }
  if (out.length === 0 && !options.allowEmpty) {
    throw new InputFileError(
      file,
      undefined,
      undefined,
      `no ${plural(what)} (the file is empty)`,
      'Give a file with one JSON object per line; an empty file usually means an earlier step did not finish.',
    );
  }
  return out;
}

export function toJsonl(records: readonly unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + (records.length > 0 ? '\n' : '');
}

/**
 * The line (1-based) of the record with this id, for an error found after reading (e.g. a
 * record that refers to something missing elsewhere); undefined if no line has it.
 */
export function lineOfJsonlId(file: string, id: string): number | undefined {
  const lines = readTextFile(file).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    try {
      if ((JSON.parse(line) as { id?: unknown }).id === id) return i + 1;
    } catch {
      // Lines were parsed when the file was read; nothing to find here.
    }
  }
  return undefined;
}
