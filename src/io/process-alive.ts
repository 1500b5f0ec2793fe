import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** This machine's name as it may stand in a file name (with a pid, it names a process of this machine). */
export function hostLabel(): string {
  return hostname().replace(/[^A-Za-z0-9_.-]/g, '_');
}

/**
 * Whether a process of this host is still running: a journal or a run lease whose process is gone
 * belongs to no one, and the next process takes it over. A zombie (a process that ended and that
 * its parent has not reaped yet, e.g. the llmkb command's process after a kill -9 of its launcher,
 * until init reaps it) has ended.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, owned by another user.
    return (error as { code?: string }).code === 'EPERM';
  }
  return !zombie(pid);
}

/** Linux: the state in /proc/PID/stat (after the command name in parentheses) is Z. Elsewhere: not known, so no. */
function zombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    // Gone between the two looks.
    return true;
  }
}
