/**
 * A command's output file is never one of its inputs (issue 37): `conner generate q.txt -o q.txt`,
 * `conner score`, `best-of`, `select-demos`, `ask`, `judge`, `consistency`, `report` and eval's
 * `--junit` refuse it with exit 2 before any work, whether the path is the same, reached through a
 * symbolic link, or a hard link to the input; the input stays as it was.
 */
import assert from 'node:assert/strict';
import { linkSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EXIT_CODES } from '../src/errors.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const QUERY = 'Hamlet\twho wrote hamlet\tHamlet is a play by William Shakespeare.\tWilliam Shakespeare\n';
const KNOWLEDGE = `${JSON.stringify({ id: 'q1', query: 'who wrote hamlet', knowledge: 'Shakespeare wrote Hamlet.' })}\n`;
const QA = `${JSON.stringify({ id: 'q1', dataset: 'seen', source: 'nq', question: 'who wrote hamlet', answers: ['William Shakespeare'], response: 'Shakespeare' })}\n`;

function workdir(): string {
  const dir = tempDir('llmkb-out-in-');
  made.push(dir);
  writeFileSync(join(dir, 'nq_q.txt'), QUERY);
  writeFileSync(join(dir, 'k.jsonl'), KNOWLEDGE);
  writeFileSync(join(dir, 'k2.jsonl'), KNOWLEDGE);
  writeFileSync(join(dir, 'qa.jsonl'), QA);
  writeFileSync(join(dir, 'replies.jsonl'), `${JSON.stringify({ default: true, reply: ' yes' })}\n`);
  return dir;
}

const cases: Array<[string, string[], string]> = [
  ['conner generate q -o q', ['conner', 'generate', 'nq_q.txt', '--model', 'mock:replies.jsonl', '-o', 'nq_q.txt'], 'nq_q.txt'],
  ['conner score k -o ./k (another spelling)', ['conner', 'score', 'k.jsonl', '--scorer', 'mock:replies.jsonl', '-o', './k.jsonl'], 'k.jsonl'],
  [
    'conner best-of --input a --input b -o b',
    ['conner', 'best-of', '--input', 'k.jsonl', '--input', 'k2.jsonl', '--scorer', 'mock:replies.jsonl', '-o', 'k2.jsonl'],
    'k2.jsonl',
  ],
  ['conner best-of --summary equal to the query file', ['conner', 'best-of', 'nq_q.txt', '--model', 'mock:replies.jsonl', '--summary', 'nq_q.txt'], 'nq_q.txt'],
  ['conner select-demos pool -o pool', ['conner', 'select-demos', 'nq_q.txt', '--scorer', 'mock:replies.jsonl', '-o', 'nq_q.txt'], 'nq_q.txt'],
  ['ask --input q -o q', ['ask', '--model', 'mock:replies.jsonl', '--input', 'qa.jsonl', '-o', 'qa.jsonl'], 'qa.jsonl'],
  ['judge -i x -o x', ['judge', '-i', 'qa.jsonl', '--no-judge', '-o', 'qa.jsonl'], 'qa.jsonl'],
  ['consistency -i x -o x', ['consistency', '-i', 'qa.jsonl', '--model', 'mock:replies.jsonl', '-o', 'qa.jsonl'], 'qa.jsonl'],
  ['report -o one of its summaries', ['report', 'qa.jsonl', '-o', 'qa.jsonl'], 'qa.jsonl'],
];

describe('an output equal to an input is refused (exit 2), and the input is kept', () => {
  for (const [name, args, input] of cases) {
    it(name, async () => {
      const cwd = workdir();
      const before = readFileSync(join(cwd, input), 'utf8');
      const r = await llmkb(['--store', 's.sqlite', ...args], { cwd });
      assert.equal(r.code, EXIT_CODES.usage, r.stderr);
      assert.match(r.stderr, /is also an input of this command( \([^)]*\))?: writing it would destroy what it reads/);
      assert.match(r.stderr, /hint: Write to another file/);
      assert.equal(readFileSync(join(cwd, input), 'utf8'), before, 'the input is unchanged');
    });
  }

  it('a symbolic link to the input, or a hard link to it, is the same file', async () => {
    const cwd = workdir();
    symlinkSync(join(cwd, 'qa.jsonl'), join(cwd, 'link.jsonl'));
    linkSync(join(cwd, 'qa.jsonl'), join(cwd, 'hard.jsonl'));
    for (const out of ['link.jsonl', 'hard.jsonl']) {
      const r = await llmkb(['--store', 's.sqlite', 'judge', '-i', 'qa.jsonl', '--no-judge', '-o', out], { cwd });
      assert.equal(r.code, EXIT_CODES.usage, r.stderr);
      assert.match(r.stderr, new RegExp(`-o ${out} is also an input of this command \\(qa\\.jsonl is the same file\\)`));
    }
    assert.equal(readFileSync(join(cwd, 'qa.jsonl'), 'utf8'), QA);
  });

  it('eval --junit equal to --input is refused', async () => {
    const cwd = workdir();
    const r = await llmkb(
      ['--store', 's.sqlite', 'eval', '--model', 'mock:replies.jsonl', '--input', 'qa.jsonl', '--fail-under', 'NCCR=0.1', '--junit', 'qa.jsonl', '--out', 'o'],
      { cwd },
    );
    assert.equal(r.code, EXIT_CODES.usage, r.stderr);
    assert.match(r.stderr, /--junit qa\.jsonl is also an input/);
    assert.equal(readFileSync(join(cwd, 'qa.jsonl'), 'utf8'), QA);
  });

  it('a different output file is still written', async () => {
    const cwd = workdir();
    const r = await llmkb(['--store', 's.sqlite', 'judge', '-i', 'qa.jsonl', '--no-judge', '-o', 'labelled.jsonl'], { cwd });
    assert.equal(r.code, 0, r.stderr);
  });
});
