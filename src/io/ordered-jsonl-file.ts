/**
 * A JSONL file written while its records are made: records come in any order (as a stage's calls
 * finish), each with its position, and are written in position order as soon as every record
 * before it is written. The lines go to a temporary file beside the output, renamed onto it only
 * when every position is written, so the output is all or nothing, as with `writeFileAtomic`:
 * a run stopped part-way leaves no output file (and removes its temporary file where it can).
 * Memory holds only the records that wait for an earlier one (about a stage's concurrency), never
 * the whole file as one string.
 */
import { closeSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { fileAccessError } from '../errors.js';
import { temporaryFileFor } from './temporary-file.js';

/** Signals that end a run part-way. */
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Lines gathered before one write (fewer system calls; bounded memory). */
const WRITE_CHUNK_CHARS = 1 << 16;

export class OrderedJsonlFile<R> {
  readonly #file: string;
  readonly #tmp: string;
  readonly #total: number;
  /** A record made before this run (resumed), by position; undefined: it comes through `put`. */
  readonly #stored: (position: number, last: boolean) => R | undefined;
  readonly #waiting = new Map<number, R>();
  #fd: number | undefined;
  #next = 0;
  #chunk = '';
  #finished = false;
  /** Removes the temporary file when a signal ends the process (see `constructor`). */
  readonly #onSignal = (signal: NodeJS.Signals): void => {
    this.abort();
    // Ends the process as the signal would have, unless someone else handles it.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };

  /**
   * `total` records at positions 0..total-1. `stored(position, last)` returns a record that will
   * not come through `put` (made by an earlier run), read when its turn comes; it is asked for
   * every position whose record has not come yet, so it answers cheaply while `last` is false
   * (`last`: the stage is over, and every record not yet written is read).
   */
  constructor(file: string, total: number, stored: (position: number, last: boolean) => R | undefined) {
    let isDir = false;
    try {
      isDir = statSync(file).isDirectory();
    } catch {
      // Not there yet (the usual case), or unreadable: the open below reports it.
    }
    if (isDir) throw fileAccessError(file, Object.assign(new Error('is a directory'), { code: 'EISDIR' }), 'write');
    this.#file = file;
    this.#tmp = temporaryFileFor(file);
    this.#total = total;
    this.#stored = stored;
    try {
      this.#fd = openSync(this.#tmp, 'w');
    } catch (error) {
      throw fileAccessError(file, error, 'write');
    }
    // Ctrl-C or a kill (not -9) leaves neither the output nor the temporary file.
    for (const signal of SIGNALS) process.on(signal, this.#onSignal);
  }

  /** The record at `position`; written now if every earlier one is. */
  put(position: number, record: R): void {
    if (position !== this.#next) {
      this.#waiting.set(position, record);
      return;
    }
    this.#append(record);
    this.#drain(false);
  }

  /**
   * Writes every remaining position (records that never came through `put` are asked of
   * `stored` again, e.g. made by another process meanwhile), then renames the file onto the
   * output. Throws, leaving no output, when a position has no record.
   */
  finish(): void {
    this.#drain(true);
    this.#write();
    try {
      closeSync(this.#fd!);
      this.#fd = undefined;
      renameSync(this.#tmp, this.#file);
      this.#finished = true;
      for (const signal of SIGNALS) process.off(signal, this.#onSignal);
    } catch (error) {
      this.abort();
      throw fileAccessError(this.#file, error, 'write');
    }
  }

  /** Removes the temporary file (the run stopped): no output file is left. Nothing once `finish` has written the output. */
  abort(): void {
    if (this.#finished) return;
    for (const signal of SIGNALS) process.off(signal, this.#onSignal);
    if (this.#fd !== undefined) {
      try {
        closeSync(this.#fd);
      } catch {
        // Already closed by the system: only the file is left to remove.
      }
      this.#fd = undefined;
    }
    rmSync(this.#tmp, { force: true });
  }

  /** Writes the records that can go now: those waiting and those made before; with `all`, every one. */
  #drain(all: boolean): void {
    while (this.#next < this.#total) {
      const waiting = this.#waiting.get(this.#next);
      if (waiting !== undefined) {
        this.#waiting.delete(this.#next);
        this.#append(waiting);
        continue;
      }
      const stored = this.#stored(this.#next, all);
      if (stored !== undefined) {
        this.#append(stored);
        continue;
      }
      if (!all) break;
      this.abort();
      throw new Error(`OrderedJsonlFile: no record at position ${this.#next} of ${this.#total} for ${this.#file}`);
    }
    if (this.#chunk.length >= WRITE_CHUNK_CHARS) this.#write();
  }

  #append(record: R): void {
    this.#chunk += `${JSON.stringify(record)}\n`;
    this.#next++;
  }

  #write(): void {
    if (this.#chunk === '') return;
    const bytes = Buffer.from(this.#chunk, 'utf8');
    this.#chunk = '';
    try {
      for (let at = 0; at < bytes.length; ) at += writeSync(this.#fd!, bytes, at);
    } catch (error) {
      this.abort();
      throw fileAccessError(this.#file, error, 'write');
    }
  }
}
