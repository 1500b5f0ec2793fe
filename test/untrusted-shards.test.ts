/**
 * `llmkb merge` takes shards from other machines: every path in a shard's sweep record is
 * untrusted. A `runs[].base` that leaves the shard (`..`, absolute, a symbolic link out of it) or
 * a `suffix` naming another folder is refused with exit 2 naming the record and the field, before
 * anything is read or written outside; nothing is written outside --out; an --out inside a shard
 * is refused; and a run that failed in its shard (or was never run) makes the merge exit 3 after
 * writing what the shards hold. Two shards of a two-model study with scripted `mock:` models.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXIT_CODES } from '../src/errors.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const root = tempDir('llmkb-shards-');
const RECORD = 'sweep.shard-1-of-2.json';

/** A fresh copy of the two shards in `root/<name>`, with shard 1's record changed by `edit`. */
function copy(name: string, edit?: (record: { runs: Array<{ base: string }>; suffix: string }) => void): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const s of ['shard1', 'shard2']) cpSync(join(root, 'made', s), join(dir, s), { recursive: true });
  if (edit) {
    const file = join(dir, 'shard1', RECORD);
    const record = JSON.parse(readFileSync(file, 'utf8')) as { runs: Array<{ base: string }>; suffix: string };
    edit(record);
    writeFileSync(file, JSON.stringify(record));
  }
  return dir;
}

