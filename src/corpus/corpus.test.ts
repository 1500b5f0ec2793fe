import assert from 'node:assert/strict';
import { copyFileSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputFileError } from '../errors.js';
import { openDatabase, type Db } from '../store/database.js';
import { Corpus, CorpusNotFoundError, searchCorpus } from './corpus.js';
import { CorpusAddError } from './corpus-add-error.js';
import { makePdf, testPaper } from './fixtures/make-pdf.test.js';
import { tempDir } from '#test-support/temp-dir.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const dbs: Db[] = [];
after(() => dbs.forEach((d) => d.open && d.close()));

/** The add stopped at a file with an InputFileError that passes `test`. */
function fileErrorWhere(e: unknown, test: (f: InputFileError) => boolean): boolean {
  return e instanceof CorpusAddError && e.cause instanceof InputFileError && test(e.cause);
}

function fresh(): { db: Db; dir: string } {
  const dir = tempDir('llmkb-corpus-');
  const db = openDatabase(join(dir, 'store.sqlite'));
  dbs.push(db);
  return { db, dir };
}

describe('Corpus from a filename,article CSV', () => {
  it('streams multi-line quoted articles with a BOM, keeps other columns as metadata, and finds the hand-checked passages', async () => {
    const { db } = fresh();
    const corpus = Corpus.openOrCreate(db, 'constitution', { passageWords: 60, overlapWords: 15 });
    const report = await corpus.add([join(FIXTURES, 'constitution.csv')]);
    assert.deepEqual(report.documents, { added: 3, updated: 0, unchanged: 0, removed: 0, empty: 0 });
    const docs = db.prepare('SELECT doc_id, metadata, chars FROM corpus_documents ORDER BY doc_id').all() as {
      doc_id: string;
      metadata: string;
      chars: number;
    }[];
    assert.deepEqual(
      docs.map((d) => d.doc_id),
      ['amendment-1.txt', 'article-1.txt', 'article-2.txt'],
    );
    assert.deepEqual(JSON.parse(docs[0]!.metadata), { year: '1791' });

    // Hand-checked: the age of a Senator is not in the excerpt; the age of a Representative (25) is in Article I, of the President (35) in Article II.
    const reps = corpus.search('minimum age of a Representative', { k: 3 });
    assert.equal(reps[0]!.docId, 'article-1.txt');
    assert.match(reps[0]!.text, /attained to the Age of twenty five Years/);
    const president = corpus.search('Who is eligible to the Office of President?', { k: 1 });
    assert.equal(president[0]!.docId, 'article-2.txt');
    assert.match(president[0]!.text, /natural born Citizen/);
    const speech = searchCorpus(db, 'constitution', 'freedom of speech and of the press');
    assert.equal(speech[0]!.docId, 'amendment-1.txt');
    assert.ok(speech[0]!.score > 0 && speech.every((h, i) => i === 0 || h.score <= speech[i - 1]!.score));
    // Offsets point into the document text: the quoted oath with its doubled quotes decoded.
    const oath = corpus.search('solemnly swear affirm', { k: 1 })[0]!;
    const article2 = db
      .prepare("SELECT p.text FROM corpus_passages p JOIN corpus_documents d ON d.id = p.document_id WHERE d.doc_id = 'article-2.txt' ORDER BY p.seq")
      .all() as { text: string }[];
    assert.ok(article2.some((p) => p.text.includes('"I do solemnly swear (or affirm)')));
    assert.equal(oath.end - oath.start, oath.text.length);
    assert.equal(oath.page, 1);
  });

  it('is incremental: an unchanged file is a no-op, a changed file replaces only the changed documents', async () => {
    const { db, dir } = fresh();
    const csv = join(dir, 'c.csv');
    copyFileSync(join(FIXTURES, 'constitution.csv'), csv);
    const corpus = Corpus.openOrCreate(db, 'c');
    const first = await corpus.add([csv]);
    const passages = first.passages;
    const again = await corpus.add([csv]);
    assert.equal(again.unchangedFiles, 1);
    assert.equal(again.passages, 0);
    assert.equal(corpus.stats().passages, passages);

    writeFileSync(
      csv,
      'filename,year,article\namendment-1.txt,1791,"Amendment I. Congress shall make no law abridging the freedom of speech."\narticle-1.txt,1787,"Article I. All legislative Powers herein granted shall be vested in a Congress of the United States, which shall consist of a Senate and House of Representatives.\n\nSection 2. The House of Representatives shall be composed of Members chosen every second Year by the People of the several States, and the Electors in each State shall have the Qualifications requisite for Electors of the most numerous Branch of the State Legislature.\nNo Person shall be a Representative who shall not have attained to the Age of twenty five Years, and been seven Years a Citizen of the United States, and who shall not, when elected, be an Inhabitant of that State in which he shall be chosen.\n\nSection 3. The Senate of the United States shall be composed of two Senators from each State, chosen by the Legislature thereof, for six Years; and each Senator shall have one Vote."\n',
    );
    const changed = await corpus.add([csv]);
    assert.deepEqual(changed.documents, { added: 0, updated: 2, unchanged: 0, removed: 1, empty: 0 });
    assert.equal(corpus.search('executive President', { k: 5 }).length, 0, 'Article II removed from the index');
    assert.equal(corpus.search('freedom of speech', { k: 5 }).length, 1);
    assert.equal(corpus.search('religion establishment', { k: 5 }).length, 0, 'the old Amendment I passage is gone from the index');
    const stats = corpus.stats();
    assert.equal(stats.documents, 2);
    assert.equal((db.prepare(`SELECT COUNT(*) AS n FROM ${corpus.ftsTable}`).get() as { n: number }).n, stats.passages);
    // FTS5 index and content table agree (external-content integrity check).
    assert.doesNotThrow(() => db.exec(`INSERT INTO ${corpus.ftsTable}(${corpus.ftsTable}, rank) VALUES ('integrity-check', 1)`));
  });
});

