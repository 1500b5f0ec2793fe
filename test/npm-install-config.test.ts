/**
 * Installing from a clone: npm reads the project's configuration without a warning (every `npx
 * llmkb` would print it), and the README's install commands skip onnxruntime-node's download
 * from nuget.org the way CI does (`.ci/run`), since that download fails without the host.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fencedBlocks, isShellBlock } from './support/markdown-docs.js';

const root = join(import.meta.dirname, '..');
const SKIP = 'ONNXRUNTIME_NODE_INSTALL=skip';

describe('installing from a clone', () => {
  it('npm finds no project config it does not know', () => {
    const r = spawnSync('npm', ['config', 'list'], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, `npm config list exits 0 (stderr: ${r.stderr})`);
    assert.doesNotMatch(r.stderr, /Unknown project config/, 'no warning about the project config');
  });

  it("the README's install commands and CI skip onnxruntime-node's download alike", () => {
    const installs = fencedBlocks(readFileSync(join(root, 'README.md'), 'utf8'))
      .filter(isShellBlock)
      .flatMap((b) => b.text.split('\n'))
      .filter((line) => /^\s*(\S+=\S+\s+)*npm (ci|install)\b/.test(line));
    assert.ok(installs.length > 0, 'the README shows how to install');
    for (const line of installs) assert.ok(line.includes(SKIP), `"${line.trim()}" sets ${SKIP}`);
    assert.match(readFileSync(join(root, '.ci', 'run'), 'utf8'), new RegExp(`^export ${SKIP}$`, 'm'), '.ci/run sets it before npm ci');
  });
});
