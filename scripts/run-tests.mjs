#!/usr/bin/env node
/**
 * `npm test`'s runner: every `*.test.ts` under src/ and test/, at any depth (fixtures/ and
 * support/ folders hold test material, not tests), run by `node --test` one file at a time.
 *
 * A script rather than a glob in package.json: Node 20's `--test` does not expand globs, and npm
 * runs scripts with sh, which has no `**`. Extra arguments are passed to `node --test` before the
 * files (e.g. `--test-name-pattern`).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';

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

// LLMKB_TEST_EXCLUDE: comma-separated test files to leave out (CI runs the slowest end-to-end
// files on one Node line only; see .ci/run). Each named file must exist, so a rename is noticed.
const exclude = (process.env.LLMKB_TEST_EXCLUDE ?? '').split(',').map((f) => f.trim()).filter(Boolean);
const all = [...testFiles('src'), ...testFiles('test')].sort();
for (const f of exclude) {
  if (!all.includes(f)) {
    process.stderr.write(`run-tests: LLMKB_TEST_EXCLUDE names ${f}, which is not a test file\n`);
    process.exit(1);
  }
}
const files = all.filter((f) => !exclude.includes(f));
if (files.length === 0) {
  process.stderr.write('run-tests: no *.test.ts files found\n');
  process.exit(1);
}
process.stderr.write(`run-tests: ${files.length} test files${exclude.length ? ` (left out: ${exclude.join(', ')})` : ''}\n`);
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', '--test-concurrency=1', ...process.argv.slice(2), ...files], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
