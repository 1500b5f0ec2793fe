/**
 * Bad input and faults (issue 13): each ends with one message naming the input and the fix, a
 * documented non-zero exit code (EXIT_CODES, README "Exit codes"), no stack trace, and nothing
 * half-written. Every test runs the built CLI as users do.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXIT_CODES } from '../src/errors.js';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';
import { SqliteDatabase } from '../src/store/database.js';
import { llmkb, type CliResult } from './support/run-cli.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'llmkb.js');

function assertUserError(r: CliResult, code: number, pattern: RegExp): void {
  assert.equal(r.code, code, `exit code (stderr: ${r.stderr})`);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /internal error/);
  assert.doesNotMatch(r.stderr, /^\s+at .+:\d+:\d+\)?$/m, 'no stack trace');
}

function tmp(prefix = 'llmkb-bad-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

const ITEM = { id: 'q1', dataset: 'seen', source: 'nq', question: 'who wrote hamlet', answers: ['William Shakespeare'], response: 'Shakespeare' };
const UNSEEN = { id: 'u1', dataset: 'unseen', source: 'T1', question: 'who won the 2031 cup', answers: [], response: 'unsure' };
const LABELLED = { ...ITEM, label: 'correct', uninformativeType: null, judgedBy: 'exact-match', decision: { by: 'exact-match' } };
const SCORED = [
  { ...LABELLED, consistency: 0.8 },
  { ...UNSEEN, label: 'uninformative', uninformativeType: 'unsure', judgedBy: 'rule:unsure', decision: { by: 'rule:unsure' }, consistency: null },
];

function jsonl(records: unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

/** A folder holding the given files. */
function folder(files: Record<string, string>): string {
  const dir = tmp();
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/**
 * Why the permission test cannot run here, if it cannot: as root it runs the CLI as `nobody`,
 * which needs to reach this checkout (a clone under a 0700 folder, as `mktemp -d` makes, is out
 * of its reach). Said on stderr, not skipped silently.
 */
function nobodySkip(): string | false {
  if (process.platform === 'win32') return 'no POSIX permissions';
  if (process.getuid?.() !== 0) return false;
  const probe = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(BIN)}, require('fs').constants.R_OK)`]);
  if (probe.status === 0) return false;
  const reason = `user nobody cannot read ${BIN} (a parent folder is closed to others), so permission errors cannot be provoked here`;
  process.stderr.write(`SKIPPED: ${reason}\n`);
  return reason;
}

/** Runs the CLI as user `nobody` (root ignores file permissions, so permission errors need another user). */
function llmkbAsNobody(args: string[], cwd: string): Promise<CliResult> {
  const asRoot = process.getuid?.() === 0;
  const [cmd, pre] = asRoot ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath]] : [process.execPath, []];
  return new Promise((resolve) => {
    execFile(cmd, [...pre, BIN, ...args], { cwd, env: { ...process.env, CI: '1' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('--fail-under: one scale (fractions), malformed values and unknown metrics refused before any work', () => {
  it('NCCR=1.2.3 (NaN, which let the gate pass) is refused, and nothing is written', async () => {
    const cwd = tmp();
    const r = await llmkb(['eval', '--model', 'gguf:/nowhere/x.gguf', '--fail-under', 'NCCR=1.2.3', '--out', 'o', '--data', 'd'], { cwd });
    assertUserError(r, EXIT_CODES.usage, /--fail-under.*"1\.2\.3" is not a number/);
    assert.deepEqual(readdirSync(cwd), [], 'no output, data or store folder');
  });

  it('a percentage is refused with the fraction it meant; an unknown metric lists the metrics', async () => {
    const pct = await llmkb(['eval', '--fail-under', 'NCCR=20']);
    assertUserError(pct, EXIT_CODES.usage, /thresholds are fractions.*write NCCR=0\.2/);
    const unknown = await llmkb(['eval', '--fail-under', 'nccr=0.2']);
    assertUserError(unknown, EXIT_CODES.usage, /unknown metric "nccr" \(did you mean NCCR\?\); the metrics are CR, WR, NCR, UR, C_correct, C_wrong_seen, C_wrong_unseen, C_wrong, CCR, CWR, NCCR, IUR/);
  });

  it('a fraction passes the parser (the command goes on to load the model)', async () => {
    const r = await llmkb(['eval', '--model', 'gguf:/nowhere/x.gguf', '--fail-under', 'NCCR=0.2', '--fail-under', 'IUR=-0.5']);
    assertUserError(r, EXIT_CODES.usage, /model file \/nowhere\/x\.gguf does not exist/);
  });
});

describe('numeric options: zero where zero makes no sense is refused at parse time', () => {
  const cases: Array<[string, string[]]> = [
    ['--batch-size 0 (looped until out of memory)', ['data', 'seenqa', '--batch-size', '0']],
    ['--mcqs 0 (an internal error)', ['consistency', '-i', 'x.jsonl', '--mcqs', '0']],
    ['eval --mcqs 0', ['eval', '--mcqs', '0']],
    ['--per-source 0', ['data', 'seenqa', '--per-source', '0']],
    ['--per-template 0', ['data', 'unseenqa', '--per-template', '0']],
    ['--max-tokens 0', ['complete', '--model', 'gguf:/x.gguf', '--max-tokens', '0', 'hi']],
    ['--resamples 0', ['metrics', '-i', 'x.jsonl', '--resamples', '0']],
    ['conner score --resamples 0', ['conner', 'score', 'x.jsonl', '--resamples', '0']],
    ['judge check --concurrency 0 (was taken as 1)', ['judge', 'check', '--concurrency', '0']],
    ['--seed -1', ['ask', '--seed', '-1']],
    ['--seed 1e3', ['ask', '--seed', '1e3']],
    ['--params 0', ['eval', '--params', '0']],
    ['--params abc', ['metrics', '-i', 'x.jsonl', '--params', 'abc']],
  ];
  for (const [name, args] of cases) {
    it(name, async () => {
      const cwd = tmp();
      const r = await llmkb(args, { cwd });
      assertUserError(r, EXIT_CODES.usage, /error: option .* is invalid\. must be/);
      assert.deepEqual(readdirSync(cwd), [], 'nothing written');
    });
  }
});

describe('--cutoff is checked before any work or file write (eval and data)', () => {
  for (const args of [
    ['eval', '--model', 'gguf:/nowhere/x.gguf', '--cutoff', 'banana', '--out', 'o', '--data', 'd'],
    ['data', 'unseenqa', '--cutoff', 'banana'],
    ['data', 'repositories', '--cutoff', '2024-02-30'],
  ]) {
    it(`${args[0] === 'eval' ? 'eval' : args.slice(0, 2).join(' ')} --cutoff ${args[args.indexOf('--cutoff') + 1]}`, async () => {
      const cwd = tmp();
      const r = await llmkb(args, { cwd });
      assertUserError(r, EXIT_CODES.usage, /--cutoff <date>.*must be a date written YYYY-MM-DD/);
      assert.deepEqual(readdirSync(cwd), [], 'no data, output or store folder');
    });
  }
});

describe('path errors are user errors naming the path (exit 6), never "internal error"', () => {
  it('missing input file', async () => {
    const dir = tmp();
    for (const args of [['judge', '-i', join(dir, 'missing.jsonl')], ['consistency', '-i', join(dir, 'missing.jsonl')], ['metrics', '-i', join(dir, 'missing.jsonl')], ['compare', join(dir, 'missing.json')], ['report', join(dir, 'missing.json')]]) {
      const r = await llmkb(args);
      assertUserError(r, EXIT_CODES.fileAccess, /missing\.json(l)? not found/);
    }
  });

  it('missing config file', async () => {
    const r = await llmkb(['--config', '/nowhere/llmkb.config.json', 'runs']);
    assertUserError(r, EXIT_CODES.fileAccess, /cannot read config file \/nowhere\/llmkb\.config\.json: no such file/);
  });

  it('a folder where an input file is expected', async () => {
    const dir = tmp();
    for (const args of [['judge', '-i', dir], ['metrics', '-i', dir], ['report', dir]]) {
      const r = await llmkb(args);
      assertUserError(r, EXIT_CODES.fileAccess, /is a folder, not a file/);
    }
    const config = await llmkb(['--config', dir, 'runs']);
    assertUserError(config, EXIT_CODES.fileAccess, /cannot read config file .*: is a folder/);
  });

  it('a folder as the output file: refused, and no temporary file is left beside it', async () => {
    const dir = folder({ 'ok.jsonl': jsonl([ITEM]), 'scored.jsonl': jsonl(SCORED) });
    mkdirSync(join(dir, 'out'));
    const judge = await llmkb(['judge', '-i', join(dir, 'ok.jsonl'), '-o', join(dir, 'out')]);
    assertUserError(judge, EXIT_CODES.fileAccess, /cannot write .*out: it is a folder/);
    const report = await llmkb(['report', '-o', join(dir, 'out'), join(dir, 'scored.jsonl')]);
    assertUserError(report, EXIT_CODES.fileAccess, /cannot write .*out: it is a folder/);
    assert.deepEqual(readdirSync(dir).sort(), ['ok.jsonl', 'out', 'scored.jsonl'], 'no out.tmp-* files');
    assert.deepEqual(readdirSync(join(dir, 'out')), []);
  });

  it('an output path in a folder that does not exist: the write fails cleanly', async () => {
    const dir = folder({ 'ok.jsonl': jsonl([ITEM]) });
    const r = await llmkb(['judge', '-i', join(dir, 'ok.jsonl'), '-o', join(dir, 'no', 'such', 'out.jsonl')]);
    assertUserError(r, EXIT_CODES.fileAccess, /cannot write file .*no\/such\/out\.jsonl: no such file or folder/);
    assert.match(r.stderr, /hint: Create the folder first/);
  });

  it('an output folder for compare --out that is a file', async () => {
    const dir = folder({ 'scored.jsonl': jsonl(SCORED), 'afile': 'x' });
    const r = await llmkb(['compare', join(dir, 'scored.jsonl'), '--out', join(dir, 'afile')]);
    assertUserError(r, EXIT_CODES.fileAccess, /cannot write folder .*afile/);
  });

  it('the store: a folder, or under a file', async () => {
    const dir = folder({ afile: 'x' });
    const isDir = await llmkb(['--store', dir, 'runs']);
    assertUserError(isDir, EXIT_CODES.fileAccess, /the llmkb store .* is a folder, not a file/);
    const underFile = await llmkb(['--store', join(dir, 'afile', 's.sqlite'), 'runs']);
    assertUserError(underFile, EXIT_CODES.fileAccess, /cannot write the store folder .*afile: (already exists|a part of the path is a file)/);
  });

  it('data --out naming a file, or a path under one', { skip: process.env.LLMKB_DATA_DIR ? false : 'LLMKB_DATA_DIR is not set' }, async () => {
    const dir = folder({ afile: 'x' });
    const onFile = await llmkb(['data', 'unseenqa', '--data-dir', process.env.LLMKB_DATA_DIR!, '--out', join(dir, 'afile')]);
    assertUserError(onFile, EXIT_CODES.fileAccess, /cannot write folder .*afile: already exists and is not a folder/);
    const under = await llmkb(['data', 'unseenqa', '--data-dir', process.env.LLMKB_DATA_DIR!, '--out', join(dir, 'afile', 'sub')]);
    assertUserError(under, EXIT_CODES.fileAccess, /cannot write folder .*afile\/sub: a part of the path is a file/);
  });

  it('a store that is not a database', async () => {
    const dir = folder({ 'junk.sqlite': 'this is not sqlite, just some text that is long enough to have a header'.repeat(20) });
    const r = await llmkb(['--store', join(dir, 'junk.sqlite'), 'runs']);
    assertUserError(r, EXIT_CODES.fileAccess, /junk\.sqlite is not an llmkb store \(SQLITE_NOTADB\)/);
  });

  it('no permission to read an input, or to write the output or the store', { skip: nobodySkip() }, async () => {
    const dir = folder({ 'ok.jsonl': jsonl([ITEM]), 'secret.jsonl': jsonl([ITEM]) });
    chmodSync(dir, 0o777);
    chmodSync(join(dir, 'secret.jsonl'), 0o600);
    const read = await llmkbAsNobody(['--store', join(dir, 'nobody.sqlite'), 'judge', '-i', join(dir, 'secret.jsonl'), '-o', join(dir, 'o.jsonl')], dir);
    assertUserError(read, EXIT_CODES.fileAccess, /cannot read file .*secret\.jsonl: permission denied/);
    const locked = tmp();
    chmodSync(locked, 0o755);
    const write = await llmkbAsNobody(['--store', join(dir, 'nobody.sqlite'), 'judge', '-i', join(dir, 'ok.jsonl'), '-o', join(locked, 'o.jsonl')], dir);
    assertUserError(write, EXIT_CODES.fileAccess, /cannot write file .*o\.jsonl: permission denied/);
    assert.deepEqual(readdirSync(locked), []);
    // A sticky folder (like /tmp) holding someone else's file: the temporary file can be written
    // but not renamed over the target. The failed atomic write must remove its temporary file.
    const sticky = tmp();
    chmodSync(sticky, 0o1777);
    writeFileSync(join(sticky, 'theirs.jsonl'), 'old\n');
    const rename = await llmkbAsNobody(['--store', join(dir, 'nobody.sqlite'), 'judge', '-i', join(dir, 'ok.jsonl'), '-o', join(sticky, 'theirs.jsonl')], dir);
    if (process.getuid?.() === 0) {
      assertUserError(rename, EXIT_CODES.fileAccess, /cannot write file .*theirs\.jsonl: (operation not permitted|permission denied)/);
      assert.deepEqual(readdirSync(sticky), ['theirs.jsonl'], 'no theirs.jsonl.tmp-* left behind');
      assert.equal(readFileSync(join(sticky, 'theirs.jsonl'), 'utf8'), 'old\n', 'the old file is intact');
    }
    // A store owned by someone else, in a folder nobody may write: read-only for this user.
    const storeDir = tmp();
    chmodSync(storeDir, 0o755);
    const made = await llmkb(['--store', join(storeDir, 's.sqlite'), 'runs']);
    assert.equal(made.code, 0, made.stderr);
    chmodSync(join(storeDir, 's.sqlite'), 0o644);
    const readonly = await llmkbAsNobody(['--store', join(storeDir, 's.sqlite'), 'judge', '-i', join(dir, 'ok.jsonl'), '-o', join(dir, 'o.jsonl')], dir);
    assertUserError(readonly, EXIT_CODES.fileAccess, /llmkb store .*s\.sqlite (is read-only|\(SQLITE_CANTOPEN)/);
  });
});

describe('duplicate item ids are refused on read, naming the id and both lines', () => {
  it('judge, consistency, metrics and compare inputs', async () => {
    const dir = folder({
      'dup.jsonl': jsonl([ITEM, { ...ITEM, response: 'Marlowe' }]),
      'dup-labelled.jsonl': jsonl([LABELLED, { ...UNSEEN, label: 'uninformative', uninformativeType: 'unsure', judgedBy: 'rule:unsure', decision: { by: 'rule:unsure' } }, { ...LABELLED, response: 'Marlowe' }]),
      'dup-scored.jsonl': `${JSON.stringify(SCORED[0])}\n\n${JSON.stringify(SCORED[1])}\n${JSON.stringify(SCORED[0])}\n`,
    });
    const judge = await llmkb(['judge', '-i', join(dir, 'dup.jsonl'), '-o', join(dir, 'out.jsonl')]);
    assertUserError(judge, EXIT_CODES.usage, /dup\.jsonl:2 \(field "id"\): duplicate id "q1" \(lines 1 and 2\)/);
    const consistency = await llmkb(['consistency', '-i', join(dir, 'dup-labelled.jsonl'), '--model', 'gguf:/nowhere/x.gguf']);
    assertUserError(consistency, EXIT_CODES.usage, /duplicate id "q1" \(lines 1 and 3\)/);
    const metrics = await llmkb(['metrics', '-i', join(dir, 'dup-scored.jsonl')]);
    assertUserError(metrics, EXIT_CODES.usage, /duplicate id "q1" \(lines 1 and 4\)/);
    const compare = await llmkb(['compare', join(dir, 'dup-scored.jsonl')]);
    assertUserError(compare, EXIT_CODES.usage, /duplicate id "q1" \(lines 1 and 4\)/);
    assert.equal(existsSync(join(dir, 'out.jsonl')), false);
  });
});

describe('incomplete and empty inputs', () => {
  it('report on an incomplete summary names the file and the missing field', async () => {
    const dir = folder({ 'scored.jsonl': jsonl(SCORED) });
    const metrics = await llmkb(['metrics', '-i', join(dir, 'scored.jsonl'), '--format', 'json', '--resamples', '10']);
    assert.equal(metrics.code, 0, metrics.stderr);
    const summary = JSON.parse(metrics.stdout) as Record<string, unknown>;
    const { breakdowns: _dropped, ...incomplete } = summary;
    writeFileSync(join(dir, 'incomplete.summary.json'), JSON.stringify(incomplete));
    const r = await llmkb(['report', join(dir, 'incomplete.summary.json'), '-o', join(dir, 'r.html')]);
    assertUserError(r, EXIT_CODES.usage, /incomplete\.summary\.json \(field "breakdowns"\)/);
    const { NCCR: _n, ...metricsWithout } = summary.metrics as Record<string, unknown>;
    writeFileSync(join(dir, 'no-nccr.summary.json'), JSON.stringify({ ...summary, metrics: metricsWithout }));
    const r2 = await llmkb(['compare', join(dir, 'no-nccr.summary.json')]);
    assertUserError(r2, EXIT_CODES.usage, /no-nccr\.summary\.json \(field "metrics\.NCCR"\)/);
    assert.equal(existsSync(join(dir, 'r.html')), false);
    writeFileSync(join(dir, 'whole.summary.json'), metrics.stdout);
    const ok = await llmkb(['report', join(dir, 'whole.summary.json'), '-o', join(dir, 'r.html')]);
    assert.equal(ok.code, 0, ok.stderr);
  });

  it('corpus add: files with no text are refused for a new corpus (not kept empty) and warned about among others', async () => {
    const dir = folder({ 'empty.csv': '', 'header.csv': 'filename,article\n', 'empty.txt': '', 'ok.csv': 'filename,article\na.pdf,Paris is the capital of France.\n' });
    const store = join(dir, 's.sqlite');
    for (const file of ['empty.csv', 'header.csv', 'empty.txt']) {
      const r = await llmkb(['--store', store, 'corpus', 'add', 'c', join(dir, file)]);
      assertUserError(r, EXIT_CODES.usage, new RegExp(`no text to index in .*${file.replace('.', '\\.')}`));
    }
    const list = await llmkb(['--store', store, 'corpus', 'list']);
    assert.doesNotMatch(list.stdout, /^c /m, 'no empty corpus left behind');
    const mixed = await llmkb(['--store', store, 'corpus', 'add', 'c', join(dir, 'ok.csv'), join(dir, 'header.csv')]);
    assert.equal(mixed.code, 0, mixed.stderr);
    assert.match(mixed.stderr, /warning: .*header\.csv: no text to index/);
  });

  it('empty input files are refused (judge, consistency, metrics, report)', async () => {
    const dir = folder({ 'empty.jsonl': '', 'blank.jsonl': '\n  \n', 'empty.summary.json': '' });
    for (const args of [['judge', '-i', join(dir, 'empty.jsonl')], ['consistency', '-i', join(dir, 'blank.jsonl')], ['metrics', '-i', join(dir, 'empty.jsonl')], ['report', join(dir, 'empty.summary.json')]]) {
      const r = await llmkb(args);
      assertUserError(r, EXIT_CODES.usage, /empty/);
    }
  });
});

describe('consistency: few-shot records without the repositories', () => {
  it('fails naming --data DIR instead of silently dropping the shots', async () => {
    const dir = folder({ 'labelled.jsonl': jsonl([{ ...LABELLED, setting: 'four-shot', shots: ['rs-1', 'rs-2'] }]) });
    const r = await llmkb(['consistency', '-i', join(dir, 'labelled.jsonl'), '--model', 'gguf:/nowhere/x.gguf'], { cwd: dir });
    assertUserError(r, EXIT_CODES.usage, /records carry few-shot examples .* llmkb-data\/r_seen\.jsonl .* not found/);
    assert.match(r.stderr, /hint: Pass --data DIR/);
    assert.equal(existsSync(join(dir, 'consistency.jsonl')), false);
  });

  it('names the one missing repository, and a record whose shot is in neither (file, line, field) before any model loads', async () => {
    const qa = (id: string) => JSON.stringify({ id, dataset: 'seen', source: 'nq', question: `question ${id}`, answers: ['a'] });
    const dir = folder({
      'labelled.jsonl': jsonl([{ ...LABELLED, setting: 'four-shot', shots: ['rs-1'] }, { ...LABELLED, id: 'q2', setting: 'four-shot', shots: ['rs-1', 'rs-9'] }]),
    });
    mkdirSync(join(dir, 'd'));
    writeFileSync(join(dir, 'd', 'r_seen.jsonl'), qa('rs-1') + '\n');
    const one = await llmkb(['consistency', '-i', join(dir, 'labelled.jsonl'), '--data', join(dir, 'd'), '--model', 'gguf:/nowhere/x.gguf'], { cwd: dir });
    assertUserError(one, EXIT_CODES.usage, /the repository .*d\/r_unseen\.jsonl was not found/);
    writeFileSync(join(dir, 'd', 'r_unseen.jsonl'), qa('ru-1') + '\n');
    const r = await llmkb(['consistency', '-i', join(dir, 'labelled.jsonl'), '--data', join(dir, 'd'), '--model', 'gguf:/nowhere/x.gguf'], { cwd: dir });
    // The model path does not exist: the shots are checked before the model is looked at.
    assertUserError(r, EXIT_CODES.usage, /labelled\.jsonl:2 \(field "shots"\): record "q2": few-shot example "rs-9" is in neither r_seen nor r_unseen/);
    assert.match(r.stderr, /hint: Use the repositories the responses were asked with/);
    assert.equal(existsSync(join(dir, 'consistency.jsonl')), false);
  });
});

describe('model limits and downloads', () => {
  it('--max-tokens beyond the model context is refused', { skip: process.env.LLMKB_TEST_GGUF ? false : 'LLMKB_TEST_GGUF is not set' }, async () => {
    const r = await llmkb(['complete', '--model', `gguf:${process.env.LLMKB_TEST_GGUF}`, '--max-tokens', '1000000', 'Once upon a time']);
    assertUserError(r, EXIT_CODES.usage, /--max-tokens 1000000 does not fit the model's context window of \d+ tokens/);
  });

  it('conner generate and best-of refuse --max-tokens / --answer-max-tokens beyond the context before any query', { skip: process.env.LLMKB_TEST_GGUF ? false : 'LLMKB_TEST_GGUF is not set' }, async () => {
    const dir = folder({ 'q.txt': 'Hamlet\twho wrote hamlet\tHamlet is a tragedy written by William Shakespeare.\tWilliam Shakespeare\n' });
    const queries = join(dir, 'q.txt');
    const model = `gguf:${process.env.LLMKB_TEST_GGUF}`;
    for (const [command, option] of [['generate', '--max-tokens'], ['generate', '--answer-max-tokens'], ['best-of', '--max-tokens']] as const) {
      const out = join(dir, `${command}${option}.jsonl`);
      const r = await llmkb(['conner', command, queries, '--model', model, option, '1000000', '-o', out, ...(command === 'best-of' ? ['--summary', join(dir, 'b.json')] : [])], { cwd: dir });
      assertUserError(r, EXIT_CODES.usage, new RegExp(`${option} 1000000 does not fit the model's context window of \\d+ tokens`));
      assert.match(r.stderr, new RegExp(`hint: Use ${option} below`));
      assert.equal(existsSync(out), false);
    }
  });

  it('an hf: download that makes no progress (offline) times out with a clear message', async () => {
    // A server that accepts connections and never answers: what an offline proxy or a dead
    // network path looks like.
    const sockets = new Set<import('node:net').Socket>();
    const server: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const cache = tmp();
      const started = Date.now();
      // execFile's own time-out: a regression must fail this test, not hang the suite.
      const r = await new Promise<CliResult>((resolve) => {
        execFile(process.execPath, [BIN, 'complete', '--model', 'hf:owner/repo/file.gguf', 'hi'], { cwd: cache, timeout: 30_000, env: { ...process.env, CI: '1', HF_ENDPOINT: `http://127.0.0.1:${port}/`, LLMKB_DOWNLOAD_TIMEOUT_MS: '1000', LLMKB_CACHE_DIR: cache } }, (error, stdout, stderr) => {
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
        });
      });
      assertUserError(r, EXIT_CODES.model, /no progress downloading hf:owner\/repo\/file\.gguf for 1 s/);
      assert.ok(Date.now() - started < 30_000, 'gave up, did not hang');
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });

  it('a download host that refuses connections fails at once, not after the stall time-out', async () => {
    // A port that was just free: nothing listens there.
    const probe: Server = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const cache = tmp();
    const started = Date.now();
    const r = await llmkb(['complete', '--model', 'hf:owner/repo/file.gguf', 'hi'], { cwd: cache, env: { HF_ENDPOINT: `http://127.0.0.1:${port}/`, LLMKB_DOWNLOAD_TIMEOUT_MS: '60000', LLMKB_CACHE_DIR: cache } });
    assertUserError(r, EXIT_CODES.model, new RegExp(`could not download hf:owner/repo/file\\.gguf: 127\\.0\\.0\\.1:${port} is unreachable \\(ECONNREFUSED\\)`));
    assert.ok(Date.now() - started < 20_000, 'failed at once');
  });

  it('a download off a TTY prints progress lines (bytes, rate, ETA), then the compute backend', { skip: process.env.LLMKB_TEST_GGUF ? false : 'LLMKB_TEST_GGUF is not set' }, async () => {
    // The model file served slowly, in ten parts over about 1.5 s.
    const body = readFileSync(process.env.LLMKB_TEST_GGUF!);
    const server = createHttpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) });
      if (req.method === 'HEAD') return void res.end();
      const step = Math.ceil(body.length / 10);
      let at = 0;
      const timer = setInterval(() => {
        res.write(body.subarray(at, at + step));
        at += step;
        if (at >= body.length) {
          clearInterval(timer);
          res.end();
        }
      }, 150);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/stories260K.gguf`;
    try {
      const cache = tmp();
      const r = await llmkb(['complete', '--model', `gguf:${url}`, '--max-tokens', '3', 'Once'], { cwd: cache, env: { LLMKB_PROGRESS_INTERVAL: '0.2', LLMKB_CACHE_DIR: cache } });
      assert.equal(r.code, 0, r.stderr);
      // Every command says which hardware an in-process model runs on as it loads.
      assert.match(r.stderr, /^llama:.*stories260K\.gguf: in-process on cpu, 1 sequence$/m);
      assert.match(r.stderr, new RegExp(`^downloading ${url.replace(/[.]/g, '\\.')} {2}\\d+\\.\\d/\\d+\\.\\d MB \\(\\d+\\.\\d%\\) {2}\\d+\\.\\d MB/s {2}ETA \\d+:\\d\\d$`, 'm'));
    } finally {
      server.close();
    }
  });
});

describe('byte-order marks', () => {
  it('a config file and a JSONL input with a UTF-8 BOM are read', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'bom.json'), `\ufeff${JSON.stringify({ model: { spec: 'gguf:/nowhere/x.gguf' } })}`);
    const runs = await llmkb(['--config', join(dir, 'bom.json'), 'runs']);
    assert.equal(runs.code, 0, runs.stderr);
    writeFileSync(join(dir, 'bom.jsonl'), `\ufeff${jsonl([ITEM])}`);
    const judge = await llmkb(['judge', '-i', join(dir, 'bom.jsonl'), '-o', join(dir, 'out.jsonl')]);
    assert.equal(judge.code, 0, judge.stderr);
    assert.match(readFileSync(join(dir, 'out.jsonl'), 'utf8'), /"label":"correct"/);
    writeFileSync(join(dir, 'scored.jsonl'), jsonl(SCORED));
    const metrics = await llmkb(['metrics', '-i', join(dir, 'scored.jsonl'), '--format', 'json', '--resamples', '5']);
    writeFileSync(join(dir, 'bom.summary.json'), `\ufeff${metrics.stdout}`);
    const report = await llmkb(['report', join(dir, 'bom.summary.json'), '-o', join(dir, 'r.html')]);
    assert.equal(report.code, 0, report.stderr);
  });
});

describe('Retry-After', () => {
  function configFile(entry: unknown): string {
    const dir = tmp();
    writeFileSync(join(dir, 'llmkb.config.json'), JSON.stringify({ model: entry }));
    return join(dir, 'llmkb.config.json');
  }

  it('an hour-long Retry-After is capped (maxRetryAfterMs) and the output says so', async () => {
    const server = await startOpenAICompatibleServer({ complete: () => ' Paris', fault: (i) => (i === 0 ? { kind: 'status', status: 429, headers: { 'retry-after': '3600' } } : undefined) });
    try {
      const spec = `vllm:${server.baseURL}/m`;
      const started = Date.now();
      const r = await llmkb(['--config', configFile({ spec, maxRetryAfterMs: 300 }), 'complete', '--model', spec, 'hi']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, ' Paris\n');
      assert.match(r.stderr, /asked to wait 3600 s \(Retry-After\); waiting 0\.3 s instead \(maxRetryAfterMs/);
      assert.equal(server.requests.length, 2);
      const gap = server.requests[1]!.at - server.requests[0]!.at;
      assert.ok(gap >= 250 && Date.now() - started < 20_000, `waited the cap (${gap} ms), not an hour`);
    } finally {
      await server.close();
    }
  });

  it('a Retry-After wait under the cap is said too, not waited in silence', async () => {
    const server = await startOpenAICompatibleServer({ complete: () => ' Paris', fault: (i) => (i === 0 ? { kind: 'status', status: 429, headers: { 'retry-after': '5' } } : undefined) });
    try {
      const spec = `vllm:${server.baseURL}/m`;
      const r = await llmkb(['complete', '--model', spec, 'hi']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /note: m: waiting 5\.0 s before retrying: the server asked to wait \(Retry-After\)/);
      assert.equal(server.requests.length, 2);
    } finally {
      await server.close();
    }
  });

  for (const value of ['-5', 'soon']) {
    it(`a ${value === '-5' ? 'negative' : 'malformed'} Retry-After (${value}) falls back to the exponential back-off`, async () => {
      const server = await startOpenAICompatibleServer({ complete: () => ' Paris', fault: (i) => (i < 2 ? { kind: 'status', status: 429, headers: { 'retry-after': value } } : undefined) });
      try {
        const spec = `vllm:${server.baseURL}/m`;
        const r = await llmkb(['complete', '--model', spec, 'hi']);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(server.requests.length, 3);
        // Exponential back-off from 500 ms, with jitter: >= 250 ms, then >= 500 ms.
        const gaps = [server.requests[1]!.at - server.requests[0]!.at, server.requests[2]!.at - server.requests[1]!.at];
        assert.ok(gaps[0]! >= 200 && gaps[1]! >= 450, `backed off (${gaps.join(', ')} ms), did not retry at once`);
      } finally {
        await server.close();
      }
    });
  }
});

describe('one process per run (lease in the store)', () => {
  async function judgedRun(): Promise<{ dir: string; store: string; runId: string; args: string[] }> {
    const dir = folder({ 'ok.jsonl': jsonl([ITEM]) });
    const store = join(dir, 's.sqlite');
    const args = ['--store', store, 'judge', '-i', join(dir, 'ok.jsonl'), '-o', join(dir, 'out.jsonl')];
    const first = await llmkb(args);
    assert.equal(first.code, 0, first.stderr);
    const runs = await llmkb(['--store', store, 'runs', '--json']);
    const runId = (JSON.parse(runs.stdout) as Array<{ id: string }>)[0]!.id;
    return { dir, store, runId, args };
  }

  function holdLease(store: string, runId: string, pid: number, host = hostname(), expiresInMs = 60_000): void {
    const db = new SqliteDatabase(store);
    const now = new Date().toISOString();
    db.prepare('INSERT OR REPLACE INTO run_leases (run_id, owner, pid, host, acquired_at, heartbeat_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(runId, `${pid}@${host}#test`, pid, host, now, now, Date.now() + expiresInMs);
    db.close();
  }

  it('two real processes on one run: the second refuses while the first works; with --wait it waits and redoes nothing', async () => {
    // A slow judge keeps the first process inside its judge stage for a while.
    const server = await startOpenAICompatibleServer({ delayMs: 1500, complete: () => ' yes', chat: () => 'yes' });
    try {
      const responses = [1, 2, 3, 4].map((i) => ({ ...ITEM, id: `q${i}`, response: `the playwright number ${i}` }));
      const spec = `vllm:${server.baseURL}/judge`;
      const dir = folder({ 'r.jsonl': jsonl(responses), 'llmkb.config.json': JSON.stringify({ judge: { spec, concurrency: 1 } }) });
      // One judge call at a time: the first process works for about 6 s.
      const args = ['--config', join(dir, 'llmkb.config.json'), '--store', join(dir, 's.sqlite'), 'judge', '-i', join(dir, 'r.jsonl'), '--judge', spec];
      const first = llmkb([...args, '-o', join(dir, 'a.jsonl')]);
      while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
      const second = await llmkb([...args, '-o', join(dir, 'b.jsonl')]);
      assertUserError(second, EXIT_CODES.busy, /run [0-9a-f]{16} is being worked on by another llmkb process \(pid \d+ on /);
      const waiting = llmkb(['--wait', ...args, '-o', join(dir, 'c.jsonl')]);
      const a = await first;
      assert.equal(a.code, 0, a.stderr);
      const requests = server.requests.length;
      const c = await waiting;
      assert.equal(c.code, 0, c.stderr);
      assert.match(c.stderr, /waiting for run [0-9a-f]{16}: another llmkb process holds it/);
      assert.equal(server.requests.length, requests, 'the waiting process found the stage done: no call made twice');
      assert.equal(readFileSync(join(dir, 'c.jsonl'), 'utf8'), readFileSync(join(dir, 'a.jsonl'), 'utf8'));
    } finally {
      await server.close();
    }
  });

  it('a second process on a held run refuses, naming the run and the holder', async () => {
    const { store, runId, args } = await judgedRun();
    holdLease(store, runId, process.pid);
    const r = await llmkb(args);
    assertUserError(r, EXIT_CODES.busy, new RegExp(`run ${runId} is being worked on by another llmkb process \\(pid ${process.pid} on ${hostname()}`));
    assert.match(r.stderr, /hint: .*--wait/);
  });

  it('a lease held on another host is honoured until it expires, then taken over', async () => {
    const { store, runId, args } = await judgedRun();
    holdLease(store, runId, 1, 'elsewhere.example');
    assertUserError(await llmkb(args), EXIT_CODES.busy, /pid 1 on elsewhere\.example/);
    holdLease(store, runId, 1, 'elsewhere.example', -1);
    const r = await llmkb(args);
    assert.equal(r.code, 0, r.stderr);
  });

  it('a stale lease from a dead process on this host is taken over at once', async () => {
    const { store, runId, args } = await judgedRun();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    holdLease(store, runId, Number(dead.stdout));
    const r = await llmkb(args);
    assert.equal(r.code, 0, r.stderr);
    const db = new SqliteDatabase(store);
    assert.equal((db.prepare('SELECT count(*) AS n FROM run_leases').get() as { n: number }).n, 0, 'released on exit');
    db.close();
  });

  it('--wait waits for the holder to finish', async () => {
    const { store, runId, args } = await judgedRun();
    holdLease(store, runId, process.pid);
    const release = setTimeout(() => {
      const db = new SqliteDatabase(store);
      db.prepare('DELETE FROM run_leases').run();
      db.close();
    }, 1500);
    const started = Date.now();
    const r = await llmkb(['--wait', ...args]);
    clearTimeout(release);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`waiting for run ${runId}: another llmkb process holds it`));
    assert.ok(Date.now() - started >= 1400);
  });
});

describe('exit codes', () => {
  it('the README documents every exit code', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    const section = /## Exit codes\n([\s\S]*?)(\n## |$)/.exec(readme)?.[1];
    assert.ok(section, 'README has an "Exit codes" section');
    for (const code of Object.values(EXIT_CODES)) assert.match(section, new RegExp(`^\\| \`${code}\` \\|`, 'm'), `code ${code} documented`);
  });
});
