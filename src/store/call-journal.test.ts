import assert from 'node:assert/strict';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { CallCache } from './call-cache.js';
import { CallJournal, journalFileRows } from './call-journal.js';
import { cacheKey } from './call-key.js';
import { openDatabase } from './database.js';
import { tempDir } from '#test-support/temp-dir.js';

const call = (i: number) => ({
  model: 'm',
  kind: 'complete',
  response: JSON.stringify({ text: ` a${i}` }),
  promptTokens: i,
  completionTokens: 1,
  latencyMs: 2.5,
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('CallJournal', () => {
  it('appends a tick of calls as one frame; finds each; gives them back in order with requests deflated; clears', () => {
    const store = join(tempDir('llmkb-call-journal-'), 'store.sqlite');
    const journal = new CallJournal(store);
    const keys = [0, 1, 2].map((i) => cacheKey('m', 'complete', { i }));
    const bytes = journal.append(keys.slice(0, 2).map((k, i) => ({ ...call(i), key: Buffer.from(k, 'hex'), request: `{"i":${i}}` })));
    journal.append([{ ...call(2), key: Buffer.from(keys[2]!, 'hex'), request: '{"i":2}' }]);
    assert.equal(statSync(journal.file).size > bytes, true, 'the second frame follows the first');
    assert.equal(journal.entries, 3);
    assert.deepEqual(journal.find(keys[1]!), { response: '{"text":" a1"}', promptTokens: 1, completionTokens: 1, latencyMs: 2.5 });
    assert.equal(journal.find(cacheKey('m', 'complete', { i: 9 })), undefined);
    const rows = [...journal.rows()];
    assert.deepEqual(
      rows.map((r) => r.key.toString('hex')),
      keys,
    );
    assert.deepEqual(
      rows.map((r) => inflateRawSync(r.request).toString('utf8')),
      ['{"i":0}', '{"i":1}', '{"i":2}'],
    );
    assert.deepEqual({ ...rows[2]!, key: undefined, request: undefined }, { ...call(2), key: undefined, request: undefined });
    journal.clear();
    assert.equal(journal.entries, 0);
    assert.deepEqual([...journal.rows()], []);
    journal.close();
    assert.deepEqual(readdirSync(join(store, '..')), [], 'an empty journal is removed when closed');
  });

  it("moves an older version's journal (entries outside frames, requests deflated) left by a dead process into the store", () => {
    const folder = tempDir('llmkb-call-journal-');
    const store = join(folder, 'store.sqlite');
    const keys = [0, 1].map((i) => cacheKey('m', 'complete', { i }));
    // u32 length, 32-byte key, u32 header length, header, request raw-DEFLATEd; then a torn entry.
    const entry = (i: number): Buffer => {
      const c = call(i);
      const header = Buffer.from(JSON.stringify([c.model, c.kind, c.response, c.promptTokens, c.completionTokens, c.latencyMs, c.createdAt]));
      const request = deflateRawSync(`{"i":${i}}`);
      const out = Buffer.alloc(40 + header.length + request.length);
      out.writeUInt32LE(out.length - 4, 0);
      Buffer.from(keys[i]!, 'hex').copy(out, 4);
      out.writeUInt32LE(header.length, 36);
      header.copy(out, 40);
      request.copy(out, 40 + header.length);
      return out;
    };
    const file = join(folder, `store.sqlite.calls-${hostname().replace(/[^A-Za-z0-9_.-]/g, '_')}~999999999~0badf00d.journal`);
    writeFileSync(file, Buffer.concat([entry(0), entry(1), entry(1).subarray(0, 30)]));
    assert.deepEqual(
      [...journalFileRows(file)].map((r) => r.key.toString('hex')),
      keys,
    );
    const db = openDatabase(store);
    const cache = new CallCache(db);
    assert.ok(!readdirSync(folder).includes(file.slice(folder.length + 1)), 'moved and removed');
    assert.deepEqual(cache.get(keys[1]!), { response: { text: ' a1' }, promptTokens: 1, completionTokens: 1, latencyMs: 2.5 });
    assert.equal(cache.request(keys[0]!), '{"i":0}');
    assert.equal(cache.stats().entries, 2);
    cache.close();
    db.close();
  });
});
