import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { processAlive } from './process-alive.js';

describe('processAlive', () => {
  it('is true for a running process and false for one that ended', () => {
    assert.equal(processAlive(process.pid), true);
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    assert.equal(processAlive(Number(ended.stdout)), false);
  });

  it('is false for a zombie: a process that ended and whose parent has not reaped it', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
    // `sleep 0.5` ends after its parent has become `sleep 10`, which never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0.5 & echo $!; exec sleep 10'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((resolve) => createInterface({ input: parent.stdout }).once('line', resolve)));
      const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0];
      for (let i = 0; i < 500 && state() !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(state(), 'Z');
      assert.doesNotThrow(() => process.kill(pid, 0), 'signals still reach its process id');
      assert.equal(processAlive(pid), false);
    } finally {
      parent.kill();
    }
  });
});
