/**
 * Start and finish cost of `llmkb ask`: the real built CLI (`node bin/llmkb.js ask`, zero-shot, a
 * fresh store each run) as a child process, against a loopback OpenAI-compatible server that
 * answers every completion after a fixed delay, next to a bare `fetch` client
 * (bench/support/bare-ask-client.mjs: the same requests at the same concurrency, the responses
 * written as JSONL). The two run in turns (paired, the order swapped every round) so both see the
 * same load. For each run: the time from the spawn to the server's first completion request, from
 * the last answer sent to the process's exit, the whole time, and the peak RSS (VmHWM, read from
 * /proc every 20 ms, of every process of the command). The ratio is the bare client's whole time
 * over llmkb's (>= 1.0x: llmkb is as fast). Figures only, not a test.
 *
 *   npm run build && npm run bench:ask -- [--questions 2000,20000] [--rounds 3] [--delay 20] [--concurrency 64]
 *     [--compare OTHER/bin/llmkb.js] (another build as a third contender: before and after a change)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { paperScaleQuestions } from './support/paper-scale-data.js';

const { values: args } = parseArgs({
  options: {
    questions: { type: 'string', default: '2000,20000' },
    rounds: { type: 'string', default: '3' },
    delay: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '64' },
    /** Another build's bin/llmkb.js (e.g. a checkout of the code before a change), run as a third contender in the same rounds. */
    compare: { type: 'string' },
  },
});
const root = join(import.meta.dirname, '..');
const delay = Number(args.delay);
const concurrency = Number(args.concurrency);

/** The server's view of one run: when the first completion request came, when the last answer went. */
let firstRequest = 0;
let lastAnswer = 0;
let answered = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'bench-model', object: 'model', root: 'bench-model' }] }));
      return;
    }
    if (firstRequest === 0) firstRequest = performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { prompt: string; model: string };
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `cmpl-${answered}`,
          object: 'text_completion',
          created: 1700000000,
          model: body.model,
          choices: [{ index: 0, text: ` answer ${body.prompt.length}`, logprobs: null, finish_reason: 'stop' }],
          usage: { prompt_tokens: 12, total_tokens: 16, completion_tokens: 4 },
        }),
        () => {
          answered++;
          lastAnswer = performance.now();
        },
      );
    }, delay);
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

function vmHWM(pid: number): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

interface Figures {
  toFirst: number;
  afterLast: number;
  total: number;
  rss: number[];
}

async function timed(argv: string[], cwd: string, questions: number): Promise<Figures> {
  firstRequest = 0;
  lastAnswer = 0;
  answered = 0;
  const started = performance.now();
  const child = spawn(process.execPath, argv, { cwd, env: { ...process.env, CI: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
  const peaks = new Map<number, number>();
  const poll = setInterval(() => {
    for (const pid of [child.pid!, ...childrenOf(child.pid!)]) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, vmHWM(pid)));
  }, 20);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const ended = performance.now();
  clearInterval(poll);
  if (code !== 0) throw new Error(`${argv.join(' ')} exited ${code}:\n${stderr.slice(-2000)}`);
  if (answered !== questions) throw new Error(`${argv.join(' ')}: ${answered} answers for ${questions} questions`);
  return {
    toFirst: (firstRequest - started) / 1000,
    afterLast: (ended - lastAnswer) / 1000,
    total: (ended - started) / 1000,
    rss: [...peaks.values()].filter((b) => b > 0),
  };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const s = (x: number) => `${x.toFixed(2)} s`;
const mb = (xs: number[]) => xs.map((b) => `${(b / 1e6).toFixed(0)}`).join('+') + ' MB';

console.log(
  `llmkb ask (built CLI, zero-shot, fresh store) vs a bare fetch client; loopback server ${delay} ms, concurrency ${concurrency}; node ${process.version}; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
for (const questions of args.questions.split(',').map(Number)) {
  const dir = mkdtempSync(join(tmpdir(), 'llmkb-bench-ask-'));
  try {
    const input = join(dir, 'questions.jsonl');
    writeFileSync(
      input,
      paperScaleQuestions(questions, 0, 42)
        .items.map((item) => JSON.stringify(item))
        .join('\n') + '\n',
    );
    writeFileSync(join(dir, 'llmkb.config.json'), JSON.stringify({ model: { spec: `vllm:${baseURL}/bench-model`, concurrency } }));
    const who = ['bare', 'llmkb', ...(args.compare ? ['other'] : [])] as const;
    const runs: Record<string, Figures[]> = Object.fromEntries(who.map((w) => [w, []]));
    for (let round = 0; round < Number(args.rounds); round++) {
      // The order turns every round, so each contender runs first, in the middle and last alike.
      const order = who.map((_, i) => who[(i + round) % who.length]!);
      for (const w of order) {
        rmSync(join(dir, 'store.sqlite'), { force: true });
        const llmkb = (bin: string) => [bin, 'ask', '--input', input, '-o', join(dir, `${w}.jsonl`), '--store', join(dir, 'store.sqlite')];
        const argv =
          w === 'llmkb'
            ? llmkb(join(root, 'bin', 'llmkb.js'))
            : w === 'other'
              ? llmkb(args.compare!)
              : [join(import.meta.dirname, 'support', 'bare-ask-client.mjs'), input, join(dir, 'bare.jsonl'), baseURL, 'bench-model', String(concurrency)];
        const f = await timed(argv, dir, questions);
        runs[w]!.push(f);
        console.log(
          `${String(questions).padStart(6)}  ${w.padEnd(5)}  to first request ${s(f.toFirst)}  after last answer ${s(f.afterLast)}  total ${s(f.total)}  peak RSS ${mb(f.rss)}  (load ${loadavg()[0]!.toFixed(1)})`,
        );
      }
    }
    const m = (w: string, k: 'toFirst' | 'afterLast' | 'total') => s(median(runs[w]!.map((f) => f[k])));
    for (const w of who.filter((x) => x !== 'bare')) {
      // Paired: each run against the bare run of its round.
      const ratio = runs[w]!.map((l, i) => runs.bare![i]!.total / l.total);
      console.log(
        `${String(questions).padStart(6)}  median  ${w} ${m(w, 'toFirst')} / ${m(w, 'afterLast')} / ${m(w, 'total')}, bare ${m('bare', 'toFirst')} / ${m('bare', 'afterLast')} / ${m('bare', 'total')} (to first request / after last answer / total); bare/${w} ${median(ratio).toFixed(2)}x (${Math.min(...ratio).toFixed(2)}-${Math.max(...ratio).toFixed(2)}); peak RSS ${w} ${mb([median(runs[w]!.map((f) => Math.max(...f.rss)))])}, bare ${mb([median(runs.bare!.map((f) => Math.max(...f.rss)))])}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
server.close();
server.closeAllConnections();
