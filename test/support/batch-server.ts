/**
 * A loopback server speaking the OpenAI Batch API: `POST /v1/files` (multipart, purpose
 * "batch"), `POST /v1/batches`, `GET /v1/batches/{id}`, `GET /v1/files/{id}/content`, with the
 * shapes OpenAI documents (file and batch objects; output and error files of
 * `{id, custom_id, response: {status_code, request_id, body}, error}` lines). A batch goes
 * validating -> in_progress -> completed over a few polls, and a script can fail single
 * requests, let a batch expire part-way (`batch_expired` in the error file) or fail its
 * validation. Live, it answers `POST /v1/completions` with `echo: true` (prompt log-probabilities,
 * as vLLM does: what a scoring call of a batched role sends, which no batch carries), each word
 * a token at -1, and counts those calls; any other live request is a 404.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BatchScript {
  /** The assistant's reply to a chat body (or the text for a completions body). */
  reply: (body: Record<string, unknown>) => string;
  /** A request of batch `batchNo` (0-based) that fails: its status code in the error file. */
  failRequest?: (batchNo: number, line: number) => number | undefined;
  /** The error message of a failed request (default "scripted STATUS"). */
  failMessage?: (status: number) => string;
  /** Batch `batchNo` expires after this many requests are done. */
  expireAfter?: (batchNo: number) => number | undefined;
  /** Batch `batchNo` fails validation. */
  failValidation?: (batchNo: number) => boolean;
  /** Status polls a batch takes to finish (default 2). */
  polls?: number;
}

export interface BatchServer {
  baseURL: string;
  /** Uploaded input files, by file id. */
  files: Map<string, { filename: string; purpose: string; content: string }>;
  batches: Array<Record<string, unknown>>;
  /** Live `/v1/completions` calls with echo (scoring), by prompt. */
  echoed: string[];
  close(): Promise<void>;
}

