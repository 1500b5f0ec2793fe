import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SqliteDatabase as Database } from '../store/database.js';
import { ftsQuery, queryTokens } from './fts-query.js';

describe('ftsQuery', () => {
  it('quotes every token and ORs them, dropping stop words', () => {
    assert.equal(ftsQuery('What is the age of the President?'), '"age" OR "president"');
    assert.deepEqual(queryTokens("Darwin's finches, Darwin finches"), ['darwin', 'finches']);
  });

  it('keeps stop words when the query has nothing else, and gives undefined for no words', () => {
    assert.equal(ftsQuery('to be or not to be'), '"to" OR "be" OR "or" OR "not"');
    assert.equal(ftsQuery('?!* --'), undefined);
  });

  it('never produces an FTS5 syntax error, whatever the text', () => {
    const db = new Database(':memory:');
    db.exec("CREATE VIRTUAL TABLE f USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')");
    db.prepare('INSERT INTO f (text) VALUES (?)').run('Natural selection AND the NEAR origin of species');
    for (const q of [
      'AND OR NOT',
      'NEAR(a b)',
      '"unbalanced',
      'text:col',
      'a*',
      '-minus +plus',
      '^caret',
      'col : x',
      'Ünïcödé façade',
      'origin OR "',
      '(',
      'naïve 42',
    ]) {
      const m = ftsQuery(q);
      if (m === undefined) continue;
      assert.doesNotThrow(() => db.prepare('SELECT rowid FROM f WHERE f MATCH ?').all(m), q);
    }
    assert.equal(
      (db.prepare('SELECT COUNT(*) AS n FROM f WHERE f MATCH ?').get(ftsQuery('AND NEAR origins')!) as { n: number }).n,
      1,
      'porter: origins ~ origin; AND/NEAR are words',
    );
    db.close();
  });
});
