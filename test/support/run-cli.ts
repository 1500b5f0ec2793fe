import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'llmkb.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `llmkb` binary (as users do) without blocking this process's event loop.
 * `timeoutMs`: killed (SIGKILL) after that long, for a command that must not hang (its code is then 1).
 */
export function llmkb(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, CI: '1', ...options.env }, cwd: options.cwd ?? tempDir('llmkb-cli-'), maxBuffer: 64 * 1024 * 1024, ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs, killSignal: 'SIGKILL' as const }) }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}
