/**
 * A results folder's records file as the view reads it: each JSON object with its line (the
 * lines that cannot be read named by file and line, and counted), the registered method that
 * claims its first record, and an item of a run whose method is not registered.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ViewItem } from '../methods/method-presentation.js';
import { listMethods } from '../methods/registry.js';

/** An item of a run whose method is not registered: the usual fields, by their usual names. */
export function plainItem(record: Record<string, unknown>, seq: number): ViewItem {
  const text = (...keys: string[]) => keys.map((k) => record[k]).find((v): v is string => typeof v === 'string') ?? null;
  return {
    itemId: typeof record.id === 'string' ? record.id : String(seq),
    seq,
    label: text('label'),
    source: text('source'),
    dataset: text('dataset'),
    question: text('question', 'prompt'),
    response: text('response', 'answer'),
  };
}

/** The registered method that claims the first record of a records file. */
export async function claimantOf(file: string): Promise<string | undefined> {
  let first: Record<string, unknown>;
  try {
    const line = (await firstLine(file)).trim();
    first = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  for (const method of listMethods()) if (method.presentation && (await method.presentation()).claimsRecord?.(first)) return method.id;
  return undefined;
}

/** The first line of a file, read from its start only. */
async function firstLine(file: string): Promise<string> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8', end: 1 << 20 }), crlfDelay: Infinity });
  for await (const line of lines) if (line.trim() !== '') return line;
  return '';
}

/**
 * Each JSON object of a records file, with its line; the lines that cannot be read go to
 * `problems`, named by file and line (the first few) and counted.
 */
export async function readRecords(file: string, problems: string[], onRecord: (record: Record<string, unknown>, line: string) => void): Promise<void> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNo = 0;
  let bad = 0;
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      if (bad++ < PROBLEMS_SHOWN) problems.push(`${file}, line ${lineNo}: not valid JSON (${(error as Error).message})`);
      continue;
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record)) {
      if (bad++ < PROBLEMS_SHOWN) problems.push(`${file}, line ${lineNo}: not a JSON object`);
      continue;
    }
    onRecord(record as Record<string, unknown>, line);
  }
  if (bad > PROBLEMS_SHOWN) problems.push(`… and ${bad - PROBLEMS_SHOWN} more lines of ${file} that could not be read`);
}

/** Lines of a records file that could not be read, named (the first few) and counted. */
const PROBLEMS_SHOWN = 5;
