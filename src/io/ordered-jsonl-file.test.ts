import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { toJsonl } from './jsonl.js';
import { OrderedJsonlFile } from './ordered-jsonl-file.js';

const dir = mkdtempSync(join(tmpdir(), 'llmkb-ordered-jsonl-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const records = Array.from({ length: 50 }, (_, i) => ({ id: `q${i}`, response: `answer ${i}`, text: 'x'.repeat(i * 97) }));

describe('OrderedJsonlFile', () => {
  it('writes records given in any order as the JSONL of the records in position order, and only at finish under its name', () => {
    const file = join(dir, 'shuffled.jsonl');
    const out = new OrderedJsonlFile<(typeof records)[number]>(file, records.length, () => undefined);
    const order = records.map((_, i) => i).sort((a, b) => ((a * 37) % 50) - ((b * 37) % 50));
    for (const i of order) {
      out.put(i, records[i]!);
      assert.equal(existsSync(file), false, 'no output file before finish');
    }
    const tmp = readdirSync(dir).filter((f) => f.startsWith('shuffled.jsonl.tmp-'));
    assert.equal(tmp.length, 1);
    assert.ok(statSync(join(dir, tmp[0]!)).size > 0, 'lines are written before finish, not kept for the end');
    out.finish();
    assert.equal(readFileSync(file, 'utf8'), toJsonl(records));
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('shuffled')),
      ['shuffled.jsonl'],
      'no temporary file left',
    );
  });

  it('reads the records made before (stored) in turn, and at finish every record that never came', () => {
    const file = join(dir, 'resumed.jsonl');
    const asked: Array<[number, boolean]> = [];
    const storedBefore = new Set([0, 1, 7, 30]);
    const out = new OrderedJsonlFile<(typeof records)[number]>(file, records.length, (position, last) => {
      asked.push([position, last]);
      return storedBefore.has(position) || (last && position >= 40) ? records[position] : undefined;
    });
    for (let i = 0; i < 40; i++) if (!storedBefore.has(i)) out.put(i, records[i]!);
    out.finish();
    assert.equal(readFileSync(file, 'utf8'), toJsonl(records));
    assert.ok(
      asked.some(([p, last]) => p === 45 && last),
      'positions that never came are read at finish',
    );
  });

  it('leaves no output and no temporary file when a record is missing at finish, or on abort', () => {
    const missing = join(dir, 'missing.jsonl');
    const out = new OrderedJsonlFile<(typeof records)[number]>(missing, 3, () => undefined);
    out.put(0, records[0]!);
    out.put(2, records[2]!);
    assert.throws(() => out.finish(), /no record at position 1/);
    const aborted = join(dir, 'aborted.jsonl');
    const other = new OrderedJsonlFile<(typeof records)[number]>(aborted, 2, () => undefined);
    other.put(0, records[0]!);
    other.abort();
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('missing') || f.startsWith('aborted')),
      [],
    );
  });

  it('an empty file for no records, as toJsonl gives', () => {
    const file = join(dir, 'empty.jsonl');
    new OrderedJsonlFile(file, 0, () => undefined).finish();
    assert.equal(readFileSync(file, 'utf8'), toJsonl([]));
  });
});
