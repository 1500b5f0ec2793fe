/**
 * Every model call goes through one executor: cache lookup, in-flight de-duplication, bounded
 * concurrency per endpoint (load-balanced across replicas, adaptive on 429: ./endpoint-pool.ts),
 * bounded retries for transient errors only that honour Retry-After (./retry-policy.ts), a
 * per-call time-out, and accounting of tokens and latency.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ModelCallError, UnsupportedCapabilityError } from '../errors.js';
import type {
  ChatRequest,
  CompletionRequest,
  CompletionResult,
  ContinuationLogLikelihoodRequest,
  ContinuationLogLikelihoodResult,
  EmbeddingResult,
  Model,
  NextTokenLogprobsRequest,
  NextTokenLogprobsResult,
  Sampling,
  Usage,
} from '../providers/language-model.js';
import { hasKind, type ClassificationModel, type ClassificationRequest, type ClassificationResult, type ModelKind, type TokenScoresRequest, type TokenScoresResult } from '../providers/model-kinds.js';
import type { CallCache } from '../store/call-cache.js';
import { cacheKey, CanonicalRequest } from '../store/call-key.js';
import { EndpointPool, type BreakerOptions, type EndpointStats } from './endpoint-pool.js';
import { MAX_RETRY_AFTER_MS, normalizeError, RetryPolicy } from './retry-policy.js';

export { MAX_RETRY_AFTER_MS };

export interface ExecutorOptions {
  /** null = `--no-cache`: every call goes to the model and nothing is written. */
  cache: CallCache | null;
  /** Concurrent calls per endpoint; default: the provider's. */
  concurrency?: number;
  /** Per-attempt time-out. */
  timeoutMs?: number;
  /** Retries after the first attempt, for transient errors only. */
  maxRetries?: number;
  /** First back-off delay; doubles per retry (with jitter) up to `maxBackoffMs`. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Longest wait a server's Retry-After may impose (default 60 s): an hour-long one is capped, and said so. */
  maxRetryAfterMs?: number;
  /** Where notes go (a capped Retry-After); default stderr. */
  log?: (line: string) => void;
  /** When a failing replica is taken out of service and tried again (./endpoint-pool.ts). */
  breaker?: BreakerOptions;
}

export interface Executed<T> {
  value: T;
  cached: boolean;
  /** Wall time of the model call that produced the value (the original call's, for cache hits). */
  latencyMs: number;
  /** Cache key: links a stored record to the exact exchange that produced it. */
  key: string;
}

export interface Accounting {
  calls: number;
  cacheHits: number;
  /** HTTP requests / in-process evaluations actually made, retries included. */
  requests: number;
  retries: number;
  rateLimited: number;
  failures: number;
  promptTokens: number;
  completionTokens: number;
  evaluatedTokens: number;
  /** Tokens that cache hits did not have to pay for. */
  cachedPromptTokens: number;
  cachedCompletionTokens: number;
  latencyMsTotal: number;
}

type Kind = 'complete' | 'chat' | 'nextTokenLogprobs' | 'continuationLogLikelihood' | 'embed' | 'scoreTokens' | 'classify';

/** Texts per embeddings request. */
export const EMBED_BATCH = 64;

/** The model kind each call needs; the model must also have the method (optional ones may be absent). */
const KIND_OF: Record<Kind, ModelKind> = {
  complete: 'text-generation',
  chat: 'text-generation',
  nextTokenLogprobs: 'text-generation',
  continuationLogLikelihood: 'text-generation',
  embed: 'embedding',
  scoreTokens: 'scoring',
  classify: 'classification',
};

/** Text pairs per classification request (servers take lists; TEI's default max batch is 32). */
export const CLASSIFY_BATCH = 32;

/**
 * The sampling part of a generation call's cache key. Greedy calls keep exactly the key they
 * always had (`temperature: 0`, nothing more), so existing caches stay valid; a sampled call adds
 * top-p, its seed and its draw index, so each of r draws is its own entry.
 */
