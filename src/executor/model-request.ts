/**
 * One model request with its retries: an endpoint from the pool (released with how the request
 * went), a per-attempt time-out, bounded retries for transient errors only (./retry-policy.ts),
 * and the accounting of requests, tokens, latency, rate limits and failures.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ModelCallError } from '../errors.js';
import type { Usage } from '../providers/language-model.js';
import type { Accounting } from './accounting.js';
import type { EndpointPool } from './endpoint-pool.js';
import type { CallOptions } from './list-call.js';
import { normalizeError, type RetryPolicy } from './retry-policy.js';

/** What a request uses of its executor. */
export interface RequestContext {
  readonly endpoints: EndpointPool;
  readonly retry: RetryPolicy;
  readonly accounting: Accounting;
  readonly timeoutMs: number;
}

/** One model request with retries; accounts its requests (also in `tries`), tokens and latency. */
export async function requestWithRetries<T extends { usage: Usage }>(
  ctx: RequestContext,
  run: (opts: CallOptions) => Promise<T>,
  tries: { n: number },
): Promise<{ value: T; latencyMs: number }> {
  for (let attempt = 0; ; attempt++) {
    const endpoint = await ctx.endpoints.acquire();
    const started = performance.now();
    let error: unknown;
    let value: T | undefined;
    ctx.accounting.requests += 1;
    tries.n += 1;
    // A timer of its own, cleared when the call ends, rather than AbortSignal.timeout: that
    // timer stays armed for the whole time-out after the call, keeping every call's timer and
    // signal alive long enough to reach V8's old generation.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new DOMException(`The operation was aborted due to timeout`, 'TimeoutError')), ctx.timeoutMs);
    timer.unref();
    try {
      value = await run({ signal: timeout.signal, endpoint: endpoint.url });
    } catch (e) {
      error = e;
    } finally {
      clearTimeout(timer);
    }
    const latencyMs = performance.now() - started;
    if (error === undefined) {
      ctx.endpoints.release(endpoint, 'ok');
      const usage = (value as T).usage;
      ctx.accounting.promptTokens += usage.promptTokens;
      ctx.accounting.completionTokens += usage.completionTokens;
      ctx.accounting.evaluatedTokens += usage.evaluatedTokens;
      ctx.accounting.latencyMsTotal += latencyMs;
      return { value: value as T, latencyMs };
    }
    const normalized = normalizeError(error, ctx.timeoutMs, endpoint.url);
    const rateLimited = normalized instanceof ModelCallError && normalized.status === 429;
    if (rateLimited) ctx.accounting.rateLimited += 1;
    const delay = ctx.retry.delayMs(attempt, normalized);
    // A failure worth a retry counts against the replica; a request refused for itself (a 400) does not.
    const retryable = normalized instanceof ModelCallError && normalized.retryable;
    ctx.endpoints.release(endpoint, rateLimited ? 'rate-limited' : retryable ? 'error' : 'rejected', rateLimited ? delay : 0);
    if (!ctx.retry.retries(normalized, attempt)) {
      ctx.accounting.failures += 1;
      throw ctx.retry.finalError(normalized, attempt);
    }
    ctx.accounting.retries += 1;
    if (!rateLimited) await sleep(delay);
  }
}
