/**
 * The models of a sweep: each loaded once (a GGUF file is read once however many runs use it)
 * and unloaded when the sweep is done with it, so a study of many in-process models never holds
 * more than one of them in memory. Every run gets executors of its own over the shared model,
 * so a run's execution record counts its own calls even while other runs use the same judge.
 */
import type { ModelEntry } from '../config/config.js';
import { isScorerKind, LoadedModels, splitEntry } from '../executor/loaded-models.js';
import { ModelExecutor } from '../executor/model-executor.js';
import type { ModelKind } from '../providers/model-kinds.js';
import type { CallCache } from '../store/call-cache.js';
import type { BatchApi } from '../providers/batch-api.js';
import { batchApiOf } from '../providers/spec-traits.js';
import { BatchingModel, MAX_BATCH_REQUESTS } from './batch/batching-model.js';
import type { ModelServer } from './served-model.js';

/** `--batch`: where batch journals go, and how often to poll. */
export interface BatchOptions {
  journalDir: string;
  gatherMs?: number;
  pollMs?: number;
  log?: (line: string) => void;
}

export class ModelPool {
  /** The models, loaded once each (src/executor/loaded-models.ts, as every command's Workspace loads them). */
  readonly #models: LoadedModels;
  /** One batching model per role model: calls from runs side by side go into the same batches. */
  readonly #batching = new Map<string, BatchingModel>();
  readonly #env: NodeJS.ProcessEnv;

  constructor(options: { cache: CallCache | null; cacheDir: string; env?: NodeJS.ProcessEnv; serve?: ModelServer }) {
    this.#env = options.env ?? process.env;
    this.#models = new LoadedModels({ cache: options.cache, cacheDir: options.cacheDir, env: this.#env, ...(options.serve ? { serve: options.serve } : {}) });
  }

  /**
   * A new executor over the (shared) model of a role of this kind (a scoring or classification
   * role's model through createScorerModel); `concurrency` overrides the entry's per-endpoint limit.
   */
  async executor(entry: ModelEntry, options: { kind?: ModelKind; concurrency?: number; batch?: BatchOptions } = {}): Promise<ModelExecutor> {
    const { concurrency, batch, kind } = options;
    if (!batch) return this.#models.executor(entry, { ...(kind ? { kind } : {}), ...(concurrency === undefined ? {} : { concurrency }) });
    const model = await this.#models.model(entry, kind);
    const { key: modelKey, modelOptions, transport } = splitEntry(entry);
    const key = `${isScorerKind(kind) ? 'scorer' : 'model'}\u0000${modelKey}`;
    // The API first: another call for this model may make its batching model meanwhile.
    const api = this.#batching.has(key) ? undefined : await this.batchApi(entry);
    let batching = this.#batching.get(key);
    if (!batching) {
      // What does not go into batches (scoring a prompt's tokens) goes live, at the entry's concurrency per endpoint.
      const liveConcurrency = Math.max(1, (modelOptions.concurrency ?? model.defaultConcurrency) * model.endpoints.length);
      batching = new BatchingModel(model, {
        api: api!,
        journalDir: batch.journalDir,
        liveConcurrency,
        ...(batch.gatherMs === undefined ? {} : { gatherMs: batch.gatherMs }),
        ...(batch.pollMs === undefined ? {} : { pollMs: batch.pollMs }),
        ...(batch.log ? { log: batch.log } : {}),
      });
      this.#batching.set(key, batching);
    }
    // Every call of a stage at once: they wait in the same batch, not in a queue of their own.
    return new ModelExecutor(batching, { cache: this.#models.cache, concurrency: MAX_BATCH_REQUESTS, ...transport });
  }

  /** A role's Batch API, as its provider gives it (with the key from the variable the entry names). */
  batchApi(entry: ModelEntry): Promise<BatchApi> {
    return batchApiOf(entry, this.#env);
  }

  /** Unloads a model under test (its executors must be done). */
  release(entry: ModelEntry): Promise<void> {
    return this.#models.release(entry);
  }

  /** Batches submitted through --batch, per role model. */
  batches(): Array<{ model: string; id: string; requests: number; status: string; failed: number }> {
    return [...this.#batching.values()].flatMap((m) => m.batches.map((b) => ({ model: m.modelId, ...b })));
  }

  async close(): Promise<void> {
    for (const b of this.#batching.values()) await b.close().catch(() => undefined);
    this.#batching.clear();
    await this.#models.close();
  }
}