function samplingParams(sampling: Sampling | undefined): { temperature: number; topP?: number; seed?: number; sample?: number } {
  if (sampling === undefined) return { temperature: 0 };
  return { temperature: sampling.temperature, topP: sampling.topP, seed: sampling.seed, sample: sampling.sample };
}

/**
 * A greedy completion's parameters as canonical JSON, written directly: the text canonicalJson
 * gives for `{ prompt, maxTokens, stop, temperature: 0 }` (keys in sorted order), without its
 * general walk (sorting keys, a part per value), which was about a tenth of a cached re-run at
 * paper scale (100,000 MCQ calls). Undefined for any other shape (sampled calls, a non-finite
 * budget): those take the general path. model-executor.test.ts checks both give the same text.
 */
export function greedyCompletionParams(request: CompletionRequest, prefix?: PromptPrefix): CanonicalRequest | undefined {
  if (request.sampling !== undefined || typeof request.maxTokens !== 'number' || !Number.isFinite(request.maxTokens) || typeof request.prompt !== 'string') return undefined;
  const stop = request.stop ?? [];
  if (!Array.isArray(stop)) return undefined;
  let stops = '';
  for (let i = 0; i < stop.length; i++) {
    const s = stop[i];
    if (typeof s !== 'string') return undefined;
    stops += i === 0 ? JSON.stringify(s) : `,${JSON.stringify(s)}`;
  }
  const prompt = prefix !== undefined && prefix.json !== undefined && request.prompt.startsWith(prefix.text) ? `${prefix.json}${JSON.stringify(request.prompt.slice(prefix.text.length)).slice(1)}` : JSON.stringify(request.prompt);
  return new CanonicalRequest(`{"maxTokens":${JSON.stringify(request.maxTokens)},"prompt":${prompt},"stop":[${stops}],"temperature":0}`);
}

/**
 * The start that several prompts share (a pair's 20 MCQs share the instruction, the shots and
 * the question: about 2 KB of 2.1), as JSON text once: a prompt that starts with it is written
 * into its call's canonical JSON as this plus its own rest, instead of escaping all of it again
 * per call (about 4 us an MCQ). The same text as JSON.stringify of the whole prompt: JSON escapes
 * each UTF-16 unit on its own except a surrogate pair, so a prefix ending inside one (a high
 * surrogate last) is not used.
 */
export class PromptPrefix {
  readonly text: string;
  /** `"` and the escaped text, without the closing quote; undefined if it cannot be split there. */
  readonly json: string | undefined;

  constructor(text: string) {
    this.text = text;
    const last = text.charCodeAt(text.length - 1);
    this.json = last >= 0xd800 && last <= 0xdbff ? undefined : JSON.stringify(text).slice(0, -1);
  }
}

/** What the executor can run: a model of any kind; each call checks the model has the kind and method it needs. */
export type ExecutableModel = Model;

/**
 * `M` is the model's own type where the caller knows it (e.g. `ModelExecutor<LlamaModel>`);
 * each call checks at run time that the model has the kind and method it needs.
 */
export class ModelExecutor<M extends Model = Model> {
  readonly model: M;
  readonly accounting: Accounting = {
    calls: 0,
    cacheHits: 0,
    requests: 0,
    retries: 0,
    rateLimited: 0,
    failures: 0,
    promptTokens: 0,
    completionTokens: 0,
    evaluatedTokens: 0,
    cachedPromptTokens: 0,
    cachedCompletionTokens: 0,
    latencyMsTotal: 0,
  };
  readonly #cache: CallCache | null;
  readonly #maxConcurrency: number;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #endpoints: EndpointPool;
  readonly #inFlight = new Map<string, Promise<Executed<unknown>>>();

  constructor(model: M, options: ExecutorOptions) {
    this.model = model;
    this.#cache = options.cache;
    this.#maxConcurrency = options.concurrency ?? model.defaultConcurrency;
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.#retry = new RetryPolicy(options, model.modelId, options.log ?? ((line) => process.stderr.write(`${line}\n`)));
    this.#endpoints = new EndpointPool(model.endpoints, this.#maxConcurrency, options.breaker);
  }

