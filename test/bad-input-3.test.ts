/**
 * Bad input, third round (issue 37): non-UTF-8 query and QA files, empty queries, how CONNER
 * learns its task, a header line in a TSV, repeated `--settings`, devices and pipes as inputs,
 * the answerer note. Each refusal names the file (and line) and exits with its documented code.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EXIT_CODES } from '../src/errors.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const QA = [
  { id: 'q1', dataset: 'seen', source: 'mine', question: 'What is the capital of France?', answers: ['Paris'] },
  { id: 'q2', dataset: 'unseen', source: 'mine', question: 'Who won the 2031 Tour de France?', answers: [] },
];

function workdir(files: Record<string, string | Buffer> = {}): string {
  const dir = tempDir('llmkb-bad3-');
  made.push(dir);
  writeFileSync(join(dir, 'r.jsonl'), `${JSON.stringify({ default: true, reply: ' Paris is a city.' })}\n`);
  writeFileSync(join(dir, 'qa.jsonl'), QA.map((q) => JSON.stringify(q)).join('\n') + '\n');
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const run = (cwd: string, ...args: string[]) => llmkb(['--store', 's.sqlite', ...args], { cwd });

function refused(r: { code: number; stderr: string }, code: number, pattern: RegExp): void {
  assert.equal(r.code, code, r.stderr);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /internal error|^\s+at /m);
}

describe('non-UTF-8 query and QA files are refused with file and line', () => {
  const latin1 = (s: string) => Buffer.from(s, 'latin1');

  it('a CONNER test file in Latin-1', async () => {
    const cwd = workdir({ 'nq_l1.txt': latin1('Paris\twhat is paris\tParis is a city.\tcity\nCafé\twhat is a café\tA café sells coffee.\tcoffee\n') });
    refused(await run(cwd, 'conner', 'generate', 'nq_l1.txt', '--model', 'mock:r.jsonl', '-o', 'k.jsonl'), EXIT_CODES.usage, /nq_l1\.txt:2: not UTF-8 text/);
  });

  it('a QA set in Latin-1 (eval --input, judge -i)', async () => {
    const cwd = workdir({
      'qa-l1.jsonl': Buffer.concat([Buffer.from(`${JSON.stringify(QA[0])}\n`), latin1(`${JSON.stringify({ ...QA[1], question: 'Who won in Zürich?' })}\n`)]),
    });
    refused(
      await run(cwd, 'eval', '--model', 'mock:r.jsonl', '--input', 'qa-l1.jsonl', '--settings', 'zero-shot', '--out', 'o'),
      EXIT_CODES.usage,
      /qa-l1\.jsonl:2: not UTF-8 text[\s\S]*hint: Input files are read as UTF-8/,
    );
    refused(await run(cwd, 'judge', '-i', 'qa-l1.jsonl', '-o', 'x.jsonl'), EXIT_CODES.usage, /qa-l1\.jsonl:2: not UTF-8 text/);
  });
});

describe('empty and white-space-only queries', () => {
  it('a JSONL query of spaces is refused with its line; an empty file says "no queries"', async () => {
    const cwd = workdir({
      'ws.jsonl': `${JSON.stringify({ id: 'a', task: 'qa', query: 'ok?' })}\n${JSON.stringify({ id: 'b', task: 'qa', query: ' \t ' })}\n`,
      'empty.jsonl': '',
    });
    refused(
      await run(cwd, 'conner', 'generate', 'ws.jsonl', '--model', 'mock:r.jsonl', '-o', 'k.jsonl'),
      EXIT_CODES.usage,
      /ws\.jsonl:2 \(field "query"\): the query is empty or only white space/,
    );
    refused(
      await run(cwd, 'conner', 'generate', 'empty.jsonl', '--model', 'mock:r.jsonl', '-o', 'k.jsonl'),
      EXIT_CODES.usage,
      /empty\.jsonl: no queries \(the file is empty\)/,
    );
  });

  it('a QA question of spaces is refused with its line', async () => {
    const cwd = workdir({ 'ws-qa.jsonl': `${JSON.stringify({ ...QA[0], question: '   ' })}\n` });
    refused(
      await run(cwd, 'eval', '--model', 'mock:r.jsonl', '--input', 'ws-qa.jsonl', '--settings', 'zero-shot', '--out', 'o'),
      EXIT_CODES.usage,
      /ws-qa\.jsonl:1 \(field "question"\): the question is empty or only white space/,
    );
  });
});

describe("CONNER's task: from --task or a field; from the file name only with a notice", () => {
  const row = 'Hamlet\twho wrote hamlet\tHamlet is a play by Shakespeare.\tShakespeare\n';

  it('a file name that says neither task is refused, asking for --task', async () => {
    const cwd = workdir({ 'queries.txt': row });
    refused(
      await run(cwd, 'conner', 'generate', 'queries.txt', '--model', 'mock:r.jsonl', '-o', 'k.jsonl'),
      EXIT_CODES.usage,
      /queries\.txt: the task \(qa or dialogue\) is not given[\s\S]*hint: Pass --task qa or --task dialogue/,
    );
  });

  it('--task is taken without a notice; a name-given task with one, and recorded in each query', async () => {
    const cwd = workdir({ 'queries.txt': row, 'seen_mine.txt': row });
    const given = await run(cwd, 'conner', 'generate', 'queries.txt', '--task', 'qa', '--model', 'mock:r.jsonl', '-o', 'k.jsonl');
    assert.equal(given.code, 0, given.stderr);
    assert.doesNotMatch(given.stderr, /taken from the file name/);
    const named = await run(cwd, 'conner', 'generate', 'seen_mine.txt', '--model', 'mock:r.jsonl', '-o', 'k2.jsonl');
    assert.equal(named.code, 0, named.stderr);
    assert.match(named.stderr, /note: seen_mine\.txt: the task is dialogue \(knowledge-grounded dialogue\), taken from the file name; pass --task to set it/);
    assert.equal((JSON.parse(readFileSync(join(cwd, 'k2.jsonl'), 'utf8').split('\n')[0]!) as { task: string }).task, 'dialogue');
  });

  it('JSONL queries without "task": qa, said in a notice; --task dialogue sets them', async () => {
    const cwd = workdir({ 'q.jsonl': `${JSON.stringify({ id: 'a', query: 'who wrote hamlet' })}\n` });
    const r = await run(cwd, 'conner', 'generate', 'q.jsonl', '--model', 'mock:r.jsonl', '-o', 'k.jsonl');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /note: q\.jsonl: 1 of 1 queries have no "task" field: taken as qa/);
    const d = await run(cwd, 'conner', 'generate', 'q.jsonl', '--task', 'dialogue', '--model', 'mock:r.jsonl', '-o', 'k2.jsonl');
    assert.equal(d.code, 0, d.stderr);
    assert.equal((JSON.parse(readFileSync(join(cwd, 'k2.jsonl'), 'utf8').split('\n')[0]!) as { task: string }).task, 'dialogue');
  });

  it('a TSV header line is skipped with a notice, not scored as a query', async () => {
    const cwd = workdir({ 'nq_mine.txt': `topic\tquery\tknowledge\tanswer\n${row}` });
    const r = await run(cwd, 'conner', 'generate', 'nq_mine.txt', '--model', 'mock:r.jsonl', '-o', 'k.jsonl');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /note: nq_mine\.txt:1 is a header line \(topic, query, knowledge, answer\): skipped/);
    const lines = readFileSync(join(cwd, 'k.jsonl'), 'utf8').trim().split('\n');
    assert.equal(lines.length, 1);
    assert.equal((JSON.parse(lines[0]!) as { id: string }).id, 'nq_mine:2');
  });

  it('an answerer that is the generator is not called "no answerer"', async () => {
    const cwd = workdir({ 'nq_mine.txt': row });
    const r = await run(cwd, 'conner', 'generate', 'nq_mine.txt', '--model', 'mock:r.jsonl', '--answerer', 'mock:r.jsonl', '-o', 'k.jsonl');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /note: the answerer is the generator itself \(mock:r\.jsonl\)/);
    assert.doesNotMatch(r.stderr, /no answerer/);
  });
});

describe('--settings', () => {
  it('repeated, the lists add up (an unknown setting in the first is refused)', async () => {
    const cwd = workdir();
    refused(
      await run(cwd, 'eval', '--model', 'mock:r.jsonl', '--input', 'qa.jsonl', '--settings', 'bogus', '--settings', 'zero-shot', '--out', 'o'),
      EXIT_CODES.usage,
      /has no setting "bogus"/,
    );
  });

  it('a setting named twice runs and is shown once', async () => {
    const cwd = workdir();
    const r = await run(
      cwd,
      'eval',
      '--model',
      'mock:r.jsonl',
      '--judge',
      'none',
      '--input',
      'qa.jsonl',
      '--settings',
      'zero-shot,zero-shot',
      '--settings',
      'zero-shot',
      '--out',
      'o',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.match(/^zero-shot /gm)?.length, 1, r.stdout);
    assert.match(r.stderr, /evaluated 1 setting\(s\)/);
  });
});

describe('a device or a named pipe as an input file is not "a folder"', () => {
  it('/dev/null and a FIFO are refused as what they are (exit 6)', async () => {
    const cwd = workdir();
    assert.equal(spawnSync('mkfifo', [join(cwd, 'fifo')]).status, 0);
    refused(
      await run(cwd, 'eval', '--model', 'mock:r.jsonl', '--input', '/dev/null', '--settings', 'zero-shot', '--out', 'o'),
      EXIT_CODES.fileAccess,
      /\/dev\/null is a device, not a regular file/,
    );
    refused(await run(cwd, 'judge', '-i', 'fifo', '-o', 'x.jsonl'), EXIT_CODES.fileAccess, /fifo is a named pipe \(FIFO\), not a regular file/);
  });
});
