/**
 * bin/llmkb.js: a command that makes many model calls runs in a node process started with the
 * CLI's V8 flags; the launcher passes on its output, exit code and signals, and a kill -9 of the
 * launcher ends the command. Help, the version and the light commands run in one process.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { METHOD_INTERFACE_VERSION } from '../src/methods/method.js';
import { processAlive } from '../src/io/process-alive.js';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';
import { CLI_V8_FLAGS } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'llmkb.js');

/** Preloaded into every node process of a command: appends its pid and node options to $LLMKB_PROCESS_LOG. */
const PROBE = `--import=data:text/javascript,${encodeURIComponent("import { appendFileSync } from 'node:fs'; appendFileSync(process.env.LLMKB_PROCESS_LOG, JSON.stringify({ pid: process.pid, execArgv: process.execArgv }) + '\\n');")}`;

interface Logged {
  pid: number;
  execArgv: string[];
}

function workdir(): { dir: string; log: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir('llmkb-launcher-');
  const log = join(dir, 'processes.jsonl');
  return { dir, log, env: { ...process.env, CI: '1', LLMKB_PROCESS_LOG: log } };
}

const processes = (log: string): Logged[] =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Logged)
    : [];
const flagsOf = (p: Logged) => p.execArgv.filter((a) => !a.startsWith('--import'));

describe('the llmkb launcher (bin/llmkb.js)', {
  skip: existsSync(join(import.meta.dirname, '..', 'dist', 'cli', 'main.js')) ? false : 'needs npm run build',
}, () => {
  it("runs a command of many calls in a node process of its own with the CLI's V8 flags, and passes on its output and exit code", () => {
    const { dir, log, env } = workdir();
    // A failing command: the same exit code and message as when node is given the flags itself (one process).
    const args = ['--store', 'store.sqlite', 'judge', '-i', 'missing.jsonl', '-o', 'out.jsonl'];
    const launched = spawnSync(process.execPath, [PROBE, BIN, ...args], { cwd: dir, env, encoding: 'utf8' });
    const [launcher, command] = processes(log);
    assert.equal(processes(log).length, 2);
    assert.deepEqual(flagsOf(launcher!), []);
    assert.deepEqual(flagsOf(command!), CLI_V8_FLAGS);
    writeFileSync(log, '');
    const direct = spawnSync(process.execPath, [...CLI_V8_FLAGS, PROBE, BIN, ...args], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(processes(log).length, 1, 'given the flags, the command runs in the process started');
    assert.notEqual(launched.status, 0);
    assert.equal(launched.status, direct.status);
    assert.equal(launched.stderr, direct.stderr);
  });

  it('prints help and the version in the process started (no second node for them)', () => {
    for (const args of [['--help'], ['eval', '--help'], ['--version']]) {
      const { dir, log, env } = workdir();
      const r = spawnSync(process.execPath, [PROBE, BIN, ...args], { cwd: dir, env, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(processes(log).length, 1, args.join(' '));
    }
  });

  it('runs the light commands (methods, runs, cache, metrics, complete) in the process started, global options before them or not', () => {
    for (const args of [
      ['methods', '--json'],
      ['--store', 'store.sqlite', 'methods', '--json'],
      ['-c', 'none.json', 'methods', '--json'],
      ['--store', 'store.sqlite', 'runs'],
      ['--store=store.sqlite', 'cache', 'stats'],
    ]) {
      const { dir, log, env } = workdir();
      if (args.includes('none.json')) writeFileSync(join(dir, 'none.json'), '{}');
      const r = spawnSync(process.execPath, [PROBE, BIN, ...args], { cwd: dir, env, encoding: 'utf8' });
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(processes(log).length, 1, args.join(' '));
      if (args.includes('methods')) assert.equal((JSON.parse(r.stdout) as { interfaceVersion: string }).interfaceVersion, METHOD_INTERFACE_VERSION);
    }
  });

  it("passes SIGTERM on to the command and ends as it ends; a kill -9 of the launcher ends the command's process too", async () => {
    // A call that takes seconds: the command is still running when the signal comes.
    const server = await startOpenAICompatibleServer({ delayMs: 5_000 });
    try {
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        const { dir, log, env } = workdir();
        writeFileSync(join(dir, 'llmkb.config.json'), JSON.stringify({ model: { spec: `vllm:${server.baseURL}/m` } }));
        writeFileSync(join(dir, 'q.jsonl'), `${JSON.stringify({ id: 'q1', dataset: 'unseen', source: 'T1', question: 'a slow question', answers: [] })}\n`);
        const requests = server.requests.filter((r) => r.path.endsWith('/completions')).length;
        const launcher = spawn(process.execPath, [PROBE, BIN, 'ask', '--input', 'q.jsonl', '-o', 'out.jsonl'], { cwd: dir, env, stdio: 'ignore' });
        const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => launcher.on('exit', (code, s) => resolve({ code, signal: s })));
        const deadline = Date.now() + 30_000;
        const sent = () => server.requests.filter((r) => r.path.endsWith('/completions')).length > requests;
        while (!sent() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        assert.ok(sent(), 'the command sent its request');
        const command = processes(log).find((p) => p.pid !== launcher.pid)!;
        assert.ok(processAlive(command.pid));
        launcher.kill(signal);
        const end = await exited;
        // SIGTERM: the command ends by it (no handler of its own), and the launcher the same way.
        assert.equal(end.signal, signal);
        const gone = Date.now() + 5_000;
        while (processAlive(command.pid) && Date.now() < gone) await new Promise((r) => setTimeout(r, 20));
        assert.equal(processAlive(command.pid), false, `the command's process (pid ${command.pid}) ended after ${signal} to the launcher`);
      }
    } finally {
      await server.close();
    }
  });
});
