/**
 * `llmkb sweep --batch`: the roles whose latency does not matter (those the study's methods mark
 * batchable: the reliability method's judge, distractor and time filter, CONNER's answerer)
 * answered through their provider's Batch API (the OpenAI Batch API: half the price).
 *
 * A BatchingModel stands in for the role's model under the same executor: its `chat` and
 * `complete` calls are gathered (until no new one has come for `gatherMs`, at most 50,000 to a
 * batch), turned into request lines by the provider (its `batchApi`, src/providers/batch-api.ts:
 * url and body exactly as it would post them), submitted, waited for with progress, and answered
 * from the batch's outcomes. The executor above it caches each answer under
 * the key it always uses, so the rest of the pipeline is unchanged: a rerun finds every answer in
 * the cache, with or without --batch. Requests that failed inside a batch (error file: a server
 * error, `batch_expired`, `batch_cancelled`, `request_timeout`) fail retryable, and the
 * executor's retry puts them into the next batch; a batch that failed validation fails its
 * requests for good.
 *
 * A batch outlives the process: every batch is written to a journal (in the store folder) with
 * the cache key of each of its requests, so a sweep interrupted while it waits picks the batch up
 * again instead of paying for it twice (`recoverBatches`, called before any run starts), and
 * imports its results into the call cache.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../io/files.js';
import { ContextOverflowError, InputFileError, ModelCallError, UnsupportedCapabilityError } from '../../errors.js';
import type { CallOptions, ChatRequest, CompletionRequest, CompletionResult, Model } from '../../providers/language-model.js';
import type { ModelKind } from '../../providers/model-kinds.js';
import { generationCallKey } from '../../executor/call-key.js';
import type { BatchApi, BatchError } from '../../providers/batch-api.js';
import type { CallCache } from '../../store/call-cache.js';

/** Requests per batch file (the Batch API's limit). */
export const MAX_BATCH_REQUESTS = 50_000;

export interface BatchSettings {
  /** The provider's Batch API for the model (its `batchApi`). */
  api: BatchApi;
  /** Folder for the journal of submitted batches. */
  journalDir: string;
  /** Wait this long for more requests before submitting (default 2 s). */
  gatherMs?: number;
  /** Between status polls (default 30 s). */
  pollMs?: number;
  log?: (line: string) => void;
  /** Calls at once to the wrapped model for what does not go through batches (scoring a prompt's tokens); default: its own concurrency per endpoint. */
  liveConcurrency?: number;
}

/** One request of a batch: what the executor keyed it by, and the line sent. */
interface JournalRequest {
  customId: string;
  /** The executor's cache key, kind and request params (to import the answer into the cache). */
  key: string;
  kind: 'chat' | 'complete';
  params: unknown;
  /** The provider's url for the line (its `line`), which also reads the answer back (its `result`). */
  url: string;
}

interface Journal {
  batchId: string;
  baseURL: string;
  modelIdentity: string;
  submittedAt: string;
  requests: JournalRequest[];
}

interface Pending extends JournalRequest {
  body: unknown;
  resolve: (r: CompletionResult) => void;
  reject: (e: unknown) => void;
}

export class BatchingModel implements Model {
  readonly specificationVersion: Model['specificationVersion'];
  readonly provider: string;
  readonly modelId: string;
  readonly cacheIdentity: string;
  /** The wrapped model's (what its server reports), so batched and live calls share cache keys. */
  servedIdentity?: () => Promise<string | undefined>;
  readonly kinds: readonly ModelKind[];
  /**
   * The wrapped model's own, when it has them: only completions and chat go through batches.
   * These go to the model live, at most `liveConcurrency` at once (the executor above lets every
   * call of a stage through at once, for the batches), on its own endpoints.
   */
  readonly nextTokenLogprobs?: Model['nextTokenLogprobs'];
  readonly continuationLogLikelihood?: Model['continuationLogLikelihood'];
  readonly scoreTokens?: Model['scoreTokens'];
  readonly embed?: Model['embed'];
  readonly classify?: Model['classify'];
  readonly endpoints: readonly string[];
  readonly defaultConcurrency = MAX_BATCH_REQUESTS;
  /** Batches submitted by this model, with their final status (for the sweep's record). */
  readonly batches: Array<{ id: string; requests: number; status: string; failed: number }> = [];
  readonly #inner: Model;
  readonly #settings: BatchSettings;
  readonly #api: BatchApi;
  #queue: Pending[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** Ends the polling of batches still running when the model is closed. */
  readonly #stop = new AbortController();

