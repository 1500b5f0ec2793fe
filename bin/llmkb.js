#!/usr/bin/env node
import { spawn } from 'node:child_process';

/**
 * V8 settings the llmkb command runs with, for flat memory over long runs of many short-lived
 * model calls (figures, and what they cost in time: bench/README.md, `npm run bench:eval-memory`):
 * - `--max-semi-space-size=8`: V8's young generation, where the garbage of every call goes first,
 *   stays at 16 MiB (two semi-spaces of 8), where V8 would grow it to several times that while
 *   calls keep coming;
 * - `--heap-growing-percent=25`: after each full collection the heap may grow by a quarter of what
 *   is live, where V8 would let such a process grow it to several times its live size.
 * V8 reads both only as node starts, and NODE_OPTIONS does not allow the second, so a command
 * started without them runs in a node process of its own started with them (the command's
 * process): this one waits for it, passes signals on to it and ends as it ends, and the command's
 * process ends with this one (a kill -9 of this process ends both). A value given on node's
 * command line (or the semi-space size in NODE_OPTIONS) wins; given both, the command runs in
 * this process (e.g. `node --max-semi-space-size=8 --heap-growing-percent=25 --inspect bin/llmkb.js`).
 * Help and the version are printed before memory matters, so they run in this process too, and so
 * do the commands in LIGHT, which make at most one model call and hold little (a second node costs
 * them about 0.1 s of their 0.2-0.4 s). Without the flags an eval's live heap stays flat (27 MB
 * at 6,000 questions after a full collection) while V8 lets its garbage grow the process to 246 MB
 * (9 MB per 1,000 questions) against 162 MB (2.5 MB) with them: figures in bench/README.md.
 */
const FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=25'];
const RELAYED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** Set by the launcher for the command's process: the launcher's pid. */
const LAUNCHER = 'LLMKB_LAUNCHER_PID';

const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((option) => option.replaceAll('_', '-'));
const missing = FLAGS.filter((flag) => !given.some((option) => option.startsWith(flag.slice(0, flag.indexOf('=') + 1))));
const args = process.argv.slice(2);
const helpOrVersion = args.length === 0 || args.some((arg) => arg === '--help' || arg === '-h' || arg === '--version' || arg === '-V');
/** Commands that run in this process whatever the flags (see above). */
const LIGHT = new Set(['methods', 'runs', 'cache', 'metrics', 'complete', 'help']);
/** The command's name: the first argument that is neither an option nor the value of a global option that takes one. */
function commandName() {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-c' || args[i] === '--config' || args[i] === '--store') i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  return undefined;
}

if (missing.length > 0 && !helpOrVersion && !LIGHT.has(commandName())) {
  // The IPC channel only tells the command's process when this one is gone.
  const child = spawn(process.execPath, [...missing, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [LAUNCHER]: String(process.pid) },
  });
  const relay = (signal) => child.kill(signal);
  for (const signal of RELAYED_SIGNALS) process.on(signal, relay);
  child.on('error', (error) => {
    process.stderr.write(`llmkb: error: cannot start node (${process.execPath}): ${error.message}\n`);
    process.exit(70);
  });
  child.on('exit', (code, signal) => {
    for (const s of RELAYED_SIGNALS) process.off(s, relay);
    // Ended by a signal: end the same way, so a shell or parent process sees what happened.
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 70);
  });
} else {
  const launcher = process.env[LAUNCHER];
  if (launcher !== undefined && typeof process.send === 'function') {
    // Started by the launcher above. When the launcher is gone (only a kill -9 or a crash ends it
    // first) this process goes the same way; its channel must not keep this process alive.
    delete process.env[LAUNCHER];
    if (!process.connected || String(process.ppid) !== launcher) process.kill(process.pid, 'SIGKILL');
    process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
    process.channel?.unref();
  }
  // Node 22.1 and later keep the compiled code of llmkb's modules in the compile cache (a folder
  // under the temp directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a command's start costs
  // about a third less CPU from its second run on (bench/README.md, `bench:startup`).
  (await import('node:module')).enableCompileCache?.();
  const { main } = await import('../dist/cli/main.js');
  const code = await main(process.argv);
  process.exitCode = code;
  // A finished command never hangs on a leftover handle (e.g. the socket of a download that was
  // given up on): once stdout and stderr are flushed, exit shortly even if something is still open.
  let unflushed = 2;
  const flushed = () => {
    if (--unflushed === 0) setTimeout(() => process.exit(code), 1000).unref();
  };
  process.stdout.write('', flushed);
  process.stderr.write('', flushed);
}