export async function startBatchServer(script: BatchScript): Promise<BatchServer> {
  const files = new Map<string, { filename: string; purpose: string; content: string }>();
  const echoed: string[] = [];
  const batches: Array<Record<string, unknown> & { id: string; status: string; polls: number; lines: string[] }> = [];
  let fileNo = 0;
  const now = () => Math.floor(Date.now() / 1000);
  const send = (res: ServerResponse, status: number, json: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
  const publicBatch = (b: (typeof batches)[number]) => {
    const { polls: _p, lines: _l, ...rest } = b;
    return rest;
  };

  const finish = (b: (typeof batches)[number], batchNo: number) => {
    const input = b.lines;
    const expireAt = script.expireAfter?.(batchNo);
    const out: string[] = [];
    const err: string[] = [];
    input.forEach((line, i) => {
      const req = JSON.parse(line) as { custom_id: string; url: string; body: Record<string, unknown> };
      const id = `batch_req_${batchNo}_${i}`;
      if (expireAt !== undefined && i >= expireAt) {
        err.push(
          JSON.stringify({
            id,
            custom_id: req.custom_id,
            response: null,
            error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' },
          }),
        );
        return;
      }
      const failStatus = script.failRequest?.(batchNo, i);
      if (failStatus !== undefined) {
        err.push(
          JSON.stringify({
            id,
            custom_id: req.custom_id,
            response: {
              status_code: failStatus,
              request_id: `req_${i}`,
              body: {
                error: {
                  message: script.failMessage?.(failStatus) ?? `scripted ${failStatus}`,
                  type: failStatus < 500 ? 'invalid_request_error' : 'server_error',
                },
              },
            },
            error: null,
          }),
        );
        return;
      }
      const text = script.reply(req.body);
      const usage = { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 };
      const body =
        req.url === '/v1/chat/completions'
          ? {
              id: `chatcmpl-${i}`,
              object: 'chat.completion',
              created: now(),
              model: req.body.model,
              choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: 'stop' }],
              usage,
            }
          : {
              id: `cmpl-${i}`,
              object: 'text_completion',
              created: now(),
              model: req.body.model,
              choices: [{ index: 0, text, logprobs: null, finish_reason: 'stop' }],
              usage,
            };
      out.push(JSON.stringify({ id, custom_id: req.custom_id, response: { status_code: 200, request_id: `req_${i}`, body }, error: null }));
    });
    const store = (lines: string[]) => {
      if (lines.length === 0) return null;
      const fid = `file-out${++fileNo}`;
      files.set(fid, { filename: `${fid}.jsonl`, purpose: 'batch_output', content: `${lines.join('\n')}\n` });
      return fid;
    };
    b.output_file_id = store(out);
    b.error_file_id = store(err);
    b.status = expireAt !== undefined ? 'expired' : 'completed';
    b.request_counts = { total: input.length, completed: out.length, failed: err.length };
    b[expireAt !== undefined ? 'expired_at' : 'completed_at'] = now();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = req.url ?? '';
    if (req.method === 'POST' && url === '/v1/files') {
      const form = await new Response(raw, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
      const file = form.get('file');
      const purpose = String(form.get('purpose'));
      if (!(file instanceof Blob) || purpose !== 'batch')
        return void send(res, 400, { error: { message: 'file and purpose=batch required', type: 'invalid_request_error' } });
      const id = `file-in${++fileNo}`;
      const content = await file.text();
      files.set(id, { filename: (file as File).name, purpose, content });
      return void send(res, 200, { id, object: 'file', bytes: content.length, created_at: now(), filename: (file as File).name, purpose });
    }
    if (req.method === 'POST' && url === '/v1/batches') {
      const body = JSON.parse(raw.toString('utf8')) as { input_file_id: string; endpoint: string; completion_window: string };
      const input = files.get(body.input_file_id);
      if (!input) return void send(res, 404, { error: { message: 'No such File object', type: 'invalid_request_error' } });
      const lines = input.content.split('\n').filter((l) => l.trim());
      const batchNo = batches.length;
      const b = {
        id: `batch_${batchNo}`,
        object: 'batch',
        endpoint: body.endpoint,
        errors: null,
        input_file_id: body.input_file_id,
        completion_window: body.completion_window,
        status: 'validating',
        output_file_id: null,
        error_file_id: null,
        created_at: now(),
        request_counts: { total: lines.length, completed: 0, failed: 0 },
        metadata: null,
        polls: 0,
        lines,
      };
      batches.push(b);
      return void send(res, 200, publicBatch(b));
    }
    const get = /^\/v1\/batches\/([^/]+)$/.exec(url);
    if (req.method === 'GET' && get) {
      const batchNo = batches.findIndex((b) => b.id === get[1]);
      const b = batches[batchNo];
      if (!b) return void send(res, 404, { error: { message: 'No such batch', type: 'invalid_request_error' } });
      b.polls += 1;
      if (b.status === 'validating') {
        if (script.failValidation?.(batchNo)) {
          b.status = 'failed';
          b.errors = { object: 'list', data: [{ code: 'invalid_request', message: 'scripted: the input file is invalid', line: 1, param: null }] };
        } else b.status = 'in_progress';
      } else if (b.status === 'in_progress') {
        if (b.polls >= (script.polls ?? 2)) finish(b, batchNo);
        else b.request_counts = { total: b.lines.length, completed: Math.floor(b.lines.length / 2), failed: 0 };
      }
      return void send(res, 200, publicBatch(b));
    }
    if (req.method === 'POST' && url === '/v1/completions') {
      const body = JSON.parse(raw.toString('utf8')) as { prompt: string; echo?: boolean };
      if (!body.echo) return void send(res, 404, { error: { message: 'live completions only with echo (scoring)', type: 'invalid_request_error' } });
      echoed.push(body.prompt);
      const tokens = [...(body.prompt.match(/\s*\S+|\s+$/g) ?? []), ' x'];
      const textOffset: number[] = [];
      let at = 0;
      for (const t of tokens) {
        textOffset.push(at);
        at += t.length;
      }
      const logprobs = { tokens, token_logprobs: tokens.map((_, i) => (i === 0 ? null : -1)), text_offset: textOffset, top_logprobs: null };
      return void send(res, 200, {
        id: 'cmpl-live',
        object: 'text_completion',
        created: now(),
        choices: [{ index: 0, text: ' x', logprobs, finish_reason: 'length' }],
        usage: { prompt_tokens: tokens.length - 1, completion_tokens: 1, total_tokens: tokens.length },
      });
    }
    const content = /^\/v1\/files\/([^/]+)\/content$/.exec(url);
    if (req.method === 'GET' && content) {
      const f = files.get(content[1]!);
      if (!f) return void send(res, 404, { error: { message: 'No such File object', type: 'invalid_request_error' } });
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(f.content);
    }
    send(res, 404, { error: { message: `no route ${req.method} ${url}` } });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    files,
    batches,
    echoed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
