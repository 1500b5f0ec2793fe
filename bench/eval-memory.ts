/**
 * Memory of a whole `llmkb eval` at paper scale (issue 13: "RSS independent of the number of
 * questions"): runs the real CLI (the built dist, `bin/llmkb.js`) as a child process against the
 * loopback OpenAI-compatible server of bench/paper-scale.ts (model, judge LLM and distractor LLM,
 * 20 ms per answer, concurrency 64), on the same synthetic question set, at each size given, on
 * a fresh store each time; and prints the child's peak RSS (VmHWM from /proc/PID/status, read
 * until it exits) and its peak V8 heap (sampled inside the child by bench/support/memory-probe.mjs).
 * The bench's own data never counts: it lives in another process. Figures only, not a test.
 *
 *   npm run build && npm run bench:eval-memory -- [--questions 300,2000,6000] [--mcqs 20] [--delay 20]
 *     [--keep DIR] (keep the stores, data and results there)  [--snapshot] (a heap snapshot of the
 *     child when its consistency stage is half done, into the kept / temporary folder)
 *     [--live] (a full GC every second in the child: the largest heap in use after one)
 *     LLMKB_MEMORY_TRACE=1: the child prints its memory and V8's heap spaces every second
 *
 *     [--node-options=--trace-gc] (more options for the child's node; its stdout goes to stdout.log
 *     in the kept folder)
 *
 * Target: peak RSS at 6,000 questions within ~10% of that at 300. What a 300-question run never
 * fills (measured, README "Benchmarks"): V8's heap grew to about 5x the live heap (~30 MB) in a
 * long run of many short-lived calls (the CLI now lets it grow by a quarter of the live heap, and
 * stops its young generation growing at 16 MiB: bin/llmkb.js), the SQLite page caches fill (the
 * store's 4 MiB, the call cache's lookups' 16 MiB), and the C allocator keeps what the Buffers of
 * 100,000 HTTP calls used.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { paperScaleQuestions, startPaperScaleServer, writeDataDir } from './support/paper-scale-data.js';

const { values: args } = parseArgs({
  options: {
    questions: { type: 'string', default: '300,2000,6000' },
    mcqs: { type: 'string', default: '20' },
    delay: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '64' },
    repository: { type: 'string', default: '300' },
    keep: { type: 'string' },
    snapshot: { type: 'boolean', default: false },
    /** A full collection every second in the child: its live heap (changes its timing and RSS). */
    live: { type: 'boolean', default: false },
    /** More options for the child's node, e.g. `--node-options=--trace-gc` (its output: stdout.log in the kept folder). */
    'node-options': { type: 'string', default: '' },
  },
});
const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'llmkb.js');
if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('no dist/: run `npm run build` first (the bench runs the built CLI)');
const sizes = args.questions.split(',').map(Number);
const concurrency = Number(args.concurrency);
const dir = args.keep ?? mkdtempSync(join(tmpdir(), 'llmkb-eval-memory-'));
mkdirSync(dir, { recursive: true });
const { server, baseURL } = await startPaperScaleServer(Number(args.delay));
const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`;

function statusField(pid: number, field: string): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined; // exited
  }
}

interface Figures { questions: number; seconds: number; vmHWM: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; liveHeap: number; rssAnon: number; rssFile: number; rssShmem: number }

async function evalAt(questions: number): Promise<Figures> {
  const work = join(dir, `q${questions}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  writeDataDir(join(work, 'data'), paperScaleQuestions(questions, Number(args.repository), 42));
  const config = join(work, 'llmkb.config.json');
  const entry = (name: string) => ({ spec: `vllm:${baseURL}/${name}`, concurrency });
  writeFileSync(config, JSON.stringify({ model: entry('bench-model'), judge: entry('bench-judge'), distractor: entry('bench-distractor') }, null, 2));
  const probe = join(work, 'memory.json');
  const cli = ['eval', '--config', config, '--store', join(work, 'store.sqlite'), '--data', join(work, 'data'), '--out', join(work, 'out'), '--settings', 'four-shot', '--mcqs', args.mcqs, '--name', 'bench'];
  const node = ['--import', join(import.meta.dirname, 'support', 'memory-probe.mjs'), ...(args.live ? ['--expose-gc'] : []), ...(args.snapshot ? [`--heapsnapshot-signal=SIGUSR2`, `--diagnostic-dir=${work}`] : []), ...args['node-options'].split(' ').filter(Boolean)];
  const started = performance.now();
  const child = spawn(process.execPath, [...node, bin, ...cli], { cwd: work, env: { ...process.env, CI: '1', LLMKB_MEMORY_PROBE: probe }, stdio: ['ignore', 'pipe', 'pipe'] });
  let vmHWM = 0;
  const poll = setInterval(() => {
    vmHWM = Math.max(vmHWM, statusField(child.pid!, 'VmHWM') ?? 0);
  }, 50);
  let stderr = '';
  let snapped = false;
  let stdout = '';
  child.stdout!.on('data', (c: Buffer) => {
    // Kept for --node-options such as --trace-gc (the CLI itself prints little).
    if (stdout.length < 1 << 24) stdout += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
    // Half-way through consistency (progress lines "consistency: done/total ...").
    const m = /consistency: (\d+)\/(\d+)/.exec(stderr.slice(-2000));
    if (args.snapshot && !snapped && m && Number(m[1]) * 2 >= Number(m[2])) {
      snapped = true;
      child.kill('SIGUSR2');
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(poll);
  const seconds = (performance.now() - started) / 1000;
  writeFileSync(join(work, 'stderr.log'), stderr);
  writeFileSync(join(work, 'stdout.log'), stdout);
  if (code !== 0) throw new Error(`llmkb eval at ${questions} questions exited ${code}:\n${stderr.slice(-3000)}`);
  const peak = JSON.parse(readFileSync(probe, 'utf8')) as { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; maxRSS: number; liveHeap: number; rssAnon: number; rssFile: number; rssShmem: number };
  // The last /proc read may precede the final peak by one interval; getrusage's maxRSS is the same high-water mark.
  vmHWM = Math.max(vmHWM, peak.maxRSS);
  const snapshots = readdirSync(work).filter((f) => f.endsWith('.heapsnapshot'));
  if (snapshots.length) console.log(`  heap snapshot: ${join(work, snapshots[0]!)}`);
  return { questions, seconds, vmHWM, heapUsed: peak.heapUsed, heapTotal: peak.heapTotal, external: peak.external, arrayBuffers: peak.arrayBuffers, liveHeap: peak.liveHeap, rssAnon: peak.rssAnon, rssFile: peak.rssFile, rssShmem: peak.rssShmem };
}

console.log(`llmkb eval (built CLI, child process) against a loopback server (${args.delay} ms, concurrency ${concurrency}), four-shot, ${args.mcqs} MCQs per pair, judge and distractor LLMs`);
const rows: Figures[] = [];
try {
  for (const q of sizes) {
    const f = await evalAt(q);
    rows.push(f);
    console.log(`${String(q).padStart(6)} questions  ${f.seconds.toFixed(1).padStart(6)} s   peak RSS (VmHWM) ${mb(f.vmHWM).padStart(7)}   peak heap used ${mb(f.heapUsed)} of ${mb(f.heapTotal)}   external ${mb(f.external)} (array buffers ${mb(f.arrayBuffers)})   at the peak: anonymous ${mb(f.rssAnon)}, files ${mb(f.rssFile)}, shared ${mb(f.rssShmem)}${args.live ? `   peak live heap ${mb(f.liveHeap)}` : ''}`);
  }
} finally {
  server.kill();
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
}
const first = rows[0]!;
const last = rows.at(-1)!;
console.log(`\npeak RSS at ${last.questions} / at ${first.questions}: ${(last.vmHWM / first.vmHWM).toFixed(2)}x   (target: within ~10%, i.e. <= 1.10x)`);
if (args.keep) console.log(`kept ${dir}`);
