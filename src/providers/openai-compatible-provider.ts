/**
 * Provider for any OpenAI-compatible server: vLLM, Ollama, llama.cpp server, hosted APIs.
 *
 * Plain `fetch` rather than the `openai` SDK: the executor already owns retries, time-outs and
 * concurrency (the SDK would add a second, conflicting layer of each), and we need fields the SDK
 * does not type for legacy completions (`echo`, `text_offset`). Every response body is validated
 * with zod, so a server that answers in the wrong shape gets a clear error, not a crash.
 */
import { z } from 'zod';
import { ContextOverflowError, ModelCallError, UnsupportedCapabilityError } from '../errors.js';
import {
  MODEL_SPECIFICATION_VERSION,
  candidateForToken,
  logSumExp,
  type CallOptions,
  type ChatRequest,
  type CompletionRequest,
  type CompletionResult,
  type ContinuationLogLikelihoodRequest,
  type ContinuationLogLikelihoodResult,
  type EmbeddingRequest,
  type EmbeddingResult,
  type LanguageModel,
  type ModelCapabilities,
  type NextTokenLogprobsRequest,
  type NextTokenLogprobsResult,
  type Usage,
} from './language-model.js';
import type { ModelKind, TokenScoresRequest, TokenScoresResult } from './model-kinds.js';

export interface OpenAICompatibleSettings {
  /** Base URLs ending in `/v1`; several = replicas of one deployment, load-balanced by the executor. */
  baseURLs: string[];
  model: string;
  /** The key itself (read from the environment variable the config names); never logged or cached. */
  apiKey?: string;
  /** Which endpoint answers `complete`: raw `/completions` (base models) or `/chat/completions`. */
  api: 'completions' | 'chat';
  /** Whether `/completions` accepts `echo: true` with prompt logprobs (vLLM does; OpenAI chat models do not). */
  echo: boolean;
  /** How many alternatives to request per position for next-token log-probabilities. */
  topLogprobs: number;
  /** Name used in the cache identity, e.g. `vllm`, `ollama`, `openai`. */
  flavor: string;
  concurrency: number;
}

const usageSchema = z
  .object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() })
  .nullish();

const completionsSchema = z.object({
  choices: z
    .array(
      z.object({
        text: z.string(),
        finish_reason: z.string().nullish(),
        logprobs: z
          .object({
            tokens: z.array(z.string()).optional(),
            token_logprobs: z.array(z.number().nullable()).optional(),
            top_logprobs: z.array(z.record(z.string(), z.number()).nullable()).nullish(),
            text_offset: z.array(z.number()).optional(),
          })
          .nullish(),
      }),
    )
    .min(1),
  usage: usageSchema,
});

const chatSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish() }),
        finish_reason: z.string().nullish(),
        logprobs: z
          .object({
            content: z
              .array(
                z.object({
                  token: z.string(),
                  logprob: z.number(),
                  top_logprobs: z.array(z.object({ token: z.string(), logprob: z.number() })).optional(),
                }),
              )
              .nullish(),
          })
          .nullish(),
      }),
    )
    .min(1),
  usage: usageSchema,
});

const embeddingsSchema = z.object({
  data: z.array(z.object({ embedding: z.array(z.number()), index: z.number().int() })).min(1),
  usage: z.object({ prompt_tokens: z.number().optional() }).nullish(),
});

const RETRYABLE_STATUS = new Set([408, 409, 425, 429]);

export class OpenAICompatibleProvider implements LanguageModel {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = 'openai-compatible';
  readonly modelId: string;
  readonly cacheIdentity: string;
  readonly capabilities: ModelCapabilities;
  /** A scoring model too when the server echoes prompt log-probabilities (vLLM). */
  readonly kinds: readonly ModelKind[];
  readonly endpoints: readonly string[];
  readonly defaultConcurrency: number;
  readonly #settings: OpenAICompatibleSettings;

  constructor(settings: OpenAICompatibleSettings) {
    this.#settings = settings;
    this.modelId = settings.model;
    this.endpoints = settings.baseURLs.map((u) => u.replace(/\/+$/, ''));
    this.defaultConcurrency = settings.concurrency;
    // The URL is transport, not identity: the same model behind another host gives the same answers.
    this.cacheIdentity = `openai-compatible:${settings.flavor}:${settings.model}:api=${settings.api}`;
    this.capabilities = {
      completion: true,
      chat: true,
      nextTokenLogprobs: true,
      continuationLogLikelihood: settings.echo && settings.api === 'completions',
      embeddings: true,
    };
    this.kinds = this.capabilities.continuationLogLikelihood ? ['text-generation', 'embedding', 'scoring'] : ['text-generation', 'embedding'];
  }

