/**
 * The endpoints of one model (replicas of one deployment, or the single in-process runtime),
 * with a concurrency limit each: a call takes the least-loaded endpoint under its limit and not
 * paused, or waits in order. The limit adapts (AIMD): a 429 halves it and pauses the endpoint
 * for the Retry-After time; a run of successes as long as the limit raises it by one again.
 */
export interface Endpoint {
  url: string;
  limit: number;
  active: number;
  successesSinceChange: number;
  pausedUntil: number;
}

interface Waiter {
  resolve: (endpoint: Endpoint) => void;
}

export class EndpointPool {
  readonly #endpoints: Endpoint[];
  readonly #maxConcurrency: number;
  readonly #waiters: Waiter[] = [];
  #wakeTimer: NodeJS.Timeout | undefined;

  /** `maxConcurrency`: calls per endpoint at once when nothing is rate-limited. */
  constructor(urls: readonly string[], maxConcurrency: number) {
    this.#maxConcurrency = maxConcurrency;
    this.#endpoints = urls.map((url) => ({ url, limit: maxConcurrency, active: 0, successesSinceChange: 0, pausedUntil: 0 }));
  }

  get size(): number {
    return this.#endpoints.length;
  }

  /** Least-loaded endpoint that is under its limit and not paused; waits if there is none. */
  acquire(): Promise<Endpoint> {
    const endpoint = this.#pick();
    if (endpoint) {
      endpoint.active += 1;
      return Promise.resolve(endpoint);
    }
    const waiting = new Promise<Endpoint>((resolve) => this.#waiters.push({ resolve }));
    this.#dispatch();
    return waiting;
  }

  #pick(): Endpoint | undefined {
    const now = Date.now();
    let best: Endpoint | undefined;
    for (const e of this.#endpoints) {
      if (e.active >= e.limit || e.pausedUntil > now) continue;
      if (!best || e.active / e.limit < best.active / best.limit) best = e;
    }
    return best;
  }

  /**
   * Adaptive concurrency (AIMD): a 429 halves the endpoint's limit and pauses it for the
   * Retry-After time; a run of successes as long as the limit raises it by one again.
   */
  release(endpoint: Endpoint, outcome: 'ok' | 'error' | 'rate-limited', pauseMs = 0): void {
    endpoint.active -= 1;
    if (outcome === 'rate-limited') {
      endpoint.limit = Math.max(1, Math.floor(endpoint.limit / 2));
      endpoint.successesSinceChange = 0;
      endpoint.pausedUntil = Math.max(endpoint.pausedUntil, Date.now() + pauseMs);
    } else if (outcome === 'ok' && endpoint.limit < this.#maxConcurrency) {
      endpoint.successesSinceChange += 1;
      if (endpoint.successesSinceChange >= endpoint.limit) {
        endpoint.limit += 1;
        endpoint.successesSinceChange = 0;
      }
    }
    this.#dispatch();
  }

  #dispatch(): void {
    while (this.#waiters.length > 0) {
      const endpoint = this.#pick();
      if (!endpoint) break;
      endpoint.active += 1;
      this.#waiters.shift()!.resolve(endpoint);
    }
    if (this.#waiters.length > 0 && this.#wakeTimer === undefined) {
      // Everything is paused by a Retry-After: wake up when the first pause ends.
      const now = Date.now();
      const next = Math.min(...this.#endpoints.filter((e) => e.active < e.limit).map((e) => e.pausedUntil));
      if (Number.isFinite(next)) {
        this.#wakeTimer = setTimeout(() => {
          this.#wakeTimer = undefined;
          this.#dispatch();
        }, Math.max(0, next - now));
      }
    }
  }
}
