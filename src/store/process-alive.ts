/**
 * Whether a process of this host still exists: a journal or a run lease whose process is gone
 * belongs to no one, and the next process takes it over.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
