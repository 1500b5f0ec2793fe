/**
 * Start-up time of the built CLI (target: `llmkb --help` under 0.3 s): the median of N cold
 * `node bin/llmkb.js --help` runs against a bare `node -e 0`, interleaved so both see the same
 * load, and of `llmkb methods --json`, a quick command (like help and the version, it runs in the
 * process started: bin/llmkb.js starts a second node only for the commands of many model calls). `npm run bench:startup -- [runs]`
 * (default 21). Prints the figures; asserts nothing.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', 'bin', 'llmkb.js');
const runs = Number(process.argv[2] ?? 21);
const time = (args: string[]): number => {
  const started = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${r.status}`);
  return (performance.now() - started) / 1000;
};
const commands: Record<string, string[]> = {
  'llmkb --help': [BIN, '--help'],
  'llmkb eval --help': [BIN, 'eval', '--help'],
  'llmkb --version': [BIN, '--version'],
  'llmkb methods --json': [BIN, 'methods', '--json'],
  'node -e 0': ['-e', '0'],
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(commands)) times[name]!.push(time(args));
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
console.log(`node ${process.version}, ${runs} runs each, load average ${loadavg()[0]!.toFixed(1)}`);
for (const [name, xs] of Object.entries(times)) console.log(`${name.padEnd(21)} median ${pct(xs, 0.5).toFixed(3)} s  p90 ${pct(xs, 0.9).toFixed(3)} s`);
