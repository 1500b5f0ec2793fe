/**
 * A workspace ties the pieces together for one command or library user: the config, the SQLite
 * store (call cache + runs) and executors for the models of each role.
 */
import { cacheDir, checkConfigRoles, configuredRole, NO_MODEL, entryOptions, loadConfig, storePath, type LlmkbConfig, type ModelEntry } from './config/config.js';
import type { EvaluationMethod, ModelKind } from './methods/method.js';
import type { MethodWorkspace } from './methods/method-cli.js';
import { listMethods } from './methods/registry.js';
import { ModelExecutor } from './executor/model-executor.js';
import { createLanguageModel } from './providers/create-language-model.js';
import { createScorerModel, type ScorerModel } from './providers/create-scorer-model.js';
import { describeRuntime, type Model, type ModelRuntime } from './providers/language-model.js';
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
  readonly #noCache: boolean;
  readonly #env: NodeJS.ProcessEnv;
  readonly #log: ((line: string) => void) | undefined;
  /** Loaded models by what defines them: roles naming the same model share one (one GGUF load). */
  readonly #models = new Map<string, Promise<Model>>();
  /** Scoring / classification models (tei:, vllm-score:, llm-nli:, ...), loaded once each likewise. */
  readonly #scorers = new Map<string, Promise<ScorerModel>>();

  constructor(options: WorkspaceOptions = {}) {
    this.#env = options.env ?? process.env;
    const { config, file } = loadConfig(options.configPath);
    checkConfigRoles(config, file, knownRoles());
    this.config = config;
    this.configFile = file;
    this.storePath = options.store ?? storePath(config, this.#env);
    this.cacheDir = cacheDir(config, this.#env);
    this.db = openDatabase(this.storePath);
    this.cache = new CallCache(this.db);
    this.runs = new RunStore(this.db, { waitForLease: options.waitForRun ?? false });
    this.#noCache = options.noCache ?? false;
    this.#log = options.log;
  }

  /** The entry configured for a role, if any; a spec given on the command line wins. */
  entryFor(role: string, override?: string): ModelEntry | undefined {
    const configured = configuredRole(this.config, role);
    if (override === undefined) return configured;
    // Keep the configured transport settings (key variable, concurrency) when the spec matches.
    if (configured !== undefined && entryOptions(configured).spec === override) return configured;
    return override;
  }

  async executor(entry: ModelEntry): Promise<ModelExecutor> {
    // Time-outs and retries belong to the executor; everything else defines the model.
    const { timeoutMs, maxRetries, maxRetryAfterMs, revision, ...modelOptions } = entryOptions(entry);
    const key = JSON.stringify(Object.entries(modelOptions).sort(([a], [b]) => (a < b ? -1 : 1)));
    let loading = this.#models.get(key);
    if (!loading) {
      loading = createLanguageModel(modelOptions, { cacheDir: this.cacheDir, env: this.#env });
      this.#models.set(key, loading);
      loading.then((m) => this.#sayRuntime(m), () => this.#models.delete(key));
    }
    const model = await loading;
    return new ModelExecutor(model, {
      cache: this.#noCache ? null : this.cache,
      ...(modelOptions.concurrency === undefined ? {} : { concurrency: modelOptions.concurrency }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(maxRetries === undefined ? {} : { maxRetries }),
      ...(maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs }),
      ...(revision === undefined ? {} : { revision: String(revision) }),
    });
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
  async scorerExecutor(entry: ModelEntry): Promise<ModelExecutor<ScorerModel>> {
    const { timeoutMs, maxRetries, maxRetryAfterMs, revision, ...modelOptions } = entryOptions(entry);
    const key = JSON.stringify(Object.entries(modelOptions).sort(([a], [b]) => (a < b ? -1 : 1)));
    let loading = this.#scorers.get(key);
    if (!loading) {
      loading = createScorerModel(modelOptions, { cacheDir: this.cacheDir, env: this.#env });
      this.#scorers.set(key, loading);
      loading.then((m) => this.#sayRuntime(m), () => this.#scorers.delete(key));
    }
    const model = await loading;
    return new ModelExecutor<ScorerModel>(model, {
      cache: this.#noCache ? null : this.cache,
      ...(modelOptions.concurrency === undefined ? {} : { concurrency: modelOptions.concurrency }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(maxRetries === undefined ? {} : { maxRetries }),
      ...(maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs }),
      ...(revision === undefined ? {} : { revision: String(revision) }),
    });
  }

  /** An executor for a role's model of this kind (a scoring or classification model through createScorerModel). */
  async executorFor(kind: ModelKind, entry: ModelEntry): Promise<ModelExecutor> {
    return kind === 'scoring' || kind === 'classification' ? ((await this.scorerExecutor(entry)) as unknown as ModelExecutor) : this.executor(entry);
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
      const loaded = await Promise.allSettled([...this.#models.values(), ...this.#scorers.values()]);
      this.#models.clear();
      this.#scorers.clear();
      for (const model of loaded) if (model.status === 'fulfilled') await model.value.close();
    } finally {
      // The call cache's journal moves into the store before the runs are released, so a
      // process waiting for one of them finds every call made.
      if (this.db.open) this.cache.close();
      this.runs.releaseLeases();
      if (this.db.open) this.db.close();
    }
  }
}