  async complete(request: CompletionRequest, options: CallOptions = {}): Promise<CompletionResult> {
    if (this.#settings.api === 'chat') {
      return this.chat({ messages: [{ role: 'user', content: request.prompt }], maxTokens: request.maxTokens, ...(request.stop ? { stop: request.stop } : {}) }, options);
    }
    const body = {
      model: this.#settings.model,
      prompt: request.prompt,
      max_tokens: request.maxTokens,
      temperature: 0,
      ...(request.stop && request.stop.length > 0 ? { stop: request.stop } : {}),
    };
    const json = await this.#post('/completions', body, completionsSchema, options);
    const choice = json.choices[0]!;
    return { text: choice.text, finishReason: finishReason(choice.finish_reason), usage: usageOf(json.usage) };
  }

  async chat(request: ChatRequest, options: CallOptions = {}): Promise<CompletionResult> {
    const body = {
      model: this.#settings.model,
      messages: request.messages,
      max_tokens: request.maxTokens,
      temperature: 0,
      ...(request.stop && request.stop.length > 0 ? { stop: request.stop } : {}),
    };
    const json = await this.#post('/chat/completions', body, chatSchema, options);
    const choice = json.choices[0]!;
    return { text: choice.message.content ?? '', finishReason: finishReason(choice.finish_reason), usage: usageOf(json.usage) };
  }

