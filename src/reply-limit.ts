/**
 * A cap on the size of a server's answer: every HTTP client that reads a model server's or a
 * search cluster's reply (OpenAI-compatible servers, TEI, vLLM's pooling endpoints, OpenSearch)
 * stops reading once the body passes it and fails, instead of buffering whatever a server sends
 * (a broken or hostile one may send gigabytes). The default fits any answer of the APIs llmkb
 * calls with room to spare; `LLMKB_MAX_REPLY_MB` raises or lowers it (docs/configuration.md).
 */
import { ConfigError, ModelCallError } from './errors.js';

export const DEFAULT_MAX_REPLY_MB = 64;
export const MAX_REPLY_ENV = 'LLMKB_MAX_REPLY_MB';

/** The cap in bytes, from `LLMKB_MAX_REPLY_MB` (megabytes, a positive number) or the default; any other value is refused (exit 2). */
export function maxReplyBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[MAX_REPLY_ENV];
  if (raw === undefined || raw.trim() === '') return DEFAULT_MAX_REPLY_MB * 1024 * 1024;
  const mb = Number(raw);
  if (!Number.isFinite(mb) || mb <= 0)
    throw new ConfigError(`${MAX_REPLY_ENV}="${raw}" is not a positive number of megabytes`, {
      hint: `Set ${MAX_REPLY_ENV} to the largest reply body to read, in megabytes (e.g. ${MAX_REPLY_ENV}=256), or unset it for the default of ${DEFAULT_MAX_REPLY_MB}.`,
    });
  return Math.floor(mb * 1024 * 1024);
}

/** The error for a reply over the cap: which limit, and how to raise it. Not retried (the next answer would be as large). */
export function replyTooLarge(where: string, limit: number, endpoint?: string): ModelCallError {
  const mb = limit / (1024 * 1024);
  return new ModelCallError(
    `${where} answered with a body larger than ${Number.isInteger(mb) ? mb : mb.toFixed(2)} MB, the limit on a reply's size; llmkb stopped reading it`,
    {
      retryable: false,
      ...(endpoint === undefined ? {} : { endpoint }),
      hint: `If answers this large are expected, raise the limit: ${MAX_REPLY_ENV}=${Math.max(DEFAULT_MAX_REPLY_MB, Math.ceil(mb)) * 4} (megabytes; the default is ${DEFAULT_MAX_REPLY_MB}). Otherwise check that the URL is the server's API.`,
    },
  );
}

/** The text of a fetch `Response`'s body, read chunk by chunk and abandoned once it passes `limit` bytes. */
export async function readLimitedText(response: Response, limit: number, where: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw replyTooLarge(where, limit);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw replyTooLarge(where, limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
