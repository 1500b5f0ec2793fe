/**
 * The `llmkb` command: a thin layer over the library API. Each command parses its options,
 * calls the library, and prints. User errors end with one message, a hint and a non-zero exit
 * code; only a bug in llmkb prints a stack trace (and only with LLMKB_DEBUG=1).
 */
import { Command, CommanderError } from 'commander';
import { EXIT_CODES, errnoCode, fileAccessError, FileAccessError, isLlmkbError, LlmkbError, RunBusyError } from '../errors.js';
import { redactSecrets } from '../secrets.js';
import { escapeControls } from '../terminal-text.js';
import { VERSION } from '../version.js';
import type { Workspace } from '../workspace.js';
import { collect, positiveInteger } from '../methods/cli-options.js';
import type { EvaluationMethod } from '../methods/method.js';
import { commandLine, registerEvalCommand } from './eval-command.js';
import { registerMethodsCommand } from './methods-command.js';
import { registerCorpusCommands } from './corpus-commands.js';
import { registerResultsCommands } from './results-commands.js';
import { registerViewCommand } from './view-command.js';
import { registerSweepCommands } from './sweep-commands.js';
import { checkMaxTokens } from '../methods/token-budget.js';

interface GlobalOptions {
  config?: string;
  store?: string;
  cache: boolean;
  wait?: boolean;
}

/**
 * The workspace module (config, SQLite, providers) is loaded by a pre-action hook, not imported
 * at the top: `llmkb --help` and option errors never pay for it (start-up time).
 */
let workspaceModule: typeof import('../workspace.js') | undefined;
/** The store the command opened, to name it when SQLite fails below the store helpers. */
let openedStore: string | undefined;

/**
 * The user's own providers and methods named in the config's `providers` and `methods` lists,
 * registered before the command line is parsed (a method may bring subcommands and `eval` flags;
 * a provider, the options of its model entries). The config is read again, fully, when the
 * command runs.
 */
async function loadConfiguredMethods(argv: readonly string[]): Promise<void> {
  const at = argv.findIndex((a) => a === '-c' || a === '--config' || a.startsWith('--config='));
  const path = at === -1 ? undefined : argv[at]!.startsWith('--config=') ? argv[at]!.slice('--config='.length) : argv[at + 1];
  const { existsSync } = await import('node:fs');
  const file = path ?? (existsSync('llmkb.config.json') ? 'llmkb.config.json' : undefined);
  if (file === undefined) return;
  const { configModules } = await import('../config/config.js');
  const modules = configModules(file);
  if (modules.providers.length === 0 && modules.methods.length === 0) return;
  const { dirname, resolve } = await import('node:path');
  if (modules.providers.length) await (await import('../providers/provider-registry.js')).loadProviderModules(modules.providers, dirname(resolve(file)));
  if (modules.methods.length) await (await import('../methods/registry.js')).loadMethodModules(modules.methods, dirname(resolve(file)));
}

/**
 * Before an action runs: load the workspace module, then give the options the command line did
 * not set their value from the config's `defaults` (src/cli/config-defaults.ts).
 */
async function beforeAction(program: Command, actionCommand: Command): Promise<void> {
  workspaceModule ??= await import('../workspace.js');
  const { loadConfig } = await import('../config/config.js');
  const { applyConfigDefaults, checkConfigDefaults } = await import('./config-defaults.js');
  const { config, file } = loadConfig(program.opts<GlobalOptions>().config);
  checkConfigDefaults(program, config, file);
  applyConfigDefaults(actionCommand, config, file);
}

/** Opens the command's workspace, runs `work` in it and closes it, whatever `work` does. */
export async function withWorkspace<T>(command: Command, work: (ws: Workspace) => Promise<T>): Promise<T> {
  const ws = workspace(command);
  try {
    return await work(ws);
  } finally {
    await ws.close();
  }
}

