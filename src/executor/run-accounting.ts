/**
 * What an executor's calls cost the run they are made for, over every process that works on it.
 * A call the executor pays for is written with its cache entry under the run and role (the
 * store's ledger of paid calls, paid-calls.ts), so a kill cannot lose it; this class keeps the
 * rest (`unpaid`), which the runner adds to the run's counts as it goes: cache hits, and calls
 * whose answer is not in the ledger (failed, made without a cache). A cache hit on a call an
 * earlier process paid for this run (a killed one; the first such hit on it here) is that call
 * again: it is already counted, so it is neither a call nor a cache hit of the run.
 */
import type { CallCache } from '../store/call-cache.js';
import { PROCESS_TOKEN, type CallPayer } from '../store/paid-calls.js';
import type { RunCalls } from '../store/run-spec.js';

export class RunAccounting {
  /** Counts of this executor's calls that the ledger of paid calls does not hold (see the class). */
  readonly unpaid: RunCalls = { calls: 0, cacheHits: 0, requests: 0, promptTokens: 0, completionTokens: 0 };
  readonly #cache: CallCache | null;
  #run: { run: string; role: string } | undefined;
  /** Keys of calls paid by an earlier process of the run that this process has met again. */
  #replayed = new Set<string>();

  constructor(cache: CallCache | null) {
    this.#cache = cache;
  }

  /** The run and role the calls are made for from now on (undefined: none). */
  attribute(run: { run: string; role: string } | undefined): void {
    this.#run = run;
    this.#replayed = new Set();
  }

  /** Who pays for a call made now, written with its cache entry (undefined: no run, or no cache to write to). */
  payer(): Omit<CallPayer, 'requests'> | undefined {
    return this.#run && this.#cache ? { ...this.#run, process: PROCESS_TOKEN } : undefined;
  }

  /** A call answered from the cache (`stored`) or by an identical call in flight. */
  hit(key: string, stored: boolean): void {
    if (stored && this.#run && this.#cache && !this.#replayed.has(key) && this.#cache.paidEarlier(this.#run.run, key)) {
      this.#replayed.add(key);
      return;
    }
    this.unpaid.calls += 1;
    this.unpaid.cacheHits += 1;
  }

  /** Calls that made `requests` requests and are not in the ledger (they failed, or were made with no payer or no cache). */
  unrecorded(calls: number, requests: number, usage?: { promptTokens: number; completionTokens: number }): void {
    this.unpaid.calls += calls;
    this.unpaid.requests += requests;
    this.unpaid.promptTokens += usage?.promptTokens ?? 0;
    this.unpaid.completionTokens += usage?.completionTokens ?? 0;
  }
}