describe('Corpus from JSONL, a folder of text, Markdown and PDF files', () => {
  it('adds them, names the documents by relative path, ignores other files and counts unreadable PDFs by name', async () => {
    const { db, dir } = fresh();
    const folder = join(dir, 'docs');
    cpSync(join(FIXTURES, 'texts'), folder, { recursive: true });
    mkdirSync(join(folder, 'pdf'));
    writeFileSync(join(folder, 'pdf', 'paper.pdf'), testPaper());
    writeFileSync(join(folder, 'pdf', 'locked.pdf'), makePdf([{ runs: [{ x: 72, y: 700, text: 'secret' }] }], { encrypted: true }));
    writeFileSync(join(folder, 'pdf', 'scan.pdf'), makePdf([{ runs: [], rects: [[72, 72, 300, 400]] }]));
    writeFileSync(join(folder, 'pdf', 'broken.pdf'), '%PDF-1.7\nnot really\n');
    const corpus = Corpus.openOrCreate(db, 'darwin', { passageWords: 40, overlapWords: 8 });
    const report = await corpus.add([join(FIXTURES, 'darwin.jsonl'), folder]);
    assert.deepEqual(
      report.skipped.map((s) => [s.file.replace(`${folder}/`, ''), s.reason]),
      [
        ['pdf/broken.pdf', 'corrupt'],
        ['pdf/locked.pdf', 'encrypted'],
        ['pdf/scan.pdf', 'no-text'],
      ],
    );
    assert.equal(report.ignored.length, 1);
    assert.match(report.ignored[0]!, /image\.bin$/);
    assert.deepEqual(report.documents, { added: 6, updated: 0, unchanged: 0, removed: 0, empty: 0 });

    const ids = (db.prepare('SELECT doc_id FROM corpus_documents ORDER BY doc_id').all() as { doc_id: string }[]).map((r) => r.doc_id);
    assert.deepEqual(ids, ['galapagos.md', 'notes/pigeons.txt', 'origin-ch3-elephant', 'origin-ch3-struggle', 'origin-ch4-selection', 'pdf/paper.pdf']);
    assert.equal(corpus.search('slowest breeder elephant', { k: 1 })[0]!.docId, 'origin-ch3-elephant');
    assert.equal(corpus.search('rock pigeon Columba livia', { k: 1 })[0]!.docId, 'notes/pigeons.txt');
    // PDF passages: the page is kept, the header never indexed, joined hyphenation searchable.
    const barnacles = corpus.search('struggle for life barnacles', { k: 1 })[0]!;
    assert.equal(barnacles.docId, 'pdf/paper.pdf');
    assert.ok(barnacles.page <= 2 && barnacles.pageEnd === 2, `pages ${barnacles.page}-${barnacles.pageEnd}`);
    const knowledge = corpus.search('factual knowledge finches', { k: 1 })[0]!;
    assert.deepEqual([knowledge.docId, knowledge.page], ['pdf/paper.pdf', 1]);
    assert.equal(corpus.search('Workshop Proceedings', { k: 3 }).length, 0);
    assert.equal(corpus.search('TOWARDS', { k: 1 })[0]!.text.slice(0, 23), 'ICLR 2024 TOWARDS UNDER');
    // Stemming: "breeds" finds "breeder"/"breeding"-free text through the Porter stem "breed".
    assert.ok(corpus.search('breeds', { k: 5 }).some((h) => h.docId === 'notes/pigeons.txt'));

    // Skipped PDFs are not recorded: adding again tries them again (and reports them again).
    const again = await corpus.add([folder]);
    assert.equal(again.skipped.length, 3);
    assert.equal(again.unchangedFiles, 3);
    assert.equal(corpus.stats().formats.pdf, 1);
  });
});

