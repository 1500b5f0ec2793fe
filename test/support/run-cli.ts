import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'llmkb.js');
/**
 * The V8 flags bin/llmkb.js starts a command's process with (test/cli-launcher.test.ts checks that
 * it does). Given them, the command runs in the node process started, as the launcher's child runs
 * it: a suite of hundreds of commands saves a launcher process each (~0.13 s of CPU).
 */
export const CLI_V8_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=25'];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `llmkb` binary (in the process its launcher would start for it, with its V8 flags)
 * without blocking this process's event loop.
 * `timeoutMs`: killed (SIGKILL) after that long, for a command that must not hang (its code is then 1).
 */
export function llmkb(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...CLI_V8_FLAGS, BIN, ...args],
      {
        env: { ...process.env, CI: '1', ...options.env },
        cwd: options.cwd ?? tempDir('llmkb-cli-'),
        maxBuffer: 64 * 1024 * 1024,
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs, killSignal: 'SIGKILL' as const }),
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

export interface RunningCli {
  /** The command's outcome once it ends. */
  result: Promise<CliResult>;
  /** Resolves once the command's stderr matches (rejects when it ends or `ms` pass first). */
  stderrMatches(pattern: RegExp, ms?: number): Promise<void>;
}

/** `llmkb` as above, whose stderr a test can wait on while it runs: a step taken when the command has reached a point, not after a guessed delay. */
export function startLlmkb(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): RunningCli {
  const child = execFile(process.execPath, [...CLI_V8_FLAGS, BIN, ...args], {
    env: { ...process.env, CI: '1', ...options.env },
    cwd: options.cwd ?? tempDir('llmkb-cli-'),
    maxBuffer: 64 * 1024 * 1024,
  });
  let stderr = '';
  let ended = false;
  const waiters = new Set<() => void>();
  child.stderr!.on('data', (chunk: Buffer | string) => {
    stderr += String(chunk);
    for (const check of waiters) check();
  });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer | string) => (stdout += String(chunk)));
  const result = new Promise<CliResult>((resolve) => {
    child.on('close', (code) => {
      ended = true;
      for (const check of waiters) check();
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
  const stderrMatches = (pattern: RegExp, ms = 120_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`no stderr matching ${pattern} in ${ms} ms: ${stderr}`)), ms);
      const finish = (error?: Error) => {
        clearTimeout(timer);
        waiters.delete(check);
        if (error) reject(error);
        else resolve();
      };
      const check = () => {
        if (pattern.test(stderr)) finish();
        else if (ended) finish(new Error(`the command ended without stderr matching ${pattern}: ${stderr}`));
      };
      waiters.add(check);
      check();
    });
  return { result, stderrMatches };
}
