import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SeededRandom } from './seeded-random.js';

describe('SeededRandom', () => {
  it('is reproducible per named stream and independent across streams', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    assert.deepEqual(SeededRandom.stream(42, 'a').shuffle(items), SeededRandom.stream(42, 'a').shuffle(items));
    assert.notDeepEqual(SeededRandom.stream(42, 'a').shuffle(items), SeededRandom.stream(42, 'b').shuffle(items));
    assert.notDeepEqual(SeededRandom.stream(42, 'a').shuffle(items), SeededRandom.stream(43, 'a').shuffle(items));
    assert.deepEqual(
      [...SeededRandom.stream(1, 'x').shuffle(items)].sort((a, b) => a - b),
      items,
      'a permutation',
    );
  });

  it('samples distinct items', () => {
    const s = SeededRandom.stream(7, 's').sample(['a', 'b', 'c', 'd', 'e'], 3);
    assert.equal(new Set(s).size, 3);
  });
});
