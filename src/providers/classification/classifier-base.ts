/**
 * What every classification model (src/providers/model-kinds.ts) has besides `classify`, declared
 * once for llmkb's own: TEI, vLLM's pooling endpoints, an LLM prompted as a classifier, and the
 * in-process ONNX models and GGUF rerankers, which also evaluate one request at a time.
 */
import { ModelCallError } from '../../errors.js';
import type { CallOptions, ModelRuntime } from '../language-model.js';
import type { ClassificationModel, ClassificationRequest, ClassificationResult, ClassificationTask, ModelKind } from '../model-kinds.js';

export interface ClassifierIdentity {
  modelId: string;
  /** Everything that can change the scores (the call cache's key prefix). */
  cacheIdentity: string;
  tasks: readonly ClassificationTask[];
  endpoints: readonly string[];
  defaultConcurrency: number;
}

export abstract class ClassifierBase implements ClassificationModel {
  readonly specificationVersion = 'llmkb-model-v1' as const;
  abstract readonly provider: string;
  readonly kinds: readonly ModelKind[] = ['classification'];
  readonly modelId: string;
  readonly cacheIdentity: string;
  readonly tasks: readonly ClassificationTask[];
  readonly endpoints: readonly string[];
  readonly defaultConcurrency: number;

  constructor(identity: ClassifierIdentity) {
    this.modelId = identity.modelId;
    this.cacheIdentity = identity.cacheIdentity;
    this.tasks = identity.tasks;
    this.endpoints = identity.endpoints;
    this.defaultConcurrency = identity.defaultConcurrency;
  }

  abstract classify(request: ClassificationRequest, options?: CallOptions): Promise<ClassificationResult>;

  async close(): Promise<void> {}
}

/**
 * A classifier evaluated in this process: requests run one after another (one model state), and
 * `close` waits for the one running before freeing the native resources (`dispose`).
 */
export abstract class InProcessClassifier extends ClassifierBase {
  runtime: ModelRuntime = { backend: 'cpu', sequences: 1 };
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(identity: Omit<ClassifierIdentity, 'endpoints' | 'defaultConcurrency'>) {
    super({ ...identity, endpoints: ['in-process'], defaultConcurrency: 1 });
  }

  /** Runs `evaluate` after the requests before it; refused once the model is closed. */
  protected serially<T>(evaluate: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(() => {
      if (this.#closed) throw new ModelCallError(`${this.provider} model ${this.modelId} is closed`, { retryable: false });
      return evaluate();
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Frees the native model (called once, after the last request). */
  protected abstract dispose(): Promise<void>;

  override async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue;
    await this.dispose();
  }
}