export function workspace(command: Command): Workspace {
  const opts = command.optsWithGlobals<GlobalOptions>();
  if (workspaceModule === undefined) throw new Error('workspace() called before the pre-action hook loaded the workspace module');
  const ws = new workspaceModule.Workspace({
    ...(opts.config === undefined ? {} : { configPath: opts.config }),
    ...(opts.store === undefined ? {} : { store: opts.store }),
    noCache: opts.cache === false,
    waitForRun: opts.wait === true,
    log: (line) => process.stderr.write(`${escapeControls(line)}\n`),
  });
  openedStore = ws.storePath;
  return ws;
}

function formatAccounting(a: import('../executor/model-executor.js').Accounting): string {
  const meanLatency = a.requests > 0 ? a.latencyMsTotal / Math.max(1, a.requests - a.failures) : 0;
  return `calls ${a.calls}, cache hits ${a.cacheHits}, requests ${a.requests}, retries ${a.retries}, tokens ${a.promptTokens}+${a.completionTokens} (saved by cache ${a.cachedPromptTokens}+${a.cachedCompletionTokens}), mean latency ${meanLatency.toFixed(0)} ms`;
}

/**
 * The whole command: the generic commands, then each registered method's own subcommands (their
 * modules import nothing heavy). `methods` are the registered methods, built-in and the user's.
 */
