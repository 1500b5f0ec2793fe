/**
 * Moves into the store the call journals that processes which ended left beside it (a kill, a
 * crash): their calls were reported done, so they must not be lost or paid for again.
 */
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { journalFileRows, journalOwner } from './call-journal.js';
import { insertRows } from './calls-table.js';
import type { Db } from './database.js';
import { processAlive } from '../io/process-alive.js';

/**
 * Moves the journals of ended processes of this host found beside `store` into it, and removes
 * them. A journal of a live process, or of another host (a store on a shared folder), is left
 * alone: its owner moves it. `ours`: this process's open journals, also left alone.
 */
export function recoverJournals(db: Db, store: string, ours: (file: string) => boolean): void {
  const folder = dirname(store);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = journalOwner(name, basename(store));
    if (!owner?.thisHost) continue;
    const file = join(folder, name);
    if (ours(file)) continue;
    if (owner.pid !== process.pid && processAlive(owner.pid)) continue;
    // One process at a time (the write lock, taken before the file is read, so no one moves it
    // twice); insertRows' own transaction nests inside as a savepoint.
    db.transaction(() => insertRows(db, journalFileRows(file))).immediate();
    rmSync(file, { force: true });
  }
}
