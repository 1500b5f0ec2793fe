import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SqliteDatabase as Database } from './database.js';
import { CallCache } from './call-cache.js';
import { cacheKey, canonicalJson } from './call-key.js';
import { openDatabase } from './database.js';
import { PROCESS_TOKEN } from './paid-calls.js';
import { RunStore } from './run-store.js';
import { tempDir } from '#test-support/temp-dir.js';

/** The layout llmkb wrote before schema 2 (store schema 1). */
const SCHEMA_1 = `
CREATE TABLE call_cache (key TEXT PRIMARY KEY, model TEXT NOT NULL, kind TEXT NOT NULL, request TEXT NOT NULL, response TEXT NOT NULL,
  prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, latency_ms REAL NOT NULL, created_at TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE runs (id TEXT PRIMARY KEY, spec TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE run_stages (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, stage TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('running', 'done')),
  info TEXT, updated_at TEXT NOT NULL, PRIMARY KEY (run_id, stage)) WITHOUT ROWID;
CREATE TABLE run_records (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, stage TEXT NOT NULL, item_id TEXT NOT NULL, seq INTEGER NOT NULL,
  record TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (run_id, stage, item_id)) WITHOUT ROWID;
PRAGMA user_version = 1;
`;

describe('CallCache', () => {
  it('returns what was put, after the commit, and keeps the request', async () => {
    const cache = new CallCache(openDatabase(':memory:'));
    const request = { prompt: 'QUESTION: q?\nANSWER:', maxTokens: 5, stop: [], temperature: 0 };
    const key = cacheKey('m', 'complete', request);
    assert.equal(cache.get(key), undefined);
    const puts = [cache.put(key, 'm', 'complete', request, { response: { text: ' a' }, promptTokens: 3, completionTokens: 1, latencyMs: 7 })];
    for (let i = 0; i < 50; i++)
      puts.push(cache.put(cacheKey('m', 'complete', { i }), 'm', 'complete', { i }, { response: i, promptTokens: 0, completionTokens: 0, latencyMs: 0 }));
    await Promise.all(puts);
    assert.deepEqual(cache.get(key), { response: { text: ' a' }, promptTokens: 3, completionTokens: 1, latencyMs: 7 });
    assert.equal(cache.request(key), canonicalJson(request));
    assert.equal(cache.stats().entries, 51);
    assert.equal(cache.clear('other'), 0);
    assert.equal(cache.clear('m'), 51);
  });

  it("writes the run that paid for a call with its entry, journal then store: the run's calls and tokens, and the calls an earlier process paid for", async () => {
    const dir = tempDir('llmkb-paid-');
    const file = join(dir, 's.sqlite');
    const killed = openDatabase(file);
    const run = new RunStore(killed).open({ model: 'm', dataset: 'd', setting: 'zero-shot', seed: 1, params: {} });
    const cache = new CallCache(killed);
    const earlier = cacheKey('m', 'complete', { i: 1 });
    // A call another process paid for this run (as a killed process's journal moved into the store gives it).
    await cache.put(
      earlier,
      'm',
      'complete',
      { i: 1 },
      { response: 'a', promptTokens: 5, completionTokens: 2, latencyMs: 1 },
      { run: run.id, role: 'model', process: 'killed~1', requests: 2 },
    );
    const mine = cacheKey('m', 'complete', { i: 2 });
    await cache.put(
      mine,
      'm',
      'complete',
      { i: 2 },
      { response: 'b', promptTokens: 7, completionTokens: 1, latencyMs: 1 },
      { run: run.id, role: 'model', process: PROCESS_TOKEN, requests: 1 },
    );
    const unpaid = cacheKey('m', 'complete', { i: 3 });
    await cache.put(unpaid, 'm', 'complete', { i: 3 }, { response: 'c', promptTokens: 100, completionTokens: 100, latencyMs: 1 });
    // In the journal, not yet moved into the store: RunStore.calls does not see it.
    assert.deepEqual(run.calls(), {});
    cache.close();
    killed.close();

    const db = openDatabase(file);
    const resumed = new CallCache(db);
    const again = new RunStore(db).open({ model: 'm', dataset: 'd', setting: 'zero-shot', seed: 1, params: {} });
    assert.equal(again.id, run.id);
    assert.equal(resumed.paidEarlier(run.id, earlier), true, 'paid by another process for this run');
    assert.equal(resumed.paidEarlier(run.id, mine), false, 'paid by this process');
    assert.equal(resumed.paidEarlier(run.id, unpaid), false, 'paid for no run');
    assert.equal(resumed.paidEarlier('another-run', earlier), false, 'paid for another run: a cache hit there');
    again.addCalls({ model: { calls: 1, cacheHits: 1, requests: 0, promptTokens: 0, completionTokens: 0 } });
    assert.deepEqual(again.calls(), { model: { calls: 3, cacheHits: 1, requests: 3, promptTokens: 12, completionTokens: 3 } });
    resumed.close();
    db.close();
  });

  it('opens a store of schema 1: its cached calls and runs are kept and found', () => {
    const path = join(tempDir('llmkb-schema1-'), 'old.sqlite');
    const request = { prompt: 'QUESTION: who?\nANSWER:', maxTokens: 100, stop: [], temperature: 0 };
    const key = cacheKey('vllm:old-model', 'complete', request);
    const old = new Database(path);
    old.exec(SCHEMA_1);
    old
      .prepare('INSERT INTO call_cache VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(
        key,
        'vllm:old-model',
        'complete',
        canonicalJson(request),
        JSON.stringify({ text: ' Bobby Scott', finishReason: 'stop' }),
        12,
        3,
        20.5,
        '2026-01-01T00:00:00.000Z',
      );
    old
      .prepare('INSERT INTO runs VALUES (?, ?, ?, ?)')
      .run('abc', JSON.stringify({ model: 'vllm:old-model', dataset: 'd', setting: 'zero-shot', seed: 42 }), '2026-01-01', '2026-01-01');
    old.prepare('INSERT INTO run_records VALUES (?, ?, ?, ?, ?, ?)').run('abc', 'ask', 'q1', 0, JSON.stringify({ id: 'q1', response: 'x' }), '2026-01-01');
    old.close();

    const db = openDatabase(path);
    assert.equal(db.pragma('user_version', { simple: true }), 3);
    const cache = new CallCache(db);
    assert.deepEqual(cache.get(key), { response: { text: ' Bobby Scott', finishReason: 'stop' }, promptTokens: 12, completionTokens: 3, latencyMs: 20.5 });
    assert.equal(cache.request(key), canonicalJson(request));
    assert.equal(cache.stats().entries, 1);
    assert.equal(new RunStore(db).get('abc')?.spec.model, 'vllm:old-model');
    assert.deepEqual([...new RunStore(db).get('abc')!.records('ask')], [['q1', { id: 'q1', response: 'x' }]], 'run records move to the rowid table');
    db.close();
    // Opening it again (now schema 3) changes nothing.
    const again = openDatabase(path);
    assert.equal(new CallCache(again).get(key)?.promptTokens, 12);
    again.close();
  });

  it('journals calls beside a store file, moves them into the store in batches and on close, and ignores a torn last entry', async () => {
    const folder = tempDir('llmkb-journal-');
    const path = join(folder, 'store.sqlite');
    const db = openDatabase(path);
    const cache = new CallCache(db, { mergeEntries: 10 });
    const entry = (i: number) => ({ response: { text: ` a${i}` }, promptTokens: i, completionTokens: 1, latencyMs: 2 });
    const keys = Array.from({ length: 25 }, (_, i) => cacheKey('m', 'complete', { i }));
    await Promise.all(keys.slice(0, 5).map((k, i) => cache.put(k, 'm', 'complete', { i }, entry(i))));
    const journal = readdirSync(folder).filter((f) => f.endsWith('.journal'));
    assert.equal(journal.length, 1, 'one journal file beside the store');
    assert.match(journal[0]!, /^store\.sqlite\.calls-.+~\d+~[0-9a-f]+\.journal$/);
    // Written, not yet moved: found through the journal, not in the table.
    assert.deepEqual(cache.get(keys[3]!), entry(3));
    assert.equal((db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n, 0);
    // The tenth entry moves all ten into the table.
    await Promise.all(keys.slice(5, 12).map((k, i) => cache.put(k, 'm', 'complete', { i: i + 5 }, entry(i + 5))));
    assert.equal((db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n, 12);
    await Promise.all(keys.slice(12, 15).map((k, i) => cache.put(k, 'm', 'complete', { i: i + 12 }, entry(i + 12))));
    assert.equal(cache.stats().entries, 15, 'stats count journal entries too');
    await Promise.all(keys.slice(15, 17).map((k, i) => cache.put(k, 'm', 'complete', { i: i + 15 }, entry(i + 15))));
    // A kill during a write leaves a torn entry at the end: it was never reported done, and is skipped.
    const file = join(folder, journal[0]!);
    appendFileSync(file, Buffer.from([200, 1, 0, 0, 1, 2, 3]));
    // Another process finds this journal once its owner is gone: here, a copy named after a pid that does not exist.
    copyFileSync(file, join(folder, journal[0]!.replace(/~\d+~/, '~999999999~')));
    cache.close();
    assert.deepEqual(
      readdirSync(folder).filter((f) => f.endsWith('.journal') && !f.includes('~999999999~')),
      [],
      'close moves the journal into the store and removes it',
    );
    assert.equal((db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n, 17);
    db.prepare('DELETE FROM calls').run();
    db.close();
    const reopened = openDatabase(path);
    const recovered = new CallCache(reopened);
    assert.ok(!readdirSync(folder).some((f) => f.includes('~999999999~')), "the dead process's journal is moved and removed");
    assert.deepEqual(recovered.get(keys[16]!), entry(16));
    assert.equal(recovered.stats().entries, 2, "the dead process's journal (the two calls since its last move), up to its torn entry");
    recovered.close();
    reopened.close();
  });

  it('moves the journal frame by frame: a key written twice keeps its last answer, and a torn last frame is no entry', async () => {
    const folder = tempDir('llmkb-journal-');
    const path = join(folder, 'store.sqlite');
    const db = openDatabase(path);
    const cache = new CallCache(db, { mergeEntries: 1000 });
    const entry = (i: number) => ({ response: { text: ` a${i}` }, promptTokens: i, completionTokens: 1, latencyMs: 2 });
    const keys = Array.from({ length: 40 }, (_, i) => cacheKey('m', 'complete', { i }));
    // Batches in separate ticks: separate frames.
    for (let b = 0; b < 4; b++)
      await Promise.all(keys.slice(b * 10, b * 10 + 10).map((k, j) => cache.put(k, 'm', 'complete', { i: b * 10 + j }, entry(b * 10 + j))));
    await cache.put(keys[3]!, 'm', 'complete', { i: 3 }, entry(99));
    assert.equal((db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n, 0, 'nothing moved yet');
    // A kill while a frame was written: its length promises more bytes than the file holds.
    const journal = join(folder, readdirSync(folder).find((f) => f.endsWith('.journal'))!);
    appendFileSync(journal, Buffer.from([0x40, 0, 0, 0x80, 1, 2, 3]));
    const merged = cache.writes.merged;
    cache.checkpoint();
    assert.equal(cache.writes.merged - merged, 40, 'forty distinct calls moved');
    assert.equal((db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n, 40);
    assert.deepEqual(cache.get(keys[3]!), entry(99), 'the last answer of a key written twice');
    assert.deepEqual(cache.get(keys[39]!), entry(39));
    assert.equal(cache.request(keys[17]!), canonicalJson({ i: 17 }), 'requests are deflated as they move');
    cache.close();
    db.close();
  });
  it('looks up through a read transaction that spans a turn, yet sees in that turn every call it moves into the store and every clear', async () => {
    const path = join(tempDir('llmkb-reader-'), 'store.sqlite');
    const db = openDatabase(path);
    const cache = new CallCache(db, { mergeEntries: 1000 });
    const entry = (i: number) => ({ response: { text: ` a${i}` }, promptTokens: i, completionTokens: 1, latencyMs: 2 });
    const keys = Array.from({ length: 3 }, (_, i) => cacheKey('m', 'complete', { i }));
    await cache.put(keys[0]!, 'm', 'complete', { i: 0 }, entry(0));
    cache.checkpoint();
    await cache.put(keys[1]!, 'm', 'complete', { i: 1 }, entry(1));
    // All in one turn: the first lookup takes a snapshot of the store (key 1 is still in the journal).
    assert.deepEqual(cache.get(keys[0]!), entry(0));
    assert.equal(cache.get(keys[2]!), undefined);
    cache.checkpoint(); // key 1 leaves the journal for the store
    assert.deepEqual(cache.get(keys[1]!), entry(1), 'a call moved into the store in this turn is found');
    assert.equal(cache.clear('m'), 2);
    assert.equal(cache.get(keys[0]!), undefined, 'a cleared call is gone in this turn');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(cache.get(keys[1]!), undefined);
    cache.close();
    db.close();
  });
});
