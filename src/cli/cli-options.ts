/** Option parsers and checks shared by the CLI commands. */
import { existsSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { LlmkbError } from '../errors.js';

export function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number >= 0');
  return n;
}

export function finiteNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new InvalidArgumentError('must be a number');
  return n;
}

/** Commander collector for a repeatable option. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function requireFile(path: string, how: string): string {
  if (!existsSync(path)) throw new LlmkbError(`${path} not found`, { hint: how });
  return path;
}
