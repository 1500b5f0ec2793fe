/**
 * Memory of a whole `llmkb eval` at paper scale: runs the real CLI (the built dist,
 * `bin/llmkb.js`, as a user runs it) as a child process against the loopback OpenAI-compatible
 * server of bench/paper-scale.ts (model, judge LLM and distractor LLM, 20 ms per answer,
 * concurrency 64), on the same synthetic question set, at each size given, on a fresh store each
 * time. The command runs in a node process of its own that bin/llmkb.js starts with the CLI's V8
 * flags; the bench prints that process's peak RSS (VmHWM from /proc/PID/status, read until it
 * exits) and its peak V8 heap (sampled inside it by bench/support/memory-probe.mjs), and the
 * launcher's peak RSS. The bench's own data never counts: it lives in another process. Figures
 * only, not a test.
 *
 *   npm run build && npm run bench:eval-memory -- [--questions 300,2000,6000] [--mcqs 20] [--delay 20]
 *     [--keep DIR] (keep the stores, data and results there)  [--snapshot] (a heap snapshot of the
 *     command's process when its consistency stage is half done, into the kept / temporary folder)
 *     [--live] (a full GC every second in the command's process: the largest heap in use after one)
 *     LLMKB_MEMORY_TRACE=1: the command's process prints its memory and V8's heap spaces every second
 *
 *     [--node-options=--trace-gc] (more options for the child's node, passed on to the command's
 *     process; its stdout goes to stdout.log in the kept folder)
 *
 * Targets: peak RSS under 300 MB at 6,000 questions on Node 20, 22 and 24, growing by at most
 * 5 MB per 1,000 questions. What a 300-question run never fills: the SQLite page caches (the
 * store's 4 MiB, the call cache's lookups' 16 MiB), V8's heap up to its limit between full
 * collections, and what the C allocator keeps of the Buffers of 100,000 HTTP calls.
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

interface Figures {
  questions: number;
  seconds: number;
  vmHWM: number;
  launcherHWM: number;
  launcherAnon: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  liveHeap: number;
  rssAnon: number;
  rssFile: number;
  rssShmem: number;
}

interface ProbeLine {
  pid: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  maxRSS: number;
  liveHeap: number;
  rssAnon: number;
  rssFile: number;
  rssShmem: number;
}

/** The first child process of `pid` (Linux), if it has one yet. */
function childOf(pid: number): number | undefined {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

async function evalAt(questions: number): Promise<Figures> {
  const work = join(dir, `q${questions}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  writeDataDir(join(work, 'data'), paperScaleQuestions(questions, Number(args.repository), 42));
  const config = join(work, 'llmkb.config.json');
  const entry = (name: string) => ({ spec: `vllm:${baseURL}/${name}`, concurrency });
  writeFileSync(config, JSON.stringify({ model: entry('bench-model'), judge: entry('bench-judge'), distractor: entry('bench-distractor') }, null, 2));
  const probe = join(work, 'memory.json');
  const cli = [
    'eval',
    '--config',
    config,
    '--store',
    join(work, 'store.sqlite'),
    '--data',
    join(work, 'data'),
    '--out',
    join(work, 'out'),
    '--settings',
    'four-shot',
    '--mcqs',
    args.mcqs,
    '--name',
    'bench',
  ];
  const node = [
    '--import',
    join(import.meta.dirname, 'support', 'memory-probe.mjs'),
    ...(args.live ? ['--expose-gc'] : []),
    ...(args.snapshot ? [`--heapsnapshot-signal=SIGUSR2`, `--diagnostic-dir=${work}`] : []),
    ...args['node-options'].split(' ').filter(Boolean),
  ];
  const started = performance.now();
  const child = spawn(process.execPath, [...node, bin, ...cli], {
    cwd: work,
    env: { ...process.env, CI: '1', LLMKB_MEMORY_PROBE: probe },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The launcher's peak, and the command's: the launcher's child, once it has started it.
  let launcherHWM = 0;
  let launcherAnon = 0;
  let commandPid: number | undefined;
  let vmHWM = 0;
  const poll = setInterval(() => {
    launcherHWM = Math.max(launcherHWM, statusField(child.pid!, 'VmHWM') ?? 0);
    launcherAnon = Math.max(launcherAnon, statusField(child.pid!, 'RssAnon') ?? 0);
    commandPid ??= childOf(child.pid!);
    if (commandPid !== undefined) vmHWM = Math.max(vmHWM, statusField(commandPid, 'VmHWM') ?? 0);
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
    if (args.snapshot && !snapped && m && Number(m[1]) * 2 >= Number(m[2]) && commandPid !== undefined) {
      snapped = true;
      process.kill(commandPid, 'SIGUSR2');
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(poll);
  const seconds = (performance.now() - started) / 1000;
  writeFileSync(join(work, 'stderr.log'), stderr);
  writeFileSync(join(work, 'stdout.log'), stdout);
  if (code !== 0) throw new Error(`llmkb eval at ${questions} questions exited ${code}:\n${stderr.slice(-3000)}`);
  // One line per process that loaded the probe: the command's is not the launcher's.
  const lines = readFileSync(probe, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ProbeLine);
  const peak = lines.find((l) => l.pid !== child.pid) ?? lines[0]!;
  // The last /proc read may precede the final peak by one interval; getrusage's maxRSS is the same high-water mark.
  vmHWM = Math.max(vmHWM, peak.maxRSS);
  const snapshots = readdirSync(work).filter((f) => f.endsWith('.heapsnapshot'));
  if (snapshots.length) console.log(`  heap snapshot: ${join(work, snapshots[0]!)}`);
  return {
    questions,
    seconds,
    vmHWM,
    launcherHWM,
    launcherAnon,
    heapUsed: peak.heapUsed,
    heapTotal: peak.heapTotal,
    external: peak.external,
    arrayBuffers: peak.arrayBuffers,
    liveHeap: peak.liveHeap,
    rssAnon: peak.rssAnon,
    rssFile: peak.rssFile,
    rssShmem: peak.rssShmem,
  };
}

console.log(
  `llmkb eval (built CLI, child process) against a loopback server (${args.delay} ms, concurrency ${concurrency}), four-shot, ${args.mcqs} MCQs per pair, judge and distractor LLMs`,
);
const rows: Figures[] = [];
try {
  for (const q of sizes) {
    const f = await evalAt(q);
    rows.push(f);
    console.log(
      `${String(q).padStart(6)} questions  ${f.seconds.toFixed(1).padStart(6)} s   peak RSS (VmHWM) ${mb(f.vmHWM).padStart(7)} (launcher ${mb(f.launcherHWM)}, of it anonymous ${mb(f.launcherAnon)})   peak heap used ${mb(f.heapUsed)} of ${mb(f.heapTotal)}   external ${mb(f.external)} (array buffers ${mb(f.arrayBuffers)})   at the peak: anonymous ${mb(f.rssAnon)}, files ${mb(f.rssFile)}, shared ${mb(f.rssShmem)}${args.live ? `   peak live heap ${mb(f.liveHeap)}` : ''}`,
    );
  }
} finally {
  server.kill();
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
}
const first = rows[0]!;
const last = rows.at(-1)!;
const perThousand = (a: Figures, b: Figures) => (((b.vmHWM - a.vmHWM) / (b.questions - a.questions)) * 1000) / 1e6;
console.log(`\npeak RSS at ${last.questions}: ${mb(last.vmHWM)}   (target: < 300 MB at 6,000 questions)`);
if (rows.length > 1)
  console.log(
    `growth per 1,000 questions: ${rows
      .slice(1)
      .map((r, i) => `${rows[i]!.questions} -> ${r.questions}: ${perThousand(rows[i]!, r).toFixed(1)} MB`)
      .join(', ')}; ${first.questions} -> ${last.questions}: ${perThousand(first, last).toFixed(1)} MB   (target: <= 5 MB)`,
  );
if (args.keep) console.log(`kept ${dir}`);
