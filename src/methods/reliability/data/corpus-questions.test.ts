import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startOpenAICompatibleServer, type TestServer } from '#test-support/openai-compatible-server.js';
import { Corpus } from '../../../corpus/index.js';
import { ModelExecutor } from '../../../executor/model-executor.js';
import { OpenAICompatibleModel } from '../../../providers/openai-compatible/openai-compatible-model.js';
import { CallCache } from '../../../store/call-cache.js';
import { openDatabase, type Db } from '../../../store/database.js';
import { findSpan, normalizeForMatch, ruleAnswerType } from './answer-span.js';
import { writeCorpusQuestions } from './corpus-question-card.js';
import { buildCorpusQuestions, PASSAGE_DEPENDENT } from './corpus-questions.js';
import { documentDate } from './document-dates.js';
import { qaItemSchema } from './qa-item.js';
import { parseWriterReply, questionWriterPrompt } from './question-writer.js';
import { tempDir } from '#test-support/temp-dir.js';

describe('answer span verification (hand-checked)', () => {
  const text = 'The Constitution of the United States was signed on September 17, 1787, in Philadelphia.';
  it('finds a span whatever its case, punctuation and spacing, and gives its offsets in the original text', () => {
    // "The Constitution of the United States was signed on " is 52 characters; "September 17, 1787" is 18.
    assert.deepEqual(findSpan(text, 'september 17 1787'), { start: 52, end: 70 });
    assert.equal(text.slice(52, 70), 'September 17, 1787');
    assert.deepEqual(findSpan(text, '  PHILADELPHIA. '), { start: 75, end: 87 });
    assert.deepEqual(findSpan(text, 'the United States'), { start: 20, end: 37 });
  });
  it('matches on word boundaries only, and never an empty span', () => {
    assert.equal(findSpan('George Washington was the first President.', 'ton'), undefined);
    assert.equal(findSpan('George Washington was the first President.', 'Washing'), undefined);
    assert.equal(findSpan(text, '17 1788'), undefined);
    assert.equal(findSpan(text, '...'), undefined);
    assert.deepEqual(findSpan('Élan vital, naïve café', 'NAÏVE CAFÉ'), { start: 12, end: 22 });
  });
  it('normalizes to lower-case words separated by single spaces, keeping offsets', () => {
    const n = normalizeForMatch('  A,  b--C. ');
    assert.equal(n.text, 'a b c');
    assert.deepEqual(n.map, [2, 3, 6, 7, 9], 'a, the comma, b, the first dash, c');
  });
  it("tells passage-dependent questions, answer types by rule, and parses the writer's reply", () => {
    for (const q of [
      'According to the text, who signed it?',
      'What do the authors propose?',
      'In this paper, which model is best?',
      'What does the passage say about finches?',
      'Which method is described in the study?',
    ])
      assert.match(q, PASSAGE_DEPENDENT, q);
    for (const q of ['Who wrote the Origin of Species?', 'What is the capital of France?', 'Which text editor did Bill Joy write?'])
      assert.doesNotMatch(q, PASSAGE_DEPENDENT, q);
    assert.equal(ruleAnswerType('1787'), 'time');
    assert.equal(ruleAnswerType('September 17, 1787'), 'time');
    assert.equal(ruleAnswerType('8,849 metres'), undefined, 'a quantity with a unit word longer than 3 letters is left to the writer');
    assert.equal(ruleAnswerType('8,849 m'), 'number');
    assert.equal(ruleAnswerType('42'), 'number');
    assert.equal(ruleAnswerType('Charles Darwin'), undefined);
    assert.deepEqual(parseWriterReply(' QUESTION: Who?\nANSWER: "Darwin".\nTYPE: Person\n'), { question: 'Who?', answer: 'Darwin', type: 'person' });
    assert.equal(parseWriterReply('I cannot help with that.'), undefined);
  });
});

