/**
 * The models of a sweep: each loaded once (a GGUF file is read once however many runs use it)
 * and unloaded when the sweep is done with it, so a study of many in-process models never holds
 * more than one of them in memory. Every run gets executors of its own over the shared model,
 * so a run's execution record counts its own calls even while other runs use the same judge.
 */
import type { ModelEntry } from '../config/config.js';
import { entryOptions } from '../config/config.js';
import { ModelExecutor } from '../executor/model-executor.js';
import { createLanguageModel } from '../providers/create-language-model.js';
import { createScorerModel } from '../providers/create-scorer-model.js';
import type { Model } from '../providers/language-model.js';
import type { ModelKind } from '../providers/model-kinds.js';
import type { CallCache } from '../store/call-cache.js';
import type { BatchApi } from '../providers/batch-api.js';
import { batchApiOf } from '../providers/spec-traits.js';
import { BatchingModel, MAX_BATCH_REQUESTS } from './batch/batching-model.js';
import type { ModelServer, ServedModel } from './served-model.js';

/** `--batch`: where batch journals go, and how often to poll. */
export interface BatchOptions {
  journalDir: string;
  gatherMs?: number;
  pollMs?: number;
  log?: (line: string) => void;
}

export class ModelPool {
  readonly #models = new Map<string, Promise<Model>>();
  /** One batching model per role model: calls from runs side by side go into the same batches. */
  readonly #batching = new Map<string, BatchingModel>();
  readonly #cache: CallCache | null;
  readonly #cacheDir: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #serve: ModelServer | undefined;
  /** Servers started for served models, by model key: stopped when their model is released. */
  readonly #servers = new Map<string, ServedModel>();

  constructor(options: { cache: CallCache | null; cacheDir: string; env?: NodeJS.ProcessEnv; serve?: ModelServer }) {
    this.#cache = options.cache;
    this.#cacheDir = options.cacheDir;
    this.#env = options.env ?? process.env;
    this.#serve = options.serve;
  }

  /** Loads a model; a served one after its server answers, with the server's port in its spec. */
  async #load(key: string, scorer: boolean, entry: ModelEntry, modelOptions: ReturnType<typeof entryOptions>): Promise<Model> {
    const served = await this.#serve?.(entry);
    if (served) this.#servers.set(key, served);
    const options = served ? { ...modelOptions, spec: served.spec } : modelOptions;
    try {
      return await (scorer ? (createScorerModel(options, { cacheDir: this.#cacheDir, env: this.#env }) as Promise<Model>) : createLanguageModel(options, { cacheDir: this.#cacheDir, env: this.#env }));
    } catch (error) {
      this.#servers.delete(key);
      await served?.stop();
      throw error;
    }
  }

  async #stopServer(key: string): Promise<void> {
    const served = this.#servers.get(key);
    this.#servers.delete(key);
    await served?.stop();
  }

  #key(entry: ModelEntry): { key: string; modelOptions: ReturnType<typeof entryOptions>; transport: { timeoutMs?: number; maxRetries?: number; maxRetryAfterMs?: number; revision?: string } } {
    const { timeoutMs, maxRetries, maxRetryAfterMs, revision, ...modelOptions } = entryOptions(entry);
    const key = JSON.stringify(Object.entries(modelOptions).sort(([a], [b]) => (a < b ? -1 : 1)));
    return { key, modelOptions, transport: { ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(maxRetries === undefined ? {} : { maxRetries }), ...(maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs }), ...(revision === undefined ? {} : { revision: String(revision) }) } };
  }

  /**
   * A new executor over the (shared) model of a role of this kind (a scoring or classification
   * role's model through createScorerModel); `concurrency` overrides the entry's per-endpoint limit.
   */
  async executor(entry: ModelEntry, options: { kind?: ModelKind; concurrency?: number; batch?: BatchOptions } = {}): Promise<ModelExecutor> {
    const { concurrency, batch } = options;
    const scorer = options.kind === 'scoring' || options.kind === 'classification';
    const { key: modelKey, modelOptions, transport } = this.#key(entry);
    const key = `${scorer ? 'scorer' : 'model'}\u0000${modelKey}`;
    let loading = this.#models.get(key);
    if (!loading) {
      loading = this.#load(key, scorer, entry, modelOptions);
      this.#models.set(key, loading);
      loading.catch(() => this.#models.delete(key));
    }
    const model = await loading;
    if (batch) {
      // The API first: another call for this model may make its batching model meanwhile.
      const api = this.#batching.has(key) ? undefined : await this.batchApi(entry);
      let batching = this.#batching.get(key);
      if (!batching) {
        // What does not go into batches (scoring a prompt's tokens) goes live, at the entry's concurrency per endpoint.
        const liveConcurrency = Math.max(1, (modelOptions.concurrency ?? model.defaultConcurrency) * model.endpoints.length);
        batching = new BatchingModel(model, { api: api!, journalDir: batch.journalDir, liveConcurrency, ...(batch.gatherMs === undefined ? {} : { gatherMs: batch.gatherMs }), ...(batch.pollMs === undefined ? {} : { pollMs: batch.pollMs }), ...(batch.log ? { log: batch.log } : {}) });
        this.#batching.set(key, batching);
      }
      // Every call of a stage at once: they wait in the same batch, not in a queue of their own.
      return new ModelExecutor(batching, { cache: this.#cache, concurrency: MAX_BATCH_REQUESTS, ...transport });
    }
    const limit = concurrency ?? modelOptions.concurrency;
    return new ModelExecutor(model, { cache: this.#cache, ...(limit === undefined ? {} : { concurrency: limit }), ...transport });
  }

  /** A role's Batch API, as its provider gives it (with the key from the variable the entry names). */
  batchApi(entry: ModelEntry): Promise<BatchApi> {
    return batchApiOf(entry, this.#env);
  }

  /** Unloads a model under test (its executors must be done). */
  async release(entry: ModelEntry): Promise<void> {
    const key = `model\u0000${this.#key(entry).key}`;
    const loading = this.#models.get(key);
    if (!loading) return;
    this.#models.delete(key);
    const model = await loading.catch(() => undefined);
    await model?.close();
    await this.#stopServer(key);
  }

  /** Batches submitted through --batch, per role model. */
  batches(): Array<{ model: string; id: string; requests: number; status: string; failed: number }> {
    return [...this.#batching.values()].flatMap((m) => m.batches.map((b) => ({ model: m.modelId, ...b })));
  }

  async close(): Promise<void> {
    for (const b of this.#batching.values()) await b.close().catch(() => undefined);
    this.#batching.clear();
    const loaded = await Promise.allSettled(this.#models.values());
    this.#models.clear();
    for (const m of loaded) if (m.status === 'fulfilled') await m.value.close();
    for (const key of [...this.#servers.keys()]) await this.#stopServer(key);
  }
}
