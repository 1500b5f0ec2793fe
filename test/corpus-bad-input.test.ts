/**
 * `llmkb corpus` and `data from-corpus` on bad input, through the built binary: each case ends
 * in a clear error (file, line or field, a `hint:` line, a documented exit code) or in a result
 * that says what happened, never in a silent loss.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { llmkb } from './support/run-cli.js';

function workspace(): { dir: string; run: (...args: string[]) => ReturnType<typeof llmkb> } {
  const dir = mkdtempSync(join(tmpdir(), 'llmkb-corpus-bad-'));
  const store = join(dir, 'store.sqlite');
  return { dir, run: (...args: string[]) => llmkb(['--store', store, 'corpus', ...args], { cwd: dir }) };
}

function write(path: string, content: string | Buffer): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}

describe('corpus add: file names and ids', () => {
  it('adds two folders that both hold same.txt, naming each document with its folder', async () => {
    const { dir, run } = workspace();
    write(join(dir, 'a', 'same.txt'), 'Finches on the Galapagos islands have beaks of many shapes.');
    write(join(dir, 'b', 'same.txt'), 'Pigeons of every breed descend from the rock pigeon.');
    const add = await run('add', 'two', join(dir, 'a'), join(dir, 'b'), '--json');
    assert.equal(add.code, 0, add.stderr);
    assert.equal((JSON.parse(add.stdout) as { documents: { added: number } }).documents.added, 2);
    const hits = JSON.parse((await run('search', 'two', 'finches pigeons', '--json')).stdout) as { docId: string }[];
    assert.deepEqual(hits.map((h) => h.docId).sort(), [join('a', 'same.txt'), join('b', 'same.txt')]);
  });

  it('names the file that already holds a document id when a later add brings the same id', async () => {
    const { dir, run } = workspace();
    const first = write(join(dir, 'a', 'same.txt'), 'Finches on the Galapagos islands have beaks of many shapes.');
    write(join(dir, 'b', 'same.txt'), 'Pigeons of every breed descend from the rock pigeon.');
    assert.equal((await run('add', 'two', join(dir, 'a'))).code, 0);
    const second = await run('add', 'two', join(dir, 'b'));
    assert.equal(second.code, 2);
    assert.match(second.stderr, new RegExp(`b/same\\.txt: document id "same\\.txt" is already in corpus "two" from ${first.replace(/[.]/g, '\\.')}\\n`));
    assert.match(second.stderr, /hint: .*add both folders in one `llmkb corpus add`/);
    // Both folders in one add: the first document is renamed, the second added.
    const both = await run('add', 'two', join(dir, 'a'), join(dir, 'b'), '--json');
    assert.equal(both.code, 0, both.stderr);
    const hits = JSON.parse((await run('search', 'two', 'finches pigeons', '--json')).stdout) as { docId: string }[];
    assert.deepEqual(hits.map((h) => h.docId).sort(), [join('a', 'same.txt'), join('b', 'same.txt')]);
  });
});
