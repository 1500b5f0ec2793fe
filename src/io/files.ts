/** Reading and writing whole files: a BOM-free text read, an all-or-nothing write, a folder made level by level. */
import { mkdirSync, readFileSync, renameSync, rmSync, type Stats, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { errnoCode, FileAccessError, fileAccessError } from '../errors.js';
import { firstInvalidLineOf, notUtf8Error } from './utf8-check.js';
import { temporaryFileFor } from './temporary-file.js';

/**
 * A UTF-8 text file, without a leading byte-order mark (editors on Windows add one, and
 * JSON.parse rejects it). Errors name the path and what to do; a file that is not UTF-8 is
 * refused naming its first such line (./utf8-check.ts).
 */
export function readTextFile(file: string, what = 'file'): string {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (error) {
    throw fileAccessError(file, error, 'read', what);
  }
  // Bytes that are no UTF-8 would be read as U+FFFD and change every score silently: refused with the line.
  if (!isUtf8(data)) throw notUtf8Error(file, firstInvalidLineOf(data), 'Input files');
  const text = data.toString('utf8');
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
  const tmp = temporaryFileFor(file);
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

/**
 * Creates the folder `path` and its missing parents, one level at a time from the nearest folder
 * that exists, and returns the folders it created (outermost first). Not `mkdirSync` with
 * `recursive`: on Node 20 that loops forever where the file system answers a mkdir under an
 * existing folder with ENOENT (/proc, /sys). Errors name `path` (exit 6).
 */
export function makeFolder(path: string): string[] {
  const missing: string[] = [];
  for (let current = resolve(path); ; ) {
    let stats: Stats | undefined;
    try {
      stats = statSync(current);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw fileAccessError(path, error, 'write', 'folder');
    }
    if (stats !== undefined) {
      // A file where the folder (EEXIST) or one of its parents (ENOTDIR) should be.
      const code = missing.length === 0 ? 'EEXIST' : 'ENOTDIR';
      if (!stats.isDirectory()) throw fileAccessError(path, Object.assign(new Error(code), { code }), 'write', 'folder');
      break;
    }
    missing.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  const created: string[] = [];
  for (const folder of missing) {
    try {
      mkdirSync(folder);
      created.push(folder);
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'EEXIST' && statSync(folder, { throwIfNoEntry: false })?.isDirectory()) continue; // made meanwhile by another process
      if (code === 'ENOENT') {
        // Its parent exists (just checked or made): the file system itself refuses new folders there.
        throw new FileAccessError(path, `cannot create folder ${path}: the file system does not allow new folders in ${dirname(folder)}`, {
          code,
          hint: 'Choose a folder on a file system you can write to (not /proc or /sys).',
          cause: error,
        });
      }
      throw fileAccessError(path, error, 'write', 'folder');
    }
  }
  return created;
}
