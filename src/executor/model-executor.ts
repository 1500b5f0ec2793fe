/**
 * Every model call goes through one executor: cache lookup, in-flight de-duplication, bounded
 * concurrency per endpoint (load-balanced across replicas, adaptive on 429: ./endpoint-pool.ts),
 * bounded retries for transient errors only that honour Retry-After (./retry-policy.ts), a
 * per-call time-out (one request with its retries: ./model-request.ts), and accounting of tokens
 * and latency.
 */
import { ModelCallError } from '../errors.js';
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
  Usage,
} from '../providers/language-model.js';
import type { ClassificationModel, ClassificationRequest, ClassificationResult, TokenScoresRequest, TokenScoresResult } from '../providers/model-kinds.js';
import type { CallCache } from '../store/call-cache.js';
import { CanonicalRequest } from '../store/call-key.js';
import { callKey, chatParams, completionParams } from './call-key.js';
import { greedyCompletionParams, type PromptPrefix } from './call-params.js';
import { KeyIdentity } from './key-identity.js';
import { assertCapable, type CallKind } from './call-kinds.js';
import { InFlightCalls } from './in-flight-calls.js';
import { EndpointPool, type BreakerOptions, type EndpointStats } from './endpoint-pool.js';
import { MAX_RETRY_AFTER_MS, RetryPolicy } from './retry-policy.js';
import { requestWithRetries, type RequestContext } from './model-request.js';
import { newAccounting, type Accounting } from './accounting.js';
import { RunAccounting } from './run-accounting.js';
import { OldKeyNotice } from './old-key-notice.js';
import { usageShares, type CallOptions, type ListCall } from './list-call.js';
import { escapeControls } from '../terminal-text.js';

export { MAX_RETRY_AFTER_MS };
export type { Accounting };

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
  /** The model entry's declared `revision`: the key's served identity, instead of asking the server. */
  revision?: string;
}

export interface Executed<T> {
  value: T;
  cached: boolean;
  /** Wall time of the model call that produced the value (the original call's, for cache hits). */
  latencyMs: number;
  /** Cache key: links a stored record to the exact exchange that produced it. */
  key: string;
}

/** Texts per embeddings request. */
export const EMBED_BATCH = 64;

/** Text pairs per classification request (servers take lists; TEI's default max batch is 32). */
export const CLASSIFY_BATCH = 32;

/** What the executor can run: a model of any kind; each call checks the model has the kind and method it needs. */
export type ExecutableModel = Model;

/**
 * `M` is the model's own type where the caller knows it (e.g. `ModelExecutor<LlamaModel>`);
 * each call checks at run time that the model has the kind and method it needs.
 */
export class ModelExecutor<M extends Model = Model> {
  readonly model: M;
  readonly accounting: Accounting = newAccounting();
  readonly #cache: CallCache | null;
  readonly #maxConcurrency: number;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #endpoints: EndpointPool;
  /** Identical calls in flight at once share one request. */
  readonly #inFlight: InFlightCalls;
  /** The cache key's model part (./key-identity.ts). */
  readonly #keyIdentity: KeyIdentity;
  /** What the calls cost the run they are made for (./run-accounting.ts); the runner says which run. */
  readonly run: RunAccounting;
  readonly #oldKeys: OldKeyNotice;
  /** What each request uses (./model-request.ts). */
  readonly #requests: RequestContext;

  constructor(model: M, options: ExecutorOptions) {
    this.model = model;
    this.#cache = options.cache;
    this.#inFlight = InFlightCalls.of(options.cache);
    this.#maxConcurrency = options.concurrency ?? model.defaultConcurrency;
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    const log = options.log ?? ((line: string) => process.stderr.write(`${escapeControls(line)}\n`));
    this.#retry = new RetryPolicy(options, model.modelId, log);
    this.#oldKeys = new OldKeyNotice(options.cache, model, log);
    this.#endpoints = new EndpointPool(model.endpoints, this.#maxConcurrency, options.breaker);
    this.#keyIdentity = new KeyIdentity(model, options.revision);
    this.run = new RunAccounting(options.cache);
    this.#requests = { endpoints: this.#endpoints, retry: this.#retry, accounting: this.accounting, timeoutMs: this.#timeoutMs };
  }

  /** Moves the calls this process cached into the store, where a run's counts are read (RunStore.calls). */
  commitCalls(): void {
    this.#cache?.checkpoint();
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
    const params = greedyCompletionParams(request, prefix) ?? completionParams(request);
    return this.#call('complete', params, (opts) => this.model.complete!(request, opts));
  }

