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
import type { LanguageModel } from '../providers/language-model.js';
import type { CallCache } from '../store/call-cache.js';

export class ModelPool {
  readonly #models = new Map<string, Promise<LanguageModel>>();
  readonly #cache: CallCache | null;
  readonly #cacheDir: string;
  readonly #env: NodeJS.ProcessEnv;

  constructor(options: { cache: CallCache | null; cacheDir: string; env?: NodeJS.ProcessEnv }) {
    this.#cache = options.cache;
    this.#cacheDir = options.cacheDir;
    this.#env = options.env ?? process.env;
  }

  #key(entry: ModelEntry): { key: string; modelOptions: ReturnType<typeof entryOptions>; transport: { timeoutMs?: number; maxRetries?: number; maxRetryAfterMs?: number } } {
    const { timeoutMs, maxRetries, maxRetryAfterMs, ...modelOptions } = entryOptions(entry);
    const key = JSON.stringify(Object.entries(modelOptions).sort(([a], [b]) => (a < b ? -1 : 1)));
    return { key, modelOptions, transport: { ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(maxRetries === undefined ? {} : { maxRetries }), ...(maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs }) } };
  }

  /** A new executor over the (shared) model; `concurrency` overrides the entry's per-endpoint limit. */
  async executor(entry: ModelEntry, concurrency?: number): Promise<ModelExecutor> {
    const { key, modelOptions, transport } = this.#key(entry);
    let loading = this.#models.get(key);
    if (!loading) {
      loading = createLanguageModel(modelOptions, { cacheDir: this.#cacheDir, env: this.#env });
      this.#models.set(key, loading);
      loading.catch(() => this.#models.delete(key));
    }
    const model = await loading;
    const limit = concurrency ?? modelOptions.concurrency;
    return new ModelExecutor(model, { cache: this.#cache, ...(limit === undefined ? {} : { concurrency: limit }), ...transport });
  }

  /** Unloads a model (its executors must be done). */
  async release(entry: ModelEntry): Promise<void> {
    const { key } = this.#key(entry);
    const loading = this.#models.get(key);
    if (!loading) return;
    this.#models.delete(key);
    const model = await loading.catch(() => undefined);
    await model?.close();
  }

  async close(): Promise<void> {
    const loaded = await Promise.allSettled(this.#models.values());
    this.#models.clear();
    for (const m of loaded) if (m.status === 'fulfilled') await m.value.close();
  }
}
