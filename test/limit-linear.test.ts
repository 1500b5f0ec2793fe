/**
 * `--limit N` is linear in the input, and a command given SIGTERM while it reads a large input
 * ends at once (issue 37): a 30k-line CONNER file spent 52 s drawing its sample and ignored
 * SIGTERM meanwhile (node-llama-cpp's exit handlers defer a signal until the loop ends).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { limitItems, limitItemsById } from '../src/sampling/limit-items.js';
import { tempDir } from './support/temp-dir.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'llmkb.js');
const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('--limit: a seeded sample in linear time, the same sample as before', () => {
  const items = Array.from({ length: 200_000 }, (_, i) => ({ id: `q${i}`, dataset: i % 3 === 0 ? 'unseen' : 'seen' }));

  it('200k items, grouped by data set or by id, each in well under 5 s', () => {
    let start = performance.now();
    limitItems(items, 5, 42);
    assert.ok(performance.now() - start < 5000, `limitItems took ${performance.now() - start} ms`);
    start = performance.now();
    limitItemsById(items, 5, 42);
    assert.ok(performance.now() - start < 5000, `limitItemsById took ${performance.now() - start} ms`);
  });

  it('keeps the sample a seed chose (the same items as the quadratic version drew)', () => {
    const small = items.slice(0, 20_000);
    assert.deepEqual(
      limitItems(small, 5, 7).map((x) => x.id),
      ['q250', 'q2845', 'q3766', 'q17997', 'q18534'],
    );
    assert.deepEqual(
      limitItemsById(small, 5, 7).map((x) => x.id),
      ['q1365', 'q2691', 'q5968', 'q11416', 'q19394'],
    );
  });
});

describe('SIGTERM while a large input is sampled', { skip: process.env.LLMKB_TEST_GGUF ? false : 'LLMKB_TEST_GGUF is not set' }, () => {
  it('eval --method conner on a 100k-line file with --limit 2 ends within seconds of SIGTERM', async () => {
    const dir = tempDir('llmkb-limit-');
    made.push(dir);
    const lines = Array.from({ length: 100_000 }, (_, i) => `Topic ${i}\twhat is topic ${i}\tTopic ${i} is a thing.\tthing`);
    writeFileSync(join(dir, 'nq_big.txt'), lines.join('\n') + '\n');
    const gguf = `gguf:${process.env.LLMKB_TEST_GGUF}`;
    const child = spawn(
      process.execPath,
      [BIN, '--store', 's.sqlite', 'eval', '--method', 'conner', '--model', gguf, '--scorer', gguf, '--input', 'nq_big.txt', '--limit', '2', '--out', 'o'],
      { cwd: dir, env: { ...process.env, CI: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; afterMs: number }>((resolve) => {
      let sentAt = 0;
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        // The model is loaded (its exit handlers are installed) and the run has begun: the sample is drawn next.
        if (sentAt === 0 && / · run [0-9a-f]+/.test(stderr)) {
          sentAt = Date.now();
          child.kill('SIGTERM');
        }
      });
      child.on('exit', (code, signal) => resolve({ code, signal, afterMs: sentAt === 0 ? -1 : Date.now() - sentAt }));
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const r = await ended;
    clearTimeout(killer);
    assert.ok(r.afterMs >= 0, `the run never began: ${stderr}`);
    assert.ok(r.afterMs < 5000, `ended ${r.afterMs} ms after SIGTERM (${stderr.slice(-400)})`);
    assert.ok(r.signal === 'SIGTERM' || r.code === 143, `ended by SIGTERM (code ${r.code}, signal ${r.signal})`);
  });
});
