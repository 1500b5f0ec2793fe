/**
 * HTTP for OpenAI-compatible servers: one POST of a JSON body, the answer validated against a
 * schema, and every failure turned into a `ModelCallError` that says whether a retry can help
 * (the executor decides whether to retry; this client never does). The API key goes only into
 * the Authorization header and is registered as a secret (../../secrets.ts), so no message holds
 * it, even one a server echoes back.
 *
 * Plain HTTP (`postJson`, node:http with kept-alive connections) rather than the `openai` SDK: the executor already owns retries, time-outs and
 * concurrency (the SDK would add a second, conflicting layer of each), and we need fields the SDK
 * does not type for legacy completions (`echo`, `text_offset`).
 */
import type { z } from 'zod';
import { ContextOverflowError, LlmkbError, ModelCallError } from '../../errors.js';
import { authorizationValue } from '../../secrets.js';
import type { CallOptions } from '../language-model.js';
import type { IncomingHttpHeaders } from 'node:http';
import { postJson, toHeaders } from './http-post.js';

/**
 * What differs between the servers llmkb posts JSON to (OpenAI-compatible APIs here, TEI and
 * vLLM's pooling endpoints in ../classification/post-json.ts); the rest of `requestJson` is shared.
 */
export interface JsonPostPolicy {
  /** The API key (sent as `Bearer KEY`), or a whole Authorization value (`Basic …`, `Bearer …`) sent as it is. */
  apiKey?: string | undefined;
  /** Statuses besides 5xx that a retry can help. */
  retryableStatus: ReadonlySet<number>;
  /** Whether a failed answer says the input was longer than the model's window (`message`: the server's own). */
  isContextOverflow(status: number, text: string, message: string): boolean;
  /** Hint when the server cannot be reached (`base`: the endpoint). */
  unreachableHint(base: string): string;
  notFoundHint?: string | undefined;
  notJsonHint?: string | undefined;
  shapeHint: string;
}

/**
 * POSTs `body` to `base + path` and returns the answer validated by `schema`; every failure is a
 * `ModelCallError` saying whether a retry can help (transport failures, 5xx and the policy's
 * statuses, with Retry-After), or a `ContextOverflowError`. The API key goes only into the
 * Authorization header; error messages are redacted where they are made (`LlmkbError`).
 */
export async function requestJson<T>(
  base: string,
  path: string,
  body: unknown,
  schema: z.ZodType<T>,
  options: CallOptions,
  policy: JsonPostPolicy,
): Promise<{ json: T; headers: IncomingHttpHeaders }> {
  const url = base + path;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (policy.apiKey) headers.authorization = authorizationValue(policy.apiKey, 'Bearer');
  let response: { status: number; headers: IncomingHttpHeaders };
  let text: string;
  try {
    ({ text, ...response } = await postJson(url, headers, JSON.stringify(body), options.signal));
  } catch (error) {
    throw transportError(url, base, error, policy);
  }
  if (response.status < 200 || response.status > 299) {
    const status = response.status;
    const message = serverErrorMessage(text);
    if (policy.isContextOverflow(status, text, message)) throw new ContextOverflowError(`${url}: ${message}`);
    let hint: string | undefined;
    if (status === 401 || status === 403) hint = 'Check the API key: set the environment variable named by "apiKeyEnv" for this model.';
    else if (status === 404) hint = policy.notFoundHint;
    const retryAfterMs = parseRetryAfter(toHeaders(response.headers));
    throw new ModelCallError(`${url} answered HTTP ${status}${message ? `: ${message}` : ''}`, {
      retryable: policy.retryableStatus.has(status) || status >= 500,
      status,
      endpoint: url,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(hint === undefined ? {} : { hint }),
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ModelCallError(`${url} answered with a body that is not JSON: ${snippet(text)}`, {
      retryable: false,
      status: response.status,
      endpoint: base,
      ...(policy.notJsonHint === undefined ? {} : { hint: policy.notJsonHint }),
    });
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ModelCallError(
      `${url} answered in an unexpected shape: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'} in ${snippet(text)}`,
      { retryable: false, hint: policy.shapeHint },
    );
  }
  return { json: result.data, headers: response.headers };
}

function transportError(url: string, base: string, error: unknown, policy: JsonPostPolicy): Error {
  if (error instanceof Error && error.name === 'AbortError') return error;
  // A reply over the size cap: the error says which limit and how to raise it.
  if (error instanceof LlmkbError) return error;
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new ModelCallError(`${url} did not answer in time`, { retryable: true, endpoint: base, cause: error });
  }
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  const code = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new ModelCallError(`cannot reach ${url}: ${code}`, { retryable: true, endpoint: base, hint: policy.unreachableHint(base), cause: error });
}

const OPENAI_SHAPE_HINT = 'The server does not speak the OpenAI API shape llmkb expects for this call.';

/** A 400 with vLLM's, OpenAI's or llama.cpp's wording for a prompt longer than the context window (also in a Batch API error file). */
export function isOpenAIContextOverflow(status: number | undefined, text: string): boolean {
  return status === 400 && /maximum context length|context length|context window|too many tokens|exceeds the (available )?context/i.test(text);
}

export class OpenAIHttpClient {
  readonly #endpoints: readonly string[];
  readonly #policy: JsonPostPolicy;

  /** `endpoints`: base URLs ending in /v1 (the first is used when a call names none). */
  constructor(endpoints: readonly string[], modelId: string, apiKey: string | undefined) {
    this.#endpoints = endpoints;
    this.#policy = {
      apiKey,
      retryableStatus: new Set([408, 409, 425, 429]),
      isContextOverflow: isOpenAIContextOverflow,
      unreachableHint: (base) => `Is the server running at ${base}? Check the base URL in the model spec or llmkb.config.json.`,
      notFoundHint: `Check the model name ("${modelId}") and that the base URL ends in /v1.`,
      notJsonHint: 'Is this an OpenAI-compatible server? The base URL must be the API root, usually ending in /v1.',
      shapeHint: OPENAI_SHAPE_HINT,
    };
  }

  async post<T>(path: string, body: unknown, schema: z.ZodType<T>, options: CallOptions): Promise<T> {
    return (await requestJson(options.endpoint ?? this.#endpoints[0]!, path, body, schema, options, this.#policy)).json;
  }

  shapeError(path: string, detail: string, base?: string): ModelCallError {
    return new ModelCallError(`${base ?? this.#endpoints[0]}${path} answered in an unexpected shape: ${detail}`, { retryable: false, hint: OPENAI_SHAPE_HINT });
  }
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 200 ? `${flat.slice(0, 200)}…` : flat);
}

/** OpenAI / vLLM: `{"error": {"message": ...}}` or `{"message": ...}`; TEI: `{"error": "...", "error_type": "..."}`; FastAPI: `{"detail": ...}`. */
function serverErrorMessage(text: string): string {
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    if (typeof json.error === 'string') return json.error;
    if (json.error && typeof json.error.message === 'string') return json.error.message;
    if (typeof json.message === 'string') return json.message;
    if (typeof json.detail === 'string') return json.detail;
    if (json.detail !== undefined) return JSON.stringify(json.detail).slice(0, 300);
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
