/**
 * The sequences of one llama.cpp context, leased to concurrent calls. A call takes the free
 * sequence whose evaluated state shares the longest token prefix with its prompt, and evaluates
 * only what differs: the many prompts that share an instruction and shots (few-shot QA, the MCQs
 * of one question) pay for that prefix once. Calls beyond the number of sequences wait in order.
 */
import type { LlamaContextSequence, Token } from 'node-llama-cpp';
import { ContextOverflowError } from '../../errors.js';
import type { CallOptions } from '../language-model.js';

interface Lease {
  sequence: LlamaContextSequence;
  release(): void;
}

export class SequencePool {
  /** Highest number of sequences evaluating at the same moment (shows batching happened). */
  maxActiveSequences = 0;
  readonly #free: LlamaContextSequence[];
  readonly #waiting: Array<(lease: Lease) => void> = [];
  readonly #contextSize: number;
  readonly #modelId: string;
  readonly #reusePrefix: boolean;
  #active = 0;

  constructor(sequences: LlamaContextSequence[], contextSize: number, modelId: string, reusePrefix: boolean) {
    this.#free = sequences;
    this.#contextSize = contextSize;
    this.#modelId = modelId;
    this.#reusePrefix = reusePrefix;
  }

  /**
   * Runs `work` on a sequence whose state already holds the longest available prefix of `tokens`.
   * `work` gets how many leading tokens are already evaluated; at least one token is always left
   * to evaluate (the model's next-token output comes from evaluating it).
   */
  async withSequence<T>(
    tokens: Token[],
    options: CallOptions,
    work: (sequence: LlamaContextSequence, reused: number) => Promise<T>,
    keepAtMost = tokens.length - 1,
  ): Promise<T> {
    if (tokens.length > this.#contextSize) {
      throw new ContextOverflowError(`prompt of ${tokens.length} tokens does not fit the context of ${this.#contextSize} tokens of ${this.#modelId}`);
    }
    options.signal?.throwIfAborted();
    const lease = await this.#acquire(tokens);
    try {
      const sequence = lease.sequence;
      if (this.#reusePrefix) await sequence.adaptStateToTokens(tokens, false);
      else await sequence.clearHistory();
      const keep = Math.max(0, Math.min(keepAtMost, sequence.nextTokenIndex));
      if (sequence.nextTokenIndex > keep) {
        await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
      }
      return await work(sequence, sequence.nextTokenIndex);
    } finally {
      lease.release();
    }
  }

  #acquire(tokens: Token[]): Promise<Lease> {
    const lease = (sequence: LlamaContextSequence): Lease => {
      this.#active += 1;
      this.maxActiveSequences = Math.max(this.maxActiveSequences, this.#active);
      return {
        sequence,
        release: () => {
          this.#active -= 1;
          const next = this.#waiting.shift();
          if (next) next(lease(sequence));
          else this.#free.push(sequence);
        },
      };
    };
    if (this.#free.length === 0) return new Promise((resolve) => this.#waiting.push(resolve));
    let best = 0;
    let bestShared = -1;
    this.#free.forEach((s, i) => {
      const shared = s.compareContextTokens(tokens).firstDifferentIndex;
      if (shared > bestShared) {
        best = i;
        bestShared = shared;
      }
    });
    const [sequence] = this.#free.splice(best, 1);
    return Promise.resolve(lease(sequence!));
  }
}
