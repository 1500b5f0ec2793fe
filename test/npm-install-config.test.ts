/**
 * Installing from a clone: a plain `npm ci` needs no environment variable and prints no warning
 * that is ours to avoid. npm reads the project's configuration without a warning (every `npx
 * llmkb` would print it); package.json's `allowScripts` reviews every install script in the tree
 * and denies onnxruntime-node's (a download of CUDA libraries from outside the npm registry; its
 * CPU runtime is in the package); no dependency that must install has engines excluding a
 * supported Node line (better-sqlite3 13, engines Node >= 22, is optional).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fencedBlocks, isShellBlock } from './support/markdown-docs.js';

const root = join(import.meta.dirname, '..');
const npm = (args: string[]) => spawnSync('npm', args, { cwd: root, encoding: 'utf8', timeout: 120_000 });
const npmVersion = npm(['--version']).stdout.trim();
const [npmMajor = 0, npmMinor = 0] = npmVersion.split('.').map(Number);
/** `allowScripts` came with npm 11.16; older npm ignores it. */
const npmReadsAllowScripts = npmMajor > 11 || (npmMajor === 11 && npmMinor >= 16);

describe('installing from a clone', () => {
  it('npm finds no project config it does not know', () => {
    const r = npm(['config', 'list']);
    assert.equal(r.status, 0, `npm config list exits 0 (stderr: ${r.stderr})`);
    assert.doesNotMatch(r.stderr, /Unknown project config/, 'no warning about the project config');
  });

  it('allowScripts covers every install script and denies onnxruntime-node', {
    skip: npmReadsAllowScripts ? false : `npm ${npmVersion} does not read allowScripts (11.16 or later does)`,
  }, () => {
    const allow = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> }).allowScripts;
    assert.equal(allow?.['onnxruntime-node'], false, "package.json's allowScripts denies onnxruntime-node's install script");
    const r = npm(['install-scripts', 'ls', '--json']);
    assert.equal(r.status, 0, `npm install-scripts ls exits 0 (stderr: ${r.stderr})`);
    assert.deepEqual((JSON.parse(r.stdout) as { allowScripts: unknown[] }).allowScripts, [], `no install script is left unreviewed: ${r.stdout}`);
  });

  it('an install prints no engine warning on this Node', () => {
    const r = npm(['install', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund']);
    assert.equal(r.status, 0, `npm install --dry-run exits 0 (stderr: ${r.stderr})`);
    assert.doesNotMatch(r.stdout + r.stderr, /EBADENGINE/, `no EBADENGINE warning on Node ${process.version}`);
  });

  it("the README's install commands and CI install with no environment variable", () => {
    const installs = fencedBlocks(readFileSync(join(root, 'README.md'), 'utf8'))
      .filter(isShellBlock)
      .flatMap((b) => b.text.split('\n'))
      .filter((line) => /^\s*(\S+=\S+\s+)*npm (ci|install)\b/.test(line));
    assert.ok(installs.length > 0, 'the README shows how to install');
    for (const line of installs) assert.match(line, /^\s*npm (ci|install)\b/, `"${line.trim()}" is a plain npm command`);
    assert.doesNotMatch(readFileSync(join(root, '.ci', 'run'), 'utf8'), /^\s*export ONNXRUNTIME_NODE_INSTALL/m, '.ci/run installs as the README does');
  });
});