describe('other shapes', () => {
  it('reads TSV, a JSON array, and a CSV field of several MB, with CRLF line ends', async () => {
    const { db, dir } = fresh();
    const tsv = join(dir, 'a.tsv');
    writeFileSync(tsv, 'filename\tarticle\r\nt1\tThe elephant is reckoned to be the slowest breeder of all known animals.\r\n');
    const json = join(dir, 'b.json');
    writeFileSync(json, JSON.stringify([{ id: 7, text: 'Natural selection acts only by the preservation of profitable modifications.', chapter: 4 }]));
    const big = join(dir, 'big.csv');
    const sentence =
      'Owing to this struggle for life, any variation, however slight, if it be in any degree profitable, will tend to the preservation of that individual. ';
    const article = sentence.repeat(Math.ceil((3 * 1024 * 1024) / sentence.length));
    writeFileSync(big, `filename,article\r\nbig.pdf,"${article}\r\nThe last line says ""Galapagos"" once."\r\n`);
    const corpus = Corpus.openOrCreate(db, 'shapes');
    const report = await corpus.add([tsv, json, big, big]);
    assert.equal(report.files, 3, 'a file given twice is read once');
    assert.deepEqual(report.documents, { added: 3, updated: 0, unchanged: 0, removed: 0, empty: 0 });
    assert.ok(report.passages > 4000, `${report.passages} passages`);
    assert.equal(corpus.search('slowest breeder', { k: 1 })[0]!.docId, 't1');
    assert.equal(corpus.search('profitable modifications', { k: 1 })[0]!.docId, '7');
    const last = corpus.search('Galapagos', { k: 1 })[0]!;
    assert.equal(last.docId, 'big.pdf');
    assert.match(last.text, /The last line says "Galapagos" once\.$/);
    assert.ok(last.end > 3 * 1024 * 1024 && last.end - last.start === last.text.length);
  });
});

