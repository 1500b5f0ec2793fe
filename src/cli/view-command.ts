import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { errnoCode, LlmkbError } from '../errors.js';
import { listenAddress, portNumber } from '../methods/cli-options.js';
import { requireFolder } from '../io/require-path.js';

interface ViewOptions {
  port: number;
  host: string;
}

/** Whether the server is reachable from this machine only. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Why the server cannot listen on `host`:`port`, for the errors the user can do something about. */
function listenError(error: unknown, host: string, port: number): unknown {
  switch (errnoCode(error)) {
    case 'EADDRNOTAVAIL':
      return new LlmkbError(`cannot listen on ${host}: no network interface of this machine has that address`, {
        hint: 'Give an address of this machine (`ip addr` lists them), or leave --host out for 127.0.0.1.',
      });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new LlmkbError(`cannot listen on ${host}: no such host name`, { hint: 'Give an address of this machine, or leave --host out for 127.0.0.1.' });
    case 'EACCES':
      return new LlmkbError(`cannot listen on port ${port}: ports below 1024 need administrator rights`, {
        hint: 'Use a port from 1024 up (the default is 8431), or --port 0 for any free port.',
      });
    default:
      return error;
  }
}

/**
 * `llmkb view [DIR]`: a local web app over the run store and a results folder. Loopback only
 * unless --host says otherwise, and then with a warning once it listens: the pages show every
 * prompt and response of the runs, and the server has no authentication. It answers only
 * requests addressed to its own host (src/view/host-check.ts).
 */
export function registerViewCommand(program: Command): void {
  program
    .command('view')
    .description('browse runs, items and comparisons in a local web app (runs of the store, result files of DIR)')
    .argument('[dir]', 'results folder (llmkb eval --out; default: llmkb-results if present)')
    .option('--port <n>', 'port (0: any free port)', portNumber, 8431)
    .option('--host <address>', 'address to listen on; anything but loopback exposes every prompt and response without a password', listenAddress, '127.0.0.1')
    .action(async (dir: string | undefined, opts: ViewOptions, command: Command) => {
      const { loadConfig, storePath } = await import('../config/config.js');
      const globals = command.optsWithGlobals<{ config?: string; store?: string }>();
      const store = globals.store ?? storePath(loadConfig(globals.config).config);
      const resultsDir = dir ?? (existsSync('llmkb-results') ? 'llmkb-results' : undefined);
      if (dir !== undefined) requireFolder(dir, 'Give the results folder of `llmkb eval` (--out, default llmkb-results), or leave it out to browse the store.');
      if (!existsSync(store) && resultsDir === undefined)
        throw new LlmkbError(`nothing to show: no store at ${store} and no results folder`, {
          hint: 'Run `llmkb eval` first, or pass a results folder or --store FILE.',
        });
      const { startViewServer } = await import('../view/view-server.js');
      const view = await startViewServer({ store, ...(resultsDir ? { resultsDir: resolve(resultsDir) } : {}), host: opts.host, port: opts.port }).catch(
        (error: unknown) => {
          throw listenError(error, opts.host, opts.port);
        },
      );
      if (!isLoopback(opts.host))
        process.stderr.write(
          `warning: llmkb view listens on ${opts.host}: anyone who can reach it sees every prompt and response of these runs (no password). Use the default 127.0.0.1 unless you mean it.\n`,
        );
      process.stdout.write(
        `llmkb view: ${view.url}/  (${existsSync(store) ? `store ${store}` : 'no store'}${resultsDir ? `, results ${resolve(resultsDir)}` : ''}; Ctrl-C to stop)\n`,
      );
      await new Promise<void>((done) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void view.close().then(done);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
