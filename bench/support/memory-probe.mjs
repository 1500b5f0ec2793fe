// Preloaded into the `llmkb eval` child of bench/eval-memory.ts (node --import): samples the
// process's memory every 50 ms and, at exit, writes the peaks as one JSON line to the file named
// by LLMKB_MEMORY_PROBE. Plain JavaScript, so the child needs no TypeScript loader.
import { writeFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

const file = process.env.LLMKB_MEMORY_PROBE;
const peak = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0, liveHeap: 0 };
// With --expose-gc (bench/eval-memory.ts --live): a full collection every second, and the largest
// heap still in use after one: what the process holds, not the garbage V8 lets pile up.
const gc = globalThis.gc;
const sample = () => {
  const m = process.memoryUsage();
  for (const k of Object.keys(peak)) if (k !== 'liveHeap') peak[k] = Math.max(peak[k], m[k]);
};
let tick = 0;
setInterval(() => {
  sample();
  tick++;
  if (gc && tick % 20 === 19) {
    gc();
    peak.liveHeap = Math.max(peak.liveHeap, process.memoryUsage().heapUsed);
  }
  // LLMKB_MEMORY_TRACE=1: a line a second on stderr, between the stages' progress lines.
  if (process.env.LLMKB_MEMORY_TRACE && tick % 20 === 0) {
    const m = process.memoryUsage();
    process.stderr.write(`memory: rss ${(m.rss / 1e6).toFixed(0)} MB, heap ${(m.heapUsed / 1e6).toFixed(0)}/${(m.heapTotal / 1e6).toFixed(0)} MB, external ${(m.external / 1e6).toFixed(0)} MB, array buffers ${(m.arrayBuffers / 1e6).toFixed(0)} MB\n`);
  }
}, 50).unref();
process.on('exit', () => {
  sample();
  if (file) writeFileSync(file, `${JSON.stringify({ ...peak, heapLimit: getHeapStatistics().heap_size_limit, maxRSS: process.resourceUsage().maxRSS * 1024 })}\n`);
});
