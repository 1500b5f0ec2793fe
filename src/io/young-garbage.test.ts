import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import { collectYoungGarbage } from './young-garbage.js';

describe('collectYoungGarbage', () => {
  it('frees Buffers that were made and dropped, without waiting for V8 to notice them', async () => {
    // Let the garbage of the test runner's start go first.
    collectYoungGarbage();
    const before = process.memoryUsage().arrayBuffers;
    // 8 MB in Buffers of their own (over Node's pool size), all garbage at once: V8 alone
    // collects only after about 64 MB of memory outside its heap.
    for (let i = 0; i < 1000; i++) Buffer.alloc(8192).fill(i);
    assert.ok(process.memoryUsage().arrayBuffers - before > 4_000_000, 'the Buffers are counted before the collection');
    collectYoungGarbage();
    // Freeing swept memory can finish on a helper thread just after the scavenge.
    for (let turn = 0; turn < 50 && process.memoryUsage().arrayBuffers - before > 1_000_000; turn++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(process.memoryUsage().arrayBuffers - before < 1_000_000, `${process.memoryUsage().arrayBuffers - before} bytes still held`);
  });

  it('leaves no gc function in this or any new context', () => {
    collectYoungGarbage();
    // (A process started with --expose-gc has gc everywhere, as it asked.)
    if (process.execArgv.includes('--expose-gc')) return;
    assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
    assert.equal(runInNewContext('typeof gc'), 'undefined');
  });
});
