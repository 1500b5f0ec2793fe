/** The temporary file of an all-or-nothing write, and what ended processes left of earlier ones. */
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { hostLabel, processAlive } from './process-alive.js';

/**
 * The temporary file that an all-or-nothing write of `file` fills and then renames onto `file`:
 * beside it (a rename within one folder), named by this machine and this process. What a process
 * of this machine that has ended left of an earlier write of `file` (a kill -9 gives it no chance
 * to remove its temporary file) is removed first. Another machine's is left alone: in a folder
 * that a cluster's nodes share, its process may still be writing.
 */
export function temporaryFileFor(file: string): string {
  const folder = dirname(file);
  const prefix = `${basename(file)}.tmp-${hostLabel()}-`;
  let names: string[] = [];
  try {
    names = readdirSync(folder);
  } catch {
    // No folder (yet), or an unreadable one: the write itself reports it.
  }
  for (const name of names) {
    const pid = name.startsWith(prefix) ? name.slice(prefix.length) : '';
    if (!/^[1-9]\d*$/.test(pid) || Number(pid) === process.pid || processAlive(Number(pid))) continue;
    try {
      rmSync(join(folder, name), { force: true });
    } catch {
      // Not ours to remove (another user's folder): it stays, as it would have.
    }
  }
  return join(folder, `${prefix}${process.pid}`);
}
