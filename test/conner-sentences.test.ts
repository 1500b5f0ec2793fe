/**
 * CONNER's sentence segmenter keeps abbreviations and initials inside their sentence, as the
 * scripts' NLTK Punkt does, and still ends sentences where they end.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { splitSentences } from '../src/methods/conner/evidence/sentences.js';

describe('CONNER sentences', () => {
  it('keeps "U.S. Army", "Mr. Smith", "J. R. R. Tolkien", "e.g.", "Dr.", "No. 5" and decimals whole', () => {
    const cases: Array<[string, string[]]> = [
      ['He served in the U.S. Army for years. Then he left.', ['He served in the U.S. Army for years.', 'Then he left.']],
      ['Mr. Smith went home. He slept.', ['Mr. Smith went home.', 'He slept.']],
      ['J. R. R. Tolkien wrote The Hobbit. It sold well.', ['J. R. R. Tolkien wrote The Hobbit.', 'It sold well.']],
      ['Use tools, e.g. Hammers and saws. Fine.', ['Use tools, e.g. Hammers and saws.', 'Fine.']],
      ['Dr. Who is a series. It began in 1963.', ['Dr. Who is a series.', 'It began in 1963.']],
      ['He wore No. 5 on his shirt. The chart had it at No . 1 for weeks.', ['He wore No. 5 on his shirt.', 'The chart had it at No . 1 for weeks.']],
      ['It costs 3.5 dollars. The version is 28.0.137 now.', ['It costs 3.5 dollars.', 'The version is 28.0.137 now.']],
      ['Washington, D.C. is the capital. St. Louis is a city.', ['Washington, D.C. is the capital.', 'St. Louis is a city.']],
    ];
    for (const [text, want] of cases) assert.deepEqual(splitSentences(text), want, text);
  });

  it('still ends a sentence after an acronym or "No." when a new sentence starts', () => {
    assert.deepEqual(splitSentences('He moved to the U.S. He then studied law.'), ['He moved to the U.S.', 'He then studied law.']);
    assert.deepEqual(splitSentences('Did he win? No. He lost.'), ['Did he win?', 'No.', 'He lost.']);
    assert.deepEqual(splitSentences('It ended in 1990. The band split.'), ['It ended in 1990.', 'The band split.']);
  });

  const nq = join(process.env.LLMKB_DATA_DIR ?? '', 'conner', 'nq_test_random_testset.txt');
  it('leaves at most 20 sentences of one or two words in the NQ gold passages (Intl.Segmenter alone: 84)', {
    skip: process.env.LLMKB_DATA_DIR && existsSync(nq) ? false : 'LLMKB_DATA_DIR is not set',
  }, () => {
    const golds = readFileSync(nq, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[2] ?? '');
    const short = golds.flatMap((g) => splitSentences(g)).filter((s) => s.split(/\s+/).filter(Boolean).length <= 2);
    assert.ok(short.length <= 20, `${short.length}: ${short.join(' | ')}`);
    assert.ok(!short.some((s) => /^(?:[A-Z]\.)+$|^(?:Mr|Dr|St)\.$/.test(s)), 'no initial or title alone');
  });
});
