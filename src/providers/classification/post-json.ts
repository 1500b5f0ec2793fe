/**
 * One JSON POST to a scorer server (TEI, vLLM's pooling endpoints), with the error handling the
 * executor relies on: transient failures (connection refused, 408/409/424/425/429, 5xx) are
 * retryable ModelCallErrors carrying Retry-After; everything else is not; a body in the wrong
 * shape is a clear, non-retryable error. Never logs or returns the API key.
 */
import type { z } from 'zod';
import { ContextOverflowError, ModelCallError } from '../../errors.js';
import type { CallOptions } from '../language-model.js';
import { parseRetryAfter } from '../openai-compatible/http-client.js';

// 424: TEI's "backend" error (the model failed on a batch, e.g. out of memory under load): transient.
const RETRYABLE_STATUS = new Set([408, 409, 424, 425, 429]);

export interface PostJsonOptions {
  apiKey?: string | undefined;
  /** Added to a 404's hint: what the URL should look like. */
  notFoundHint?: string;
}

export async function postJson<T>(base: string, path: string, body: unknown, schema: z.ZodType<T>, options: CallOptions, settings: PostJsonOptions = {}): Promise<{ json: T; headers: Headers }> {
  const url = base + path;
  const redact = (text: string): string => (settings.apiKey && settings.apiKey.length >= 4 ? text.split(settings.apiKey).join('***') : text);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), ...(options.signal ? { signal: options.signal } : {}) });
    text = await response.text();
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') throw error;
    if (error instanceof Error && error.name === 'TimeoutError') throw new ModelCallError(`${url} did not answer in time`, { retryable: true, endpoint: base, cause: error });
    const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
    const code = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
    throw new ModelCallError(`cannot reach ${url}: ${code}`, { retryable: true, endpoint: base, hint: `Is the server running at ${base}? Check the URL in the model spec.`, cause: error });
  }
  if (!response.ok) {
    const status = response.status;
    const message = redact(errorMessage(text));
    if ((status === 400 || status === 413 || status === 422) && /maximum context length|max_model_len|too long|input validation error.*tokens|must have less than/i.test(message)) {
      throw new ContextOverflowError(`${url}: ${message}`);
    }
    const retryAfterMs = parseRetryAfter(response.headers);
    let hint: string | undefined;
    if (status === 401 || status === 403) hint = 'Check the API key: set the environment variable named by "apiKeyEnv" for this model.';
    else if (status === 404) hint = settings.notFoundHint;
    throw new ModelCallError(`${url} answered HTTP ${status}${message ? `: ${message}` : ''}`, {
      retryable: RETRYABLE_STATUS.has(status) || status >= 500,
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
    throw new ModelCallError(`${url} answered with a body that is not JSON: ${redact(snippet(text))}`, { retryable: false, status: response.status, endpoint: base });
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw shapeError(url, `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'} in ${redact(snippet(text))}`);
  }
  return { json: result.data, headers: response.headers };
}

export function shapeError(url: string, detail: string): ModelCallError {
  return new ModelCallError(`${url} answered in an unexpected shape: ${detail}`, { retryable: false, hint: 'Check that the spec names the right kind of server (tei:, vllm-score:, ...) and that it serves a model of the configured task.' });
}

/** TEI: `{"error": "...", "error_type": "..."}`; vLLM: `{"message": ...}` or `{"error": {"message": ...}}`; FastAPI: `{"detail": ...}`. */
function errorMessage(text: string): string {
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    if (typeof json.error === 'string') return json.error;
    if (json.error && typeof json.error.message === 'string') return json.error.message;
    if (typeof json.message === 'string') return json.message;
    if (typeof json.detail === 'string') return json.detail;
    if (json.detail !== undefined) return JSON.stringify(json.detail).slice(0, 300);
  } catch {
    // not JSON: the raw text
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 200 ? `${flat.slice(0, 200)}…` : flat);
}
