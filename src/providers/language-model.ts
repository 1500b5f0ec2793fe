/**
 * Text generation and embedding models, and the requests and results of every model call
 * (version `llmkb-model-v1`). The kinds (./model-kinds.ts) are small interfaces on top of
 * `ModelBase`; a model implements the kinds its backend has and lists them in `kinds`.
 *
 * A model is a thin adapter: it turns one request into one model call and reports what it cost.
 * Caching, retries, concurrency and accounting live in the executor, so a model never retries on
 * its own and never swallows an error.
 */
import type { CallOptions, ModelRuntime, Usage } from './call-types.js';
import type { ClassificationModel, ModelBase, ScoringModel } from './model-kinds.js';

export type { CallOptions, ModelRuntime, Usage };

export const MODEL_SPECIFICATION_VERSION = 'llmkb-model-v1' as const;

/** `in-process on cpu, 1 sequence`: the run header's words for a runtime (every command says it as a model loads). */
export function describeRuntime(runtime: ModelRuntime): string {
  return `in-process on ${runtime.backend}, ${runtime.sequences} sequence${runtime.sequences > 1 ? 's (nondeterministic)' : ''}`;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * Nucleus (top-p) sampling instead of greedy decoding, for a call that wants one of several
 * different texts (CONNER's best-of-r knowledge selection). Absent: greedy, temperature 0.
 */
export interface Sampling {
  temperature: number;
  /** Keep the smallest set of tokens whose probability sums to at least topP; no top-k cut. */
  topP: number;
  /** Seed of the draw (an unsigned 32-bit integer): in-process the same seed gives the same text; servers may ignore it. */
  seed: number;
  /** Which draw of several for one prompt this is: part of the cache key only, never sent to a model. */
  sample: number;
}

export interface CompletionRequest {
  prompt: string;
  maxTokens: number;
  /** Generation stops before the first of these strings; the stop string is not returned. */
  stop?: string[];
  sampling?: Sampling;
}

export interface ChatRequest {
  messages: ChatMessage[];
  maxTokens: number;
  stop?: string[];
  sampling?: Sampling;
}

export interface NextTokenLogprobsRequest {
  prompt: string;
  /** E.g. `["A","B","C","D","E"]`. A candidate matches the next token with or without a leading space. */
  candidates: string[];
  /** Ask through the chat endpoint instead of raw completion (instruction models on hosted APIs). */
  asChat?: boolean;
}

export interface ContinuationLogLikelihoodRequest {
  context: string;
  continuation: string;
}

export interface EmbeddingRequest {
  texts: string[];
}

export interface CompletionResult {
  text: string;
  finishReason: 'stop' | 'length' | 'other';
  usage: Usage;
}

export interface NextTokenLogprobsResult {
  /** Natural-log probability per candidate; null when the candidate was not among the returned tokens. */
  logprobs: Record<string, number | null>;
  usage: Usage;
}

export interface ContinuationLogLikelihoodResult {
  logLikelihood: number;
  /** Number of continuation tokens scored. */
  tokens: number;
  usage: Usage;
}

export interface EmbeddingResult {
  embeddings: number[][];
  usage: Usage;
}

/** Kind `text-generation`: raw completion and chat, greedy unless a request asks for sampling; optionally token log-probabilities. */
export interface TextGenerationModel extends ModelBase {
  complete(request: CompletionRequest, options?: CallOptions): Promise<CompletionResult>;
  chat(request: ChatRequest, options?: CallOptions): Promise<CompletionResult>;
  /** Log-probabilities of the next token over candidate strings (MCQ letters); absent when the backend has none. */
  nextTokenLogprobs?(request: NextTokenLogprobsRequest, options?: CallOptions): Promise<NextTokenLogprobsResult>;
  /** Log-likelihood of a continuation after a context (teacher forcing); absent when the backend has none. */
  continuationLogLikelihood?(request: ContinuationLogLikelihoodRequest, options?: CallOptions): Promise<ContinuationLogLikelihoodResult>;
}

/** Kind `embedding`: text vectors. */
export interface EmbeddingModel extends ModelBase {
  embed(request: EmbeddingRequest, options?: CallOptions): Promise<EmbeddingResult>;
}

type Methods<T> = Partial<Omit<T, keyof ModelBase>>;

/**
 * A model of one or more kinds, as a provider creates it and the executor holds it: `kinds`
 * says which of the kinds' methods it has (`requireKind` checks a role's kind at start-up).
 */
export type Model = ModelBase & Methods<TextGenerationModel> & Methods<EmbeddingModel> & Methods<ScoringModel> & Methods<ClassificationModel>;

/** Stable log-sum-exp, used to merge a candidate's probability over its token spellings. */
export function logSumExp(values: number[]): number {
  if (values.length === 0) return Number.NEGATIVE_INFINITY;
  const max = Math.max(...values);
  if (max === Number.NEGATIVE_INFINITY) return max;
  let sum = 0;
  for (const v of values) sum += Math.exp(v - max);
  return max + Math.log(sum);
}

/**
 * Which candidate a token spells: exact match after trimming white space, so that both "A" and
 * " A" (the usual tokenisation after "ANSWER:") count as candidate "A".
 */
export function candidateForToken(token: string, candidates: readonly string[]): string | undefined {
  const trimmed = token.trim();
  if (trimmed === '') return undefined;
  return candidates.find((c) => c === trimmed);
}

/** Cuts generated text at the first stop string, as servers do. */
export function cutAtStop(text: string, stop: readonly string[] | undefined): { text: string; stopped: boolean } {
  if (!stop || stop.length === 0) return { text, stopped: false };
  let cut = -1;
  for (const s of stop) {
    if (s === '') continue;
    const i = text.indexOf(s);
    if (i !== -1 && (cut === -1 || i < cut)) cut = i;
  }
  return cut === -1 ? { text, stopped: false } : { text: text.slice(0, cut), stopped: true };
}
