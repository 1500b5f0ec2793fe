/**
 * Models behind any OpenAI-compatible server: vLLM, Ollama, llama.cpp server, hosted APIs.
 * The HTTP client is ./http-client.ts, the response shapes ./api-schemas.ts.
 */
import { UnsupportedCapabilityError } from '../../errors.js';
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
  type EmbeddingModel,
  type TextGenerationModel,
  type NextTokenLogprobsRequest,
  type NextTokenLogprobsResult,
  type Sampling,
  type Usage,
} from '../language-model.js';
import type { ModelKind, TokenScoresRequest, TokenScoresResult } from '../model-kinds.js';
import { chatSchema, completionsSchema, embeddingsSchema, finishReason, usageOf } from './api-schemas.js';
import { OpenAIHttpClient } from './http-client.js';
import { openAIServedIdentity } from '../served-identity.js';

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

/**
 * Greedy (`temperature: 0`) unless the request samples: then `temperature`, `top_p` and `seed`
 * (the OpenAI API, vLLM and llama.cpp server take `seed`; OpenAI calls it best effort, so a
 * server may give another text for the same seed).
 */
function samplingFields(sampling: Sampling | undefined): { temperature: number; top_p?: number; seed?: number } {
  return sampling === undefined ? { temperature: 0 } : { temperature: sampling.temperature, top_p: sampling.topP, seed: sampling.seed };
}

export class OpenAICompatibleModel implements TextGenerationModel, EmbeddingModel {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = 'openai-compatible';
  readonly modelId: string;
  readonly cacheIdentity: string;
  /** A scoring model too when the server echoes prompt log-probabilities (vLLM). */
  readonly kinds: readonly ModelKind[];
  /** `/completions` with `echo` gives prompt log-probabilities: continuation log-likelihood works. */
  readonly #echoLogprobs: boolean;
  readonly endpoints: readonly string[];
  readonly defaultConcurrency: number;
  readonly #settings: OpenAICompatibleSettings;
  readonly #http: OpenAIHttpClient;

  constructor(settings: OpenAICompatibleSettings) {
    this.#settings = settings;
    this.modelId = settings.model;
    this.endpoints = settings.baseURLs.map((u) => u.replace(/\/+$/, ''));
    this.defaultConcurrency = settings.concurrency;
    this.#http = new OpenAIHttpClient(this.endpoints, settings.model, settings.apiKey);
    // The URL is transport, not identity: the same model behind another host gives the same answers.
    this.cacheIdentity = `openai-compatible:${settings.flavor}:${settings.model}:api=${settings.api}`;
    this.#echoLogprobs = settings.echo && settings.api === 'completions';
    this.kinds = this.#echoLogprobs ? ['text-generation', 'embedding', 'scoring'] : ['text-generation', 'embedding'];
  }