/** One passage per file (each under 40 words), and the writer's scripted reply for each. */
const PASSAGES: Record<string, { text: string; reply: string }> = {
  'a.txt': {
    text: 'The Constitution of the United States was signed on September 17, 1787, in Philadelphia by thirty-nine delegates to the Constitutional Convention.',
    reply: 'QUESTION: On what date was the Constitution of the United States signed?\nANSWER: september 17 1787\nTYPE: time',
  },
  'b.txt': {
    text: 'Charles Darwin sailed on HMS Beagle, and the voyage lasted almost five years, from 1831 to 1836, around the coasts of South America.',
    reply: 'QUESTION: According to the text, how long did the voyage last?\nANSWER: almost five years\nTYPE: time',
  },
  'c.txt': {
    text: 'The Galapagos Islands lie on the equator about one thousand kilometres west of the coast of Ecuador in the Pacific Ocean.',
    reply: "QUESTION: Which country's coast lies east of the Galapagos Islands?\nANSWER: Peru\nTYPE: location",
  },
  'd.txt': {
    text: 'Pigeons of many breeds, such as the pouter and the fantail, are descended from the rock pigeon according to the argument of Darwin.',
    reply: 'QUESTION: From which wild bird are the pouter and fantail pigeon breeds descended?\nANSWER: the rock pigeon\nTYPE: other',
  },
  'e.txt': {
    text: 'Fancy pigeon breeds like the pouter were all descended from the rock pigeon, Columba livia, which still lives wild on sea cliffs.',
    reply: 'QUESTION: From which wild bird are the pouter and fantail pigeon breeds descended?\nANSWER: the rock pigeon\nTYPE: other',
  },
  'f.txt': {
    text: 'Mount Everest, the highest mountain on Earth, rises 8,849\nmetres above sea level on the border between Nepal and China.',
    reply: 'QUESTION: How high above sea level does Mount Everest rise?\nANSWER: 8,849 metres\nTYPE: number',
  },
  'g.txt': {
    text: 'The Beagle returned to Falmouth in England in October 1836 after a voyage around the world of almost five years in all.',
    reply: 'I am sorry, but I cannot write a question about this.',
  },
  'h.txt': {
    text: 'The Amazon River carries more water than any other river and flows into the Atlantic Ocean near the city of Belém in Brazil.',
    reply: 'QUESTION: Into which ocean, the Atlantic Ocean, does the Amazon River flow?\nANSWER: Atlantic Ocean\nTYPE: location',
  },
  'i.txt': {
    text: 'The First Amendment protects the freedom of speech, the freedom of the press and the right of the people to assemble peaceably.',
    reply: 'QUESTION: What does the First Amendment protect besides speech and the press?\nANSWER: the right of the people to assemble peaceably\nTYPE: other',
  },
  'j.txt': {
    text: 'Hamlet is a tragedy written by William Shakespeare around 1600, set in Denmark, and it is the longest of all his plays.',
    reply: 'QUESTION: Name the author of Hamlet.\nANSWER: William Shakespeare\nTYPE: person',
  },
};

function scriptedWriter(prompt: string): string {
  const passage = prompt.slice(prompt.indexOf('PASSAGE: ') + 9).trim();
  const hit = Object.values(PASSAGES).find((p) => p.text.replace(/\s+/g, ' ') === passage.replace(/\s+/g, ' '));
  return hit === undefined ? 'no passage' : ` ${hit.reply}`;
}

