/** Reading and writing whole files: a BOM-free text read and an all-or-nothing write. */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileAccessError } from '../errors.js';

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
