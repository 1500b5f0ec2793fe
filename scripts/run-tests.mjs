#!/usr/bin/env node
/**
 * `npm test`'s runner: every `*.test.ts` under src/ and test/, at any depth (fixtures/ and
 * support/ folders hold test material, not tests), run by `node --test`, two files at a time.
 *
 * A script rather than a glob in package.json: Node 20's `--test` does not expand globs, and npm
 * runs scripts with sh, which has no `**`. Extra arguments are passed to `node --test` before the
 * files (e.g. `--test-name-pattern`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';

const root = join(import.meta.dirname, '..');
const SKIP = new Set(['fixtures', 'support', 'node_modules']);

function testFiles(dir) {
  const out = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP.has(entry.name)) out.push(...testFiles(path));
    } else if (entry.name.endsWith('.test.ts')) {
      out.push(path.split(sep).join('/'));
    }
  }
  return out;
}

// The longest files first (their times in the last run, kept in node_modules/.cache), files not
// timed yet before them: two at a time, a long file started last would leave one core idle while
// it finishes. LLMKB_TEST_DURATIONS names another file for the times (e.g. one shared by CI's Node lines).
const durationsFile = process.env.LLMKB_TEST_DURATIONS || join(root, 'node_modules', '.cache', 'llmkb', 'test-durations.json');
const lastDurations = readDurations(durationsFile);
const files = [...testFiles('src'), ...testFiles('test')].sort().sort((a, b) => (lastDurations[b] ?? Infinity) - (lastDurations[a] ?? Infinity));
if (files.length === 0) {
  process.stderr.write('run-tests: no *.test.ts files found\n');
  process.exit(1);
}
// Two files at a time by default: most files wait on a child process or a loopback server, so two
// take about half the time of one on a 2-core machine; LLMKB_TEST_CONCURRENCY=1 runs them in turn.
const concurrency = process.env.LLMKB_TEST_CONCURRENCY ?? '2';
if (!/^[1-9]\d*$/.test(concurrency)) {
  process.stderr.write(`run-tests: LLMKB_TEST_CONCURRENCY must be a positive whole number, not "${concurrency}"\n`);
  process.exit(1);
}
process.stderr.write(`run-tests: ${files.length} test files, ${concurrency} at a time\n`);
// Every test removes what it makes (test/support/temp-dir.ts); what is new in the temp directory
// after the run is named, so a test that leaves something behind is found. tsx's compile cache,
// when this run made it, goes too.
const tsxCache = join(tmpdir(), `tsx-${process.getuid?.() ?? ''}`);
const hadTsxCache = existsSync(tsxCache);
const before = new Set(readdirSync(tmpdir()));
const extra = process.argv.slice(2);
// Given reporters of its own, the run is left to them and times are not kept.
const timed = !extra.some((arg) => arg.startsWith('--test-reporter'));
const newDurations = `${durationsFile}.${process.pid}.tmp`;
if (timed) mkdirSync(dirname(durationsFile), { recursive: true });
const reporters = timed
  ? [
      '--test-reporter=tap',
      '--test-reporter-destination=stdout',
      `--test-reporter=${join(root, 'scripts', 'test-durations-reporter.mjs')}`,
      `--test-reporter-destination=${newDurations}`,
    ]
  : [];
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...reporters, `--test-concurrency=${concurrency}`, ...extra, ...files], {
  cwd: root,
  stdio: 'inherit',
});
if (timed) keepDurations(newDurations, durationsFile);
if (!hadTsxCache) rmSync(tsxCache, { recursive: true, force: true });
const left = readdirSync(tmpdir()).filter((name) => !before.has(name) && name.startsWith('llmkb-'));
if (left.length > 0)
  process.stderr.write(`run-tests: the tests left ${left.length} entries in ${tmpdir()}: ${left.slice(0, 10).join(', ')}${left.length > 10 ? ', ...' : ''}\n`);
process.exit(result.status ?? 1);

/** The last run's time of each test file (path from the repository root), or nothing. */
function readDurations(file) {
  try {
    const times = JSON.parse(readFileSync(file, 'utf8'));
    return typeof times === 'object' && times !== null ? times : {};
  } catch {
    return {};
  }
}

/** Keeps this run's times (by path from the repository root) for the next run; a run cut short keeps the last ones. */
function keepDurations(written, file) {
  try {
    const byPath = JSON.parse(readFileSync(written, 'utf8'));
    const relativeTimes = Object.fromEntries(Object.entries(byPath).map(([path, ms]) => [relative(root, path).split(sep).join('/'), Math.round(ms)]));
    if (Object.keys(relativeTimes).length > 0) {
      writeFileSync(written, `${JSON.stringify({ ...lastDurations, ...relativeTimes }, null, 1)}\n`);
      renameSync(written, file);
    }
  } catch {
    // No times (the run stopped before its end): the next run orders by the last ones.
  } finally {
    rmSync(written, { force: true });
  }
}
