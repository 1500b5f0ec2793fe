import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { collapseWhitespace, normalizeAnswer, normalizedTokens } from './normalize-answer.js';

/** [input, output of the official SQuAD normalize_answer] pairs: scripts/squad-normalize-fixture.py. */
function readFixture(): { head: { python: string; unicode: string; pairs: number }; pairs: Array<[string, string]> } {
  const lines = gunzipSync(readFileSync(join(import.meta.dirname, 'fixtures', 'squad-normalize.jsonl.gz')))
    .toString('utf8')
    .split('\n')
    .filter(Boolean);
  return {
    head: JSON.parse(lines[0]!) as { python: string; unicode: string; pairs: number },
    pairs: lines.slice(1).map((l) => JSON.parse(l) as [string, string]),
  };
}

describe('SQuAD normalisation equals the official script', () => {
  it('on every gold answer of the shared data and every EVOUNA response, byte for byte', () => {
    const { head, pairs } = readFixture();
    assert.equal(pairs.length, head.pairs);
    assert.ok(pairs.length > 150_000, `${pairs.length} pairs`);
    const mismatches = pairs.filter(([input, output]) => normalizeAnswer(input) !== output);
    for (const [input, output] of mismatches.slice(0, 10))
      process.stdout.write(`mismatch: ${JSON.stringify(input)} -> python ${JSON.stringify(output)}, llmkb ${JSON.stringify(normalizeAnswer(input))}\n`);
    process.stdout.write(`${pairs.length - mismatches.length}/${pairs.length} identical to Python ${head.python} (Unicode ${head.unicode})\n`);
    assert.equal(mismatches.length, 0);
  });

  it('keeps a final "a" after a non-ASCII letter, and drops real articles', () => {
    assert.equal(normalizeAnswer('Saldaña'), 'saldaña');
    assert.equal(normalizeAnswer('Andy García'), 'andy garcía');
    assert.equal(normalizeAnswer('the\u00e9'), 'theé');
    // A combining mark is not a word character in Python: the article before it goes.
    assert.equal(normalizeAnswer('the\u0301 end'), '\u0301 end');
    assert.equal(normalizeAnswer('  The   Beatles! '), 'beatles');
    assert.equal(normalizeAnswer("Ain't it a Shame?"), 'aint it shame');
    assert.equal(normalizeAnswer('U.S.A.'), 'usa');
  });

  it("splits on Python's white space, not JavaScript's", () => {
    assert.equal(collapseWhitespace('x\x1cy\x85z'), 'x y z');
    assert.equal(collapseWhitespace('the\ufeffend'), 'the\ufeffend');
    assert.deepEqual(normalizedTokens(' A\u3000cat '), ['cat']);
    assert.deepEqual(normalizedTokens('the'), []);
  });

  it('lower-cases as Python does, dotted capital I included', () => {
    assert.equal(normalizeAnswer('İ'), 'i\u0307');
    assert.equal(normalizeAnswer('ΟΔΥΣΣΕΥΣ'), 'οδυσσευς');
  });
});
