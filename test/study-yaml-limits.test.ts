/**
 * A study file's YAML aliases cannot expand without bound: a "billion laughs" file (nested
 * aliases, exponential expansion) and an alias without its anchor are input errors naming the
 * file (exit 2), not internal errors; a flat alias used many times still loads.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InputFileError } from '../src/errors.js';
import { loadStudy } from '../src/sweep/study.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const dir = tempDir('llmkb-study-yaml-');

/** Six levels of nine aliases each: 9^6 = 531,441 strings from seven lines. */
const BOMB = `a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
models: [*f]
`;

function study(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('YAML aliases in a study file', () => {
  it('a billion-laughs file is refused naming the file', () => {
    const file = study('bomb.yaml', BOMB);
    assert.throws(
      () => loadStudy(file),
      (e: unknown) =>
        e instanceof InputFileError && e.exitCode === 2 && e.file === file && /aliases \(\*name\) expand to more than 1000 copies/.test(e.message),
    );
  });

  it('an alias without its anchor is refused naming the file', () => {
    const file = study('unresolved.yaml', 'models: [*nowhere]\n');
    assert.throws(
      () => loadStudy(file),
      (e: unknown) => e instanceof InputFileError && e.exitCode === 2 && e.file === file && /Unresolved alias/.test(e.message),
    );
  });

  it('a price shared by 300 models through one flat alias still loads', () => {
    const models = Array.from(
      { length: 300 },
      (_, i) => `  - { label: m${i}, spec: "mock:r${i}.jsonl", price: ${i === 0 ? '&price { input: 1, output: 2 }' : '*price'} }`,
    ).join('\n');
    const loaded = loadStudy(study('flat.yaml', `models:\n${models}\n`));
    assert.equal(loaded.models.length, 300);
    assert.deepEqual(loaded.models[299]!.price, { input: 1, output: 2 });
  });

  it('sweep --plan on the bomb: exit 2 within seconds, naming the file', async () => {
    const file = study('bomb-cli.yaml', BOMB);
    const r = await llmkb(['--store', join(dir, 's.sqlite'), 'sweep', file, '--plan'], { timeoutMs: 30_000 });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`llmkb: error: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: its aliases`));
    assert.doesNotMatch(r.stderr, /internal error/);
  });
});
