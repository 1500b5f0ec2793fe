#!/usr/bin/env node
/**
 * `npm run mutation`: a small mutation run over the code whose output a user reads (metrics,
 * bootstrap, judging, normalisation, consistency, CONNER scoring, call keys, view and report
 * rendering). Each mutant in scripts/mutants.json is one plausible bug: a file, an exact piece of
 * text to find there, its replacement, and the test files that should fail because of it.
 *
 * The working tree is never touched: the repository is copied once to a scratch folder (its
 * node_modules linked), and each mutant is applied there alone, its tests run, and the file put
 * back. A mutant is
 *   killed    its tests failed (or timed out);
 *   survived  its tests passed: a test is missing, or the mutant is equivalent and needs its
 *             `equivalent` note;
 *   explained marked `equivalent` (with the reason) and its tests passed, as the note says;
 *   stale     its text is not in the file, or not exactly once: the code moved, and the mutant
 *             list must be updated (a stale mutant is never skipped quietly).
 * The unmutated copy runs every listed test file first; a failure there stops the run.
 *
 * Options: --only SUBSTRING (mutants whose id contains it; repeatable), --list (each mutant and
 * whether its text is still there, without running anything), --timeout SECONDS
 * (per mutant, default 180), --keep (leave the scratch copy). Exit code 0 when every mutant is
 * killed or explained, 1 when one survived, 2 when one is stale or the baseline fails.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = join(import.meta.dirname, '..');
const MUTANTS = JSON.parse(readFileSync(join(import.meta.dirname, 'mutants.json'), 'utf8')).mutants;
const USAGE = 'usage: npm run mutation -- [--only SUBSTRING]... [--list] [--timeout SECONDS] [--keep]';
let opts;
try {
  ({ values: opts } = parseArgs({
    options: {
      only: { type: 'string', multiple: true },
      list: { type: 'boolean' },
      timeout: { type: 'string', default: '180' },
      keep: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  process.stderr.write(`mutation: ${error.message}\n${USAGE}\n`);
  process.exit(2);
}
if (opts.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const say = (line) => process.stdout.write(`${line}\n`);

function checkList() {
  const ids = new Set();
  for (const m of MUTANTS) {
    for (const field of ['id', 'file', 'find', 'replace'])
      if (typeof m[field] !== 'string') throw new Error(`mutant ${m.id ?? '?'}: "${field}" must be a string`);
    if (!Array.isArray(m.tests) || m.tests.length === 0) throw new Error(`mutant ${m.id}: "tests" must list the test files that should kill it`);
    if (m.find === m.replace) throw new Error(`mutant ${m.id}: the replacement is the text itself`);
    if (ids.has(m.id)) throw new Error(`mutant id ${m.id} is used twice`);
    ids.add(m.id);
  }
}

function occurrences(text, find) {
  let n = 0;
  for (let i = text.indexOf(find); i !== -1; i = text.indexOf(find, i + 1)) n++;
  return n;
}

function runTests(dir, tests, timeoutMs) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=dot', ...tests], {
    cwd: dir,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, LLMKB_TEST_ARTIFACTS: join(dir, 'test-artifacts') },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { passed: r.status === 0, timedOut: r.error?.code === 'ETIMEDOUT' || r.signal === 'SIGTERM', output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

checkList();
const chosen = opts.only ? MUTANTS.filter((m) => opts.only.some((o) => m.id.includes(o))) : MUTANTS;
if (opts.list) {
  // Read-only: each mutant and whether its text is in the working tree exactly once.
  let stale = 0;
  for (const m of chosen) {
    const n = existsSync(join(root, m.file)) ? occurrences(readFileSync(join(root, m.file), 'utf8'), m.find) : 0;
    if (n !== 1) stale++;
    say(`${n === 1 ? '' : `STALE (${n} times) `}${m.id}  ${m.file}${m.equivalent ? '  (equivalent)' : ''}`);
  }
  say(`${chosen.length} mutants, ${stale} stale`);
  process.exit(stale ? 2 : 0);
}
if (chosen.length === 0) {
  say('mutation: no mutant matches --only');
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), 'llmkb-mutation-'));
for (const entry of ['src', 'test', 'scripts', 'bin', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
  if (existsSync(join(root, entry))) cpSync(join(root, entry), join(scratch, entry), { recursive: true });
}
symlinkSync(realpathSync(join(root, 'node_modules')), join(scratch, 'node_modules'), 'dir');
say(`mutation: ${chosen.length} mutant(s), scratch copy ${scratch}`);

const timeoutMs = Number(opts.timeout) * 1000;
const results = { killed: [], survived: [], explained: [], stale: [], killedButMarked: [] };
try {
  const allTests = [...new Set(chosen.flatMap((m) => m.tests))].sort();
  const missing = allTests.filter((t) => !existsSync(join(scratch, t)));
  if (missing.length) {
    say(`STALE: test files named by mutants do not exist: ${missing.join(', ')}`);
    process.exitCode = 2;
  } else {
    const baseline = runTests(scratch, allTests, timeoutMs * 4);
    if (!baseline.passed) {
      say(baseline.output.slice(-4000));
      say('mutation: the unmutated code fails its tests: fix that first (no mutant was run)');
      process.exitCode = 2;
    } else {
      say(`baseline: ${allTests.length} test file(s) pass unmutated`);
      for (const m of chosen) {
        const path = join(scratch, m.file);
        if (!existsSync(path)) {
          results.stale.push(m);
          say(`STALE     ${m.id}: ${m.file} does not exist (the code moved: update scripts/mutants.json)`);
          continue;
        }
        const original = readFileSync(path, 'utf8');
        const n = occurrences(original, m.find);
        if (n !== 1) {
          results.stale.push(m);
          say(`STALE     ${m.id}: its text occurs ${n} times in ${m.file}, not once (the code moved: update scripts/mutants.json)`);
          continue;
        }
        writeFileSync(
          path,
          original.replace(m.find, () => m.replace),
        );
        const started = Date.now();
        let r;
        try {
          r = runTests(scratch, m.tests, timeoutMs);
        } finally {
          writeFileSync(path, original);
        }
        const secs = ((Date.now() - started) / 1000).toFixed(1);
        if (!r.passed) {
          if (m.equivalent) {
            results.killedButMarked.push(m);
            say(`killed    ${m.id} (${secs} s) but marked equivalent: remove its note`);
          } else {
            results.killed.push(m);
            say(`killed    ${m.id} (${secs} s${r.timedOut ? ', timed out' : ''})`);
          }
        } else if (m.equivalent) {
          results.explained.push(m);
          say(`explained ${m.id} (${secs} s): ${m.equivalent}`);
        } else {
          results.survived.push(m);
          say(`SURVIVED  ${m.id} (${secs} s): ${m.file}: ${JSON.stringify(m.find)} -> ${JSON.stringify(m.replace)}; tests ${m.tests.join(', ')}`);
        }
      }
      const killed = results.killed.length + results.killedButMarked.length;
      say('');
      say(
        `mutation score: ${chosen.length} mutants, ${killed} killed, ${results.explained.length} explained (equivalent), ${results.survived.length} survived, ${results.stale.length} stale`,
      );
      if (results.stale.length) process.exitCode = 2;
      else if (results.survived.length || results.killedButMarked.length) process.exitCode = 1;
    }
  }
} finally {
  if (opts.keep) say(`scratch copy kept: ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
}
