/**
 * Output folders are made level by level (`makeFolder`), never with `mkdirSync({ recursive })`,
 * which loops forever on Node 20 where the file system answers a mkdir with ENOENT (/proc); and
 * `--out` under such a place is refused before any work with exit 6, for eval and for a sweep's
 * `out:`, within seconds.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkOutputFolder } from '../src/methods/cli-options.js';
import { FileAccessError } from '../src/errors.js';
import { makeFolder } from '../src/io/files.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const procSkip = existsSync('/proc/self') ? false : 'no /proc on this system';

describe('makeFolder', () => {
  it('makes every missing level, returns them outermost first, and is a no-op on an existing folder', () => {
    const root = tempDir('llmkb-make-folder-');
    assert.deepEqual(makeFolder(join(root, 'a', 'b', 'c')), [join(root, 'a'), join(root, 'a', 'b'), join(root, 'a', 'b', 'c')]);
    assert.ok(statSync(join(root, 'a', 'b', 'c')).isDirectory());
    assert.deepEqual(makeFolder(join(root, 'a', 'b')), []);
  });

  it('a file in the way: exit 6 naming the path', () => {
    const root = tempDir('llmkb-make-folder-');
    writeFileSync(join(root, 'file'), '');
    assert.throws(
      () => makeFolder(join(root, 'file', 'x')),
      (e: unknown) => e instanceof FileAccessError && e.exitCode === 6 && e.code === 'ENOTDIR' && e.message.includes(join(root, 'file', 'x')),
    );
    assert.throws(
      () => makeFolder(join(root, 'file')),
      (e: unknown) => e instanceof FileAccessError && e.code === 'EEXIST',
    );
  });

  it('under /proc: exit 6 at once, saying the file system refuses new folders there', { skip: procSkip }, () => {
    assert.throws(
      () => makeFolder('/proc/forbidden/x'),
      (e: unknown) =>
        e instanceof FileAccessError &&
        e.exitCode === 6 &&
        /cannot create folder \/proc\/forbidden\/x: the file system does not allow new folders in \/proc/.test(e.message),
    );
  });
});

describe('checkOutputFolder tries the folder it would make, and leaves nothing behind', () => {
  it('a new folder under a writable one passes, and is not left there', () => {
    const root = tempDir('llmkb-check-out-');
    assert.equal(checkOutputFolder(join(root, 'new', 'deeper')), join(root, 'new', 'deeper'));
    assert.deepEqual(readdirSync(root), []);
  });

  it('a folder under /proc is refused (its permissions would allow it)', { skip: procSkip }, () => {
    assert.throws(
      () => checkOutputFolder('/proc/forbidden/x'),
      (e: unknown) => e instanceof FileAccessError && e.exitCode === 6,
    );
  });
});

describe('--out under /proc: exit 6 within seconds, not a hang', { skip: procSkip }, () => {
  it('eval --out /proc/forbidden/x', async () => {
    const started = Date.now();
    // A real model when there is one: then nothing but the output folder stands in the way.
    const model = process.env.LLMKB_TEST_GGUF ? `gguf:${process.env.LLMKB_TEST_GGUF}` : 'gguf:/nowhere/model.gguf';
    const r = await llmkb(['--store', 'store.sqlite', 'eval', '--quick', '--model', model, '--data', 'data', '--out', '/proc/forbidden/x'], {
      timeoutMs: 20_000,
    });
    assert.equal(r.code, 6, r.stderr);
    assert.match(r.stderr, /cannot create folder \/proc\/forbidden\/x/);
    assert.ok(Date.now() - started < 15_000);
  });

  it("a sweep's out: /proc/forbidden/x", async () => {
    const cwd = tempDir('llmkb-sweep-proc-');
    writeFileSync(join(cwd, 'study.yaml'), 'out: /proc/forbidden/x\nmodels:\n  - label: m\n    spec: mock:replies.jsonl\n');
    const r = await llmkb(['--store', 'store.sqlite', 'sweep', 'study.yaml'], { cwd, timeoutMs: 20_000 });
    assert.equal(r.code, 6, r.stderr);
    assert.match(r.stderr, /cannot create folder \/proc\/forbidden\/x/);
  });
});

describe('a sweep that fails before any run finishes leaves no empty results folder', () => {
  it('a CONNER study whose query file is missing: the error, and no conner-results/ behind', async () => {
    const cwd = tempDir('llmkb-sweep-empty-');
    writeFileSync(join(cwd, 'replies.jsonl'), '');
    writeFileSync(
      join(cwd, 'study.yaml'),
      'out: results/conner-results\nmethods:\n  - { id: conner, settings: [zero-shot], options: { input: conner-data/missing.txt } }\nmodels:\n  - label: m\n    spec: mock:replies.jsonl\n',
    );
    const r = await llmkb(['--store', 'store.sqlite', 'sweep', 'study.yaml'], { cwd, timeoutMs: 60_000 });
    assert.notEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, /missing\.txt not found/);
    assert.deepEqual(
      readdirSync(cwd)
        .filter((f) => !f.startsWith('store.sqlite'))
        .sort(),
      ['replies.jsonl', 'study.yaml'],
      'neither results/ nor results/conner-results/ is left',
    );
  });
});
