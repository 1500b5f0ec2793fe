/**
 * Start-up time: `llmkb --help` must not load what only commands need (node-llama-cpp, Vega,
 * statistics, SQLite, zod); commands import those inside their actions.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from './support/temp-dir.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'llmkb.js');
const HEAVY = [
  'node-llama-cpp',
  'vega',
  'vega-lite',
  '@stdlib',
  'better-sqlite3',
  'zod',
  'csv-parse',
  'pure-rand',
  '@huggingface/transformers',
  'onnxruntime-node',
];

function loadedBy(args: string[]): string[] {
  const log = join(tempDir('llmkb-imports-'), 'imports.log');
  const r = spawnSync(process.execPath, ['--import', join(ROOT, 'test', 'support', 'record-imports.mjs'), BIN, ...args], {
    env: { ...process.env, LLMKB_IMPORT_LOG: log },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return readFileSync(log, 'utf8').trim().split('\n');
}

describe('start-up', () => {
  for (const args of [['--help'], ['eval', '--help'], ['data', 'seenqa', '--help'], ['--version']]) {
    it(`llmkb ${args.join(' ')} loads none of the heavy dependencies`, () => {
      const urls = loadedBy(args);
      assert.ok(
        urls.some((u) => u.includes('commander')),
        'the hook saw the imports',
      );
      const heavy = urls.filter((u) => HEAVY.some((h) => u.includes(`/node_modules/${h}/`) || u.includes(`/node_modules/${h}@`)));
      assert.deepEqual(heavy, []);
    });
  }

  it('median cold `node bin/llmkb.js --help` of 5 runs is under 0.30 s, or costs under 0.2 s of CPU more than a bare node start', (t) => {
    // The target is absolute (0.30 s of wall time on a quiet machine). Wall time on a machine
    // busy with other work (a test suite running files two at a time) says more about the load
    // than about llmkb, so the fallback yardstick is CPU time (user + system, which the load does
    // not inflate much) against a bare node start measured interleaved with it. Before lazy
    // imports, --help cost ~0.47 s over bare node.
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // bash's `times` prints its children's user and system time on its second line.
    const run = (command: string): { wall: number; cpu: number } => {
      const started = performance.now();
      const r = spawnSync('bash', ['-c', `${command} > /dev/null && times`], { encoding: 'utf8' });
      const wall = (performance.now() - started) / 1000;
      assert.equal(r.status, 0, r.stderr);
      const children = r.stdout.trim().split('\n').at(-1)!;
      const cpu = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
      return { wall, cpu };
    };
    const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
    const help: Array<{ wall: number; cpu: number }> = [];
    const bare: Array<{ wall: number; cpu: number }> = [];
    for (let i = 0; i < 5; i++) {
      help.push(run(`${quote(process.execPath)} ${quote(BIN)} --help`));
      bare.push(run(`${quote(process.execPath)} -e 0`));
    }
    const wall = median(help.map((t) => t.wall));
    const helpCpu = median(help.map((t) => t.cpu));
    const bareCpu = median(bare.map((t) => t.cpu));
    const detail = `median ${wall.toFixed(2)} s (runs: ${help.map((t) => t.wall.toFixed(2)).join(', ')}); CPU ${helpCpu.toFixed(2)} s against bare node's ${bareCpu.toFixed(2)} s`;
    t.diagnostic(detail);
    assert.ok(wall < 0.3 || helpCpu - bareCpu < 0.2, detail);
  });
});
