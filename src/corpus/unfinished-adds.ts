/**
 * Adds that did not finish. `corpus add` records itself in `corpus_adds` (when it started, the
 * host and process, the paths it was given) before its first write and deletes the record when
 * it ends, with or without an error: a record left behind is an add that is still running, or
 * one that was killed. A killed add leaves the files it had written whole, and may leave the
 * first batches of the file it was reading; `corpus list`, `search`, `stats` and
 * `data from-corpus` say so until an add of the same paths (or of folders holding them)
 * completes it.
 */
import { hostname } from 'node:os';
import { sep } from 'node:path';
import type { Db } from '../store/database.js';
import { processAlive } from '../io/process-alive.js';

export interface UnfinishedAdd {
  /** The record's id. */
  id: number;
  startedAt: string;
  host: string;
  pid: number;
  /** The files and folders the add was given (absolute). */
  paths: string[];
  /** true: the process is running; false: it is gone (killed); undefined: it ran on another host. */
  running: boolean | undefined;
}

/** Records an add of `paths` to corpus `corpusId` as running; returns its record's id. */
export function beginAdd(db: Db, corpusId: number, paths: readonly string[]): number {
  return Number(
    db
      .prepare('INSERT INTO corpus_adds (corpus_id, started_at, host, pid, paths) VALUES (?, ?, ?, ?, ?)')
      .run(corpusId, new Date().toISOString(), hostname(), process.pid, JSON.stringify(paths)).lastInsertRowid,
  );
}

function covers(paths: readonly string[], path: string): boolean {
  return paths.some((p) => path === p || path.startsWith(p.endsWith(sep) ? p : `${p}${sep}`));
}

/**
 * Deletes the record of a finished add. A completed add (`completed`: the paths it was given)
 * also deletes the records of killed adds of the same corpus whose paths it covered.
 */
export function endAdd(db: Db, corpusId: number, id: number, completed?: readonly string[]): void {
  db.prepare('DELETE FROM corpus_adds WHERE id = ?').run(id);
  if (completed === undefined) return;
  for (const add of unfinishedAdds(db, corpusId)) {
    if (add.running === false && add.paths.every((p) => covers(completed, p))) db.prepare('DELETE FROM corpus_adds WHERE id = ?').run(add.id);
  }
}

/** The adds of a corpus that have not finished, oldest first. */
export function unfinishedAdds(db: Db, corpusId: number): UnfinishedAdd[] {
  const rows = db.prepare('SELECT id, started_at, host, pid, paths FROM corpus_adds WHERE corpus_id = ? ORDER BY id').all(corpusId) as {
    id: number;
    started_at: string;
    host: string;
    pid: number;
    paths: string;
  }[];
  const here = hostname();
  return rows.map((r) => ({
    id: r.id,
    startedAt: r.started_at,
    host: r.host,
    pid: r.pid,
    paths: JSON.parse(r.paths) as string[],
    running: r.host === here ? r.pid === process.pid || processAlive(r.pid) : undefined,
  }));
}

function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** What an unfinished add means for the corpus's contents, and what to do, in one sentence. */
export function describeUnfinishedAdd(corpus: string, add: UnfinishedAdd): string {
  const paths = add.paths.map(shellWord).join(' ');
  const what = `an add of ${paths} started ${add.startedAt}`;
  if (add.running === true) return `corpus "${corpus}" is being added to (${what}, process ${add.pid}): it holds part of those files until the add ends`;
  const where = add.running === undefined ? ` on ${add.host} has not finished (it may still be running there)` : ' did not finish (the process is gone)';
  return `corpus "${corpus}" is incomplete: ${what}${where}; run \`llmkb corpus add ${shellWord(corpus)} ${paths}\` again to complete it`;
}