  async nextTokenLogprobs(request: NextTokenLogprobsRequest, options: CallOptions = {}): Promise<NextTokenLogprobsResult> {
    const top = this.#settings.topLogprobs;
    const alternatives: Array<[string, number]> = [];
    let usage: Usage;
    if (request.asChat || this.#settings.api === 'chat') {
      const body = {
        model: this.#settings.model,
        messages: [{ role: 'user', content: request.prompt }],
        max_tokens: 1,
        temperature: 0,
        logprobs: true,
        top_logprobs: top,
      };
      const json = await this.#post('/chat/completions', body, chatSchema, options);
      const first = json.choices[0]!.logprobs?.content?.[0];
      if (!first) throw this.#shapeError('/chat/completions', 'the response has no logprobs.content[0]; does this server support logprobs?');
      for (const t of first.top_logprobs ?? [{ token: first.token, logprob: first.logprob }]) alternatives.push([t.token, t.logprob]);
      usage = usageOf(json.usage);
    } else {
      const body = { model: this.#settings.model, prompt: request.prompt, max_tokens: 1, temperature: 0, logprobs: top };
      const json = await this.#post('/completions', body, completionsSchema, options);
      const first = json.choices[0]!.logprobs?.top_logprobs?.[0];
      if (!first) throw this.#shapeError('/completions', 'the response has no logprobs.top_logprobs[0]; does this server support logprobs?');
      for (const [token, lp] of Object.entries(first)) alternatives.push([token, lp]);
      usage = usageOf(json.usage);
    }
    const byCandidate = new Map<string, number[]>();
    for (const [token, lp] of alternatives) {
      const c = candidateForToken(token, request.candidates);
      if (c !== undefined) byCandidate.set(c, [...(byCandidate.get(c) ?? []), lp]);
    }
    const logprobs: Record<string, number | null> = {};
    for (const c of request.candidates) {
      const lps = byCandidate.get(c);
      logprobs[c] = lps ? logSumExp(lps) : null;
    }
    return { logprobs, usage };
  }

  async continuationLogLikelihood(
    request: ContinuationLogLikelihoodRequest,
    options: CallOptions = {},
  ): Promise<ContinuationLogLikelihoodResult> {
    if (!this.capabilities.continuationLogLikelihood) {
      throw new UnsupportedCapabilityError(
        `${this.modelId}: continuation log-likelihood needs /v1/completions with "echo": true, which this model is configured without.`,
        { hint: 'Use a vLLM or llama.cpp server (set "echo": true and "api": "completions" for the model in llmkb.config.json), or an in-process GGUF model.' },
      );
    }
    const full = request.context + request.continuation;
    const body = { model: this.#settings.model, prompt: full, max_tokens: 1, temperature: 0, echo: true, logprobs: 1 };
    const json = await this.#post('/completions', body, completionsSchema, options);
    const lp = json.choices[0]!.logprobs;
    if (!lp?.token_logprobs || !lp.text_offset || !lp.tokens) {
      throw this.#shapeError('/completions', 'echo response has no tokens/token_logprobs/text_offset; the server does not support echo');
    }
    let sum = 0;
    let count = 0;
    // Tokens that start inside the continuation and belong to the echoed prompt (not the 1 generated token).
    for (let i = 0; i < lp.tokens.length; i++) {
      const offset = lp.text_offset[i]!;
      if (offset < request.context.length || offset >= full.length) continue;
      const v = lp.token_logprobs[i];
      if (v === null || v === undefined) continue;
      sum += v;
      count += 1;
    }
    return { logLikelihood: sum, tokens: count, usage: usageOf(json.usage) };
  }

  /**
   * Per-token log-probabilities of the continuation from `/completions` with `echo: true,
   * logprobs: 1, max_tokens: 1` (vLLM returns the prompt's own token log-probabilities; the one
   * generated token is ignored). A continuation token is one whose text covers a character of the
   * continuation, so a token that straddles the join counts, as in the in-process scorer.
   */
  async scoreTokens(request: TokenScoresRequest, options: CallOptions = {}): Promise<TokenScoresResult> {
    if (!this.capabilities.continuationLogLikelihood) {
      throw new UnsupportedCapabilityError(`${this.modelId}: token scores need /v1/completions with "echo": true, which this model is configured without.`, {
        hint: 'Use a vLLM server (set "echo": true and "api": "completions" for the model in llmkb.config.json), or an in-process GGUF model.',
      });
    }
    const full = request.context + request.continuation;
    const body = { model: this.#settings.model, prompt: full, max_tokens: 1, temperature: 0, echo: true, logprobs: 1 };
    const json = await this.#post('/completions', body, completionsSchema, options);
    const lp = json.choices[0]!.logprobs;
    if (!lp?.token_logprobs || !lp.text_offset || !lp.tokens || lp.tokens.length !== lp.text_offset.length || lp.tokens.length !== lp.token_logprobs.length) {
      throw this.#shapeError('/completions', 'echo response has no matching tokens/token_logprobs/text_offset; the server does not support echo with prompt log-probabilities');
    }
    const tokens: string[] = [];
    const tokenLogprobs: number[] = [];
    // The echoed prompt's tokens are those that start inside it; the rest were generated.
    const promptTokenCount = lp.text_offset.filter((o) => o < full.length).length;
    for (let i = 0; i < promptTokenCount; i++) {
      const end = i + 1 < promptTokenCount ? lp.text_offset[i + 1]! : full.length;
      if (end <= request.context.length || lp.text_offset[i]! >= full.length) continue;
      const v = lp.token_logprobs[i];
      if (v === null || v === undefined) {
        // Only the very first prompt token has no log-probability (nothing before it).
        if (i === 0) continue;
        throw this.#shapeError('/completions', `prompt token ${i} has no log-probability`);
      }
      tokens.push(lp.tokens[i]!);
      tokenLogprobs.push(v);
    }
    if (tokens.length === 0 && request.continuation !== '') {
      throw this.#shapeError('/completions', 'the echo response has no log-probabilities for the continuation (llama.cpp server returns only generated tokens\' log-probabilities)');
    }
    return { tokens, tokenLogprobs, logLikelihood: tokenLogprobs.reduce((a, b) => a + b, 0), usage: usageOf(json.usage) };
  }

  async embed(request: EmbeddingRequest, options: CallOptions = {}): Promise<EmbeddingResult> {
    const json = await this.#post('/embeddings', { model: this.#settings.model, input: request.texts }, embeddingsSchema, options);
    const embeddings: number[][] = new Array(request.texts.length);
    for (const d of json.data) embeddings[d.index] = d.embedding;
    if (embeddings.some((e) => e === undefined) || json.data.length !== request.texts.length) {
      throw this.#shapeError('/embeddings', `expected ${request.texts.length} embeddings, got ${json.data.length}`);
    }
    const promptTokens = json.usage?.prompt_tokens ?? 0;
    return { embeddings, usage: { promptTokens, completionTokens: 0, evaluatedTokens: promptTokens } };
  }

  async close(): Promise<void> {}

  async #post<T>(path: string, body: unknown, schema: z.ZodType<T>, options: CallOptions): Promise<T> {
    const base = options.endpoint ?? this.endpoints[0]!;
    const url = base + path;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.#settings.apiKey) headers.authorization = `Bearer ${this.#settings.apiKey}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), ...(options.signal ? { signal: options.signal } : {}) });
      text = await response.text();
    } catch (error) {
      throw this.#transportError(url, base, error);
    }
    if (!response.ok) {
      // vLLM / OpenAI / llama.cpp wording for a prompt longer than the context window.
      if (response.status === 400 && /maximum context length|context length|context window|too many tokens|exceeds the (available )?context/i.test(text)) {
        throw new ContextOverflowError(`${url}: ${this.#redact(serverErrorMessage(text))}`);
      }
      throw this.#statusError(url, response, text);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ModelCallError(`${url} answered with a body that is not JSON: ${this.#redact(snippet(text))}`, {
        retryable: false,
        status: response.status,
        endpoint: base,
        hint: 'Is this an OpenAI-compatible server? The base URL must be the API root, usually ending in /v1.',
      });
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw this.#shapeError(path, `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'} in ${this.#redact(snippet(text))}`, base);
    }
    return result.data;
  }

  #transportError(url: string, base: string, error: unknown): Error {
    if (error instanceof Error && error.name === 'AbortError') return error;
    if (error instanceof Error && error.name === 'TimeoutError') {
      return new ModelCallError(`${url} did not answer in time`, { retryable: true, endpoint: base, cause: error });
    }
    const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
    const code = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
    return new ModelCallError(`cannot reach ${url}: ${code}`, {
      retryable: true,
      endpoint: base,
      hint: `Is the server running at ${base}? Check the base URL in the model spec or llmkb.config.json.`,
      cause: error,
    });
  }

  #statusError(url: string, response: Response, text: string): ModelCallError {
    const status = response.status;
    const retryable = RETRYABLE_STATUS.has(status) || status >= 500;
    const serverMessage = this.#redact(serverErrorMessage(text));
    let hint: string | undefined;
    if (status === 401 || status === 403) hint = 'Check the API key: set the environment variable named by "apiKeyEnv" for this model.';
    else if (status === 404) hint = `Check the model name ("${this.modelId}") and that the base URL ends in /v1.`;
    const retryAfterMs = parseRetryAfter(response.headers);
    return new ModelCallError(`${url} answered HTTP ${status}${serverMessage ? `: ${serverMessage}` : ''}`, {
      retryable,
      status,
      endpoint: url,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(hint === undefined ? {} : { hint }),
    });
  }

  #shapeError(path: string, detail: string, base?: string): ModelCallError {
    return new ModelCallError(`${base ?? this.endpoints[0]}${path} answered in an unexpected shape: ${detail}`, {
      retryable: false,
      hint: 'The server does not speak the OpenAI API shape llmkb expects for this call.',
    });
  }

  /** Keeps the API key out of every message, even if a server echoes it back. */
  #redact(text: string): string {
    const key = this.#settings.apiKey;
    return key && key.length >= 4 ? text.split(key).join('***') : text;
  }
}

function usageOf(usage: z.infer<typeof usageSchema>): Usage {
  const promptTokens = usage?.prompt_tokens ?? 0;
  const completionTokens = usage?.completion_tokens ?? 0;
  return { promptTokens, completionTokens, evaluatedTokens: promptTokens + completionTokens };
}

function finishReason(reason: string | null | undefined): CompletionResult['finishReason'] {
  return reason === 'stop' ? 'stop' : reason === 'length' ? 'length' : 'other';
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 200 ? `${flat.slice(0, 200)}…` : flat);
}

function serverErrorMessage(text: string): string {
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    if (typeof json.error === 'string') return json.error;
    if (json.error && typeof json.error.message === 'string') return json.error.message;
    if (typeof json.message === 'string') return json.message;
    if (typeof json.detail === 'string') return json.detail;
  } catch {
    // not JSON: fall through to the raw text
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** `Retry-After` in seconds or as an HTTP date, or OpenAI's `retry-after-ms`. */
export function parseRetryAfter(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
