import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase, type Db } from '../store/database.js';
import { markBm25BoundsChanging, refreshBm25Bounds, StoredBm25Bounds } from './bm25-bounds.js';
import { Bm25TopK, readIndexStats } from './bm25-top-k.js';
import { Corpus } from './corpus.js';
import { xorshift32 as random } from '#test-support/xorshift.js';
import { tempDir } from '#test-support/temp-dir.js';

// Real words whose Porter stem is not its own stem ("because" -> "becaus" -> "becau"), so the
// stored bound of such a term is computed from its postings, not by an FTS5 query on the stem.
const WORDS = ['because', 'causes', 'accident', 'basketball', 'advertising', 'species', 'natural', 'selection'];

/** A filename,article CSV of `n` short documents over a Zipf vocabulary (w0 in most of them, w999 in a few) and a few real words. */
function writeCsv(path: string, n: number, seed: number, prefix: string, extra: string[] = []): void {
  const rand = random(seed);
  const word = (): string =>
    rand(10) === 0 ? WORDS[rand(WORDS.length)]! : `w${Math.min(999, Math.floor(Math.exp((rand(1 << 20) / (1 << 20)) * Math.log(1001))) - 1)}`;
  const rows = ['filename,article'];
  for (let i = 0; i < n; i += 1) rows.push(`${prefix}${i},${Array.from({ length: 8 + rand(33) }, word).join(' ')}`);
  extra.forEach((text, i) => rows.push(`${prefix}extra${i},${text}`));
  writeFileSync(path, `${rows.join('\n')}\n`);
}

const dbs: Db[] = [];
after(() => dbs.forEach((d) => d.open && d.close()));
function open(path: string): Db {
  const db = openDatabase(path);
  dbs.push(db);
  return db;
}

/** A searcher as a new process has it: a new connection, the stored bounds, a small first-round budget (so the bounds decide). */
function freshSearcher(path: string): { db: Db; corpus: Corpus; searcher: Bm25TopK; stored: StoredBm25Bounds } {
  const db = open(path);
  const corpus = Corpus.open(db, 'c');
  const stored = new StoredBm25Bounds(db, corpus.id, corpus.ftsTable);
  const searcher = new Bm25TopK(db, corpus.ftsTable, stored);
  searcher.budget = 150;
  return { db, corpus, searcher, stored };
}

/** Queries mixing frequent, middling and rare terms, and the real words. */
function queries(seed: number, count: number): string[][] {
  const q = random(seed);
  return Array.from({ length: count }, () => [
    ...new Set(Array.from({ length: 2 + q(4) }, () => (q(4) === 0 ? WORDS[q(WORDS.length)]! : `w${[q(10), 10 + q(90), 100 + q(900)][q(3)]}`))),
  ]);
}

/** Every search gives the plain FTS5 ranking; returns how many searches took the pruned path. */
function assertExact(searcher: Bm25TopK, qs: string[][]): number {
  let pruned = 0;
  for (const terms of qs) {
    for (const k of [1, 5]) {
      const { hits, plan } = searcher.search(terms, k);
      assert.deepEqual(
        hits.map((h) => h.id),
        searcher.exhaustive(terms, k).map((h) => h.id),
        `${terms.join(' ')} k=${k} ${JSON.stringify(plan)}`,
      );
      if (!plan.exhaustive) pruned += 1;
    }
  }
  return pruned;
}

/** Each stored bound is at least the term's best one-term FTS5 score (what an in-memory searcher computes). */
function assertTrueBounds(db: Db, corpus: Corpus, stored: StoredBm25Bounds, terms: string[]): Map<string, number> {
  const found = stored.lookup(terms, readIndexStats(db, corpus.ftsTable));
  const exact = new Bm25TopK(db, corpus.ftsTable);
  const rows = readIndexStats(db, corpus.ftsTable).rows;
  for (const [t, { df, bound }] of found) {
    assert.equal(df, exact.documentFrequency(t), `df of ${t}`);
    const best = exact.upperBound(t, rows);
    assert.ok(bound * (1 + 1e-9) >= best, `stored bound of ${t} (${bound}) below its best score ${best}`);
  }
  return new Map([...found].map(([t, v]) => [t, v.bound]));
}

const TERMS = [...Array.from({ length: 200 }, (_, i) => `w${i}`), ...WORDS];

