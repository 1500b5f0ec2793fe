/**
 * When a failed model call is tried again, and after how long: transient errors only (a
 * `ModelCallError` marked retryable: connection failures, time-outs, 408/409/425/429/5xx), at most
 * `maxRetries` times after the first attempt; the wait is the server's Retry-After when it gives
 * one (capped), else exponential back-off with jitter.
 */
import { ModelCallError } from '../errors.js';

/**
 * The server's Retry-After (ms) when it is guidance: zero, negative (the provider clamps those to
 * 0) or malformed values are none, since retrying at once would only hammer a server that is
 * already refusing, so they fall back to the exponential schedule.
 */
function serverWaitMs(error: unknown): number | undefined {
  const asked = error instanceof ModelCallError ? error.retryAfterMs : undefined;
  return asked !== undefined && Number.isFinite(asked) && asked > 0 ? asked : undefined;
}

/** Default cap on a server's Retry-After: long enough for a real rate-limit window, short enough not to look hung. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** A wait this long is said on the log (a run silent for longer than this looks hung)... */
const SAID_WAIT_MS = 5000;
/** ...once per this many ms: 64 calls refused at once are one note, not 64. */
const SAID_WAIT_EVERY_MS = 10_000;

export interface RetryPolicyOptions {
  /** Retries after the first attempt, for transient errors only (default 4). */
  maxRetries?: number;
  /** First back-off delay; doubles per retry (with jitter) up to `maxBackoffMs`. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Longest wait a server's Retry-After may impose (default 60 s): an hour-long one is capped, and said so. */
  maxRetryAfterMs?: number;
}

export class RetryPolicy {
  readonly maxRetries: number;
  readonly #baseBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #modelId: string;
  readonly #log: (line: string) => void;
  #cappedRetryAfterLogged = false;
  #waitSaidAt = Number.NEGATIVE_INFINITY;

  /** `log`: where the notes about long waits and a capped Retry-After go. */
  constructor(options: RetryPolicyOptions, modelId: string, log: (line: string) => void) {
    this.maxRetries = options.maxRetries ?? 4;
    this.#baseBackoffMs = options.baseBackoffMs ?? 500;
    this.#maxBackoffMs = options.maxBackoffMs ?? 60_000;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS;
    this.#modelId = modelId;
    this.#log = log;
  }

  /** Whether a failed attempt (0-based) is tried again. */
  retries(error: unknown, attempt: number): boolean {
    return error instanceof ModelCallError && error.retryable && attempt < this.maxRetries;
  }

  delayMs(attempt: number, error: unknown): number {
    const asked = serverWaitMs(error);
    const delay = this.#delayMs(attempt, asked);
    const capped = asked !== undefined && asked > this.#maxRetryAfterMs;
    const now = performance.now();
    // One note: the first capped Retry-After always (with what was asked and the cap), and a
    // long wait at most once every SAID_WAIT_EVERY_MS.
    if ((capped && !this.#cappedRetryAfterLogged) || (delay >= SAID_WAIT_MS && now - this.#waitSaidAt >= SAID_WAIT_EVERY_MS)) {
      this.#waitSaidAt = now;
      if (capped) this.#cappedRetryAfterLogged = true;
      const why = capped
        ? `the server asked to wait ${Math.round(asked / 1000)} s (Retry-After), capped at ${this.#maxRetryAfterMs / 1000} s (maxRetryAfterMs in llmkb.config.json)`
        : asked !== undefined
          ? 'the server asked to wait (Retry-After)'
          : `back-off after ${attempt + 1} failed attempt${attempt === 0 ? '' : 's'}`;
      this.#log(`note: ${this.#modelId}: waiting ${(delay / 1000).toFixed(1)} s before retrying: ${why}${error instanceof Error ? ` (${error.message})` : ''}`);
    }
    return delay;
  }

  #delayMs(attempt: number, asked: number | undefined): number {
    // The server's Retry-After wins over our own schedule, capped so that a bogus or hostile
    // "wait an hour" does not stall a run in silence.
    if (asked !== undefined) return Math.min(asked, this.#maxRetryAfterMs);
    const exp = Math.min(this.#maxBackoffMs, this.#baseBackoffMs * 2 ** attempt);
    return exp / 2 + Math.random() * (exp / 2);
  }

  /**
   * The error a call ends with: the error itself, or, when retries of a transient error ran out,
   * the same error saying how many attempts were made (and no longer retryable).
   */
  finalError(error: unknown, attempt: number): unknown {
    if (error instanceof ModelCallError && error.retryable && attempt > 0) {
      return new ModelCallError(`${error.message} (gave up after ${attempt + 1} attempts)`, {
        retryable: false,
        ...(error.status === undefined ? {} : { status: error.status }),
        ...(error.hint === undefined ? {} : { hint: error.hint }),
        cause: error,
      });
    }
    return error;
  }
}

/** A time-out of one attempt as a retryable `ModelCallError`; other errors as they are. */
export function normalizeError(error: unknown, timeoutMs: number, endpoint: string): unknown {
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new ModelCallError(`${endpoint}: no answer within ${timeoutMs} ms`, {
      retryable: true,
      endpoint,
      hint: 'Raise timeoutMs for this model in llmkb.config.json if the server is just slow.',
      cause: error,
    });
  }
  return error;
}
