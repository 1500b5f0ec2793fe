/**
 * `llmkb data from-corpus` through the built binary with a scripted (mock:) question writer:
 * the draw of passages, its bound, a set with no question kept, the card's document dates, and
 * the reply format in --help.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const dir = tempDir('llmkb-qa-set-');
const store = join(dir, 'store.sqlite');
const run = (...args: string[]) => llmkb(['--store', store, ...args], { cwd: dir });

/** Three passages the writer can ask about, among 17 it cannot (each file one passage of 20+ words). */
const FACTS = [
  {
    text: 'The Constitution of the United States was signed on September 17, 1787, in Philadelphia by thirty-nine delegates to the Constitutional Convention.',
    reply: 'QUESTION: In which city was the Constitution of the United States signed?\nANSWER: Philadelphia\nTYPE: location',
  },
  {
    text: 'Mount Everest, the highest mountain on Earth, rises 8,849 metres above sea level on the border between Nepal and China in the Himalaya.',
    reply: 'QUESTION: Between which two countries does Mount Everest rise?\nANSWER: Nepal and China\nTYPE: location',
  },
  {
    text: 'Hamlet is a tragedy written by William Shakespeare around 1600, set in Denmark, and it is the longest of all the plays he wrote.',
    reply: 'QUESTION: In which country is the tragedy Hamlet set?\nANSWER: Denmark\nTYPE: location',
  },
];
const FILLER = (i: number): string =>
  `Filler passage number ${i} talks about the weather over the hills and the long grass in the meadows, and nothing else of note happens in it.`;

function writerFile(rules: object[]): string {
  const file = join(dir, `writer-${rules.length}.jsonl`);
  writeFileSync(file, rules.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return `mock:${file}`;
}

describe('llmkb data from-corpus', () => {
  let writer: string;
  before(async () => {
    mkdirSync(join(dir, 'docs'));
    FACTS.forEach((f, i) => writeFileSync(join(dir, 'docs', `fact-${i}.txt`), f.text));
    for (let i = 0; i < 17; i += 1) writeFileSync(join(dir, 'docs', `filler-${String(i).padStart(2, '0')}.txt`), FILLER(i));
    assert.equal((await run('corpus', 'add', 'mixed', join(dir, 'docs'))).code, 0);
    writer = writerFile([
      ...FACTS.map((f) => ({ contains: f.text.slice(0, 60), reply: f.reply })),
      { default: true, reply: 'I cannot write a question about this.' },
    ]);
  });

  it('draws passages until the count is met or every passage was tried, and says which', async () => {
    const r = await run('data', 'from-corpus', 'mixed', '--count', '5', '--out', 'all', '--question-writer', writer);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^corpus "mixed": 3 questions -> \S+corpus-mixed\.jsonl \(sha256 [0-9a-f]{12}…\), 20 passages tried\nrejected: unparseable 17;/);
    assert.match(r.stdout, /\nfewer questions than asked for: every passage that can be sampled \(20, of at least 20 words\) was tried\n/);
    assert.match(r.stderr, /questions kept of \d+ passages tried \(at most 20\)/);
    const card = JSON.parse(readFileSync(join(dir, 'all', 'corpus-mixed.card.json'), 'utf8')) as { tried: number; maxPassages: number; stop: string };
    assert.deepEqual([card.tried, card.maxPassages, card.stop], [20, 20, 'corpus-exhausted']);
    const two = await run('data', 'from-corpus', 'mixed', '--count', '2', '--out', 'two', '--question-writer', writer);
    assert.match(two.stdout, /^corpus "mixed": 2 questions/);
    assert.doesNotMatch(two.stdout, /fewer questions/);
    assert.equal((JSON.parse(readFileSync(join(dir, 'two', 'corpus-mixed.card.json'), 'utf8')) as { stop: string }).stop, 'count-met');
  });

  it('stops at --max-passages and says that a larger bound draws more', async () => {
    const r = await run('data', 'from-corpus', 'mixed', '--count', '5', '--max-passages', '12', '--out', 'bounded', '--question-writer', writer);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /, 12 passages tried\n/);
    assert.match(r.stdout, /fewer questions than asked for: the bound of 12 passages \(--max-passages\) was reached\n/);
    assert.match(readFileSync(join(dir, 'bounded', 'corpus-mixed.card.md'), 'utf8'), /a larger --max-passages draws more/);
  });

  it('keeps no question: exit 3 with the rejections by reason and an example, and no file', async () => {
    const useless = writerFile([{ default: true, reply: 'QUESTION: What?\nANSWER: nothing' }]);
    const r = await run('data', 'from-corpus', 'mixed', '--count', '5', '--out', 'none', '--question-writer', useless);
    assert.equal(r.code, 3, r.stderr);
    assert.match(
      r.stderr,
      /^llmkb: error: no question kept from corpus "mixed": 20 passages tried, rejected: not-a-question 20; the draw stopped because every passage that can be sampled \(20, of at least 20 words\) was tried\n {2}hint: The question writer must reply with a line "QUESTION: <a question ending in \?>" and a line "ANSWER: <at most 5 words copied from the passage>".* A reply rejected as not-a-question \(.*\): "What\? -> nothing"\. Try a stronger writer model\. No file was written\.\n/m,
    );
    assert.equal(existsSync(join(dir, 'none', 'corpus-mixed.jsonl')), false);
  });

  it("says what is true of the documents' dates when the kept items have none", async () => {
    const cell = (t: string): string => `"${t.replaceAll('"', '""')}"`;
    const csv = join(dir, 'dated.csv');
    writeFileSync(csv, `filename,date,article\nfact-0.txt,,${cell(FACTS[0]!.text)}\nfiller.txt,2024-05-01,${cell(FILLER(99))}\n`);
    assert.equal((await run('corpus', 'add', 'dated', csv)).code, 0);
    const r = await run('data', 'from-corpus', 'dated', '--count', '1', '--out', 'dated', '--question-writer', writer);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\ndocument dates: none of the kept items' documents has one; 1 of the corpus's 2 documents has a date \(from date\)\n/);
    const md = readFileSync(join(dir, 'dated', 'corpus-dated.card.md'), 'utf8');
    assert.match(md, /## Document dates\n\nThe kept item does not come from a dated document, though 1 of the corpus's 2 documents has a date \(from `date`\)/);
    assert.doesNotMatch(md, /No document/);
  });

  it('documents the reply format in --help', async () => {
    const r = await run('data', 'from-corpus', '--help');
    assert.equal(r.code, 0);
    assert.match(
      r.stdout,
      /must reply with a\nline "QUESTION: <question>" and a line "ANSWER: <answer>", and may add "TYPE: <person\|location\|\ntime\|number\|other>"/,
    );
    assert.match(r.stdout, /--max-passages <n>/);
  });
});
