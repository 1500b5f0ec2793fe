import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LlmkbError } from '../errors.js';
import { openDatabase, type Db } from '../store/database.js';
import { addFiles } from './add-files.js';
import { Corpus } from './corpus.js';
import { CorpusAddError } from './corpus-add-error.js';
import { tempDir } from '#test-support/temp-dir.js';

const dbs: Db[] = [];
after(() => dbs.forEach((d) => d.open && d.close()));

/** A store and a folder holding `files` (name -> content). */
function fresh(files: Record<string, string>): { db: Db; dir: string } {
  const dir = tempDir('llmkb-add-files-');
  const db = openDatabase(join(dir, 'store.sqlite'));
  dbs.push(db);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return { db, dir };
}

const names = (db: Db) => Corpus.list(db).map((c) => c.name);

describe('addFiles (what llmkb corpus add runs)', () => {
  it('creates the corpus with the given passage settings, indexes the text and names the files that gave none', async () => {
    const { db, dir } = fresh({ 'beagle.txt': 'Darwin sailed on HMS Beagle to the Galapagos islands and studied finches there.', 'empty.txt': '' });
    const seen: string[] = [];
    const r = await addFiles(db, 'notes', [join(dir, 'beagle.txt'), join(dir, 'empty.txt')], { passageWords: 50, onFile: (file) => seen.push(file) });
    assert.equal(r.created, true);
    assert.equal(r.corpus.settings.passageWords, 50);
    assert.equal(r.report.passages, 1);
    assert.deepEqual(r.textless, [join(dir, 'empty.txt')]);
    assert.deepEqual(seen, [join(dir, 'beagle.txt'), join(dir, 'empty.txt')], "the caller's onFile still sees every file");
    assert.equal(r.corpus.search('Beagle', { k: 1 }).length, 1);
    // Adding to it again: not created, and a file without text is kept quiet about only through textless.
    const again = await addFiles(db, 'notes', [join(dir, 'empty.txt')]);
    assert.equal(again.created, false);
    assert.deepEqual(again.textless, [join(dir, 'empty.txt')]);
    assert.deepEqual(names(db), ['notes']);
  });

  it('removes a corpus it created when the files hold no text, and says so', async () => {
    const { db, dir } = fresh({ 'empty.txt': '', 'header.csv': 'filename,article\n' });
    await assert.rejects(addFiles(db, 'nothing', [join(dir, 'empty.txt'), join(dir, 'header.csv')]), (error: unknown) => {
      assert.ok(error instanceof LlmkbError && !(error instanceof CorpusAddError), String(error));
      assert.match(error.message, /^no text to index in .*empty\.txt, .*header\.csv \(empty files, only a header, or documents without text\)$/);
      assert.match(error.hint ?? '', /Corpus "nothing" was not created\.$/);
      return true;
    });
    assert.deepEqual(names(db), [], 'no empty corpus is left behind');
  });

  it('keeps an existing corpus the files add no text to', async () => {
    const { db, dir } = fresh({ 'a.txt': 'The finches of the Galapagos differ in their beaks.', 'empty.txt': '' });
    await addFiles(db, 'kept', [join(dir, 'a.txt')]);
    Corpus.open(db, 'kept');
    const r = await addFiles(db, 'kept', [join(dir, 'empty.txt')]);
    assert.equal(r.created, false);
    assert.equal(r.report.passages, 0);
    assert.deepEqual(names(db), ['kept']);
  });

  it("removes a corpus it created when the first file fails, with the file's hint; an existing one keeps what it had", async () => {
    const { db, dir } = fresh({ 'bad.jsonl': '{"id": "d1", "text": "fine"}\n{not json\n', 'a.txt': 'Darwin wrote On the Origin of Species in 1859.' });
    await assert.rejects(addFiles(db, 'broken', [join(dir, 'bad.jsonl')]), (error: unknown) => {
      assert.ok(error instanceof LlmkbError && !(error instanceof CorpusAddError), String(error));
      assert.match(error.hint ?? '', /Corpus "broken" was not created\.$/);
      return true;
    });
    assert.deepEqual(names(db), []);
    await addFiles(db, 'broken', [join(dir, 'a.txt')]);
    await assert.rejects(addFiles(db, 'broken', [join(dir, 'bad.jsonl')]), CorpusAddError);
    assert.deepEqual(names(db), ['broken'], 'a corpus this call did not create stays');
  });
});