describe('merge: paths inside a shard are untrusted', () => {
  before(async () => {
    const made = join(root, 'made');
    mkdirSync(made);
    writeFileSync(
      join(made, 'qa.jsonl'),
      `${[0, 1, 2, 3].map((i) => JSON.stringify({ id: `q${i}`, dataset: 'seen', source: 'nq', question: `what is the capital number ${i}?`, answers: ['Paris'] })).join('\n')}\n`,
    );
    writeFileSync(join(made, 'r.jsonl'), `${JSON.stringify({ default: true, reply: ' Paris\nQUESTION:' })}\n`);
    writeFileSync(
      join(made, 'study.yaml'),
      'models:\n  - { label: a, spec: "mock:r.jsonl" }\n  - { label: b, spec: "mock:r.jsonl" }\nsettings: [zero-shot]\ninput: qa.jsonl\nmcqs: 1\n',
    );
    for (const i of [1, 2]) {
      const r = await llmkb(['--store', `s${i}.sqlite`, 'sweep', 'study.yaml', '--shard', `${i}/2`, '--out', `shard${i}`], { cwd: made });
      assert.equal(r.code, 0, r.stderr);
    }
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('a base climbing out with "..": exit 2 naming the record and runs[0].base; nothing read or made outside', async () => {
    const dir = copy('climb', (r) => {
      r.runs[0]!.base = '../../elsewhere/deep/a.zero-shot';
    });
    // A run outside the shard that the forged base points at.
    mkdirSync(join(dir, 'elsewhere'));
    cpSync(join(dir, 'shard1', 'a'), join(dir, 'elsewhere', 'deep'), { recursive: true });
    const r = await llmkb(['merge', 'shard1', 'shard2', '--out', 'merged/out'], { cwd: dir });
    assert.equal(r.code, EXIT_CODES.usage, r.stderr);
    assert.ok(r.stderr.includes(`${RECORD} (field "runs[0].base")`), r.stderr);
    assert.match(r.stderr, /climbs out of the shard/);
    assert.ok(!existsSync(join(dir, 'merged')), 'nothing written');
    assert.deepEqual(readdirSync(join(dir, 'elsewhere')), ['deep']);
  });

  it('an absolute base and a suffix naming a folder: exit 2 naming the field (not a run dropped in silence)', async () => {
    const absolute = copy('absolute', (r) => {
      r.runs[0]!.base = join(root, 'made', 'shard1', 'a', 'a.zero-shot');
    });
    const a = await llmkb(['merge', 'shard1', 'shard2', '--out', 'merged'], { cwd: absolute });
    assert.equal(a.code, EXIT_CODES.usage, a.stderr);
    assert.ok(a.stderr.includes('(field "runs[0].base")') && /absolute path/.test(a.stderr), a.stderr);
    const suffix = copy('suffix', (r) => {
      r.suffix = '/../../escaped';
    });
    const s = await llmkb(['merge', 'shard1', 'shard2', '--out', 'merged'], { cwd: suffix });
    assert.equal(s.code, EXIT_CODES.usage, s.stderr);
    assert.ok(s.stderr.includes('(field "suffix")'), s.stderr);
    const shape = copy('shape', (r) => {
      (r as { runs: unknown }).runs = 'a/a.zero-shot';
    });
    const bad = await llmkb(['merge', 'shard1', 'shard2', '--out', 'merged'], { cwd: shape });
    assert.equal(bad.code, EXIT_CODES.usage, bad.stderr);
    assert.ok(bad.stderr.includes('(field "runs")'), bad.stderr);
    assert.doesNotMatch(bad.stderr, /internal error/);
  });

  it('a symbolic link in a shard leading out of it: exit 2; a link in --out leading out of it: refused, nothing written there', async () => {
    const dir = copy('linked');
    mkdirSync(join(dir, 'elsewhere'));
    cpSync(join(dir, 'shard1', 'a'), join(dir, 'elsewhere', 'a'), { recursive: true });
    rmSync(join(dir, 'shard1', 'a'), { recursive: true });
    symlinkSync(join(dir, 'elsewhere', 'a'), join(dir, 'shard1', 'a'));
    const r = await llmkb(['merge', 'shard1', 'shard2', '--out', 'merged'], { cwd: dir });
    assert.equal(r.code, EXIT_CODES.usage, r.stderr);
    assert.ok(r.stderr.includes(`${RECORD} (field "runs[0].base")`) && /leads out of the shard/.test(r.stderr), r.stderr);

    const out = copy('out-link');
    mkdirSync(join(out, 'target'));
    mkdirSync(join(out, 'merged'));
    symlinkSync(join(out, 'target'), join(out, 'merged', 'a'));
    const o = await llmkb(['merge', 'shard1', 'shard2', '--out', 'merged'], { cwd: out });
    assert.equal(o.code, EXIT_CODES.usage, o.stderr);
    assert.match(o.stderr, /leads out of --out/);
    assert.deepEqual(readdirSync(join(out, 'target')), []);
  });

  it('--out inside a shard: exit 2, the shard unchanged', async () => {
    const dir = copy('inside');
    const before = readdirSync(join(dir, 'shard1'), { recursive: true }).sort();
    const r = await llmkb(['merge', 'shard1', 'shard2', '--out', 'shard1/a'], { cwd: dir });
    assert.equal(r.code, EXIT_CODES.usage, r.stderr);
    assert.match(r.stderr, /--out \S*shard1\/a is inside the shard \S*shard1/);
    assert.deepEqual(readdirSync(join(dir, 'shard1'), { recursive: true }).sort(), before);
  });

  it('a run missing from its shard (failed or not run): what the shards hold is merged, and the exit code is 3 naming the run', async () => {
    const dir = copy('missing');
    rmSync(join(dir, 'shard2', 'b'), { recursive: true });
    const r = await llmkb(['merge', 'shard1', 'shard2', '--out', 'merged'], { cwd: dir });
    assert.equal(r.code, EXIT_CODES.model, r.stderr);
    assert.match(r.stderr, /1 run\(s\) of the study are in no shard \(failed or not run there\): b \(reliability · zero-shot\)/);
    assert.match(r.stdout, /merged 1 runs from 2 folders/);
    assert.ok(
      readdirSync(join(dir, 'merged', 'a')).some((f) => f.startsWith('a.zero-shot.') && f.endsWith('.summary.json')),
      "a's summary is merged",
    );
    const whole = await llmkb(['merge', join(root, 'made', 'shard1'), join(root, 'made', 'shard2'), '--out', 'whole'], { cwd: dir });
    assert.equal(whole.code, 0, whole.stderr);
  });
});
