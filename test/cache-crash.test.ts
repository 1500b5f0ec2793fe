import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';
import { tempDir } from './support/temp-dir.js';

const CHILD = join(import.meta.dirname, 'support', 'cache-crash-child.ts');

/** Runs the child; with killAfter, sends SIGKILL once that many calls reported done. */
function runChild(
  baseURL: string,
  dbPath: string,
  count: number,
  killAfter?: number,
): Promise<{ done: Set<number>; code: number | null; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, baseURL, dbPath, String(count)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const done = new Set<number>();
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^done (\d+)$/.exec(line);
      if (!m) return;
      done.add(Number(m[1]));
      if (killAfter !== undefined && done.size === killAfter) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ done, code, signal }));
  });
}

describe('call cache under kill -9', () => {
  it('loses no completed call, and a rerun never repeats one', async () => {
    const server = await startOpenAICompatibleServer({ delayMs: 3 });
    try {
      const dbPath = join(tempDir('llmkb-crash-'), 'store.sqlite');
      const first = await runChild(server.baseURL, dbPath, 400, 150);
      assert.equal(first.signal, 'SIGKILL', 'the child was killed mid-batch');
      assert.ok(first.done.size >= 150 && first.done.size < 400, `${first.done.size} calls completed before the kill`);
      const requestsBefore = server.requests.length;
      const second = await runChild(server.baseURL, dbPath, 400);
      assert.equal(second.code, 0);
      assert.equal(second.done.size, 400);
      const repeated = server.requests
        .slice(requestsBefore)
        .map((r) => Number(String(r.body.prompt).replace('question ', '')))
        .filter((i) => first.done.has(i));
      assert.deepEqual(repeated, [], 'no call reported done before the kill was sent to the server again');
      const secondRequests = server.requests.length - requestsBefore;
      assert.ok(secondRequests <= 400 - first.done.size, `rerun made ${secondRequests} requests for ${400 - first.done.size} missing calls`);
      const third = await runChild(server.baseURL, dbPath, 400);
      assert.equal(third.code, 0);
      assert.equal(server.requests.length, requestsBefore + secondRequests, 'a complete cache answers everything: no request at all');
    } finally {
      await server.close();
    }
  });
});
