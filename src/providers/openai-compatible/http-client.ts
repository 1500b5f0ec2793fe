/**
 * HTTP for OpenAI-compatible servers: one POST of a JSON body, the answer validated against a
 * schema, and every failure turned into a `ModelCallError` that says whether a retry can help
 * (the executor decides whether to retry; this client never does). The API key goes only into
 * the Authorization header and is redacted from every message, even one a server echoes back.
 *
 * Plain HTTP (`postJson`, node:http with kept-alive connections) rather than the `openai` SDK: the executor already owns retries, time-outs and
 * concurrency (the SDK would add a second, conflicting layer of each), and we need fields the SDK
 * does not type for legacy completions (`echo`, `text_offset`).
 */
import type { z } from 'zod';
import { ContextOverflowError, ModelCallError } from '../../errors.js';
import type { CallOptions } from '../language-model.js';
import type { IncomingHttpHeaders } from 'node:http';
import { postJson, toHeaders } from './http-post.js';

const RETRYABLE_STATUS = new Set([408, 409, 425, 429]);

export class OpenAIHttpClient {
  readonly #endpoints: readonly string[];
  readonly #modelId: string;
  readonly #apiKey: string | undefined;

  /** `endpoints`: base URLs ending in /v1 (the first is used when a call names none). */
  constructor(endpoints: readonly string[], modelId: string, apiKey: string | undefined) {
    this.#endpoints = endpoints;
    this.#modelId = modelId;
    this.#apiKey = apiKey;
  }

  async post<T>(path: string, body: unknown, schema: z.ZodType<T>, options: CallOptions): Promise<T> {
    const base = options.endpoint ?? this.#endpoints[0]!;
    const url = base + path;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    let response: { status: number; headers: IncomingHttpHeaders };
    let text: string;
    try {
      ({ text, ...response } = await postJson(url, headers, JSON.stringify(body), options.signal));
    } catch (error) {
      throw this.#transportError(url, base, error);
    }
    if (response.status < 200 || response.status > 299) {
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
      throw this.shapeError(path, `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'} in ${this.#redact(snippet(text))}`, base);
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

  #statusError(url: string, response: { status: number; headers: IncomingHttpHeaders }, text: string): ModelCallError {
    const status = response.status;
    const retryable = RETRYABLE_STATUS.has(status) || status >= 500;
    const serverMessage = this.#redact(serverErrorMessage(text));
    let hint: string | undefined;
    if (status === 401 || status === 403) hint = 'Check the API key: set the environment variable named by "apiKeyEnv" for this model.';
    else if (status === 404) hint = `Check the model name ("${this.#modelId}") and that the base URL ends in /v1.`;
    const retryAfterMs = parseRetryAfter(toHeaders(response.headers));
    return new ModelCallError(`${url} answered HTTP ${status}${serverMessage ? `: ${serverMessage}` : ''}`, {
      retryable,
      status,
      endpoint: url,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(hint === undefined ? {} : { hint }),
    });
  }

  shapeError(path: string, detail: string, base?: string): ModelCallError {
    return new ModelCallError(`${base ?? this.#endpoints[0]}${path} answered in an unexpected shape: ${detail}`, {
      retryable: false,
      hint: 'The server does not speak the OpenAI API shape llmkb expects for this call.',
    });
  }

  /** Keeps the API key out of every message, even if a server echoes it back. */
  #redact(text: string): string {
    const key = this.#apiKey;
    return key && key.length >= 4 ? text.split(key).join('***') : text;
  }
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
