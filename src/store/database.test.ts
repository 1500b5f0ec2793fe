import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Corpus } from '../corpus/index.js';
import { CORPUS_CACHE_KIB, openDatabase, raiseCacheSize, STORE_CACHE_KIB } from './database.js';
import { tempDir } from '#test-support/temp-dir.js';

const dir = tempDir('llmkb-database-');
after(() => rmSync(dir, { recursive: true, force: true }));

describe('store page cache', () => {
  it('is STORE_CACHE_KIB on a store connection, and CORPUS_CACHE_KIB once a corpus is open on it', () => {
    const db = openDatabase(join(dir, 'store.sqlite'));
    assert.equal(db.pragma('cache_size', { simple: true }), -STORE_CACHE_KIB);
    Corpus.openOrCreate(db, 'docs');
    assert.equal(db.pragma('cache_size', { simple: true }), -CORPUS_CACHE_KIB);
    db.close();
  });

  it('raiseCacheSize never lowers a cache, whichever unit it was set in', () => {
    const db = openDatabase(join(dir, 'units.sqlite'));
    raiseCacheSize(db, 1024);
    assert.equal(db.pragma('cache_size', { simple: true }), -STORE_CACHE_KIB);
    // 4,000 pages of 8 KiB: 32,000 KiB, more than asked for.
    db.pragma('cache_size = 4000');
    raiseCacheSize(db, CORPUS_CACHE_KIB);
    assert.equal(db.pragma('cache_size', { simple: true }), 4000);
    db.pragma('cache_size = 100');
    raiseCacheSize(db, CORPUS_CACHE_KIB);
    assert.equal(db.pragma('cache_size', { simple: true }), -CORPUS_CACHE_KIB);
    db.close();
  });
});
