/**
 * The scorers CONNER's metrics need, as small interfaces that the model executor's scoring and
 * classification calls satisfy (cached, retried, resumable): a token scorer (log-likelihood of a
 * continuation given a context: perplexity, informativeness, helpfulness) and a pair classifier
 * (NLI for factuality and validity, query-passage relevance). Every score records the `id` of
 * the scorer that produced it.
 */
import type { ClassificationResult, ClassificationTask, NliLabel } from '../../../providers/model-kinds.js';

/**
 * The log-probability a token scores when the model gives it probability 0: the log of the
 * smallest positive single-precision number (2^-149), the finest probability a float32 softmax
 * (llama.cpp's) can tell from 0. Finite, so sums and means stay numbers; each use is counted
 * (`floored`) and noted in the item's record.
 */
export const UNDERFLOW_LOGPROB = Math.log(2 ** -149);

export interface LogLikelihood {
  /** Sum of the natural-log probabilities of the continuation's tokens. */
  logLikelihood: number;
  /** Number of continuation tokens scored. */
  tokens: number;
  /** Tokens whose probability underflowed to 0, scored at UNDERFLOW_LOGPROB. */
  floored: number;
  cached: boolean;
}

export interface TokenScorer {
  /** Recorded with each score: provider and model, as the user named it. */
  readonly id: string;
  /** What defines the scorer's output (a GGUF's content hash, a server's model): the run's identity. */
  readonly identity: string;
  logLikelihood(context: string, continuation: string): Promise<LogLikelihood>;
}

export interface PairScores {
  scores: ClassificationResult['scores'];
  cached: boolean;
}

export interface PairClassifier {
  readonly id: string;
  readonly identity: string;
  /** NLI: `text` = premise (evidence), `textPair` = hypothesis (claim). Relevance: query, passage. Coherence: the paragraph, ''. */
  classify(task: ClassificationTask, pairs: Array<{ text: string; textPair: string }>): Promise<PairScores>;
}

/** NLI probabilities in the paper's order (entailment, neutral, contradiction). */
export type NliVector = [number, number, number];

export function nliVector(scores: Record<string, number>): NliVector {
  const get = (label: NliLabel): number => {
    const v = scores[label];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`NLI scorer returned no "${label}" probability`);
    return v;
  };
  return [get('entailment'), get('neutral'), get('contradiction')];
}

/** Mean natural-log probability per token; undefined for an empty continuation. */
export function meanLogProb(ll: Pick<LogLikelihood, 'logLikelihood' | 'tokens'>): number | undefined {
  return ll.tokens > 0 ? ll.logLikelihood / ll.tokens : undefined;
}
