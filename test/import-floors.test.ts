/**
 * `npm run check:imports` enforces the floors of .dependency-cruiser.cjs: a module that imports a
 * folder on a floor above its own (a folder-level back edge, even without a cycle) is refused, and
 * the same import the other way round passes. Run on small trees of compiled modules.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from './support/temp-dir.js';

const ROOT = join(import.meta.dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** Writes `files` (path under the tree -> source) and runs the import check on its dist/. */
function cruise(files: Record<string, string>): Promise<{ code: number; out: string }> {
  const dir = tempDir('llmkb-floors-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return new Promise((resolve) => {
    execFile(process.execPath, [DEPCRUISE, 'dist', '--config', CONFIG, '--output-type', 'err'], { cwd: dir }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: stdout + stderr });
    });
  });
}

describe('import floors', () => {
  it('refuses a folder-level back edge: io (base) importing the CLI', async () => {
    const r = await cruise({
      'dist/io/files.js': "import { run } from '../cli/main.js';\nexport const x = run;\n",
      'dist/cli/main.js': 'export const run = 1;\n',
    });
    assert.notEqual(r.code, 0, r.out);
    assert.match(r.out, /floor-0-below/);
    assert.match(r.out, /dist\/io\/files\.js/);
  });

  it('refuses a method plugin importing a results helper above it (analysis)', async () => {
    const r = await cruise({
      'dist/methods/m/summary.js': "import { w } from '../../analysis/a.js';\nexport const y = w;\n",
      'dist/analysis/a.js': 'export const w = 1;\n',
    });
    assert.notEqual(r.code, 0, r.out);
    assert.match(r.out, /floor-5-below/);
  });

  it('passes the same imports downwards', async () => {
    const r = await cruise({
      'dist/cli/main.js': "import { x } from '../io/files.js';\nexport const run = x;\n",
      'dist/io/files.js': 'export const x = 1;\n',
      'dist/analysis/a.js': "import { y } from '../methods/method-summary.js';\nexport const w = y;\n",
      'dist/methods/method-summary.js': 'export const y = 1;\n',
    });
    assert.equal(r.code, 0, r.out);
  });
});
