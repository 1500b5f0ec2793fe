/**
 * The endpoints of one model (replicas of one deployment, or the single in-process runtime),
 * with a concurrency limit each: a call takes the endpoint with the fewest outstanding requests
 * among those under their limit, not paused and not taken out, or waits in order.
 *
 * - Adaptive concurrency (AIMD): a 429 halves the endpoint's limit and pauses it for the
 *   Retry-After time; a run of successes as long as the limit raises it by one again.
 * - Circuit breaker: a replica that fails `failureThreshold` calls in a row (errors worth a retry:
 *   a refused connection, a time-out, a 5xx) is taken out for a cool-down (`cooldownMs`, doubled
 *   each time it trips again, at most `maxCooldownMs`) while the others carry the load; then one
 *   trial call goes to it (half-open): a success puts it back, a failure takes it out again. The
 *   last replica still in service is never taken out (with nowhere else to go, waiting would only
 *   add the cool-down to the executor's own back-off).
 * - Accounting: calls each replica answered and failed, and how often it was taken out
 *   (`stats()`), for the run's execution record.
 */
export interface Endpoint {
  url: string;
  limit: number;
  active: number;
  successesSinceChange: number;
  pausedUntil: number;
  /** Calls answered / failed (retryable failures) by this endpoint. */
  served: number;
  failed: number;
  consecutiveFailures: number;
  /** closed: in service; open: taken out until `openUntil`; half-open: one trial call. */
  state: 'closed' | 'open' | 'half-open';
  openUntil: number;
  trips: number;
}

export interface EndpointStats {
  url: string;
  served: number;
  failed: number;
  /** Times the replica was taken out of service. */
  trips: number;
  state: Endpoint['state'];
}

export interface BreakerOptions {
  /** Failures in a row that take a replica out (default 3). */
  failureThreshold?: number;
  /** First cool-down (default 5 s); doubled per trip, at most `maxCooldownMs` (default 60 s). */
  cooldownMs?: number;
  maxCooldownMs?: number;
}

interface Waiter {
  resolve: (endpoint: Endpoint) => void;
}

export class EndpointPool {
  readonly #endpoints: Endpoint[];
  readonly #maxConcurrency: number;
  readonly #waiters: Waiter[] = [];
  readonly #threshold: number;
  readonly #cooldownMs: number;
  readonly #maxCooldownMs: number;
  #wakeTimer: NodeJS.Timeout | undefined;

  /** `maxConcurrency`: calls per endpoint at once when nothing is rate-limited. */
  constructor(urls: readonly string[], maxConcurrency: number, breaker: BreakerOptions = {}) {
    this.#maxConcurrency = maxConcurrency;
    this.#threshold = breaker.failureThreshold ?? 3;
    this.#cooldownMs = breaker.cooldownMs ?? 5_000;
    this.#maxCooldownMs = breaker.maxCooldownMs ?? 60_000;
    this.#endpoints = urls.map((url) => ({
      url,
      limit: maxConcurrency,
      active: 0,
      successesSinceChange: 0,
      pausedUntil: 0,
      served: 0,
      failed: 0,
      consecutiveFailures: 0,
      state: 'closed',
      openUntil: 0,
      trips: 0,
    }));
  }

  get size(): number {
    return this.#endpoints.length;
  }

  /** Per replica: calls answered and failed, times taken out, and whether it is in service now. */
  stats(): EndpointStats[] {
    return this.#endpoints.map((e) => ({ url: e.url, served: e.served, failed: e.failed, trips: e.trips, state: e.state }));
  }

  /** The endpoint with the fewest outstanding requests that may take one; waits if there is none. */
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

  /** How many calls an endpoint may have outstanding now (0: none). */
  #capacity(e: Endpoint, now: number): number {
    if (e.pausedUntil > now) return 0;
    if (e.state === 'open') {
      if (e.openUntil > now) return 0;
      // Cool-down over: one trial call.
      e.state = 'half-open';
    }
    return e.state === 'half-open' ? 1 : e.limit;
  }

  #pick(): Endpoint | undefined {
    const now = Date.now();
    let best: Endpoint | undefined;
    for (const e of this.#endpoints) {
      if (e.active >= this.#capacity(e, now)) continue;
      // Least outstanding requests; between equals, the one that has had the fewest calls (so idle
      // replicas take turns instead of the first one taking everything), then list order.
      if (!best || e.active < best.active || (e.active === best.active && e.served + e.failed < best.served + best.failed)) best = e;
    }
    return best;
  }

  /**
   * `ok`: answered; `rate-limited`: a 429 (AIMD, pause); `error`: a failure worth a retry,
   * counted against the replica (circuit breaker); `rejected`: the request's own fault (a 400),
   * which says nothing about the replica.
   */
  release(endpoint: Endpoint, outcome: 'ok' | 'error' | 'rate-limited' | 'rejected', pauseMs = 0): void {
    endpoint.active -= 1;
    if (outcome === 'rate-limited') {
      endpoint.limit = Math.max(1, Math.floor(endpoint.limit / 2));
      endpoint.successesSinceChange = 0;
      endpoint.pausedUntil = Math.max(endpoint.pausedUntil, Date.now() + pauseMs);
    } else if (outcome === 'ok') {
      endpoint.served += 1;
      endpoint.consecutiveFailures = 0;
      if (endpoint.state !== 'closed') endpoint.state = 'closed';
      if (endpoint.limit < this.#maxConcurrency) {
        endpoint.successesSinceChange += 1;
        if (endpoint.successesSinceChange >= endpoint.limit) {
          endpoint.limit += 1;
          endpoint.successesSinceChange = 0;
        }
      }
    } else if (outcome === 'error') {
      endpoint.failed += 1;
      endpoint.consecutiveFailures += 1;
      const trip = endpoint.state === 'half-open' || endpoint.consecutiveFailures >= this.#threshold;
      if (trip && this.#othersInService(endpoint)) {
        endpoint.state = 'open';
        endpoint.trips += 1;
        endpoint.openUntil = Date.now() + Math.min(this.#maxCooldownMs, this.#cooldownMs * 2 ** (endpoint.trips - 1));
      } else if (endpoint.state === 'half-open') {
        endpoint.state = 'closed';
      }
    }
    this.#dispatch();
  }

  /** Another replica is in service (closed), so this one may be taken out. */
  #othersInService(endpoint: Endpoint): boolean {
    return this.#endpoints.some((e) => e !== endpoint && e.state === 'closed');
  }

  #dispatch(): void {
    while (this.#waiters.length > 0) {
      const endpoint = this.#pick();
      if (!endpoint) break;
      endpoint.active += 1;
      this.#waiters.shift()!.resolve(endpoint);
    }
    if (this.#waiters.length > 0 && this.#wakeTimer === undefined) {
      // Everything is paused (Retry-After) or out (cool-down): wake up when the first of them ends.
      const now = Date.now();
      const next = Math.min(...this.#endpoints.filter((e) => e.active < e.limit).map((e) => Math.max(e.pausedUntil, e.state === 'open' ? e.openUntil : 0)));
      if (Number.isFinite(next)) {
        this.#wakeTimer = setTimeout(
          () => {
            this.#wakeTimer = undefined;
            this.#dispatch();
          },
          Math.max(0, next - now),
        );
      }
    }
  }
}
