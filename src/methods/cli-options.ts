/**
 * Option parsers and checks shared by the CLI commands. Every option is checked when the
 * command line is parsed, before any file is opened or written and before any model is loaded:
 * a typo costs nothing.
 */
import { accessSync, constants, rmdirSync, type Stats, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { isoDateOf } from '../text/iso-date.js';
import { errnoCode, FileAccessError, fileAccessError } from '../errors.js';
import { makeFolder } from '../io/files.js';
import { NO_MODEL } from '../config/no-model.js';
import { requireFolder } from '../io/require-path.js';
import { refuseOutputOverInput } from '../io/output-not-input.js';

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

/** A TCP port: 0 (any free port) to 65535. */
export function portNumber(value: string): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n > 65535) throw new InvalidArgumentError('must be a port number from 0 to 65535 (0: any free port)');
  return n;
}

/**
 * An address to listen on: an IPv4 or IPv6 address (brackets allowed: [::1]) or a host name. A
 * dotted number that is no IPv4 address (256.1.1.1) is refused, not looked up as a name.
 */
export function listenAddress(value: string): string {
  const host = value.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) return host;
  const label = '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?';
  if (!/^[\d.]+$/.test(host) && host.length <= 253 && new RegExp(`^${label}(\\.${label})*$`, 'i').test(host)) return host;
  throw new InvalidArgumentError('must be an IP address of this machine (e.g. 127.0.0.1, ::1, 0.0.0.0 for every interface) or its host name');
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
  const date = isoDateOf(value);
  if (date === undefined) throw new InvalidArgumentError('must be a date written YYYY-MM-DD, e.g. 2024-04-13');
  return date;
}

/** Commander collector for a repeatable option. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A comma-separated list that a repeated option adds to (`--settings a --settings b,c` is `a,b,c`). */
export function commaList(value: string, previous?: string): string {
  return previous === undefined ? value : `${previous},${value}`;
}

/**
 * The folder with local copies of the data sets' source files: `--data-dir`, else
 * $LLMKB_DATA_DIR (empty counts as unset), checked to be a folder before any work. Undefined:
 * the files are downloaded.
 */
export function checkSourceDataDir(option: string | undefined): string | undefined {
  const dir = option ?? process.env.LLMKB_DATA_DIR;
  if (!dir) return undefined;
  return requireFolder(
    dir,
    `Give the folder holding the source files with --data-dir${option === undefined ? ' (here from LLMKB_DATA_DIR)' : ''}, or drop it to download them.`,
  );
}

/** The role's entry, or none when the command line says `none` (see NO_MODEL). */
export function optionalRoleEntry<E>(ws: { entryFor(role: never, override?: string): E | undefined }, role: string, spec: string | undefined): E | undefined {
  if (spec?.trim() === NO_MODEL) return undefined;
  return ws.entryFor(role as never, spec);
}

/**
 * An output file is checked before any work, so that a typo in `-o`/`--junit` costs nothing
 * (not a whole evaluation, then exit 6 with the result lost): the path must not be a folder, an
 * existing file must be writable, and its folder must exist, be a folder and be writable.
 * Errors name the path and say what to do (exit 6, `EXIT_CODES.fileAccess`). An output that is one
 * of the command's `inputs` is refused (exit 2, ../io/output-not-input.ts).
 */
export function checkOutputFile(path: string, inputs: ReadonlyArray<string | undefined> = [], option = '-o'): string {
  refuseOutputOverInput(path, inputs, option);
  let stats: Stats | undefined;
  try {
    stats = statSync(path);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw fileAccessError(path, error, 'write');
  }
  if (stats?.isDirectory())
    throw new FileAccessError(path, `cannot write ${path}: it is a folder`, {
      code: 'EISDIR',
      hint: 'Give the path of a file (a new name, or one inside that folder), not a folder.',
    });
  if (stats !== undefined) {
    // An existing file is replaced by an atomic rename (a temporary file in its folder), so the
    // folder must be writable too; the file itself must be, or the user did not mean to replace it.
    writable(path, path, 'file');
  }
  const parent = dirname(resolve(path));
  let parentStats: Stats;
  try {
    parentStats = statSync(parent);
  } catch (error) {
    throw fileAccessError(path, error, 'write');
  }
  if (!parentStats.isDirectory()) throw fileAccessError(path, Object.assign(new Error('ENOTDIR'), { code: 'ENOTDIR' }), 'write');
  writable(parent, path, 'file');
  return path;
}

/**
 * An output folder (`--out`, eval's `--data`) is checked before any work. It may not exist yet
 * (it is created then): its nearest existing ancestor must be a writable folder in which a
 * folder can be made (tried: made and removed at once, since some file systems, such as /proc,
 * refuse where the permissions allow). An existing folder must be writable, unless
 * `existingMayBeReadOnly` (eval's `--data`: a folder of data sets already built is only read). A
 * file where the folder (or one of its ancestors) should be is refused.
 */
export function checkOutputFolder(path: string, options: { existingMayBeReadOnly?: boolean } = {}): string {
  let current = resolve(path);
  for (;;) {
    let stats: Stats | undefined;
    try {
      stats = statSync(current);
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOTDIR') throw folderError(path, 'ENOTDIR');
      if (code !== 'ENOENT') throw fileAccessError(path, error, 'write', 'folder');
    }
    if (stats !== undefined) {
      const isTarget = current === resolve(path);
      if (!stats.isDirectory()) throw folderError(path, isTarget ? 'EEXIST' : 'ENOTDIR');
      if (!(isTarget && options.existingMayBeReadOnly)) writable(current, path, 'folder');
      if (!isTarget) tryMakingFolder(path);
      return path;
    }
    const parent = dirname(current);
    if (parent === current) return path; // the root exists on every system; unreachable in practice
    current = parent;
  }
}

/** Makes the folder `path` and removes again what was made (errors name `path`, exit 6). */
function tryMakingFolder(path: string): void {
  for (const made of makeFolder(path).reverse()) {
    try {
      rmdirSync(made);
    } catch {
      // Another process has begun to use it: it stays, as it would once this command made it.
    }
  }
}

function folderError(path: string, code: 'EEXIST' | 'ENOTDIR'): unknown {
  return fileAccessError(path, Object.assign(new Error(code), { code }), 'write', 'folder');
}

/** `access(W_OK)` on `checked`, reported as an error writing `path` (the path the user gave). */
function writable(checked: string, path: string, what: 'file' | 'folder'): void {
  try {
    accessSync(checked, constants.W_OK);
  } catch (error) {
    const e = fileAccessError(path, error, 'write', what);
    if (e instanceof FileAccessError && checked !== path && checked !== resolve(path)) {
      throw new FileAccessError(path, `${e.message} (the folder ${checked} is not writable)`, {
        ...(e.code === undefined ? {} : { code: e.code }),
        ...(e.hint === undefined ? {} : { hint: e.hint }),
        cause: error,
      });
    }
    throw e;
  }
}