export async function buildProgram(methods?: readonly EvaluationMethod[]): Promise<Command> {
  const registered = methods ?? (await import('../methods/registry.js')).listMethods();
  const program = new Command('llmkb')
    .description(
      'How reliable is an LLM as a knowledge base? Published evaluation methods (reliability: Zheng, Lapata & Pan; CONNER: Chen et al.) over any model.',
    )
    .version(VERSION)
    .option('-c, --config <file>', 'config file (default: ./llmkb.config.json if present)')
    .option('--store <file>', 'SQLite store for the call cache and runs (default: .llmkb/llmkb.sqlite)')
    .option('--no-cache', 'call the models even when a cached answer exists (nothing is written to the cache)')
    .option('--wait', 'when another llmkb process is working on the same run, wait for it instead of exiting with code 5')
    .exitOverride()
    .hook('preAction', beforeAction);

  program
    .command('complete')
    .description('greedy completion of one raw prompt (check that a model is reachable and what it says)')
    .option('-m, --model <spec>', 'model spec, e.g. gguf:./model.gguf, vllm:http://localhost:8000/v1/NAME, ollama:llama3.1 (default: "model" in the config)')
    .option('--max-tokens <n>', 'maximum new tokens', positiveInteger, 100)
    .option('--stop <string>', 'a stop sequence (repeat for several: --stop A --stop B)', collect)
    .option('--chat', 'send the prompt as a chat message instead of raw text')
    .option('--json', 'print the completion as one JSON document (schema llmkb-completion-v1: model, prompt, text, cached, accounting)')
    .argument('<prompt>', 'the prompt text')
    .action(async (prompt: string, opts: { model?: string; maxTokens: number; stop?: string[]; chat?: boolean; json?: boolean }, command: Command) => {
      const ws = workspace(command);
      try {
        const entry = ws.entryFor('model', opts.model);
        if (entry === undefined) throw new LlmkbError('no model to complete with', { hint: 'Pass --model SPEC or set "model" in llmkb.config.json.' });
        const executor = await ws.executor(entry);
        checkMaxTokens(executor, opts.maxTokens, '--max-tokens');
        const result = opts.chat
          ? await executor.chat({ messages: [{ role: 'user', content: prompt }], maxTokens: opts.maxTokens, ...(opts.stop ? { stop: opts.stop } : {}) })
          : await executor.complete({ prompt, maxTokens: opts.maxTokens, ...(opts.stop ? { stop: opts.stop } : {}) });
        if (opts.json) {
          const { JSON_SCHEMAS } = await import('./json-output.js');
          const spec = typeof entry === 'string' ? entry : entry.spec;
          process.stdout.write(
            `${JSON.stringify({ schema: JSON_SCHEMAS.complete, model: spec, modelIdentity: executor.model.cacheIdentity, chat: opts.chat === true, prompt, maxTokens: opts.maxTokens, ...(opts.stop ? { stop: opts.stop } : {}), text: result.value.text, cached: result.cached, accounting: executor.accounting }, null, 2)}\n`,
          );
        } else process.stdout.write(`${result.value.text}\n`);
        process.stderr.write(`${result.cached ? '(cached) ' : ''}${formatAccounting(executor.accounting)}\n`);
      } finally {
        await ws.close();
      }
    });

  const cache = program.command('cache').description('inspect or clear the call cache');
  cache
    .command('stats')
    .description('entries and tokens in the cache, per model and kind of call')
    .option('--json', 'print the statistics as one JSON document (schema llmkb-cache-stats-v1)')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const ws = workspace(command);
      try {
        const stats = ws.cache.stats();
        if (opts.json) {
          const { JSON_SCHEMAS } = await import('./json-output.js');
          process.stdout.write(`${JSON.stringify({ schema: JSON_SCHEMAS.cacheStats, store: ws.storePath, ...stats }, null, 2)}\n`);
          return;
        }
        process.stdout.write(`${ws.storePath}: ${stats.entries} cached calls\n`);
        for (const row of stats.byModel) {
          process.stdout.write(
            `  ${row.model}  ${row.kind}  ${row.entries} calls  ${row.promptTokens}+${row.completionTokens} tokens${row.notReused ? ` (${row.notReused} keyed before the server's identity was in the key: not reused)` : ''}\n`,
          );
        }
      } finally {
        await ws.close();
      }
    });
  cache
    .command('clear')
    .description('delete cached calls (all, or one model identity)')
    .option('--model-identity <id>', 'only this model (as listed by `llmkb cache stats`)')
    .action((opts: { modelIdentity?: string }, command: Command) => {
      const ws = workspace(command);
      try {
        process.stdout.write(`deleted ${ws.cache.clear(opts.modelIdentity)} cached calls\n`);
      } finally {
        void ws.close();
      }
    });

  program
    .command('runs')
    .description(
      'list the runs in the store, most recently updated first: when made and updated, method, labels, setting, quick look, --limit, MCQs per response, question set and the state of their stages (stopped: interrupted or failed, resumed by the same command)',
    )
    .option('--json', 'print the runs as one JSON document (schema llmkb-runs-v1)')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const { listRuns } = await import('../runs/list-runs.js');
      const { runColumns, textTable } = await import('../runs/run-columns.js');
      const ws = workspace(command);
      try {
        const runs = listRuns({ runs: ws.runs });
        if (opts.json) {
          const { runsJson } = await import('./json-output.js');
          process.stdout.write(
            `${JSON.stringify(
              runsJson(ws.storePath, runs, (r) => ({ ...runColumns(r) })),
              null,
              2,
            )}\n`,
          );
          return;
        }
        if (runs.length === 0) {
          process.stdout.write(`no runs yet in ${ws.storePath}\n`);
          return;
        }
        const rows = runs.map((run) => {
          const c = runColumns(run);
          return [
            run.key,
            c.created,
            c.updated,
            run.method,
            run.labels.join(' = '),
            run.setting,
            c.quick ? 'yes' : '-',
            c.limit === null ? '-' : String(c.limit),
            c.mcqs === null ? '-' : String(c.mcqs),
            c.questions,
            run.stages.map((s) => `${s.stage}:${s.status}(${s.records})`).join(' '),
          ];
        });
        process.stdout.write(
          `${textTable(['RUN', 'CREATED', 'UPDATED (UTC)', 'METHOD', 'LABEL', 'SETTING', 'QUICK', 'LIMIT', 'MCQS', 'QUESTIONS', 'STAGES'], rows)}\n`,
        );
      } finally {
        await ws.close();
      }
    });

  registerEvalCommand(program, workspace, registered);
  registerResultsCommands(program, workspace);
  registerMethodsCommand(program);
  registerCorpusCommands(program, workspace);
  registerViewCommand(program);
  registerSweepCommands(program, workspace);
  for (const method of registered) if (method.cli) (await method.cli.load()).register(program, { workspace, withWorkspace, commandLine });
  houseErrorFormat(program);
  return program;
}

