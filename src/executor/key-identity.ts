/**
 * The model part of a call's cache key: the model's cache identity and, when known, the identity
 * of what is served: the model entry's declared `revision`, else what the server reports
 * (`Model.servedIdentity`: vLLM's checkpoint, Ollama's digest, TEI's revision). Two servers with
 * different checkpoints under one name never share answers; replicas of one checkpoint do.
 * Asked once per executor, at its first call.
 */
import type { Model } from '../providers/language-model.js';

export class KeyIdentity {
  readonly #model: Pick<Model, 'cacheIdentity' | 'servedIdentity'>;
  readonly #revision: string | undefined;
  #value: string | undefined;
  #pending: Promise<string> | undefined;

  constructor(model: Pick<Model, 'cacheIdentity' | 'servedIdentity'>, revision: string | undefined) {
    this.#model = model;
    this.#revision = revision;
  }

  /** The identity, synchronously once known. */
  get(): string | Promise<string> {
    if (this.#value !== undefined) return this.#value;
    this.#pending ??= (async () => {
      const served = this.#revision !== undefined ? `revision=${this.#revision}` : await this.#model.servedIdentity?.();
      this.#value = served === undefined ? this.#model.cacheIdentity : `${this.#model.cacheIdentity}\u0000served=${served}`;
      return this.#value;
    })();
    return this.#pending;
  }
}
