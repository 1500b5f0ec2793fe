/**
 * A method's own CLI subcommands (e.g. the reliability method's pipeline one step at a time),
 * registered by the CLI from the method. The module that registers them imports nothing heavy:
 * the commands' work loads inside their actions, so `llmkb --help` stays fast.
 */
import type { Command } from 'commander';
import type { ModelExecutor } from '../executor/model-executor.js';
import type { ScorerModel } from '../providers/create-scorer-model.js';
import type { ModelEntry } from '../providers/model-entry.js';
import type { Db } from '../store/database.js';
import type { RunStore } from '../store/run-store.js';

/**
 * What a method's commands use of the workspace (src/workspace.ts implements it): the store and
 * the models of the command's config. Declared here so that a method's modules depend on the
 * workspace's shape, not on the module that also lists the registered methods.
 */
export interface MethodWorkspace {
  readonly db: Db;
  readonly runs: RunStore;
  readonly cacheDir: string;
  /** The entry configured for a role, if any; a spec given on the command line wins. */
  entryFor(role: string, override?: string): ModelEntry | undefined;
  /** An executor over a text-generation or embedding model. */
  executor(entry: ModelEntry): Promise<ModelExecutor>;
  /** An executor over a scoring or classification model. */
  scorerExecutor(entry: ModelEntry): Promise<ModelExecutor<ScorerModel>>;
  close(): Promise<void>;
}

export interface CliHost {
  /** The workspace of the command being run, opened; the caller closes it. */
  workspace(command: Command): MethodWorkspace;
  /** Opens the workspace (config, store, models) of the command being run, runs `work` in it and closes it, whatever `work` does. */
  withWorkspace<T>(command: Command, work: (ws: MethodWorkspace) => Promise<T>): Promise<T>;
  /** The command line as typed, for execution records. */
  commandLine(): string;
}

export interface MethodCli {
  /** Loads the module that adds the method's subcommands to `program`. */
  load(): Promise<{ register(program: Command, host: CliHost): void }>;
}
