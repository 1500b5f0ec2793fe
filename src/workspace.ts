/**
 * A workspace ties the pieces together for one command or library user: the config, the SQLite
 * store (call cache + runs) and executors for the models of each role.
 */
import {
  cacheDir,
  checkConfigRoles,
  configuredRole,
  NO_MODEL,
  entryOptions,
  loadConfig,
  storePath,
  type LlmkbConfig,
  type ModelEntry,
} from './config/config.js';
import type { EvaluationMethod, ModelKind } from './methods/method.js';
import type { MethodWorkspace } from './methods/method-cli.js';
import { listMethods } from './methods/registry.js';
import { LoadedModels } from './executor/loaded-models.js';
import type { ModelExecutor } from './executor/model-executor.js';
import type { ScorerModel } from './providers/create-scorer-model.js';
import { describeRuntime, type ModelRuntime } from './providers/language-model.js';
import { providerModelName } from './providers/model-kinds.js';
import { CallCache } from './store/call-cache.js';
import { openDatabase, type Db } from './store/database.js';
import { RunStore } from './store/run-store.js';

export interface WorkspaceOptions {
  configPath?: string;
  /** Overrides the config's / environment's store path. */
  store?: string;
  /** `--no-cache`: model calls bypass the cache (runs are still recorded). */
  noCache?: boolean;
  /** `--wait`: when another process holds a run, wait for it instead of failing. */
  waitForRun?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Where notes for the user go (the CLI: stderr), e.g. the compute backend of each in-process model it loads. */
  log?: (line: string) => void;
}

/** Every model role of the registered methods, and the roles their own commands use: what a config may name. */
export function knownRoles(): string[] {
  return [...new Set(listMethods().flatMap((m) => [...m.roles, ...(m.commandRoles ?? [])].map((r) => r.id)))];
}

export class Workspace implements MethodWorkspace {
  readonly config: LlmkbConfig;
  readonly configFile: string | undefined;
  readonly db: Db;
  readonly cache: CallCache;
  readonly runs: RunStore;
  readonly cacheDir: string;
  readonly storePath: string;
  readonly #log: ((line: string) => void) | undefined;
  /** Loaded models by what defines them: roles naming the same model share one (one GGUF load). */
  readonly #models: LoadedModels;

  constructor(options: WorkspaceOptions = {}) {
    const env = options.env ?? process.env;
    const { config, file } = loadConfig(options.configPath);
    checkConfigRoles(config, file, knownRoles());
    this.config = config;
    this.configFile = file;
    this.storePath = options.store ?? storePath(config, env);
    this.cacheDir = cacheDir(config, env);
    this.db = openDatabase(this.storePath);
    this.cache = new CallCache(this.db);
    this.runs = new RunStore(this.db, { waitForLease: options.waitForRun ?? false });
    this.#log = options.log;
    this.#models = new LoadedModels({ cache: options.noCache ? null : this.cache, cacheDir: this.cacheDir, env, loaded: (m) => this.#sayRuntime(m) });
  }

  /** The entry configured for a role, if any; a spec given on the command line wins. */
  entryFor(role: string, override?: string): ModelEntry | undefined {
    const configured = configuredRole(this.config, role);
    if (override === undefined) return configured;
    // Keep the configured transport settings (key variable, concurrency) when the spec matches.
    if (configured !== undefined && entryOptions(configured).spec === override) return configured;
    return override;
  }

  /** An executor of its own over the entry's (shared) text model. */
  executor(entry: ModelEntry): Promise<ModelExecutor> {
    return this.#models.executor(entry);
  }

  /**
   * Which hardware an in-process model runs on (CPU, CUDA, Vulkan, Metal), said as it loads for
   * every command; `eval` also records it in its run header and protocol block.
   */
  #sayRuntime(m: { provider: string; modelId: string; runtime?: ModelRuntime | undefined }): void {
    if (m.runtime) this.#log?.(`${providerModelName(m)}: ${describeRuntime(m.runtime)}`);
  }

  /**
   * An executor over a scoring or classification model (CONNER's scorer, relevance and NLI roles):
   * any spec createScorerModel takes, the GGUF and vLLM text specs included. The caller checks the
   * kind with `requireKind(executor.model, kind, role)`.
   */
  scorerExecutor(entry: ModelEntry): Promise<ModelExecutor<ScorerModel>> {
    return this.#models.executor(entry, { kind: 'scoring' });
  }

  /** An executor for a role's model of this kind (a scoring or classification model through createScorerModel). */
  executorFor(kind: ModelKind, entry: ModelEntry): Promise<ModelExecutor> {
    return this.#models.executor(entry, { kind });
  }

  /**
   * Executors for the method's roles that have a model: the spec `given(role)` (`none` forces
   * none, so the role's documented fallback runs), else the config's entry for the role.
   */
  async roleExecutors(method: EvaluationMethod, given: (role: string) => string | undefined): Promise<Record<string, ModelExecutor>> {
    const out: Record<string, ModelExecutor> = {};
    for (const role of method.roles) {
      const spec = given(role.id);
      if (spec?.trim() === NO_MODEL) continue;
      const entry = this.entryFor(role.id, spec);
      if (entry !== undefined) out[role.id] = await this.executorFor(role.kind, entry);
    }
    return out;
  }

  async close(): Promise<void> {
    try {
      await this.#models.close();
    } finally {
      // The call cache's journal moves into the store before the runs are released, so a
      // process waiting for one of them finds every call made.
      if (this.db.open) this.cache.close();
      this.runs.releaseLeases();
      if (this.db.open) this.db.close();
    }
  }
}