  constructor(inner: Model, settings: BatchSettings) {
    this.#inner = inner;
    this.#settings = settings;
    this.#api = settings.api;
    this.specificationVersion = inner.specificationVersion;
    this.provider = inner.provider;
    this.modelId = inner.modelId;
    this.cacheIdentity = inner.cacheIdentity;
    this.kinds = inner.kinds;
    const live = new Limit(settings.liveConcurrency ?? Math.max(1, inner.defaultConcurrency * inner.endpoints.length));
    // The executor names this model's one endpoint ("batch"): the wrapped model picks its own.
    const passed = <R, O>(call: ((request: R, options?: CallOptions) => Promise<O>) | undefined) =>
      call && ((request: R, options?: CallOptions) => live.run(() => call.call(inner, request, options?.signal ? { signal: options.signal } : {})));
    const nextTokenLogprobs = passed(inner.nextTokenLogprobs);
    if (nextTokenLogprobs) this.nextTokenLogprobs = nextTokenLogprobs;
    const continuationLogLikelihood = passed(inner.continuationLogLikelihood);
    if (continuationLogLikelihood) this.continuationLogLikelihood = continuationLogLikelihood;
    const scoreTokens = passed(inner.scoreTokens);
    if (scoreTokens) this.scoreTokens = scoreTokens;
    const embed = passed(inner.embed);
    if (embed) this.embed = embed;
    const classify = passed(inner.classify);
    if (classify) this.classify = classify;
    this.endpoints = ['batch'];
    const served = inner.servedIdentity;
    if (served) this.servedIdentity = () => served.call(inner);
  }

  complete(request: CompletionRequest, options?: CallOptions): Promise<CompletionResult> {
    refuseSampling(request);
    return this.#push('complete', request, options?.cacheKey);
  }

  chat(request: ChatRequest, options?: CallOptions): Promise<CompletionResult> {
    refuseSampling(request);
    return this.#push('chat', request, options?.cacheKey);
  }

  /**
   * Keyed as the executor keys the call (one function builds both keys; the executor's own key
   * when it gives one, since it holds the served model's identity, so recovered answers land
   * where it looks), sent as the provider posts it.
   */
  #push(kind: 'chat' | 'complete', request: CompletionRequest | ChatRequest, executorKey: string | undefined): Promise<CompletionResult> {
    const { key: ownKey, params } = generationCallKey(this.cacheIdentity, kind, request);
    const key = executorKey ?? ownKey;
    const r = { kind, params, ...this.#api.line(kind, request) };
    return new Promise<CompletionResult>((resolve, reject) => {
      this.#queue.push({ customId: key, key, kind: r.kind, params: r.params, url: r.url, body: r.body, resolve, reject });
      if (this.#timer) clearTimeout(this.#timer);
      if (this.#queue.length >= MAX_BATCH_REQUESTS) this.#flush();
      else this.#timer = setTimeout(() => this.#flush(), this.#settings.gatherMs ?? 2000);
    });
  }

  #flush(): void {
    this.#timer = undefined;
    const requests = this.#queue.splice(0, MAX_BATCH_REQUESTS);
    if (requests.length === 0) return;
    void this.#submit(requests).catch((error: unknown) => {
      for (const r of requests) r.reject(error);
    });
  }

  async #submit(requests: Pending[]): Promise<void> {
    // One line per distinct request (custom ids must be unique in a batch).
    const unique = new Map<string, Pending[]>();
    for (const r of requests) unique.set(r.customId, [...(unique.get(r.customId) ?? []), r]);
    const byUrl = new Map<string, Pending[]>();
    for (const [, rs] of unique) byUrl.set(rs[0]!.url, [...(byUrl.get(rs[0]!.url) ?? []), rs[0]!]);
    await Promise.all(
      [...byUrl].map(async ([url, lines]) => {
        const batchId = await this.#api.submit(url, lines);
        const journal: Journal = {
          batchId,
          baseURL: this.#api.endpoint,
          modelIdentity: this.cacheIdentity,
          submittedAt: new Date().toISOString(),
          requests: lines.map(({ customId, key, kind, params, url: u }) => ({ customId, key, kind, params, url: u })),
        };
        const journalFile = writeJournal(this.#settings.journalDir, journal);
        this.#settings.log?.(`batch ${batchId}: ${lines.length} requests to ${this.modelId} submitted (${url})`);
        const done = await this.#api.wait(batchId, lines.length, {
          pollMs: this.#settings.pollMs ?? 30_000,
          label: `batch ${this.modelId}`,
          signal: this.#stop.signal,
        });
        const outcomes = done.outcomes;
        let failed = 0;
        for (const line of lines) {
          const outcome = outcomes.get(line.customId);
          for (const r of unique.get(line.customId)!) {
            if (done.failure !== undefined) {
              r.reject(new ModelCallError(`batch ${done.id} failed: ${done.failure}`, { retryable: false, endpoint: this.#api.endpoint }));
            } else if (outcome?.result !== undefined) {
              try {
                r.resolve(this.#api.result(r.url, outcome.result));
              } catch (error) {
                r.reject(
                  new ModelCallError(
                    `batch ${done.id}: an answer in an unexpected shape for ${r.customId.slice(0, 12)}: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`,
                    { retryable: false, endpoint: this.#api.endpoint },
                  ),
                );
              }
            } else {
              failed += 1;
              const e: BatchError = outcome?.error ?? { message: `not in the output of batch ${done.id} (${done.status})`, retryable: true };
              // As the provider throws it live, so a caller that fits its prompt (fewer shots) can try again.
              if (e.contextOverflow) r.reject(new ContextOverflowError(`batch ${done.id}: ${e.message}`));
              else
                r.reject(
                  new ModelCallError(`batch ${done.id}: ${e.message}`, {
                    retryable: e.retryable,
                    endpoint: this.#api.endpoint,
                    ...(e.status === undefined ? {} : { status: e.status }),
                  }),
                );
            }
          }
        }
        this.batches.push({ id: done.id, requests: lines.length, status: done.status, failed });
        // Answered: the executor caches each answer as it resolves; the journal has done its job.
        rmSync(journalFile, { force: true });
      }),
    );
  }

  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#stop.abort();
    await this.#inner.close();
  }
}

/** At most `max` calls at once; the rest wait in order. */
class Limit {
  #active = 0;
  readonly #waiting: Array<() => void> = [];
  constructor(readonly max: number) {}
  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.#active >= this.max) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#active += 1;
    try {
      return await call();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active -= 1;
    }
  }
}

