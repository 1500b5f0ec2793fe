/**
 * The models of one command, library user or sweep, loaded once each and shared: two roles (or
 * two runs) naming the same model get executors of their own over one loaded model (one GGUF
 * load), each counting its own calls. `Workspace` (eval and every other command) and the sweep's
 * `ModelPool` both load their models here.
 */
import type { CallCache } from '../store/call-cache.js';
import { createLanguageModel } from '../providers/create-language-model.js';
import { createScorerModel } from '../providers/create-scorer-model.js';
import type { Model } from '../providers/language-model.js';
import type { ModelKind } from '../providers/model-kinds.js';
import { entryOptions, type ModelEntry, type ModelEntryOptions } from '../providers/model-entry.js';
import { ModelExecutor } from './model-executor.js';

/** What the executor takes from an entry (time-outs, retries, a pinned revision); everything else defines the model. */
export interface EntryTransport {
  timeoutMs?: number;
  maxRetries?: number;
  maxRetryAfterMs?: number;
  revision?: string;
}

/** A model's own server, started before the model is made (a sweep's `serve:`): its spec names the server, `stop` ends it. */
export interface StartedServer {
  spec: string;
  stop(): Promise<void>;
}

export interface LoadedModelsOptions {
  /** null: `--no-cache`. */
  cache: CallCache | null;
  cacheDir: string;
  env?: NodeJS.ProcessEnv;
  /** Starts the server of an entry's model, when it has one of its own (undefined: the model is reached as its spec says). */
  serve?: (entry: ModelEntry) => Promise<StartedServer | undefined> | undefined;
  /** Called with each model once it is loaded (the CLI says which hardware an in-process model runs on). */
  loaded?: (model: Model) => void;
}

/** A scoring or classification role's model is made by createScorerModel; every other role's by createLanguageModel. */
export function isScorerKind(kind: ModelKind | undefined): boolean {
  return kind === 'scoring' || kind === 'classification';
}

/** An entry split into what defines its model (and the key that names it) and what its executor takes. */
export function splitEntry(entry: ModelEntry): { key: string; modelOptions: ModelEntryOptions; transport: EntryTransport } {
  const { timeoutMs, maxRetries, maxRetryAfterMs, revision, ...modelOptions } = entryOptions(entry);
  const key = JSON.stringify(Object.entries(modelOptions).sort(([a], [b]) => (a < b ? -1 : 1)));
  const transport: EntryTransport = {
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxRetries === undefined ? {} : { maxRetries }),
    ...(maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs }),
    ...(revision === undefined ? {} : { revision: String(revision) }),
  };
  return { key, modelOptions: modelOptions as ModelEntryOptions, transport };
}

export class LoadedModels {
  readonly #models = new Map<string, Promise<Model>>();
  /** Servers started for served models, by model key: stopped when their model is released. */
  readonly #servers = new Map<string, StartedServer>();
  readonly #options: LoadedModelsOptions;

  constructor(options: LoadedModelsOptions) {
    this.#options = options;
  }

  get cache(): CallCache | null {
    return this.#options.cache;
  }

  #key(entry: ModelEntry, kind: ModelKind | undefined): string {
    return `${isScorerKind(kind) ? 'scorer' : 'model'}\u0000${splitEntry(entry).key}`;
  }

  /** The entry's model for a role of this kind, loaded on first use and shared after. */
  model(entry: ModelEntry, kind?: ModelKind): Promise<Model> {
    const key = this.#key(entry, kind);
    let loading = this.#models.get(key);
    if (!loading) {
      loading = this.#load(key, isScorerKind(kind), entry);
      this.#models.set(key, loading);
      loading.then(
        (m) => this.#options.loaded?.(m),
        () => this.#models.delete(key),
      );
    }
    return loading;
  }

  /** Loads a model; a served one after its server answers, with the server's address in its spec. */
  async #load(key: string, scorer: boolean, entry: ModelEntry): Promise<Model> {
    const { modelOptions } = splitEntry(entry);
    const served = await this.#options.serve?.(entry);
    if (served) this.#servers.set(key, served);
    const options = served ? { ...modelOptions, spec: served.spec } : modelOptions;
    const context = { cacheDir: this.#options.cacheDir, env: this.#options.env ?? process.env };
    try {
      return await (scorer ? (createScorerModel(options, context) as Promise<Model>) : createLanguageModel(options, context));
    } catch (error) {
      await this.#stopServer(key);
      throw error;
    }
  }

  /**
   * A new executor (its accounting its own) over the shared model of a role of this kind;
   * `concurrency` overrides the entry's per-endpoint limit.
   */
  async executor(entry: ModelEntry, options: { kind?: ModelKind; concurrency?: number } = {}): Promise<ModelExecutor> {
    const model = await this.model(entry, options.kind);
    const { modelOptions, transport } = splitEntry(entry);
    const limit = options.concurrency ?? modelOptions.concurrency;
    return new ModelExecutor(model, { cache: this.#options.cache, ...(limit === undefined ? {} : { concurrency: limit }), ...transport });
  }

  /** Unloads a model (its executors must be done) and stops its server. */
  async release(entry: ModelEntry, kind?: ModelKind): Promise<void> {
    const key = this.#key(entry, kind);
    const loading = this.#models.get(key);
    if (!loading) return;
    this.#models.delete(key);
    const model = await loading.catch(() => undefined);
    await model?.close();
    await this.#stopServer(key);
  }

  async #stopServer(key: string): Promise<void> {
    const served = this.#servers.get(key);
    this.#servers.delete(key);
    await served?.stop();
  }

  /** Unloads every model and stops every server. */
  async close(): Promise<void> {
    const loaded = await Promise.allSettled(this.#models.values());
    this.#models.clear();
    try {
      for (const m of loaded) if (m.status === 'fulfilled') await m.value.close();
    } finally {
      for (const key of [...this.#servers.keys()]) await this.#stopServer(key);
    }
  }
}