  /**
   * Calls this executor runs at once when nothing is rate-limited: the configured `concurrency`
   * (else the provider's default) per endpoint, times the endpoints. Stages default to it, so the
   * config's concurrency for a role is what that role's stage runs at.
   */
  get concurrency(): number {
    return Math.max(1, this.#maxConcurrency * this.#endpoints.size);
  }

  /** Per endpoint (replica): calls it answered and failed, times it was taken out of service. */
  endpointStats(): EndpointStats[] {
    return this.#endpoints.stats();
  }

  /** `prefix`: text the prompt starts with that other calls share (see PromptPrefix); only makes the key cheaper. */
  complete(request: CompletionRequest, prefix?: PromptPrefix): Promise<Executed<CompletionResult>> {
    const params = greedyCompletionParams(request, prefix) ?? { prompt: request.prompt, maxTokens: request.maxTokens, stop: request.stop ?? [], ...samplingParams(request.sampling) };
    return this.#call('complete', params, (opts) => this.model.complete!(request, opts), (r) => r.usage);
  }

  chat(request: ChatRequest): Promise<Executed<CompletionResult>> {
    const params = { messages: request.messages, maxTokens: request.maxTokens, stop: request.stop ?? [], ...samplingParams(request.sampling) };
    return this.#call('chat', params, (opts) => this.model.chat!(request, opts), (r) => r.usage);
  }

  nextTokenLogprobs(request: NextTokenLogprobsRequest): Promise<Executed<NextTokenLogprobsResult>> {
    const params = { prompt: request.prompt, candidates: request.candidates, asChat: request.asChat ?? false };
    return this.#call('nextTokenLogprobs', params, (opts) => this.model.nextTokenLogprobs!(request, opts), (r) => r.usage);
  }

  continuationLogLikelihood(request: ContinuationLogLikelihoodRequest): Promise<Executed<ContinuationLogLikelihoodResult>> {
    return this.#call('continuationLogLikelihood', { context: request.context, continuation: request.continuation }, (opts) => this.model.continuationLogLikelihood!(request, opts), (r) => r.usage);
  }

  /**
   * One cache entry per text, so overlapping lists never pay twice for a text; the texts not
   * cached go out EMBED_BATCH to a request (servers take lists, and hosted APIs limit requests
   * per minute), the batches concurrently under the endpoint's concurrency limit.
   */
  async embed(texts: string[]): Promise<Executed<number[][]>> {
    this.#assertCapable('embed');
    const perText = new Map<string, Promise<Executed<EmbeddingResult>>>();
    const toFetch: Array<{ text: string; key: string; settle: { resolve: (e: Executed<EmbeddingResult>) => void; reject: (e: unknown) => void } }> = [];
    for (const text of new Set(texts)) {
      this.accounting.calls += 1;
      const key = cacheKey(this.model.cacheIdentity, 'embed', { text });
      const found = this.#fromCacheOrFlight<EmbeddingResult>(key);
      if (found) {
        perText.set(text, found);
        continue;
      }
      let settle!: (typeof toFetch)[number]['settle'];
      const promise = new Promise<Executed<EmbeddingResult>>((resolve, reject) => (settle = { resolve, reject }));
      this.#inFlight.set(key, promise as Promise<Executed<unknown>>);
      // Also marks a failure as handled here: the caller sees it through perText below.
      void promise.then(() => this.#inFlight.delete(key), () => this.#inFlight.delete(key));
      perText.set(text, promise);
      toFetch.push({ text, key, settle });
    }
    const batches: (typeof toFetch)[] = [];
    for (let i = 0; i < toFetch.length; i += EMBED_BATCH) batches.push(toFetch.slice(i, i + EMBED_BATCH));
    await Promise.all(
      batches.map(async (batch) => {
        const request = { texts: batch.map((b) => b.text) };
        try {
          const r = await this.#execute('embed', null, request, (opts) => this.model.embed!(request, opts), (v: EmbeddingResult) => v.usage);
          const totalChars = Math.max(1, request.texts.reduce((n, t) => n + t.length, 0));
          const singles = batch.map((b, i) => {
            // The request's tokens, shared out by length: what a cache hit on this text saves.
            const promptTokens = Math.round((r.value.usage.promptTokens * b.text.length) / totalChars);
            const single: EmbeddingResult = { embeddings: [r.value.embeddings[i]!], usage: { promptTokens, completionTokens: 0, evaluatedTokens: promptTokens } };
            return { b, single, promptTokens };
          });
          // One commit for the whole batch; each text is resolved only once it is committed.
          await Promise.all(singles.map(({ b, single, promptTokens }) => this.#cache?.put(b.key, this.model.cacheIdentity, 'embed', { text: b.text }, { response: single, promptTokens, completionTokens: 0, latencyMs: r.latencyMs })));
          for (const { b, single } of singles) b.settle.resolve({ value: single, cached: false, latencyMs: r.latencyMs, key: b.key });
        } catch (error) {
          for (const b of batch) b.settle.reject(error);
        }
      }),
    );
    const results = await Promise.all(texts.map((t) => perText.get(t)!));
    return {
      value: results.map((e) => e.value.embeddings[0]!),
      cached: results.every((e) => e.cached),
      latencyMs: Math.max(0, ...results.map((e) => e.latencyMs)),
      key: '',
    };
  }

  /**
   * Per-token log-probabilities of a continuation given a prefix (a scoring model), cached per
   * (context, continuation).
   */
  scoreTokens(request: TokenScoresRequest): Promise<Executed<TokenScoresResult>> {
    const params = { context: request.context, continuation: request.continuation };
    return this.#call('scoreTokens', params, (opts) => this.model.scoreTokens!({ context: request.context, continuation: request.continuation }, opts), (r) => r.usage);
  }

  /**
   * Label probabilities per text pair (a classification model). One cache entry per (task, pair),
   * so overlapping requests never pay twice for a pair; the pairs not cached go out
   * CLASSIFY_BATCH to a request, concurrently under the endpoint's limit, as in `embed`.
   */
  async classify(request: ClassificationRequest): Promise<Executed<ClassificationResult>> {
    this.#assertCapable('classify', request.task);
    const model = this.model as M & ClassificationModel;
    const task = request.task;
    const pairKey = (p: { text: string; textPair: string }): string => JSON.stringify([p.text, p.textPair]);
    const perPair = new Map<string, Promise<Executed<ClassificationResult>>>();
    type Pending = { pair: { text: string; textPair: string }; key: string; settle: { resolve: (e: Executed<ClassificationResult>) => void; reject: (e: unknown) => void } };
    const toFetch: Pending[] = [];
    for (const pair of request.pairs) {
      const id = pairKey(pair);
      if (perPair.has(id)) continue;
      this.accounting.calls += 1;
      const params = { task, text: pair.text, textPair: pair.textPair };
      const key = cacheKey(this.model.cacheIdentity, 'classify', params);
      const found = this.#fromCacheOrFlight<ClassificationResult>(key);
      if (found) {
        perPair.set(id, found);
        continue;
      }
      let settle!: Pending['settle'];
      const promise = new Promise<Executed<ClassificationResult>>((resolve, reject) => (settle = { resolve, reject }));
      this.#inFlight.set(key, promise as Promise<Executed<unknown>>);
      // Also marks a failure as handled here: the caller sees it through perPair below.
      void promise.then(() => this.#inFlight.delete(key), () => this.#inFlight.delete(key));
      perPair.set(id, promise);
      toFetch.push({ pair: { text: pair.text, textPair: pair.textPair }, key, settle });
    }
    const batches: Pending[][] = [];
    for (let i = 0; i < toFetch.length; i += CLASSIFY_BATCH) batches.push(toFetch.slice(i, i + CLASSIFY_BATCH));
    await Promise.all(
      batches.map(async (batch) => {
        const sub: ClassificationRequest = { task, pairs: batch.map((b) => b.pair) };
        try {
          const r = await this.#execute('classify', null, sub, (opts) => model.classify(sub, opts), (v: ClassificationResult) => v.usage);
          if (r.value.scores.length !== batch.length) {
            throw new ModelCallError(`${this.model.provider} model ${this.model.modelId} returned ${r.value.scores.length} scores for ${batch.length} pairs`, { retryable: false });
          }
          const totalChars = Math.max(1, batch.reduce((n, b) => n + b.pair.text.length + b.pair.textPair.length, 0));
          const singles = batch.map((b, i) => {
            // The request's tokens, shared out by length: what a cache hit on this pair saves.
            const share = (b.pair.text.length + b.pair.textPair.length) / totalChars;
            const promptTokens = Math.round(r.value.usage.promptTokens * share);
            const completionTokens = Math.round(r.value.usage.completionTokens * share);
            const evaluatedTokens = Math.round(r.value.usage.evaluatedTokens * share);
            const single: ClassificationResult = { scores: [r.value.scores[i]!], usage: { promptTokens, completionTokens, evaluatedTokens } };
            return { b, single };
          });
          // One commit for the whole batch; each pair is resolved only once it is committed.
          await Promise.all(
            singles.map(({ b, single }) =>
              this.#cache?.put(b.key, this.model.cacheIdentity, 'classify', { task, text: b.pair.text, textPair: b.pair.textPair }, { response: single, promptTokens: single.usage.promptTokens, completionTokens: single.usage.completionTokens, latencyMs: r.latencyMs }),
            ),
          );
          for (const { b, single } of singles) b.settle.resolve({ value: single, cached: false, latencyMs: r.latencyMs, key: b.key });
        } catch (error) {
          for (const b of batch) b.settle.reject(error);
        }
      }),
    );
    const results = await Promise.all(request.pairs.map((p) => perPair.get(pairKey(p))!));
    const usage = { promptTokens: 0, completionTokens: 0, evaluatedTokens: 0 };
    for (const e of results) {
      if (e.cached) continue;
      usage.promptTokens += e.value.usage.promptTokens;
      usage.completionTokens += e.value.usage.completionTokens;
      usage.evaluatedTokens += e.value.usage.evaluatedTokens;
    }
    return {
      value: { scores: results.map((e) => e.value.scores[0]!), usage },
      cached: results.every((e) => e.cached),
      latencyMs: Math.max(0, ...results.map((e) => e.latencyMs)),
      key: results.length === 1 ? results[0]!.key : '',
    };
  }

  #assertCapable(kind: Kind, task?: string): void {
    const model = this.model;
    const what = `${model.provider} model ${model.modelId}`;
    if (!hasKind(model, KIND_OF[kind]) || typeof model[kind] !== 'function') {
      if (kind === 'scoreTokens' || kind === 'classify') {
        throw new UnsupportedCapabilityError(`${what} is not a ${KIND_OF[kind]} model (it provides ${model.kinds.join(', ')}), so it cannot ${kind === 'scoreTokens' ? 'score tokens' : 'classify text pairs'}`, {
          hint: `Configure a ${KIND_OF[kind]} model for this role in llmkb.config.json (README: "Scorer backends").`,
        });
      }
      throw new UnsupportedCapabilityError(`${what} does not support ${kind}`);
    }
    const tasks = (model as Partial<ClassificationModel>).tasks;
    if (kind === 'classify' && task !== undefined && tasks && !tasks.includes(task as ClassificationModel['tasks'][number])) {
      throw new UnsupportedCapabilityError(`${what} does ${tasks.join(', ')}, not ${task}`, { hint: `Configure a classification model with task "${task}" for this role (README: "Scorer backends").` });
    }
  }


  /** A cached answer, or the promise of an identical call already in flight (counted as a hit). */
  #fromCacheOrFlight<T>(key: string): Promise<Executed<T>> | undefined {
    const hit = this.#cache?.get(key);
    if (hit) {
      this.accounting.cacheHits += 1;
      this.accounting.cachedPromptTokens += hit.promptTokens;
      this.accounting.cachedCompletionTokens += hit.completionTokens;
      return Promise.resolve({ value: hit.response as T, cached: true, latencyMs: hit.latencyMs, key });
    }
    // Identical calls in flight at once (the same question asked twice) share one request.
    const pending = this.#inFlight.get(key);
    if (pending) {
      this.accounting.cacheHits += 1;
      return pending.then((e) => ({ ...(e as Executed<T>), cached: true }));
    }
    return undefined;
  }

  async #call<T>(kind: Kind, params: object, run: (opts: { signal: AbortSignal; endpoint: string }) => Promise<T>, usageOf: (value: T) => Usage): Promise<Executed<T>> {
    this.accounting.calls += 1;
    this.#assertCapable(kind);
    // Serialised once, for the key and for the stored request.
    const canonical = CanonicalRequest.of(params);
    const key = cacheKey(this.model.cacheIdentity, kind, canonical);
    const found = this.#fromCacheOrFlight<T>(key);
    if (found) return found;
    const promise = this.#execute(kind, key, canonical, run, usageOf);
    this.#inFlight.set(key, promise as Promise<Executed<unknown>>);
    try {
      return await promise;
    } finally {
      this.#inFlight.delete(key);
    }
  }

  /** One model call with retries; `key` null: the caller caches the result itself. */
  async #execute<T>(kind: Kind, key: string | null, params: object, run: (opts: { signal: AbortSignal; endpoint: string }) => Promise<T>, usageOf: (value: T) => Usage): Promise<Executed<T>> {
    for (let attempt = 0; ; attempt++) {
      const endpoint = await this.#endpoints.acquire();
      const started = performance.now();
      let error: unknown;
      let value: T | undefined;
      this.accounting.requests += 1;
      // Not AbortSignal.timeout: its timer stays armed for the whole time-out after the call (until
      // a full collection finds the signal unreachable), so every call's timer and signal outlived
      // it and were promoted to the old generation, about 100,000 of them in a paper-scale run
      // (issue 13: heap headroom grew with the run). A timer cleared when the call ends dies young.
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new DOMException(`The operation was aborted due to timeout`, 'TimeoutError')), this.#timeoutMs);
      timer.unref();
      try {
        value = await run({ signal: timeout.signal, endpoint: endpoint.url });
      } catch (e) {
        error = e;
      } finally {
        clearTimeout(timer);
      }
      const latencyMs = performance.now() - started;
      if (error === undefined) {
        this.#endpoints.release(endpoint, 'ok');
        const usage = usageOf(value as T);
        this.accounting.promptTokens += usage.promptTokens;
        this.accounting.completionTokens += usage.completionTokens;
        this.accounting.evaluatedTokens += usage.evaluatedTokens;
        this.accounting.latencyMsTotal += latencyMs;
        if (this.#cache && key !== null) {
          await this.#cache.put(key, this.model.cacheIdentity, kind, params, {
            response: value,
            promptTokens: usage.promptTokens,
            completionTokens: usage.completionTokens,
            latencyMs,
          });
        }
        return { value: value as T, cached: false, latencyMs, key: key ?? '' };
      }
      const normalized = normalizeError(error, this.#timeoutMs, endpoint.url);
      const rateLimited = normalized instanceof ModelCallError && normalized.status === 429;
      if (rateLimited) this.accounting.rateLimited += 1;
      const delay = this.#retry.delayMs(attempt, normalized);
      // A failure worth a retry counts against the replica; a request refused for itself (a 400) does not.
      const retryable = normalized instanceof ModelCallError && normalized.retryable;
      this.#endpoints.release(endpoint, rateLimited ? 'rate-limited' : retryable ? 'error' : 'rejected', rateLimited ? delay : 0);
      if (!this.#retry.retries(normalized, attempt)) {
        this.accounting.failures += 1;
        throw this.#retry.finalError(normalized, attempt);
      }
      this.accounting.retries += 1;
      if (!rateLimited) await sleep(delay);
    }
  }
}
