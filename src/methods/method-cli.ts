/**
 * A method's own CLI subcommands (e.g. the reliability method's pipeline one step at a time),
 * registered by the CLI from the method. The module that registers them imports nothing heavy:
 * the commands' work loads inside their actions, so `llmkb --help` stays fast.
 */
import type { Command } from 'commander';
import type { Workspace } from '../workspace.js';

export interface CliHost {
  /** The workspace (config, store, models) of the command being run. */
  workspace(command: Command): Workspace;
  /** The command line as typed, for execution records. */
  commandLine(): string;
}

export interface MethodCli {
  /** Loads the module that adds the method's subcommands to `program`. */
  load(): Promise<{ register(program: Command, host: CliHost): void }>;
}
