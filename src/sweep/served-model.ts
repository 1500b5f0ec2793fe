/**
 * A model served by a command of the study's (`serve: { command, health, timeout }`): started on
 * a free port in a process group of its own (detached), waited for until its health URL answers
 * (bounded; the end of its log shown when it does not), and stopped with its whole group: when
 * the sweep is done with the model, when it fails, and when this process gets SIGTERM (what
 * `scancel` sends) or SIGINT. Two models of one process never get the same port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { makeFolder } from '../io/files.js';
import { EXIT_CODES, LlmkbError } from '../errors.js';
import { resultFileStem } from '../io/result-file-stem.js';
import { entryOptions } from '../config/config.js';
import type { ServeSettings } from './cluster-config.js';
import type { ModelEntry } from '../config/config.js';
import type { Study } from './study.js';

export interface ServedModel {
  port: number;
  /** The spec with `{port}` filled in. */
  spec: string;
  logFile: string;
  stop(): Promise<void>;
}

/** Starts the server of a model the study serves itself (`serve:`); undefined for any other model. */
export type ModelServer = (entry: ModelEntry) => Promise<ServedModel> | undefined;

export interface ServeOptions {
  label: string;
  serve: ServeSettings;
  /** The model's spec, with `{port}` where the server is. */
  spec: string;
  /** The serve command's working folder (the study's). */
  cwd: string;
  /** Where `<label>.serve.log` goes. */
  logDir: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** Seconds between SIGTERM and SIGKILL when stopping (default 10). */
  graceSeconds?: number;
}

/** Ports handed out by this process, never handed out twice while their server may hold them. */
const taken = new Set<number>();
/** Servers running, by process group id. */
const live = new Map<number, { child: ChildProcess; label: string }>();

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function newPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await freePort();
    if (!taken.has(port)) {
      taken.add(port);
      return port;
    }
  }
  throw new LlmkbError('no free port found for a served model after 50 tries');
}

function killGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // the group is gone
  }
}

function groupAlive(pgid: number): boolean {
  return killGroup(pgid, 0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SIGTERM to the group, SIGKILL to what is left after the grace period. */
async function stopGroup(pgid: number, graceSeconds: number): Promise<void> {
  killGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceSeconds * 1000;
  while (groupAlive(pgid) && Date.now() < deadline) await sleep(100);
  killGroup(pgid, 'SIGKILL');
}

let handlersInstalled = false;
const onSignal = (signal: NodeJS.Signals): void => {
  const code = signal === 'SIGINT' ? 130 : 143;
  process.stderr.write(`${signal}: stopping ${live.size} model server(s) (${[...live.values()].map((s) => s.label).join(', ')})\n`);
  void Promise.all([...live.keys()].map((pgid) => stopGroup(pgid, 5))).finally(() => process.exit(code));
};
/** A last resort: whatever exits this process takes its servers with it. */
const onExit = (): void => {
  for (const pgid of live.keys()) killGroup(pgid, 'SIGKILL');
};

function track(pgid: number, child: ChildProcess, label: string): void {
  live.set(pgid, { child, label });
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('exit', onExit);
}

function untrack(pgid: number): void {
  live.delete(pgid);
  if (live.size > 0 || !handlersInstalled) return;
  handlersInstalled = false;
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  process.off('exit', onExit);
}

/** The last lines of a log, without terminal control characters. */
function tail(file: string, lines = 20): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return '(no log)';
  }
  // eslint-disable-next-line no-control-regex
  return (
    text
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .map((l) => `  | ${l}`)
      .join('\n') || '  | (empty)'
  );
}

export async function startServedModel(options: ServeOptions): Promise<ServedModel> {
  const { label, serve } = options;
  const log = options.log ?? (() => {});
  const port = await newPort();
  const fill = (s: string) => s.replaceAll('{port}', String(port));
  const command = fill(serve.command);
  const health = fill(serve.health ?? 'http://127.0.0.1:{port}/v1/models');
  const timeout = serve.timeout ?? 900;
  makeFolder(options.logDir);
  const logFile = join(options.logDir, `${resultFileStem(label)}.serve.log`);
  const fd = openSync(logFile, 'a');
  writeSync(fd, `--- ${new Date().toISOString()} llmkb starts ${label}'s server on port ${port}: ${command}\n`);
  let child: ChildProcess;
  try {
    child = spawn('/bin/sh', ['-c', command], {
      cwd: options.cwd,
      env: { ...(options.env ?? process.env), PORT: String(port) },
      detached: true,
      stdio: ['ignore', fd, fd],
    });
  } finally {
    closeSync(fd);
  }
  const pgid = child.pid;
  if (pgid === undefined) {
    taken.delete(port);
    throw new LlmkbError(`${label}: its serve command could not be started: ${command}`, { exitCode: EXIT_CODES.model, hint: `See ${logFile}.` });
  }
  track(pgid, child, label);
  const state: { exited?: string } = {};
  child.once('exit', (code, signal) => {
    state.exited = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  });
  const grace = options.graceSeconds ?? 10;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await stopGroup(pgid, grace);
      untrack(pgid);
      taken.delete(port);
    })());
  log(`${label}: serving on port ${port} (${command}); waiting for ${health} (up to ${timeout} s; log ${logFile})`);
  const started = Date.now();
  let wait = 200;
  for (;;) {
    if (state.exited !== undefined) {
      await stop();
      throw new LlmkbError(`${label}: its server ${state.exited} before ${health} answered; the end of its log (${logFile}):\n${tail(logFile)}`, {
        exitCode: EXIT_CODES.model,
        hint: 'Run the serve command by hand (with a port for {port}) to see why it stops.',
      });
    }
    try {
      const res = await fetch(health, { signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeout * 1000) {
      await stop();
      throw new LlmkbError(`${label}: its server did not answer ${health} within ${timeout} s; the end of its log (${logFile}):\n${tail(logFile)}`, {
        exitCode: EXIT_CODES.model,
        hint: 'Raise serve.timeout if the model loads slowly, or check the health URL (it must answer 2xx once the model is ready).',
      });
    }
    await sleep(wait);
    wait = Math.min(2000, wait * 1.5);
  }
  log(`${label}: server ready on port ${port} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { port, spec: fill(options.spec), logFile, stop };
}

/** The servers of a study's served models (`serve:`), their logs in `OUT/logs/`; for ModelPool. */
export function studyModelServer(study: Pick<Study, 'dir' | 'models'>, outDir: string, log?: (line: string) => void, env?: NodeJS.ProcessEnv): ModelServer {
  return (entry) => {
    const spec = entryOptions(entry).spec;
    // The study's model itself (the sweep passes its entry), else one with the same spec.
    const model = study.models.find((m) => m.serve && m.entry === entry) ?? study.models.find((m) => m.serve && m.entry.spec === spec);
    if (!model?.serve) return undefined;
    return startServedModel({
      label: model.label,
      serve: model.serve,
      spec,
      cwd: study.dir,
      logDir: join(outDir, 'logs'),
      ...(env ? { env } : {}),
      ...(log ? { log } : {}),
    });
  };
}
