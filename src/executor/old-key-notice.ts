/**
 * A served model's calls are keyed with what its server reports (./key-identity.ts); answers
 * cached before llmkb did so were keyed on the model's identity alone and are not reused (which
 * checkpoint gave them is not known: src/store/identity-keys.ts). When a call misses and its key
 * without the served part is in the cache, this says so, once per executor, with how to list and
 * remove such answers.
 */
import type { CallCache } from '../store/call-cache.js';
import type { CanonicalRequest } from '../store/call-key.js';
import { callKey } from './call-key.js';

export class OldKeyNotice {
  readonly #cache: CallCache | null;
  readonly #model: { modelId: string; cacheIdentity: string };
  readonly #log: (line: string) => void;
  #said = false;

  constructor(cache: CallCache | null, model: { modelId: string; cacheIdentity: string }, log: (line: string) => void) {
    this.#cache = cache;
    this.#model = model;
    this.#log = log;
  }

  /** After a miss of a call keyed with `identity`: says once whether its answer is cached under the old key. */
  check(identity: string, kind: string, request: object | CanonicalRequest): void {
    const model = this.#model.cacheIdentity;
    if (this.#said || identity === model || !this.#cache) return;
    if (this.#cache.get(callKey(model, kind, request)) === undefined) return;
    this.#said = true;
    const served = identity.slice(identity.indexOf('\u0000served=') + '\u0000served='.length);
    this.#log(
      `note: ${this.#model.modelId}: answers cached before llmkb keyed calls on what the server serves (here ${served}) are not reused, since which checkpoint gave them is not known; ` +
        `\`llmkb cache stats\` counts them, \`llmkb cache clear --model-identity '${model}'\` removes them`,
    );
  }
}
