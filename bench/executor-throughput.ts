/**
 * Executor throughput against a loopback OpenAI-compatible server that answers after a fixed
 * delay, compared with a bare fetch loop (no cache, no store): the physical limit on this
 * machine, where server and client share the cores. Prints its figures; not a timed test.
 *
 *   npm run bench:executor -- [calls=20000] [concurrency=64] [delayMs=20]
 *
 * Targets (issue #2): executor >= 80% of the bare loop's calls/s; re-run of all calls from the
 * cache < 2 s; peak RSS < 300 MB.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ModelExecutor } from '../src/executor/model-executor.js';
import { OpenAICompatibleModel } from '../src/providers/openai-compatible/openai-compatible-model.js';
import { CallCache } from '../src/store/call-cache.js';
import { openDatabase } from '../src/store/database.js';

const [calls = 20_000, concurrency = 64, delayMs = 20] = process.argv.slice(2).map(Number);
const server = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'support', 'fixed-delay-server.ts'), String(delayMs)], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once('line', resolve));
const baseURL = `http://127.0.0.1:${port}/v1`;
const prompts = Array.from({ length: calls }, (_, i) => `INSTRUCTION: answer.\nQUESTION: benchmark question number ${i}?\nANSWER:`);

async function pool(work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) await work(next++);
    }),
  );
}

async function measure(label: string, work: (i: number) => Promise<unknown>): Promise<{ seconds: number; cpuUsPerCall: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await pool(work);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuUsPerCall = (used.user + used.system) / calls;
  console.log(
    `${label.padEnd(34)} ${(calls / seconds).toFixed(0).padStart(6)} calls/s  ${seconds.toFixed(2).padStart(6)} s  client CPU ${cpuUsPerCall.toFixed(0)} µs/call`,
  );
  return { seconds, cpuUsPerCall };
}

console.log(`${calls} completion calls, concurrency ${concurrency}, server delay ${delayMs} ms, ${baseURL}`);
// Warm up connections so neither side pays for the first TCP handshakes.
await Promise.all(
  Array.from({ length: concurrency }, () =>
    fetch(`${baseURL}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'bench', prompt: 'warm-up', max_tokens: 4 }),
    }).then((r) => r.text()),
  ),
);

const bare = await measure('bare fetch loop (no cache/store)', async (i) => {
  const res = await fetch(`${baseURL}/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'bench', prompt: prompts[i], max_tokens: 100, temperature: 0, stop: ['\nQUESTION:'] }),
  });
  const json = (await res.json()) as { choices: Array<{ text: string }> };
  return json.choices[0]!.text;
});

const dir = mkdtempSync(join(tmpdir(), 'llmkb-bench-'));
const dbPath = join(dir, 'bench.sqlite');
const provider = () =>
  new OpenAICompatibleModel({ baseURLs: [baseURL], model: 'bench', api: 'completions', echo: false, topLogprobs: 5, flavor: 'vllm', concurrency });
const executor = new ModelExecutor(provider(), { cache: new CallCache(openDatabase(dbPath)), concurrency });
const request = (i: number) => ({ prompt: prompts[i]!, maxTokens: 100, stop: ['\nQUESTION:'] });
const executed = await measure('executor (cache on, fresh store)', (i) => executor.complete(request(i)));
if (executor.accounting.requests !== calls || executor.accounting.cacheHits !== 0)
  throw new Error(`expected ${calls} requests, got ${executor.accounting.requests}`);

const rerunExecutor = new ModelExecutor(provider(), { cache: new CallCache(openDatabase(dbPath)), concurrency });
const rerun = await measure('re-run (all cache hits)', (i) => rerunExecutor.complete(request(i)));
if (rerunExecutor.accounting.cacheHits !== calls || rerunExecutor.accounting.requests !== 0) throw new Error('re-run made requests');

const ratio = bare.seconds / executed.seconds;
const peakRssMb = process.resourceUsage().maxRSS / 1024;
console.log('');
console.log(`executor / bare calls/s ratio     ${(100 * ratio).toFixed(1)}%   (target >= 80%)`);
console.log(`executor client overhead          ${(executed.cpuUsPerCall - bare.cpuUsPerCall).toFixed(0)} µs CPU per call over the bare loop`);
console.log(`re-run of ${calls} cached calls    ${rerun.seconds.toFixed(2)} s   (target < 2 s)`);
console.log(`peak RSS                          ${peakRssMb.toFixed(0)} MB   (target < 300 MB)`);
server.kill();
rmSync(dir, { recursive: true, force: true });
