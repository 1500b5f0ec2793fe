import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ModelCallError } from '../errors.js';
import { MAX_RETRY_AFTER_MS, RetryPolicy } from './retry-policy.js';

const refused = (retryAfterMs?: number) =>
  new ModelCallError('HTTP 429 from http://127.0.0.1:1/v1/completions', {
    retryable: true,
    status: 429,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

function policy(options: { maxRetryAfterMs?: number } = {}): { retry: RetryPolicy; notes: string[] } {
  const notes: string[] = [];
  return { retry: new RetryPolicy(options, 'm', (line) => notes.push(line)), notes };
}

describe('RetryPolicy', () => {
  it('says a capped Retry-After in one note: what the server asked, the cap, and the wait', () => {
    const { retry, notes } = policy();
    assert.equal(retry.delayMs(0, refused(3_600_000)), MAX_RETRY_AFTER_MS);
    assert.deepEqual(notes, [
      'note: m: waiting 60.0 s before retrying: the server asked to wait 3600 s (Retry-After), capped at 60 s (maxRetryAfterMs in llmkb.config.json) (HTTP 429 from http://127.0.0.1:1/v1/completions)',
    ]);
    // 64 calls refused at once are one note, not 64.
    for (let i = 0; i < 63; i++) retry.delayMs(0, refused(3_600_000));
    assert.equal(notes.length, 1);
  });

  it('says the cap even when the capped wait is too short to be said on its own', () => {
    const { retry, notes } = policy({ maxRetryAfterMs: 300 });
    assert.equal(retry.delayMs(0, refused(3_600_000)), 300);
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /waiting 0\.3 s before retrying: the server asked to wait 3600 s \(Retry-After\), capped at 0\.3 s/);
  });

  it('waits a Retry-After under the cap as asked, and says a long one', () => {
    const { retry, notes } = policy();
    assert.equal(retry.delayMs(0, refused(200)), 200);
    assert.deepEqual(notes, [], 'a short wait is not said');
    assert.equal(retry.delayMs(0, refused(7000)), 7000);
    assert.match(notes[0]!, /^note: m: waiting 7\.0 s before retrying: the server asked to wait \(Retry-After\) \(HTTP 429/);
  });

  for (const [what, value] of [
    ['zero', 0],
    ['negative', -5000],
    ['malformed', Number.NaN],
  ] as const) {
    it(`backs off exponentially after a ${what} Retry-After, without a note for a short wait`, () => {
      const { retry, notes } = policy();
      const waits = [0, 1, 2].map((attempt) => retry.delayMs(attempt, refused(value)));
      // 500 ms doubled each attempt, with jitter between half and all of it.
      waits.forEach((wait, attempt) => assert.ok(wait >= 250 * 2 ** attempt && wait <= 500 * 2 ** attempt, `attempt ${attempt}: ${wait} ms`));
      assert.deepEqual(notes, []);
    });
  }
});
