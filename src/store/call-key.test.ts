import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { cacheKey, canonicalJson, CanonicalRequest } from './call-key.js';

describe('canonicalJson', () => {
  it('writes plain data directly, exactly as the sorted-keys replacer does, and takes the general path for anything else', () => {
    const sorted = (value: unknown) =>
      JSON.stringify(value, (_k, v: unknown) => {
        if (v && typeof v === 'object' && !Array.isArray(v))
          return Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, (v as Record<string, unknown>)[k]]),
          );
        return v;
      });
    const cases: unknown[] = [
      { prompt: 'a"\n\u2028é😀\\', maxTokens: 5, stop: ['\n', 'QUESTION:'], temperature: 0 },
      { b: 1, a: [1, { d: null, c: undefined }, 'x'], z: true, y: false },
      { '10': 1, '2': 2, a: 3 },
      [undefined, () => 1, 1],
      { x: Number.NaN, y: Number.POSITIVE_INFINITY, z: -0, w: 1.5e-7 },
      { when: new Date(0), buf: Buffer.from('hi') },
      { own: { toJSON: () => 'mine' } },
      { messages: [{ role: 'user', content: 'hi' }], maxTokens: 3 },
      Object.assign(Object.create(null) as object, { b: 1, a: 2 }),
      null,
      'text',
      12,
    ];
    for (const c of cases) assert.equal(canonicalJson(c), sorted(c), JSON.stringify(sorted(c)));
  });
});

describe('cacheKey', () => {
  it('is the SHA-256 of the key version, model identity, kind and canonical request, one per line (the keys existing stores hold)', () => {
    const expected = createHash('sha256').update('llmkb-cache-v1\nvllm:m\ncomplete\n{"maxTokens":5,"prompt":"Q?","stop":[],"temperature":0}').digest('hex');
    assert.equal(cacheKey('vllm:m', 'complete', { temperature: 0, stop: [], prompt: 'Q?', maxTokens: 5 }), expected);
    assert.equal(
      cacheKey('vllm:m', 'complete', new CanonicalRequest('{"maxTokens":5,"prompt":"Q?","stop":[],"temperature":0}')),
      expected,
      'a request already canonical is hashed as is',
    );
  });
});
