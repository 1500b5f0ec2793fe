import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageAt, splitPassages } from './passages.js';

const sentence = (i: number, words: number): string => `S${i} ${Array.from({ length: words - 2 }, (_, k) => `w${k}`).join(' ')} end.`;

describe('splitPassages', () => {
  it('cuts at sentence boundaries into windows of about the target, with offsets into the text', () => {
    const text = Array.from({ length: 12 }, (_, i) => sentence(i, 20)).join(' ');
    const ps = splitPassages(text, { passageWords: 60, overlapWords: 20 });
    for (const p of ps) {
      assert.equal(text.slice(p.start, p.end), p.text);
      assert.match(p.text, /^S\d+ /, 'starts at a sentence');
      assert.match(p.text, /end\.$/, 'ends at a sentence');
      assert.ok(p.words <= 75, `${p.words} words`);
    }
    assert.equal(ps[0]!.words, 60);
    // Overlap: the next window starts with the last sentence of the previous one.
    assert.ok(ps[1]!.text.startsWith('S2 '), ps[1]!.text.slice(0, 10));
    assert.ok(ps.at(-1)!.text.endsWith(sentence(11, 20)));
    assert.deepEqual(
      ps.map((p) => p.seq),
      ps.map((_, i) => i),
    );
  });

  it('overlap 0 gives disjoint windows that cover every sentence once', () => {
    const text = Array.from({ length: 10 }, (_, i) => sentence(i, 10)).join('\n');
    const ps = splitPassages(text, { passageWords: 30, overlapWords: 0 });
    assert.equal(ps.length, 4);
    assert.equal(
      ps.map((p) => p.words).reduce((a, b) => a + b),
      100,
    );
    for (let i = 1; i < ps.length; i += 1) assert.ok(ps[i]!.start > ps[i - 1]!.end);
  });

  it('uses the Unicode sentence segmenter: decimals do not end a sentence, a wrapped line is not a break', () => {
    const text = 'The voyage lasted 4.5 years and\nreached the Galapagos. It changed biology.';
    const ps = splitPassages(text, { passageWords: 9, overlapWords: 0 });
    assert.deepEqual(
      ps.map((p) => p.text),
      ['The voyage lasted 4.5 years and\nreached the Galapagos.', 'It changed biology.'],
    );
  });

  it('segments a long text in pieces (Intl.Segmenter is quadratic on one long string) without cutting sentences', () => {
    const text = Array.from({ length: 30_000 }, (_, i) => sentence(i, 5 + (i % 17))).join(' ');
    const started = performance.now();
    const ps = splitPassages(text, { passageWords: 100, overlapWords: 0 });
    assert.ok(performance.now() - started < 5000, 'linear time');
    assert.ok(text.length > 1_000_000);
    for (const p of ps) assert.match(p.text, /^S\d+ .* end\.$/s);
    assert.equal(
      ps.reduce((a, p) => a + p.words, 0),
      text.split(/\s+/).length,
    );
  });

  it('cuts a sentence longer than a passage into word windows', () => {
    const long = Array.from({ length: 250 }, (_, i) => `x${i}`).join(' ');
    const ps = splitPassages(long, { passageWords: 100, overlapWords: 10 });
    assert.deepEqual(
      ps.map((p) => p.words),
      [100, 100, 50],
    );
    assert.ok(ps[1]!.text.startsWith('x100 '));
  });

  it('records the pages a passage starts and ends on', () => {
    const pages = ['First page text here.', 'Second page text here.', 'Third page text here.'];
    const starts: number[] = [];
    let text = '';
    for (const p of pages) {
      if (starts.length > 0) text += '\n\n';
      starts.push(text.length);
      text += p;
    }
    const ps = splitPassages(text, { passageWords: 4, overlapWords: 0 }, starts);
    assert.deepEqual(
      ps.map((p) => [p.page, p.pageEnd]),
      [
        [1, 1],
        [2, 2],
        [3, 3],
      ],
    );
    const all = splitPassages(text, { passageWords: 50, overlapWords: 0 }, starts);
    assert.deepEqual([all[0]!.page, all[0]!.pageEnd], [1, 3]);
    assert.equal(pageAt(starts, 0), 1);
    assert.equal(pageAt(starts, starts[2]!), 3);
  });

  it('returns nothing for blank text and rejects bad settings', () => {
    assert.deepEqual(splitPassages('  \n '), []);
    assert.throws(() => splitPassages('a', { passageWords: 10, overlapWords: 10 }), /overlapWords/);
    assert.throws(() => splitPassages('a', { passageWords: 0 }), /passageWords/);
  });
});
