/**
 * Option parsers and checks shared by the CLI commands. Every option is checked when the
 * command line is parsed, before any file is opened or written and before any model is loaded:
 * a typo costs nothing.
 */
import { statSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { FileAccessError, LlmkbError } from '../errors.js';

export function wholeNumber(value: string): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number >= 0');
  return n;
}

/** A count where zero makes no sense (batch size, MCQs, resamples, tokens): >= 1. */
export function positiveInteger(value: string): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number >= 1');
  return n;
}

export function finiteNumber(value: string): number {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(n)) throw new InvalidArgumentError('must be a number');
  return n;
}

/** A size or amount that must be above zero (e.g. --params in billions). */
export function positiveNumber(value: string): number {
  const n = finiteNumber(value);
  if (n <= 0) throw new InvalidArgumentError('must be a number > 0');
  return n;
}

/** A calendar date written YYYY-MM-DD that exists (no 2024-02-30). */
export function isoDate(value: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  const date = m ? new Date(`${m[0]}T00:00:00Z`) : undefined;
  if (!m || !date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== m[0]) {
    throw new InvalidArgumentError('must be a date written YYYY-MM-DD, e.g. 2024-04-13');
  }
  return m[0];
}

/** Commander collector for a repeatable option. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** An input file that must exist and be a file; `how` says how to produce it. */
export function requireFile(path: string, how: string): string {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    throw new FileAccessError(path, `${path} not found`, { code: 'ENOENT', hint: how });
  }
  if (!isFile) throw new FileAccessError(path, `${path} is a folder, not a file`, { code: 'EISDIR', hint: `Give the path of a file. ${how}` });
  return path;
}

/** An output file path that is a folder is refused before any work (not after it). */
export function checkOutputFile(path: string): string {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    // Does not exist yet: the usual case.
  }
  if (isDir) throw new FileAccessError(path, `cannot write ${path}: it is a folder`, { code: 'EISDIR', hint: 'Give the path of a file (a new name, or one inside that folder), not a folder.' });
  return path;
}

/**
 * New tokens cannot exceed the model's context window (prompt included); where the provider
 * knows its context size (in-process GGUF), a larger --max-tokens is refused up front instead
 * of failing on the first question.
 */
export function checkMaxTokens(model: object, maxTokens: number, option = '--max-tokens', defaultTokens = 100): void {
  const contextSize = (model as { contextSize?: unknown }).contextSize;
  if (typeof contextSize === 'number' && maxTokens >= contextSize) {
    throw new LlmkbError(`${option} ${maxTokens} does not fit the model's context window of ${contextSize} tokens (prompt included)`, {
      hint: `Use ${option} below ${contextSize} (the default is ${defaultTokens}), or a larger "contextSize" for this model in llmkb.config.json.`,
    });
  }
}
