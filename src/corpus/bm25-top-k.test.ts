import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SqliteDatabase as Database } from '../store/database.js';
import { Bm25TopK, fts5Idf } from './bm25-top-k.js';
import { xorshift32 as random } from '#test-support/xorshift.js';

describe('Bm25TopK: exact BM25 top-k without scoring every posting', () => {
  // 10,000 passages of 8-40 words over a Zipf vocabulary (w0 in most passages, w1999 in a few),
  // so queries mix frequent and rare terms, as natural-language questions do.
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE f USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')");
  const rand = random(42);
  const word = (): string => `w${Math.min(1999, Math.floor(Math.exp((rand(1 << 20) / (1 << 20)) * Math.log(2001))) - 1)}`;
  const insert = db.prepare('INSERT INTO f (text) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 10_000; i += 1) insert.run(Array.from({ length: 8 + rand(33) }, word).join(' '));
  })();
  const bm25 = new Bm25TopK(db, 'f');
  // The default budget (20,000 postings, for corpora of about a million passages) would cover
  // every query of this small corpus: scaled down, the pruned path is the one tested.
  bm25.budget = 300;

  it('gives the same ranking as the plain FTS5 query, for queries of frequent and rare terms', () => {
    const q = random(7);
    let pruned = 0;
    for (let n = 0; n < 60; n += 1) {
      const terms = [...new Set(Array.from({ length: 2 + q(5) }, () => `w${[q(10), 10 + q(90), 100 + q(1900)][q(3)]}`))];
      for (const k of [1, 10]) {
        const { hits, plan } = bm25.search(terms, k);
        const exact = bm25.exhaustive(terms, k);
        assert.deepEqual(
          hits.map((h) => h.id),
          exact.map((h) => h.id),
          `${terms.join(' ')} k=${k} ${JSON.stringify(plan)}`,
        );
        hits.forEach((h, i) => assert.ok(Math.abs(h.score - exact[i]!.score) < 1e-9 * Math.abs(exact[i]!.score), 'same scores up to the summation order'));
        if (!plan.exhaustive) pruned += 1;
      }
    }
    assert.ok(pruned > 30, `the pruned path answered ${pruned} of 120 searches`);
  });

  it("uses FTS5's own counts: N, document frequency and the idf clamp", () => {
    const rows = (db.prepare('SELECT COUNT(*) AS n FROM f').get() as { n: number }).n;
    const df = bm25.documentFrequency('w0');
    assert.equal(df, (db.prepare("SELECT COUNT(*) AS n FROM f WHERE f MATCH 'w0'").get() as { n: number }).n);
    assert.ok(df > rows / 2, 'w0 is in most passages');
    assert.equal(fts5Idf(rows, df), 1e-6, 'FTS5 clamps a non-positive idf to 1e-6');
    // The bound of a term is its best one-term score, exactly what FTS5 gives that passage.
    const best = -(db.prepare("SELECT rank FROM f WHERE f MATCH 'w1500' ORDER BY rank LIMIT 1").get() as { rank: number }).rank;
    assert.equal(bm25.upperBound('w1500', rows), best);
  });

  it('sees a changed index: frequencies are recounted', () => {
    const db2 = new Database(':memory:');
    db2.exec('CREATE VIRTUAL TABLE g USING fts5(text)');
    db2.prepare('INSERT INTO g (text) VALUES (?)').run('alpha beta');
    const b = new Bm25TopK(db2, 'g');
    assert.equal(b.documentFrequency('alpha'), 1);
    db2.prepare('INSERT INTO g (text) VALUES (?)').run('alpha gamma');
    assert.equal(b.search(['alpha', 'gamma'], 1).hits.length, 1);
    assert.equal(b.documentFrequency('alpha'), 2);
  });
});