describe('a large file prepared in a worker thread', () => {
  it('gives the same passages as in process, and the same errors (class, file, line)', async () => {
    const { db, dir } = fresh();
    const inProcess = Corpus.openOrCreate(db, 'in-process');
    const threaded = Corpus.openOrCreate(db, 'threaded');
    await inProcess.add([join(FIXTURES, 'constitution.csv'), join(FIXTURES, 'darwin.jsonl')]);
    const report = await threaded.add([join(FIXTURES, 'constitution.csv'), join(FIXTURES, 'darwin.jsonl')], { workerMinBytes: 0 });
    assert.equal(report.documents.added, 3 + 3);
    const rows = (name: string) =>
      db
        .prepare(
          'SELECT d.doc_id, d.content_hash, p.seq, p.page, p.start, p.end, p.words, p.text FROM corpus_passages p JOIN corpus_documents d ON d.id = p.document_id JOIN corpora c ON c.id = d.corpus_id WHERE c.name = ? ORDER BY d.doc_id, p.seq',
        )
        .all(name);
    assert.deepEqual(rows('threaded'), rows('in-process'));
    assert.ok(rows('threaded').length > 5);
    assert.deepEqual(
      threaded.search('struggle for existence', { k: 3 }).map((h) => [h.docId, h.start]),
      inProcess.search('struggle for existence', { k: 3 }).map((h) => [h.docId, h.start]),
    );

    const ragged = join(dir, 'ragged.csv');
    writeFileSync(ragged, 'filename,article\na,"fine"\nb,"x",extra\n');
    await assert.rejects(Corpus.openOrCreate(db, 'bad').add([ragged], { workerMinBytes: 0 }), (e: unknown) =>
      fileErrorWhere(e, (f) => f.file === ragged && f.line === 3 && /malformed CSV/.test(f.message) && f.hint !== undefined),
    );
    const jsonl = join(dir, 'bad.jsonl');
    writeFileSync(jsonl, '{"id":"a","text":"ok"}\n{"id":"b","text":\n');
    await assert.rejects(Corpus.openOrCreate(db, 'bad').add([jsonl], { workerMinBytes: 0 }), (e: unknown) =>
      fileErrorWhere(e, (f) => f.line === 2 && f.message.startsWith(`${jsonl}:2: not valid JSON`)),
    );
    const latin1 = join(dir, 'latin1.jsonl');
    writeFileSync(latin1, Buffer.from('{"id":"a","text":"ok"}\n{"id":"b","text":"caf\u00e9"}\n', 'latin1'));
    await assert.rejects(Corpus.openOrCreate(db, 'bad').add([latin1], { workerMinBytes: 0 }), (e: unknown) =>
      fileErrorWhere(e, (f) => f.file === latin1 && f.line === 2 && /not UTF-8 text/.test(f.message)),
    );
    assert.equal(Corpus.list(db).find((c) => c.name === 'bad')?.documents ?? 0, 0);
  });
});

