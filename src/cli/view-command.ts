import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { LlmkbError } from '../errors.js';
import { requireFolder, wholeNumber } from './cli-options.js';

interface ViewOptions {
  port: number;
  host: string;
}

/**
 * `llmkb view [DIR]`: a local web app over the run store and a results folder. Loopback only
 * unless --host says otherwise, and then with a warning: the pages show every prompt and
 * response of the runs, and the server has no authentication.
 */
export function registerViewCommand(program: Command): void {
  program
    .command('view')
    .description('browse runs, items and comparisons in a local web app (runs of the store, result files of DIR)')
    .argument('[dir]', 'results folder (llmkb eval --out; default: llmkb-results if present)')
    .option('--port <n>', 'port (0: any free port)', wholeNumber, 8431)
    .option('--host <address>', 'address to listen on; anything but loopback exposes every prompt and response without a password', '127.0.0.1')
    .action(async (dir: string | undefined, opts: ViewOptions, command: Command) => {
      const { loadConfig, storePath } = await import('../config/config.js');
      const globals = command.optsWithGlobals<{ config?: string; store?: string }>();
      const store = globals.store ?? storePath(loadConfig(globals.config).config);
      const resultsDir = dir ?? (existsSync('llmkb-results') ? 'llmkb-results' : undefined);
      if (dir !== undefined) requireFolder(dir, 'Give the results folder of `llmkb eval` (--out, default llmkb-results), or leave it out to browse the store.');
      if (!existsSync(store) && resultsDir === undefined) throw new LlmkbError(`nothing to show: no store at ${store} and no results folder`, { hint: 'Run `llmkb eval` first, or pass a results folder or --store FILE.' });
      const loopback = opts.host === '127.0.0.1' || opts.host === 'localhost' || opts.host === '::1';
      if (!loopback) process.stderr.write(`warning: llmkb view listens on ${opts.host}: anyone who can reach it sees every prompt and response of these runs (no password). Use the default 127.0.0.1 unless you mean it.\n`);
      const { startViewServer } = await import('../view/view-server.js');
      const view = await startViewServer({ store, ...(resultsDir ? { resultsDir: resolve(resultsDir) } : {}), host: opts.host, port: opts.port });
      process.stdout.write(`llmkb view: ${view.url}/  (${existsSync(store) ? `store ${store}` : 'no store'}${resultsDir ? `, results ${resolve(resultsDir)}` : ''}; Ctrl-C to stop)\n`);
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