describe('buildCorpusQuestions with a scripted question writer (loopback OpenAI-compatible server)', () => {
  let server: TestServer;
  let db: Db;
  let corpus: Corpus;
  let dir: string;
  before(async () => {
    server = await startOpenAICompatibleServer({ complete: scriptedWriter });
    dir = tempDir('llmkb-questions-');
    mkdirSync(join(dir, 'docs'));
    for (const [name, p] of Object.entries(PASSAGES)) writeFileSync(join(dir, 'docs', name), p.text);
    db = openDatabase(join(dir, 'store.sqlite'));
    corpus = Corpus.openOrCreate(db, 'facts');
    await corpus.add([join(dir, 'docs')]);
  });
  after(async () => {
    db.close();
    await server.close();
  });

  const writer = (): ModelExecutor =>
    new ModelExecutor(
      new OpenAICompatibleModel({
        baseURLs: [server.baseURL],
        model: 'writer',
        api: 'completions',
        echo: false,
        topLogprobs: 0,
        flavor: 'vllm',
        concurrency: 4,
      }),
      { cache: new CallCache(db) },
    );

  it('keeps verified questions with provenance and counts every rejection by reason', async () => {
    const report = await buildCorpusQuestions(corpus, writer(), { count: 10, seed: 7, minPassageWords: 10 });
    assert.equal(report.tried, 10);
    assert.deepEqual(report.rejected, {
      unparseable: 1,
      'not-a-question': 1,
      'passage-dependent': 1,
      'answer-too-long': 1,
      'answer-not-in-passage': 1,
      'answer-in-question': 1,
      duplicate: 1,
      'empty-passage': 0,
    });
    const byQuestion = new Map(report.items.map((i) => [i.question, i]));
    assert.deepEqual([...byQuestion.keys()].sort(), [
      'From which wild bird are the pouter and fantail pigeon breeds descended?',
      'How high above sea level does Mount Everest rise?',
      'On what date was the Constitution of the United States signed?',
    ]);
    const signed = byQuestion.get('On what date was the Constitution of the United States signed?')!;
    assert.deepEqual(signed.answers, ['September 17, 1787'], "the passage's own text of the span, not the writer's");
    assert.equal(signed.answerType, 'time');
    assert.deepEqual([signed.provenance.document, signed.provenance.page, signed.provenance.answerStart, signed.provenance.answerEnd], ['a.txt', 1, 52, 70]);
    assert.equal(signed.sourceId, 'a.txt#p1:52-70');
    assert.equal(signed.source, 'corpus:facts');
    const everest = byQuestion.get('How high above sea level does Mount Everest rise?')!;
    assert.equal(everest.answerType, 'number');
    assert.equal(everest.answerTypeBy, 'writer');
    assert.deepEqual(everest.answers, ['8,849 metres'], 'a line break inside the span is one space in the answer');
    for (const item of report.items) {
      assert.ok(qaItemSchema.safeParse(item).success, 'a valid item');
      const doc = PASSAGES[item.provenance.document]!.text;
      assert.equal(doc.slice(item.provenance.answerStart, item.provenance.answerEnd).replace(/\s+/g, ' '), item.answers[0]);
    }
    assert.equal(
      server.requests[0]!.body.prompt,
      questionWriterPrompt(
        PASSAGES[
          server.requests[0]!.body.prompt!.toString().includes('Constitution of the United States was signed')
            ? 'a.txt'
            : Object.keys(PASSAGES).find((f) => String(server.requests[0]!.body.prompt).includes(PASSAGES[f]!.text))!
        ]!.text,
      ),
    );
  });

  it('is seeded and cached: the same seed gives the same items without a model call; the card tells what was rejected', async () => {
    const first = await buildCorpusQuestions(corpus, writer(), { count: 2, seed: 11, minPassageWords: 10, maxPassages: 10 });
    const calls = server.requests.length;
    const again = await buildCorpusQuestions(corpus, writer(), { count: 2, seed: 11, minPassageWords: 10, maxPassages: 10 });
    assert.equal(server.requests.length, calls, 'every reply from the call cache');
    assert.deepEqual(again.items, first.items);
    assert.equal(first.items.length, 2);
    const all = await buildCorpusQuestions(corpus, writer(), { count: 10, seed: 7, minPassageWords: 10 });
    const written = await writeCorpusQuestions(all, { outDir: join(dir, 'out'), corpus, seed: 7, count: 10, maxAnswerWords: 5 });
    const card = JSON.parse(readFileSync(written.cardJson, 'utf8')) as { items: number; rejected: Record<string, number>; questionWriter: { model: string } };
    assert.equal(card.items, 3);
    assert.equal(card.rejected['passage-dependent'], 1);
    assert.equal(card.questionWriter.model, 'writer');
    const md = readFileSync(written.cardMarkdown, 'utf8');
    assert.match(md, /- kept: 3 questions from 3 documents\n- rejected: 7\n {2}- unparseable: 1/);
    assert.match(md, /Fewer questions than asked for/);
    assert.equal(readFileSync(written.file, 'utf8').trim().split('\n').length, 3);
  });

  it("keeps each document's date from its metadata on the items and in the card (seen/unseen split by a cutoff)", async () => {
    const csv = join(dir, 'dated.csv');
    const cell = (t: string): string => `"${t.replaceAll('"', '""')}"`;
    writeFileSync(
      csv,
      `filename,published,article\na.txt,2023-05-01,${cell(PASSAGES['a.txt']!.text)}\nd.txt,"March 3, 2024",${cell(PASSAGES['d.txt']!.text)}\nf.txt,n.d.,${cell(PASSAGES['f.txt']!.text)}\n`,
    );
    const dated = Corpus.openOrCreate(db, 'dated');
    await dated.add([csv]);
    const report = await buildCorpusQuestions(dated, writer(), { count: 3, seed: 1, minPassageWords: 10 });
    assert.deepEqual(report.items.map((i) => [i.provenance.document, i.provenance.documentDate]).sort(), [
      ['a.txt', '2023-05-01'],
      ['d.txt', '2024-03-03'],
      ['f.txt', undefined],
    ]);
    assert.deepEqual(report.dates, {
      fields: report.dates.fields,
      dated: 2,
      unparsed: 1,
      undated: 0,
      earliest: '2023-05-01',
      latest: '2024-03-03',
      byYear: { 2023: 1, 2024: 1 },
    });
    assert.deepEqual(report.dates.fields, ['published']);
    const written = await writeCorpusQuestions(report, { outDir: join(dir, 'out-dated'), corpus: dated, seed: 1, count: 3, maxAnswerWords: 5 });
    const md = readFileSync(written.cardMarkdown, 'utf8');
    assert.match(
      md,
      /## Document dates\n\n- 2 items with a dated document \(from `published`\), 0 without a date, 1 whose date value could not be read\n- earliest 2023-05-01, latest 2024-03-03; by year: 2023 1, 2024 1\n/,
    );
    assert.deepEqual((JSON.parse(readFileSync(written.cardJson, 'utf8')) as { documentDates: { dated: number } }).documentDates.dated, 2);
    // The other corpus's documents have no metadata: the card says so.
    const plain = await writeCorpusQuestions(await buildCorpusQuestions(corpus, writer(), { count: 2, seed: 11, minPassageWords: 10, maxPassages: 10 }), {
      outDir: join(dir, 'out-plain'),
      corpus,
      seed: 11,
      count: 2,
      maxAnswerWords: 5,
    });
    assert.match(readFileSync(plain.cardMarkdown, 'utf8'), /No document of the corpus has a date \(looked for the first metadata field of `date`, `published`/);
  });
});

describe('documentDate', () => {
  it('reads years, ISO dates and parseable dates from the named or the first known field', () => {
    assert.deepEqual(documentDate({ Published: '2024-02-29T10:00:00Z' }), { field: 'Published', raw: '2024-02-29T10:00:00Z', date: '2024-02-29' });
    assert.deepEqual(documentDate({ year: 2021 }), { field: 'year', raw: '2021', date: '2021' });
    assert.deepEqual(documentDate({ date: '2020-07' }), { field: 'date', raw: '2020-07', date: '2020-07' });
    assert.deepEqual(documentDate({ when: '1 January 2019', date: 'x' }, 'when'), { field: 'when', raw: '1 January 2019', date: '2019-01-01' });
    assert.deepEqual(documentDate({ date: 'forthcoming' }), { field: 'date', raw: 'forthcoming', date: undefined });
    assert.equal(documentDate({ title: 'x' }), undefined);
    assert.equal(documentDate({ date: '' }), undefined);
  });
});