/**
 * Commander's own errors (a malformed option value, an unknown option or command, a missing
 * argument) in the house format every other error has: `llmkb: error: ...` and a `hint:` line
 * naming the command's help, instead of the whole help text. Set on every command, since each
 * reports its own parse errors and the hint names it (`llmkb data seenqa --help`).
 */
function houseErrorFormat(command: Command, name = command.name()): void {
  command
    .configureOutput({ outputError: (message, write) => write(`llmkb: ${escapeControls(redactSecrets(message.replace(/\n$/, '')))}\n`) })
    .showHelpAfterError(`  hint: run ${name} --help`);
  for (const sub of command.commands) houseErrorFormat(sub, `${name} ${sub.name()}`);
}

/** Syscalls that write: their errors read "cannot write", the others "cannot read". */
const WRITING_SYSCALLS = new Set(['mkdir', 'rename', 'unlink', 'rmdir', 'write', 'copyfile', 'symlink', 'link', 'utime', 'chmod', 'ftruncate']);

/**
 * Last line of defence for environment errors that escaped the helpers which should have named
 * them (a library function calling fs directly): a file-system error that carries its path, or
 * an SQLite error about the store, is the user's environment, not a bug in llmkb.
 */
export function asUserError(error: unknown): unknown {
  if (isLlmkbError(error)) return error;
  const code = errnoCode(error);
  if (code === undefined) return error;
  const path = (error as { path?: unknown }).path;
  if (typeof path === 'string') {
    const syscall = (error as { syscall?: unknown }).syscall;
    return fileAccessError(
      path,
      error,
      typeof syscall === 'string' && WRITING_SYSCALLS.has(syscall) ? 'write' : 'read',
      syscall === 'mkdir' || syscall === 'scandir' ? 'folder' : 'file',
    );
  }
  const store = openedStore ?? 'the llmkb store';
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED') {
    return new RunBusyError(`${store} is locked by another process (${code})`, 'Wait for the other llmkb process to finish, or use another --store file.');
  }
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR')) {
    return new FileAccessError(store, `cannot write the llmkb store ${store} (${code})`, {
      code,
      hint: 'Make the store file and its folder writable, or pass another file with --store.',
      cause: error,
    });
  }
  return error;
}

/**
 * `llmkb … | head`: the reader closes the pipe and the next write fails with EPIPE, which Node
 * raises as an unhandled 'error' event (a crash with a stack trace). A closed stdout or stderr
 * means nobody reads any more: further output is dropped and the command ends as it would have,
 * so its exit code (a --fail-under gate under `set -o pipefail`) still says how it went.
 */
export function ignoreClosedPipes(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    if (stream.listeners('error').includes(onStreamError)) continue;
    stream.on('error', onStreamError);
  }
}

function onStreamError(error: Error): void {
  if (errnoCode(error) === 'EPIPE') return;
  throw error;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  ignoreClosedPipes();
  try {
    await loadConfiguredMethods(argv);
    const program = await buildProgram();
    await program.parseAsync(argv);
    return EXIT_CODES.ok;
  } catch (caught) {
    if (caught instanceof CommanderError) return caught.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
    const error = asUserError(caught);
    // Every line goes through redactSecrets (a bug's message or a cause's stack may hold what a
    // server sent) and escapeControls (it may quote an input's escape sequences).
    const print = (text: string) => process.stderr.write(`${escapeControls(redactSecrets(text))}\n`);
    if (isLlmkbError(error)) {
      print(`llmkb: error: ${error.message}`);
      if (error.hint) print(`  hint: ${error.hint}`);
      if (process.env.LLMKB_DEBUG && error.cause) print(String((error.cause as Error).stack ?? error.cause));
      return error.exitCode;
    }
    print(`llmkb: internal error (a bug in llmkb; please report it with the command you ran): ${error instanceof Error ? error.message : String(error)}`);
    if (process.env.LLMKB_DEBUG && error instanceof Error) print(String(error.stack));
    return EXIT_CODES.internal;
  }
}