describe('bad input', () => {
  it('names the columns present when the text column is missing', async () => {
    const { db, dir } = fresh();
    const csv = join(dir, 'x.csv');
    writeFileSync(csv, 'name,body\na,"some text"\n');
    await assert.rejects(Corpus.openOrCreate(db, 'x').add([csv]), (e: unknown) =>
      fileErrorWhere(e, (f) => f.message.includes(`${csv}:1`) && f.message.includes('no text column "article"; the columns are: "name", "body"')),
    );
    const report = await Corpus.openOrCreate(db, 'x').add([csv], { textColumn: 'body', idColumn: 'name' });
    assert.equal(report.documents.added, 1);
    await assert.rejects(
      Corpus.openOrCreate(db, 'y').add([csv], { textColumn: 'body', idColumn: 'nope' }),
      /no id column "nope"; the columns are: "name", "body"/,
    );
  });

  it('gives file and line of malformed CSV and JSONL, and of duplicate ids', async () => {
    const { db, dir } = fresh();
    const csv = join(dir, 'bad.csv');
    writeFileSync(csv, 'filename,article\na,"fine"\nb,"unclosed quote\nc,more\n');
    await assert.rejects(Corpus.openOrCreate(db, 'bad').add([csv]), (e: unknown) =>
      fileErrorWhere(e, (f) => f.file === csv && f.line !== undefined && /malformed CSV/.test(f.message)),
    );
    const ragged = join(dir, 'ragged.csv');
    writeFileSync(ragged, 'filename,article\na,"fine"\nb,"x",extra\n');
    await assert.rejects(Corpus.openOrCreate(db, 'bad').add([ragged]), (e: unknown) => fileErrorWhere(e, (f) => f.line === 3 && /column/.test(f.message)));
    const jsonl = join(dir, 'bad.jsonl');
    writeFileSync(jsonl, '{"id":"a","text":"ok"}\n{"id":"b","text":\n');
    await assert.rejects(Corpus.openOrCreate(db, 'bad').add([jsonl]), (e: unknown) =>
      fileErrorWhere(e, (f) => f.line === 2 && /not valid JSON/.test(f.message)),
    );
    const noText = join(dir, 'notext.jsonl');
    writeFileSync(noText, '{"id":"a","body":"ok"}\n');
    await assert.rejects(Corpus.openOrCreate(db, 'bad').add([noText]), /notext\.jsonl:1 \(field "text"\): no text field "text"; the fields are: "id", "body"/);
    const dup = join(dir, 'dup.csv');
    writeFileSync(dup, 'filename,article\na,"one"\na,"two"\n');
    await assert.rejects(Corpus.openOrCreate(db, 'dup').add([dup]), /dup\.csv:3: duplicate document id "a"/);
    // An error after a batch was committed leaves none of the file in the index.
    const late = join(dir, 'late.csv');
    writeFileSync(late, `filename,article\n${Array.from({ length: 30 }, (_, i) => `d${i},"passage number ${i} about barnacles"`).join('\n')}\nd3,"again"\n`);
    const corpus = Corpus.openOrCreate(db, 'late');
    await assert.rejects(corpus.add([late], { batchPassages: 5 }), /late\.csv:32: duplicate document id "d3"/);
    assert.equal(corpus.search('barnacles', { k: 5 }).length, 0, 'nothing of the failed file is searchable');
    assert.equal((db.prepare('SELECT count(*) AS n FROM corpus_documents').get() as { n: number }).n, 0);
  });

  it('refuses unknown corpora, other passage settings for an existing corpus, and bad names', async () => {
    const { db } = fresh();
    assert.throws(() => Corpus.open(db, 'nope'), CorpusNotFoundError);
    Corpus.openOrCreate(db, 'a', { passageWords: 50 });
    assert.throws(() => Corpus.openOrCreate(db, 'a', { passageWords: 80 }), /built with passageWords = 50, not 80/);
    assert.throws(() => Corpus.openOrCreate(db, '../x'), /invalid corpus name/);
    assert.equal(Corpus.remove(db, 'a'), true);
    assert.equal(Corpus.remove(db, 'a'), false);
    assert.deepEqual(Corpus.list(db), []);
  });
});

describe('unfinished adds', () => {
  it('keeps the record of a killed add until an add covering its paths completes; a running add is told apart', async () => {
    const { db, dir } = fresh();
    const folder = join(dir, 'docs');
    mkdirSync(join(folder, 'sub'), { recursive: true });
    writeFileSync(join(folder, 'sub', 'a.txt'), 'Finches on the Galapagos islands have beaks of many shapes.');
    writeFileSync(join(dir, 'other.txt'), 'Pigeons of every breed descend from the rock pigeon.');
    const corpus = Corpus.openOrCreate(db, 'u');
    // A process id above Linux's pid_max: no such process, as after a kill -9.
    db.prepare("INSERT INTO corpus_adds (corpus_id, started_at, host, pid, paths) VALUES (?, '2026-01-01T00:00:00.000Z', ?, 999999999, ?)").run(
      corpus.id,
      hostname(),
      JSON.stringify([join(folder, 'sub')]),
    );
    assert.deepEqual(
      corpus.unfinishedAdds().map((u) => [u.paths, u.running]),
      [[[join(folder, 'sub')], false]],
    );
    await corpus.add([join(dir, 'other.txt')]);
    assert.equal(corpus.unfinishedAdds().length, 1, 'an add of other paths does not complete it');
    let during: boolean | undefined;
    await corpus.add([folder], { onFile: () => (during = corpus.unfinishedAdds().at(-1)?.running) });
    assert.equal(during, true, 'this add, while it runs');
    assert.deepEqual(corpus.unfinishedAdds(), [], 'the folder holding its paths completes it');
    writeFileSync(join(dir, 'bad.csv'), 'filename,content\nx,y\n');
    await assert.rejects(corpus.add([join(dir, 'bad.csv')]), CorpusAddError);
    assert.deepEqual(corpus.unfinishedAdds(), [], 'an add that fails leaves no record: its error says what it did');
  });
});
