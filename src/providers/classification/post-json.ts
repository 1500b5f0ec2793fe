/**
 * One JSON POST to a scorer server (TEI, vLLM's pooling endpoints): the shared request of
 * ../openai-compatible/http-client.ts (`requestJson`: kept-alive node:http, errors the executor
 * can act on, API key redacted) with these servers' policy: 408/409/424/425/429 and 5xx are
 * retryable (424 is TEI's "backend" error, e.g. out of memory under load: transient), and their
 * wordings of an over-long input are context overflows.
 */
import type { z } from 'zod';
import { ModelCallError } from '../../errors.js';
import type { CallOptions } from '../language-model.js';
import { requestJson, type JsonPostPolicy } from '../openai-compatible/http-client.js';
import { toHeaders } from '../openai-compatible/http-post.js';

const RETRYABLE_STATUS = new Set([408, 409, 424, 425, 429]);
const SHAPE_HINT = 'Check that the spec names the right kind of server (tei:, vllm-score:, ...) and that it serves a model of the configured task.';

export interface PostJsonOptions {
  apiKey?: string | undefined;
  /** Added to a 404's hint: what the URL should look like. */
  notFoundHint?: string;
}

export async function postJson<T>(
  base: string,
  path: string,
  body: unknown,
  schema: z.ZodType<T>,
  options: CallOptions,
  settings: PostJsonOptions = {},
): Promise<{ json: T; headers: Headers }> {
  const policy: JsonPostPolicy = {
    apiKey: settings.apiKey,
    retryableStatus: RETRYABLE_STATUS,
    isContextOverflow: (status, _text, message) =>
      (status === 400 || status === 413 || status === 422) &&
      /maximum context length|max_model_len|too long|input validation error.*tokens|must have less than/i.test(message),
    unreachableHint: (root) => `Is the server running at ${root}? Check the URL in the model spec.`,
    notFoundHint: settings.notFoundHint,
    shapeHint: SHAPE_HINT,
  };
  const { json, headers } = await requestJson(base, path, body, schema, options, policy);
  return { json, headers: toHeaders(headers) };
}

export function shapeError(url: string, detail: string): ModelCallError {
  return new ModelCallError(`${url} answered in an unexpected shape: ${detail}`, { retryable: false, hint: SHAPE_HINT });
}