function writeJournal(dir: string, journal: Journal): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${journal.batchId.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
  writeFileAtomic(file, `${JSON.stringify(journal)}\n`);
  return file;
}

const journalSchema = z.object({
  batchId: z.string().min(1),
  baseURL: z.string().min(1),
  modelIdentity: z.string().min(1),
  submittedAt: z.string(),
  requests: z.array(
    z.object({
      customId: z.string(),
      key: z.string(),
      kind: z.enum(['chat', 'complete']),
      params: z.unknown(),
      url: z.enum(['/v1/chat/completions', '/v1/completions']),
    }),
  ),
});

/** A journal as written by `writeJournal`; a damaged one is named with how to discard it (exit 2). */
function readJournal(file: string): Journal {
  const hint = `Delete it (rm ${JSON.stringify(file)}) to discard that batch: the calls it held are asked again when the sweep reaches them.`;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new InputFileError(
      file,
      undefined,
      undefined,
      `a damaged --batch journal: not JSON (${error instanceof Error ? error.message : String(error)})`,
      hint,
    );
  }
  const parsed = journalSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputFileError(file, undefined, issue.path.join('.') || undefined, `a damaged --batch journal: ${issue.message}`, hint);
  }
  return parsed.data as Journal;
}

/**
 * Batches submitted by an earlier, interrupted sweep: waited for, and their answers imported
 * into the call cache under the executor's keys (so the runs find them there). Returns the
 * number of answers imported.
 */
export async function recoverBatches(
  journalDir: string,
  cache: CallCache,
  options: { apiFor: (endpoint: string) => BatchApi | undefined; pollMs?: number; log?: (line: string) => void },
): Promise<number> {
  if (!existsSync(journalDir)) return 0;
  let imported = 0;
  for (const name of readdirSync(journalDir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const file = join(journalDir, name);
    const journal = readJournal(file);
    const api = options.apiFor(journal.baseURL);
    if (api === undefined) {
      options.log?.(
        `batch ${journal.batchId}: submitted ${journal.submittedAt} to ${journal.baseURL}, which no batched role of this study uses; its journal ${file} is kept`,
      );
      continue;
    }
    options.log?.(`batch ${journal.batchId}: submitted ${journal.submittedAt} by an earlier run; waiting for it`);
    const { outcomes } = await api.wait(journal.batchId, journal.requests.length, { pollMs: options.pollMs ?? 30_000, label: `batch ${journal.batchId}` });
    for (const r of journal.requests) {
      const outcome = outcomes.get(r.customId);
      if (outcome?.result === undefined) continue;
      const result = api.result(r.url, outcome.result);
      await cache.put(r.key, journal.modelIdentity, r.kind, r.params, {
        response: result,
        promptTokens: result.usage.promptTokens,
        completionTokens: result.usage.completionTokens,
        latencyMs: 0,
      });
      imported += 1;
    }
    rmSync(file, { force: true });
  }
  return imported;
}

/**
 * Batches are built for the sweep's greedy calls: their journal keys and bodies carry no
 * sampling settings, so a sampled request (CONNER's best-of draws) would be sent greedy and
 * cached under a greedy key. Refuse it instead of answering something else.
 */
function refuseSampling(request: CompletionRequest | ChatRequest): void {
  if (request.sampling) {
    throw new UnsupportedCapabilityError('the batch API path sends greedy requests only; a sampled request (top-p draws) cannot go through it', {
      hint: 'Run sampling commands (conner best-of) against the model without batch: true.',
    });
  }
}
