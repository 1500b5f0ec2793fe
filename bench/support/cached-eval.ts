/**
 * One whole `eval` from the call cache alone, on a store kept by `npm run bench:paper-scale --
 * --keep-store`: the run store is emptied first, so every call is a cache hit (no server needed).
 * For profiling (`node --cpu-prof --import tsx bench/support/cached-eval.ts DIR`).
 *
 *   node --import tsx bench/support/cached-eval.ts <kept dir> [mcqs] [--stages-done]
 *
 * `--stages-done` keeps the run store (a re-run whose stages are all done).
 */
import { join } from 'node:path';
import { evaluateReliability } from './evaluate-reliability.js';
import { ModelExecutor } from '../../src/executor/model-executor.js';
import { OpenAICompatibleModel } from '../../src/providers/openai-compatible/openai-compatible-model.js';
import { CallCache } from '../../src/store/call-cache.js';
import { openDatabase } from '../../src/store/database.js';
import { RunStore } from '../../src/store/run-store.js';

const dir = process.argv[2]!;
const mcqs = Number(process.argv[3] && !process.argv[3].startsWith('--') ? process.argv[3] : 20);
const concurrency = 64;
// The bench's providers (the URL is not part of a call's cache key; nothing is sent).
const provider = (model: string) =>
  new OpenAICompatibleModel({ baseURLs: ['http://127.0.0.1:9/v1'], model, api: 'completions', echo: false, topLogprobs: 5, flavor: 'vllm', concurrency });
const db = openDatabase(join(dir, 'store.sqlite'));
if (!process.argv.includes('--stages-done')) db.exec('DELETE FROM run_records; DELETE FROM run_stages; DELETE FROM run_leases; DELETE FROM runs;');
const cache = new CallCache(db);
const runs = new RunStore(db);
const model = new ModelExecutor(provider('bench-model'), { cache, concurrency });
const judge = new ModelExecutor(provider('bench-judge'), { cache, concurrency });
const distractor = new ModelExecutor(provider('bench-distractor'), { cache, concurrency });
const started = performance.now();
let peak = 0;
let tick = 0;
setInterval(() => {
  const m = process.memoryUsage();
  peak = Math.max(peak, m.rss);
  if (process.env.LLMKB_BENCH_MEMORY && ++tick % 25 === 0)
    process.stderr.write(
      `memory: rss ${(m.rss / 1e6).toFixed(0)} MB, heap ${(m.heapUsed / 1e6).toFixed(0)}/${(m.heapTotal / 1e6).toFixed(0)} MB, external ${(m.external / 1e6).toFixed(0)} MB, array buffers ${(m.arrayBuffers / 1e6).toFixed(0)} MB\n`,
    );
}, 20).unref();
await evaluateReliability({
  model,
  judge,
  distractor,
  settings: ['four-shot'],
  runs,
  dataDir: join(dir, 'data'),
  outDir: join(dir, 'out'),
  cacheDir: join(dir, 'cache'),
  seed: 42,
  mcqs,
});
const seconds = (performance.now() - started) / 1000;
const requests = model.accounting.requests + judge.accounting.requests + distractor.accounting.requests;
console.log(
  `whole eval ${process.argv.includes('--stages-done') ? 'with its stages done' : 'from the cache'}: ${seconds.toFixed(2)} s, ${model.accounting.calls + judge.accounting.calls + distractor.accounting.calls} calls, ${requests} requests, peak RSS ${(Math.max(peak, process.memoryUsage().rss) / 1e6).toFixed(0)} MB`,
);
cache.close();
db.close();