  /** What the servers report about the model they serve (../served-identity.ts), for the call cache's key. */
  servedIdentity(): Promise<string | undefined> {
    return openAIServedIdentity(this.endpoints, this.#settings.model, this.#settings.flavor, this.#settings.apiKey);
  }

  async complete(request: CompletionRequest, options: CallOptions = {}): Promise<CompletionResult> {
    if (this.#settings.api === 'chat') {
      return this.chat(
        {
          messages: [{ role: 'user', content: request.prompt }],
          maxTokens: request.maxTokens,
          ...(request.stop ? { stop: request.stop } : {}),
          ...(request.sampling ? { sampling: request.sampling } : {}),
        },
        options,
      );
    }
    const body = {
      model: this.#settings.model,
      prompt: request.prompt,
      max_tokens: request.maxTokens,
      ...samplingFields(request.sampling),
      ...(request.stop && request.stop.length > 0 ? { stop: request.stop } : {}),
    };
    const json = await this.#http.post('/completions', body, completionsSchema, options);
    const choice = json.choices[0]!;
    return { text: choice.text, finishReason: finishReason(choice.finish_reason), usage: usageOf(json.usage) };
  }

  async chat(request: ChatRequest, options: CallOptions = {}): Promise<CompletionResult> {
    const body = {
      model: this.#settings.model,
      messages: request.messages,
      max_tokens: request.maxTokens,
      ...samplingFields(request.sampling),
      ...(request.stop && request.stop.length > 0 ? { stop: request.stop } : {}),
    };
    const json = await this.#http.post('/chat/completions', body, chatSchema, options);
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
      const json = await this.#http.post('/chat/completions', body, chatSchema, options);
      const first = json.choices[0]!.logprobs?.content?.[0];
      if (!first) throw this.#http.shapeError('/chat/completions', 'the response has no logprobs.content[0]; does this server support logprobs?');
      for (const t of first.top_logprobs ?? [{ token: first.token, logprob: first.logprob }]) alternatives.push([t.token, t.logprob]);
      usage = usageOf(json.usage);
    } else {
      const body = { model: this.#settings.model, prompt: request.prompt, max_tokens: 1, temperature: 0, logprobs: top };
      const json = await this.#http.post('/completions', body, completionsSchema, options);
      const first = json.choices[0]!.logprobs?.top_logprobs?.[0];
      if (!first) throw this.#http.shapeError('/completions', 'the response has no logprobs.top_logprobs[0]; does this server support logprobs?');
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

  async continuationLogLikelihood(request: ContinuationLogLikelihoodRequest, options: CallOptions = {}): Promise<ContinuationLogLikelihoodResult> {
    if (!this.#echoLogprobs) {
      throw new UnsupportedCapabilityError(
        `${this.modelId}: continuation log-likelihood needs /v1/completions with "echo": true, which this model is configured without.`,
        { hint: 'Use a vLLM or llama.cpp server (set "echo": true and "api": "completions" for the model in llmkb.config.json), or an in-process GGUF model.' },
      );
    }
    const full = request.context + request.continuation;
    const body = { model: this.#settings.model, prompt: full, max_tokens: 1, temperature: 0, echo: true, logprobs: 1 };
    const json = await this.#http.post('/completions', body, completionsSchema, options);
    const lp = json.choices[0]!.logprobs;
    if (!lp?.token_logprobs || !lp.text_offset || !lp.tokens) {
      throw this.#http.shapeError('/completions', 'echo response has no tokens/token_logprobs/text_offset; the server does not support echo');
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
    if (!this.#echoLogprobs) {
      throw new UnsupportedCapabilityError(`${this.modelId}: token scores need /v1/completions with "echo": true, which this model is configured without.`, {
        hint: 'Use a vLLM server (set "echo": true and "api": "completions" for the model in llmkb.config.json), or an in-process GGUF model.',
      });
    }
    const full = request.context + request.continuation;
    const body = { model: this.#settings.model, prompt: full, max_tokens: 1, temperature: 0, echo: true, logprobs: 1 };
    const json = await this.#http.post('/completions', body, completionsSchema, options);
    const lp = json.choices[0]!.logprobs;
    if (!lp?.token_logprobs || !lp.text_offset || !lp.tokens || lp.tokens.length !== lp.text_offset.length || lp.tokens.length !== lp.token_logprobs.length) {
      throw this.#http.shapeError(
        '/completions',
        'echo response has no matching tokens/token_logprobs/text_offset; the server does not support echo with prompt log-probabilities',
      );
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
        throw this.#http.shapeError('/completions', `prompt token ${i} has no log-probability`);
      }
      tokens.push(lp.tokens[i]!);
      tokenLogprobs.push(v);
    }
    if (tokens.length === 0 && request.continuation !== '') {
      throw this.#http.shapeError(
        '/completions',
        "the echo response has no log-probabilities for the continuation (llama.cpp server returns only generated tokens' log-probabilities)",
      );
    }
    return { tokens, tokenLogprobs, logLikelihood: tokenLogprobs.reduce((a, b) => a + b, 0), usage: usageOf(json.usage) };
  }

  async embed(request: EmbeddingRequest, options: CallOptions = {}): Promise<EmbeddingResult> {
    const json = await this.#http.post('/embeddings', { model: this.#settings.model, input: request.texts }, embeddingsSchema, options);
    const embeddings: number[][] = new Array(request.texts.length);
    for (const d of json.data) embeddings[d.index] = d.embedding;
    if (embeddings.some((e) => e === undefined) || json.data.length !== request.texts.length) {
      throw this.#http.shapeError('/embeddings', `expected ${request.texts.length} embeddings, got ${json.data.length}`);
    }
    const promptTokens = json.usage?.prompt_tokens ?? 0;
    return { embeddings, usage: { promptTokens, completionTokens: 0, evaluatedTokens: promptTokens } };
  }

  async close(): Promise<void> {}
}
