/**
 * Model calls in flight by cache key: an identical call (same key: same model identity, kind and
 * request) made while one is in flight waits for its answer instead of making a request of its
 * own. One registry per call cache: executors sharing a cache share their calls in flight, as
 * they share the answers once cached (a sweep gives every run executors of its own over one
 * cache, and runs side by side send identical judge and distractor prompts). An executor without
 * a cache has a registry of its own.
 */
import type { CallCache } from '../store/call-cache.js';

const byCache = new WeakMap<CallCache, InFlightCalls>();

export class InFlightCalls {
  readonly #calls = new Map<string, Promise<unknown>>();

  /** The registry of the executors on `cache` (null: a new one). */
  static of(cache: CallCache | null): InFlightCalls {
    if (!cache) return new InFlightCalls();
    let calls = byCache.get(cache);
    if (!calls) byCache.set(cache, (calls = new InFlightCalls()));
    return calls;
  }

  /** The call in flight under `key`, if any (the caller knows what it answers). */
  get<T>(key: string): Promise<T> | undefined {
    return this.#calls.get(key) as Promise<T> | undefined;
  }

  /** Registers `promise` as the call in flight under `key` until it settles. */
  track(key: string, promise: Promise<unknown>): void {
    this.#calls.set(key, promise);
    const done = () => {
      if (this.#calls.get(key) === promise) this.#calls.delete(key);
    };
    // Also marks a failure as handled here: the callers see it through `promise`.
    promise.then(done, done);
  }
}
