/**
 * Input paths checked before any work: a file or folder that must exist and be one, the error
 * naming the path and saying how to produce it (exit 6, `EXIT_CODES.fileAccess`).
 */
import { type Stats, statSync } from 'node:fs';
import { FileAccessError, fileAccessError } from '../errors.js';

/** An input folder that must exist and be a folder (e.g. `--data-dir`); `how` says what to give. */
export function requireFolder(path: string, how: string): string {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (error) {
    const e = fileAccessError(path, error, 'read', 'folder');
    throw e instanceof FileAccessError
      ? new FileAccessError(path, e.message, { ...(e.code === undefined ? {} : { code: e.code }), hint: how, cause: error })
      : e;
  }
  if (!isDir) throw new FileAccessError(path, `${path} is a file, not a folder`, { code: 'ENOTDIR', hint: how });
  return path;
}

/** An input file that must exist and be a file; `how` says how to produce it. */
export function requireFile(path: string, how: string): string {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch {
    throw new FileAccessError(path, `${path} not found`, { code: 'ENOENT', hint: how });
  }
  if (stats.isDirectory()) throw new FileAccessError(path, `${path} is a folder, not a file`, { code: 'EISDIR', hint: `Give the path of a file. ${how}` });
  // A device (/dev/null), a FIFO or a socket: read twice by some commands, or never ending; not an input.
  if (!stats.isFile())
    throw new FileAccessError(path, `${path} is ${notAFile(stats)}, not a regular file`, {
      code: 'EINVAL',
      hint: `Give the path of a regular file (a pipe or device cannot be read twice). ${how}`,
    });
  return path;
}

function notAFile(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}