describe('BM25 bounds stored by corpus add (bm25-bounds.ts)', () => {
  const dir = tempDir('llmkb-bounds-');
  const store = join(dir, 'store.sqlite');
  const base = join(dir, 'base.csv');
  const more = join(dir, 'more.csv');

  it('a new process uses the stored bounds (true bounds, tight when current) and ranks exactly as plain FTS5', async () => {
    writeCsv(base, 3000, 42, 'b');
    const db = open(store);
    const corpus = Corpus.openOrCreate(db, 'c');
    const report = await corpus.add([base]);
    assert.equal(report.bounds?.mode, 'full');
    // A small corpus: store the bounds of terms in at least 20 passages (later adds keep that threshold).
    const refreshed = refreshBm25Bounds(db, corpus.id, corpus.ftsTable, { minDf: 20 });
    assert.ok(refreshed.terms > 100, `${refreshed.terms} terms stored`);

    const fresh = freshSearcher(store);
    const bounds = assertTrueBounds(fresh.db, fresh.corpus, fresh.stored, TERMS);
    assert.ok(bounds.size > 100 && bounds.has('because') && bounds.has('causes'), 'frequent terms, stems that are not their own stem too, have stored bounds');
    // Computed from a current index, a stored bound is the best one-term score itself.
    const exact = new Bm25TopK(fresh.db, fresh.corpus.ftsTable);
    for (const t of ['w3', 'w40', 'because', 'species'])
      assert.ok(Math.abs(bounds.get(t)! - exact.upperBound(t, readIndexStats(fresh.db, fresh.corpus.ftsTable).rows)) < 1e-9 * bounds.get(t)!, t);
    // The searcher takes them from the store: the bound it uses is the stored one.
    fresh.searcher.search(['w3', 'w40'], 5);
    assert.equal(fresh.searcher.upperBound('w3', 0), bounds.get('w3'));
    assert.ok(assertExact(fresh.searcher, queries(7, 60)) > 30, 'most searches pruned');
  });

  it("after an incremental add that raises a term's best score, and a re-add that removes documents, results stay exact", async () => {
    const before = freshSearcher(store);
    const oldBound = before.stored.lookup(['w7'], readIndexStats(before.db, before.corpus.ftsTable)).get('w7')!.bound;
    before.db.close();
    // A short passage full of "w7": its one-term score is above every earlier passage's.
    writeCsv(more, 200, 99, 'm', ['w7 w7 w7 w7 w7 w7 w7 w7 w9', 'w7 because because because w9']);
    const db = open(store);
    const corpus = Corpus.open(db, 'c');
    const added = await corpus.add([more]);
    assert.equal(added.bounds?.mode, 'incremental');
    const fresh = freshSearcher(store);
    const exact = new Bm25TopK(fresh.db, fresh.corpus.ftsTable);
    const newBest = exact.upperBound('w7', readIndexStats(fresh.db, fresh.corpus.ftsTable).rows);
    assert.ok(newBest > oldBound * 1.01, `the new passage raises w7's best score (${oldBound} -> ${newBest}): the old bound would be wrong`);
    const bounds = assertTrueBounds(fresh.db, fresh.corpus, fresh.stored, TERMS);
    assert.ok(bounds.size > 100);
    assert.deepEqual(
      fresh.searcher.search(['w7', 'w9', 'w0'], 1).hits.map((h) => h.id),
      exact.exhaustive(['w7', 'w9', 'w0'], 1).map((h) => h.id),
    );
    assert.ok(assertExact(fresh.searcher, [...queries(11, 40), ['w7', 'w1', 'w2'], ['because', 'w0', 'w5']]) > 20);

    // The same file with half of its documents: they are removed from the index.
    writeCsv(more, 100, 99, 'm');
    const removed = await corpus.add([more]);
    assert.equal(removed.documents.removed, 102);
    assert.equal(removed.bounds?.mode, 'incremental');
    const after = freshSearcher(store);
    assertTrueBounds(after.db, after.corpus, after.stored, TERMS);
    assert.ok(assertExact(after.searcher, queries(13, 40)) > 20);
    // Nothing changed: nothing to update.
    assert.equal((await corpus.add([more])).bounds, undefined);
  });

  it('bounds are not used while an add writes (or after it died writing); the next add recomputes them', async () => {
    const db = open(store);
    const corpus = Corpus.open(db, 'c');
    const stored = new StoredBm25Bounds(db, corpus.id, corpus.ftsTable);
    assert.ok(stored.lookup(['w1'], readIndexStats(db, corpus.ftsTable)).size === 1);
    assert.equal(db.transaction(() => markBm25BoundsChanging(db, corpus.id))(), true);
    assert.equal(stored.lookup(['w1'], readIndexStats(db, corpus.ftsTable)).size, 0, 'a changing index has no stored bounds');
    const report = await corpus.add([more]);
    assert.equal(report.passages, 0);
    assert.equal(report.bounds?.mode, 'full', 'an interrupted add leaves bounds that may miss passages: recomputed');
    assert.equal(stored.lookup(['w1'], readIndexStats(db, corpus.ftsTable)).size, 1);
    assert.ok(assertExact(freshSearcher(store).searcher, queries(17, 20)) > 10);
  });

  it('a store made before the bounds tables existed: searches work, and the next add computes the bounds', async () => {
    const path = join(dir, 'old.sqlite');
    const db = open(path);
    await Corpus.openOrCreate(db, 'c').add([base]);
    db.exec('DROP TABLE corpus_bm25_terms; DROP TABLE corpus_bm25_state');
    db.close();
    const fresh = freshSearcher(path);
    assert.ok(assertExact(fresh.searcher, queries(19, 20)) > 10, 'searches without stored bounds compute them');
    assert.equal(fresh.corpus.search('w3 w40 because', { k: 3 }).length, 3);
    const report = await fresh.corpus.add([base]);
    assert.equal(report.unchangedFiles, 1);
    assert.equal(report.bounds?.mode, 'full');
    assert.ok(fresh.stored.lookup(['w0'], readIndexStats(fresh.db, fresh.corpus.ftsTable)).size === 1);
  });
});
