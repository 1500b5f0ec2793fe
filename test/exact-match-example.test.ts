/**
 * docs/method.md's method twice: the TypeScript fixture the page walks through and the plain
 * JavaScript copy its first block loads (examples/exact-match-method.mjs). They must stay alike.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { exactMatchMethod } from './fixtures/exact-match-method/exact-match-method.js';

describe('the exact-match method of docs/method.md', () => {
  it('the JavaScript example defines the method the TypeScript fixture does', async () => {
    const js = (
      (await import(pathToFileURL(join(import.meta.dirname, '..', 'examples', 'exact-match-method.mjs')).href)) as { default: typeof exactMatchMethod }
    ).default;
    const shape = (m: typeof exactMatchMethod) => ({
      ...Object.fromEntries(Object.entries(m).filter(([, v]) => typeof v !== 'function')),
      stages: m.stages.map((s) => ({ id: s.id, description: s.description })),
      functions: Object.entries(m)
        .filter(([, v]) => typeof v === 'function')
        .map(([k]) => k)
        .sort(),
    });
    assert.deepEqual(shape(js), shape(exactMatchMethod));
  });
});
