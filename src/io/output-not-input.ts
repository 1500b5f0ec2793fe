/**
 * An output file must not be one of the command's inputs: `conner generate q.txt -o q.txt` would
 * replace the queries with the knowledge made from them. Checked before any work, by path (after
 * symbolic links) and, for files that exist, by device and inode (a hard link is the same file).
 * Refused with exit 2 (`EXIT_CODES.usage`), naming both.
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { EXIT_CODES, LlmkbError } from '../errors.js';

/** Where a path leads: its real path when it exists, else its folder's real path and its name. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return resolve(realpathSync(dirname(resolve(path))), basename(path));
    } catch {
      return resolve(path);
    }
  }
}

function identity(path: string): string | undefined {
  try {
    const s = statSync(path);
    return s.isFile() ? `${s.dev}:${s.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/** The first of `inputs` that is the same file as `output`, if any. */
export function sameFileAs(output: string, inputs: ReadonlyArray<string | undefined>): string | undefined {
  const real = realPath(output);
  const id = identity(output);
  return inputs.find((input) => input !== undefined && (realPath(input) === real || (id !== undefined && identity(input) === id)));
}

/** Refuses `output` when it is one of `inputs`; `option` names the output's option (`-o`, `--summary`). */
export function refuseOutputOverInput(output: string, inputs: ReadonlyArray<string | undefined>, option = '-o'): void {
  const input = sameFileAs(output, inputs);
  if (input === undefined) return;
  const same = input === output ? '' : ` (${input} is the same file)`;
  throw new LlmkbError(`${option} ${output} is also an input of this command${same}: writing it would destroy what it reads`, {
    exitCode: EXIT_CODES.usage,
    hint: `Write to another file (e.g. ${option} ${outputSuggestion(output)}); the input stays as it is.`,
  });
}

function outputSuggestion(output: string): string {
  const name = basename(output);
  const dot = name.lastIndexOf('.');
  const out = dot > 0 ? `${name.slice(0, dot)}.out${name.slice(dot)}` : `${name}.out`;
  return dirname(output) === '.' ? out : `${dirname(output)}/${out}`;
}
