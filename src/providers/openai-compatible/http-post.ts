/**
 * One HTTP(S) POST of a JSON body over kept-alive connections, with `node:http` rather than
 * `fetch`. At paper scale the client's own CPU is what limits throughput on a small machine, and
 * `fetch` spends most of it on WHATWG streams (a readable stream per request and per response
 * body, each made transferable, plus the garbage they leave); `node:http` makes the same calls
 * with less CPU (bench/README.md). What matters here of `fetch` is kept: connections are reused (one pool per
 * process, unbounded: the executor bounds concurrency), the body is sent with a Content-Length,
 * an abort signal cancels the request with the signal's reason (a `TimeoutError` stays one),
 * and transport failures keep their code (ECONNREFUSED...) in `cause`. Redirects are not
 * followed (an API root never redirects a POST). A reply's body is read up to a cap
 * (../../reply-limit.ts), never buffered whole past it.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { LlmkbError } from '../../errors.js';
import { maxReplyBytes, replyTooLarge } from '../../reply-limit.js';

/**
 * Idle connections are closed after this long, below the keep-alive time-out of the usual
 * servers (uvicorn, so vLLM: 5 s), so a request is rarely sent on a connection the server is
 * just closing; when it is, it is sent again once on a new connection (see `postJson`).
 */
const IDLE_SOCKET_MS = 4_000;

const httpAgent = new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
const httpsAgent = new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS });

export interface PostResult {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** A transport failure, shaped like fetch's (`TypeError('fetch failed')` with the system error as `cause`). */
function transportFailure(error: unknown): Error {
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) return error;
  if (error instanceof LlmkbError) return error;
  const e = error as { code?: string; message?: string };
  return new Error(`request failed: ${e.code ?? e.message ?? String(error)}`, { cause: error });
}

function once(url: URL, headers: Record<string, string>, body: Buffer, signal: AbortSignal | undefined): Promise<PostResult & { reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const limit = maxReplyBytes();
    const https = url.protocol === 'https:';
    const req = (https ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      agent: https ? httpsAgent : httpAgent,
      headers: { ...headers, 'content-length': String(body.length) },
    });
    let settled = false;
    let answered = false;
    const onAbort = (): void => {
      req.destroy(signal!.reason instanceof Error ? signal!.reason : new Error(String(signal!.reason)));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (error: unknown, result?: PostResult): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      if (error === undefined) resolve({ ...result!, reusedSocket: req.reusedSocket });
      else reject(Object.assign(error as object, { reusedSocket: req.reusedSocket, answered }));
    };
    // The agent's idle time-out also reaches a request's socket: a slow answer is the executor's
    // time-out to decide (its signal), not this one.
    req.on('timeout', () => undefined);
    req.on('error', (error) => finish(error));
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      // The body is read up to the cap (../../reply-limit.ts): past it, the connection is dropped.
      const tooLarge = (): void => {
        finish(replyTooLarge(url.href, limit, url.origin));
        res.destroy();
        req.destroy();
      };
      if (Number(res.headers['content-length']) > limit) return tooLarge();
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) tooLarge();
        else chunks.push(chunk);
      });
      res.on('error', (error) => finish(error));
      res.on('aborted', () => finish(new Error('the server closed the connection before the answer was complete')));
      res.on('end', () => finish(undefined, { status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.end(body);
  });
}

/**
 * POSTs `body` (JSON text) to `url`. Resolves with the status, headers and body text of any
 * answer (also 4xx/5xx); rejects on transport failures and on abort (with the signal's reason).
 */
export async function postJson(url: string, headers: Record<string, string>, body: string, signal?: AbortSignal): Promise<PostResult> {
  const target = new URL(url);
  const bytes = Buffer.from(body, 'utf8');
  try {
    return await once(target, headers, bytes, signal);
  } catch (error) {
    // A kept-alive connection the server closed while it was idle fails before any answer
    // (Node's documented case for `request.reusedSocket`): the request is sent once more, on a
    // new connection. A failure after an answer began is never repeated here.
    const e = error as { reusedSocket?: boolean; answered?: boolean; code?: string };
    if (e.reusedSocket && !e.answered && (e.code === 'ECONNRESET' || e.code === 'EPIPE') && !signal?.aborted) {
      try {
        return await once(target, headers, bytes, signal);
      } catch (again) {
        throw transportFailure(again);
      }
    }
    throw transportFailure(error);
  }
}

/** The answer's headers as a WHATWG `Headers` (for `parseRetryAfter`). */
export function toHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  }
  return out;
}
