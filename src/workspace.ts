/**
 * A workspace ties the pieces together for one command or library user: the config, the SQLite
 * store (call cache + runs) and executors for the models of each role.
 */
import { cacheDir, entryOptions, loadConfig, storePath, type LlmkbConfig, type ModelEntry, type Role } from './config/config.js';
import { ModelExecutor } from './executor/model-executor.js';
import { createLanguageModel } from './providers/create-language-model.js';
import type { LanguageModel } from './providers/language-model.js';
import { CallCache } from './store/call-cache.js';
import { openDatabase, type Db } from './store/database.js';
import { RunStore } from './store/run-store.js';

export interface WorkspaceOptions {
  configPath?: string;
  /** Overrides the config's / environment's store path. */
  store?: string;
  /** `--no-cache`: model calls bypass the cache (runs are still recorded). */
  noCache?: boolean;
  env?: NodeJS.ProcessEnv;
}

export class Workspace {
  readonly config: LlmkbConfig;
  readonly configFile: string | undefined;
  readonly db: Db;
  readonly cache: CallCache;
  readonly runs: RunStore;
  readonly cacheDir: string;
  readonly storePath: string;
  readonly #noCache: boolean;
  readonly #env: NodeJS.ProcessEnv;
  readonly #models: LanguageModel[] = [];

  constructor(options: WorkspaceOptions = {}) {
    this.#env = options.env ?? process.env;
    const { config, file } = loadConfig(options.configPath);
    this.config = config;
    this.configFile = file;
    this.storePath = options.store ?? storePath(config, this.#env);
    this.cacheDir = cacheDir(config, this.#env);
    this.db = openDatabase(this.storePath);
    this.cache = new CallCache(this.db);
    this.runs = new RunStore(this.db);
    this.#noCache = options.noCache ?? false;
  }

  /** The entry configured for a role, if any; a spec given on the command line wins. */
  entryFor(role: Role, override?: string): ModelEntry | undefined {
    const configured = this.config[role];
    if (override === undefined) return configured;
    // Keep the configured transport settings (key variable, concurrency) when the spec matches.
    if (configured !== undefined && entryOptions(configured).spec === override) return configured;
    return override;
  }

  async executor(entry: ModelEntry): Promise<ModelExecutor> {
    const model = await createLanguageModel(entry, { cacheDir: this.cacheDir, env: this.#env });
    this.#models.push(model);
    const options = entryOptions(entry);
    return new ModelExecutor(model, {
      cache: this.#noCache ? null : this.cache,
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    });
  }

  async close(): Promise<void> {
    for (const model of this.#models.splice(0)) await model.close();
    if (this.db.open) this.db.close();
  }
}