  chat(request: ChatRequest): Promise<Executed<CompletionResult>> {
    return this.#call('chat', chatParams(request), (opts) => this.model.chat!(request, opts));
  }

  nextTokenLogprobs(request: NextTokenLogprobsRequest): Promise<Executed<NextTokenLogprobsResult>> {
    const params = { prompt: request.prompt, candidates: request.candidates, asChat: request.asChat ?? false };
    return this.#call('nextTokenLogprobs', params, (opts) => this.model.nextTokenLogprobs!(request, opts));
  }

  continuationLogLikelihood(request: ContinuationLogLikelihoodRequest): Promise<Executed<ContinuationLogLikelihoodResult>> {
    return this.#call('continuationLogLikelihood', { context: request.context, continuation: request.continuation }, (opts) =>
      this.model.continuationLogLikelihood!(request, opts),
    );
  }

  /** Embeddings of texts, cached per text; the texts not cached go out EMBED_BATCH to a request (see #perItem). */
  async embed(texts: string[]): Promise<Executed<number[][]>> {
    assertCapable(this.model, 'embed');
    const results = await this.#perItem<string, EmbeddingResult>({
      kind: 'embed',
      items: texts,
      params: (text) => ({ text }),
      length: (text) => text.length,
      batchSize: EMBED_BATCH,
      run: (batch, opts) => this.model.embed!({ texts: batch }, opts),
      answered: (r) => r.embeddings.length,
      single: (r, i, usage) => ({ embeddings: [r.embeddings[i]!], usage }),
      nouns: ['embeddings', 'texts'],
    });
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
    return this.#call('scoreTokens', params, (opts) => this.model.scoreTokens!({ context: request.context, continuation: request.continuation }, opts));
  }

  /**
   * Label probabilities per text pair (a classification model), cached per (task, pair); the
   * pairs not cached go out CLASSIFY_BATCH to a request (see #perItem). The usage is that of the
   * pairs not answered from the cache.
   */
  async classify(request: ClassificationRequest): Promise<Executed<ClassificationResult>> {
    assertCapable(this.model, 'classify', request.task);
    const model = this.model as M & ClassificationModel;
    const task = request.task;
    const results = await this.#perItem<{ text: string; textPair: string }, ClassificationResult>({
      kind: 'classify',
      items: request.pairs,
      params: (pair) => ({ task, text: pair.text, textPair: pair.textPair }),
      length: (pair) => pair.text.length + pair.textPair.length,
      batchSize: CLASSIFY_BATCH,
      run: (batch, opts) => model.classify({ task, pairs: batch.map((p) => ({ text: p.text, textPair: p.textPair })) }, opts),
      answered: (r) => r.scores.length,
      single: (r, i, usage) => ({ scores: [r.scores[i]!], usage }),
      nouns: ['scores', 'pairs'],
    });
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

  /**
   * A cached answer, or the promise of an identical call already in flight (of this executor or
   * another on the same cache). Either is counted as a cache hit, with the tokens it did not pay
   * for (those of a call in flight once it is answered).
   */
  #fromCacheOrFlight<T extends { usage: Usage }>(key: string): Promise<Executed<T>> | undefined {
    const hit = this.#cache?.get(key);
    if (hit) {
      this.run.hit(key, true);
      this.accounting.cacheHits += 1;
      this.accounting.cachedPromptTokens += hit.promptTokens;
      this.accounting.cachedCompletionTokens += hit.completionTokens;
      return Promise.resolve({ value: hit.response as T, cached: true, latencyMs: hit.latencyMs, key });
    }
    const pending = this.#inFlight.get<Executed<T>>(key);
    if (!pending) return undefined;
    this.run.hit(key, false);
    this.accounting.cacheHits += 1;
    return pending.then((e) => {
      this.accounting.cachedPromptTokens += e.value.usage.promptTokens;
      this.accounting.cachedCompletionTokens += e.value.usage.completionTokens;
      return { ...e, cached: true };
    });
  }

  async #call<T extends { usage: Usage }>(kind: CallKind, params: object, run: (opts: CallOptions) => Promise<T>): Promise<Executed<T>> {
    this.accounting.calls += 1;
    assertCapable(this.model, kind);
    // Serialised once, for the key and for the stored request.
    const canonical = CanonicalRequest.of(params);
    const identity = await this.#keyIdentity.get();
    const key = callKey(identity, kind, canonical);
    const found = this.#fromCacheOrFlight<T>(key);
    if (found) return found;
    this.#oldKeys.check(identity, kind, canonical);
    const promise = (async (): Promise<Executed<T>> => {
      const tries = { n: 0 };
      const payer = this.run.payer();
      let value: T | undefined;
      let recorded = false;
      try {
        const answer = await this.#request((opts) => run({ ...opts, cacheKey: key }), tries);
        value = answer.value;
        await this.#cache?.put(
          key,
          this.model.cacheIdentity,
          kind,
          canonical,
          { response: value, promptTokens: value.usage.promptTokens, completionTokens: value.usage.completionTokens, latencyMs: answer.latencyMs },
          payer && { ...payer, requests: tries.n },
        );
        recorded = payer !== undefined;
        return { value, cached: false, latencyMs: answer.latencyMs, key };
      } finally {
        if (!recorded) this.run.unrecorded(1, tries.n, value?.usage);
      }
    })();
    this.#inFlight.track(key, promise);
    return promise;
  }

  /**
   * A list call (embed, classify) as one cached call per item, so overlapping lists never pay
   * twice for an item: the items neither cached nor in flight go out `batchSize` to a request,
   * the requests concurrently under the endpoint's limit. Each item gets its share of its
   * request's tokens by length (what a cache hit on it saves), and is answered once its entry is
   * written. The results are in the order of `items` (duplicates included).
   */
  async #perItem<I, R extends { usage: Usage }>(call: ListCall<I, R>): Promise<Array<Executed<R>>> {
    type Fetch = { item: I; key: string; resolve: (e: Executed<R>) => void; reject: (e: unknown) => void };
    const identity = await this.#keyIdentity.get();
    const keys = call.items.map((item) => callKey(identity, call.kind, call.params(item)));
    const answers = new Map<string, Promise<Executed<R>>>();
    const toFetch: Fetch[] = [];
    call.items.forEach((item, i) => {
      const key = keys[i]!;
      if (answers.has(key)) return;
      this.accounting.calls += 1;
      const found = this.#fromCacheOrFlight<R>(key);
      if (found) {
        answers.set(key, found);
        return;
      }
      const promise = new Promise<Executed<R>>((resolve, reject) => toFetch.push({ item, key, resolve, reject }));
      this.#inFlight.track(key, promise);
      answers.set(key, promise);
    });
    if (toFetch[0]) this.#oldKeys.check(identity, call.kind, call.params(toFetch[0].item));
    const batches: Fetch[][] = [];
    for (let i = 0; i < toFetch.length; i += call.batchSize) batches.push(toFetch.slice(i, i + call.batchSize));
    await Promise.all(
      batches.map(async (batch) => {
        const tries = { n: 0 };
        const payer = this.run.payer();
        let usage: Usage | undefined;
        let recorded = false;
        try {
          const { value, latencyMs } = await this.#request(
            (opts) =>
              call.run(
                batch.map((b) => b.item),
                opts,
              ),
            tries,
          );
          usage = value.usage;
          if (call.answered(value) !== batch.length) {
            throw new ModelCallError(
              `${this.model.provider} model ${this.model.modelId} returned ${call.answered(value)} ${call.nouns[0]} for ${batch.length} ${call.nouns[1]}`,
              { retryable: false },
            );
          }
          const shares = usageShares(
            value.usage,
            batch.map((b) => call.length(b.item)),
          );
          const singles = batch.map((b, i) => ({ b, single: call.single(value, i, shares[i]!) }));
          // One write for the whole batch; each item is answered only once it is written. The
          // request's requests are paid with its first item.
          await Promise.all(
            singles.map(({ b, single }, i) =>
              this.#cache?.put(
                b.key,
                this.model.cacheIdentity,
                call.kind,
                call.params(b.item),
                { response: single, promptTokens: single.usage.promptTokens, completionTokens: single.usage.completionTokens, latencyMs },
                payer && { ...payer, requests: i === 0 ? tries.n : 0 },
              ),
            ),
          );
          recorded = payer !== undefined;
          for (const { b, single } of singles) b.resolve({ value: single, cached: false, latencyMs, key: b.key });
        } catch (error) {
          for (const b of batch) b.reject(error);
        } finally {
          if (!recorded) this.run.unrecorded(batch.length, tries.n, usage);
        }
      }),
    );
    return Promise.all(keys.map((key) => answers.get(key)!));
  }

  /** One model request with retries (./model-request.ts). */
  #request<T extends { usage: Usage }>(run: (opts: CallOptions) => Promise<T>, tries: { n: number }): Promise<{ value: T; latencyMs: number }> {
    return requestWithRetries(this.#requests, run, tries);
  }
}
