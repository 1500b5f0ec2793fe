// Preloaded into the `llmkb eval` child of bench/eval-memory.ts (node --import), and so into the
// command's process that bin/llmkb.js starts: samples the process's memory every 50 ms and, at
// exit, appends its peaks as one JSON line (with its pid) to the file named by
// LLMKB_MEMORY_PROBE. Plain JavaScript, so the child needs no TypeScript loader.
import { appendFileSync, readFileSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

// node --import preloads this into worker threads too (e.g. the corpus ingest worker): only the main
// thread samples (RSS is the process's; a worker's heap is its own and small).
const file = isMainThread ? process.env.LLMKB_MEMORY_PROBE : undefined;
const peak = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0, liveHeap: 0, rssAnon: 0, rssFile: 0, rssShmem: 0 };
/** What the RSS is made of at its peak (/proc/self/status, kB): anonymous memory, mapped files, shared memory. */
const rssParts = () => {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rssAnon: kb('RssAnon'), rssFile: kb('RssFile'), rssShmem: kb('RssShmem') };
};
// With --expose-gc (bench/eval-memory.ts --live): a full collection every second, and the largest
// heap still in use after one: what the process holds, not the garbage V8 lets pile up.
const gc = globalThis.gc;
const sample = () => {
  const m = process.memoryUsage();
  if (m.rss > peak.rss && process.platform === 'linux') Object.assign(peak, rssParts());
  for (const k of ['rss', 'heapUsed', 'heapTotal', 'external', 'arrayBuffers']) peak[k] = Math.max(peak[k], m[k]);
};
/** V8's heap spaces over 1 MB, as name size/used (MB). */
const spaces = () =>
  getHeapSpaceStatistics()
    .filter((s) => s.space_size > 1e6)
    .map((s) => `${s.space_name.replace(/_space$/, '')} ${(s.space_size / 1e6).toFixed(0)}/${(s.space_used_size / 1e6).toFixed(0)}`)
    .join(', ');
let tick = 0;
if (isMainThread) setInterval(() => {
  sample();
  tick++;
  if (gc && tick % 20 === 19) {
    gc();
    peak.liveHeap = Math.max(peak.liveHeap, process.memoryUsage().heapUsed);
  }
  // LLMKB_MEMORY_TRACE=1: a line a second on stderr, between the stages' progress lines.
  if (process.env.LLMKB_MEMORY_TRACE && tick % 20 === 0) {
    const m = process.memoryUsage();
    process.stderr.write(`memory: rss ${(m.rss / 1e6).toFixed(0)} MB, heap ${(m.heapUsed / 1e6).toFixed(0)}/${(m.heapTotal / 1e6).toFixed(0)} MB, external ${(m.external / 1e6).toFixed(0)} MB, array buffers ${(m.arrayBuffers / 1e6).toFixed(0)} MB; heap spaces (MB) ${spaces()}\n`);
  }
}, 50).unref();
process.on('exit', () => {
  if (!file) return;
  sample();
  appendFileSync(file, `${JSON.stringify({ pid: process.pid, ...peak, heapLimit: getHeapStatistics().heap_size_limit, maxRSS: process.resourceUsage().maxRSS * 1024 })}\n`);
});
