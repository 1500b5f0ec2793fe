/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI API shapes vLLM returns
 * (`/v1/completions` with logprobs and echo, `/v1/chat/completions` with logprobs,
 * `/v1/embeddings`), plus scripted faults: 429 with Retry-After, 500, slow answers, malformed
 * bodies. Tests start one per case on a random port and read what it received.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  body: Record<string, unknown>;
  authorization: string | undefined;
  at: number;
}

export type Fault = { kind: 'status'; status: number; body?: string; headers?: Record<string, string> } | { kind: 'malformed' } | { kind: 'delay'; ms: number };

export interface ServerScript {
  /** Text the model "generates" for a raw prompt (default: a deterministic function of it). */
  complete?: (prompt: string, body: Record<string, unknown>) => string;
  /** Text for the last user message of a chat. */
  chat?: (messages: Array<{ role: string; content: string }>) => string;
  /** Next-token distribution for logprob requests: token -> probability. */
  nextToken?: (prompt: string) => Record<string, number>;
  /** Faults for the Nth request (0-based, counted over all paths); return undefined for a normal answer. */
  fault?: (index: number, path: string) => Fault | undefined;
  /** Fixed delay before every answer. */
  delayMs?: number;
  /** Awaited before every answer: a test holds the answers until it has seen what it waits for. */
  hold?: () => Promise<void>;
  /** Embedding of one input text (default: [length, number of "a"s, 1]). */
  embed?: (text: string) => number[];
  /** Prompts for which the server answers 400 "maximum context length" as vLLM does. */
  contextLimit?: (prompt: string) => boolean;
  /** A model `/v1/models` lists with the checkpoint it loaded, as vLLM does (its `root`: the served identity). */
  served?: { id: string; root: string };
}

export interface TestServer {
  url: string;
  baseURL: string;
  requests: ReceivedRequest[];
  maxConcurrent: number;
  close(): Promise<void>;
}

/** Whitespace tokens with their character offsets: enough to give echo a real shape. */
function tokenizeWithOffsets(text: string): Array<{ token: string; offset: number }> {
  const out: Array<{ token: string; offset: number }> = [];
  const re = /\s*\S+/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) out.push({ token: m[0], offset: m.index });
  return out;
}

export function defaultCompletion(prompt: string): string {
  let h = 0;
  for (const ch of prompt) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return ` answer-${h.toString(16)}`;
}

function applyStop(text: string, stop: unknown): { text: string; finish: string } {
  if (!Array.isArray(stop)) return { text, finish: 'length' };
  let cut = -1;
  for (const s of stop as string[]) {
    const i = text.indexOf(s);
    if (i !== -1 && (cut === -1 || i < cut)) cut = i;
  }
  return cut === -1 ? { text, finish: 'length' } : { text: text.slice(0, cut), finish: 'stop' };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** `port`: where to listen (default: a free port). */
export async function startOpenAICompatibleServer(script: ServerScript = {}, options: { port?: number } = {}): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  let active = 0;
  const state = { maxConcurrent: 0 };
  let counter = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const path = (req.url ?? '').replace(/^\/v1/, '');
    // GET /v1/models (a health check; the executor's question about the served model): answered
    // as vLLM lists a model, without a `root` (no identity reported) unless the script gives
    // `served`; not a call, not counted.
    if (req.method === 'GET') {
      const listed = script.served
        ? { id: script.served.id, object: 'model', created: 0, owned_by: 'llmkb-tests', root: script.served.root }
        : { id: 'test-model', object: 'model', created: 0, owned_by: 'llmkb-tests' };
      if (path === '/models') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [listed] }));
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    const index = counter++;
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'error', message: 'invalid JSON body', type: 'BadRequestError', code: 400 }));
      return;
    }
    requests.push({ path, body, authorization: req.headers.authorization, at: Date.now() });
    if (script.delayMs) await new Promise((r) => setTimeout(r, script.delayMs));
    await script.hold?.();
    const fault = script.fault?.(index, path);
    if (fault?.kind === 'delay') await new Promise((r) => setTimeout(r, fault.ms));
    if (fault?.kind === 'status') {
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      res.end(fault.body ?? JSON.stringify({ object: 'error', message: `scripted ${fault.status}`, type: 'ScriptedError', code: fault.status }));
      return;
    }
    if (fault?.kind === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "cmpl-1", "choices": [ {"text": "trunc');
      return;
    }
    const created = Math.floor(Date.now() / 1000);
    const model = String(body.model ?? 'test-model');
    let json: unknown;
    if (path === '/completions' && script.contextLimit?.(String(body.prompt ?? ''))) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'error',
          type: 'BadRequestError',
          param: null,
          code: 400,
          message:
            "This model's maximum context length is 2048 tokens. However, you requested 2148 tokens (2048 in the messages, 100 in the completion). Please reduce the length of the messages or completion.",
        }),
      );
      return;
    }
    if (path === '/completions') {
      const prompt = String(body.prompt ?? '');
      const logprobs = typeof body.logprobs === 'number' ? body.logprobs : null;
      if (body.echo === true) {
        const toks = tokenizeWithOffsets(prompt);
        json = {
          id: `cmpl-${index}`,
          object: 'text_completion',
          created,
          model,
          choices: [
            {
              index: 0,
              text: `${prompt} x`,
              finish_reason: 'length',
              stop_reason: null,
              logprobs: {
                tokens: [...toks.map((t) => t.token), ' x'],
                token_logprobs: [null, ...toks.slice(1).map((t) => -0.5 * t.token.trim().length), -1],
                top_logprobs: null,
                text_offset: [...toks.map((t) => t.offset), prompt.length],
              },
            },
          ],
          usage: { prompt_tokens: toks.length, completion_tokens: 1, total_tokens: toks.length + 1 },
        };
      } else if (logprobs !== null && script.nextToken) {
        const dist = script.nextToken(prompt);
        const top = Object.fromEntries(
          Object.entries(dist)
            .sort((a, b) => b[1] - a[1])
            .slice(0, logprobs)
            .map(([t, p]) => [t, Math.log(p)]),
        );
        const best = Object.keys(top)[0] ?? '';
        json = {
          id: `cmpl-${index}`,
          object: 'text_completion',
          created,
          model,
          choices: [
            {
              index: 0,
              text: best,
              finish_reason: 'length',
              stop_reason: null,
              logprobs: { tokens: [best], token_logprobs: [top[best] ?? 0], top_logprobs: [top], text_offset: [prompt.length] },
            },
          ],
          usage: { prompt_tokens: tokenizeWithOffsets(prompt).length, completion_tokens: 1, total_tokens: tokenizeWithOffsets(prompt).length + 1 },
        };
      } else {
        const full = (script.complete ?? defaultCompletion)(prompt, body);
        const stopped = applyStop(full, body.stop);
        // As a server does: generation ends at max_tokens (here a token is a word with its leading space).
        const maxTokens = Number(body.max_tokens ?? 16);
        const words = tokenizeWithOffsets(stopped.text);
        const text = words.length > maxTokens ? stopped.text.slice(0, words[maxTokens]!.offset) : stopped.text;
        const finish = words.length > maxTokens ? 'length' : stopped.finish;
        const completionTokens = Math.min(words.length, maxTokens);
        json = {
          id: `cmpl-${index}`,
          object: 'text_completion',
          created,
          model,
          choices: [{ index: 0, text, logprobs: null, finish_reason: finish, stop_reason: null, prompt_logprobs: null }],
          usage: { prompt_tokens: tokenizeWithOffsets(prompt).length, total_tokens: 0, completion_tokens: completionTokens },
        };
      }
    } else if (path === '/chat/completions') {
      const messages = (body.messages ?? []) as Array<{ role: string; content: string }>;
      const last = messages[messages.length - 1]?.content ?? '';
      let logprobsBlock: unknown = null;
      let content: string;
      if (body.logprobs === true && script.nextToken) {
        const dist = Object.entries(script.nextToken(last)).sort((a, b) => b[1] - a[1]);
        const top = dist.slice(0, Number(body.top_logprobs ?? 1)).map(([token, p]) => ({ token, logprob: Math.log(p), bytes: [...Buffer.from(token)] }));
        content = top[0]?.token ?? '';
        logprobsBlock = { content: [{ token: content, logprob: top[0]?.logprob ?? 0, bytes: [...Buffer.from(content)], top_logprobs: top }] };
      } else {
        content = applyStop((script.chat ?? ((m) => defaultCompletion(m[m.length - 1]?.content ?? '')))(messages), body.stop).text;
      }
      json = {
        id: `chatcmpl-${index}`,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content, tool_calls: [] }, logprobs: logprobsBlock, finish_reason: 'stop', stop_reason: null }],
        usage: { prompt_tokens: tokenizeWithOffsets(last).length, total_tokens: 0, completion_tokens: 1 },
      };
    } else if (path === '/embeddings') {
      const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
      json = {
        id: `embd-${index}`,
        object: 'list',
        created,
        model,
        data: input.map((text, i) => ({
          index: i,
          object: 'embedding',
          embedding: script.embed ? script.embed(text) : [text.length, (text.match(/a/g) ?? []).length, 1],
        })),
        usage: { prompt_tokens: input.length, total_tokens: input.length, completion_tokens: 0 },
      };
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Not Found' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(json));
  };

  const server: Server = createServer((req, res) => {
    active += 1;
    state.maxConcurrent = Math.max(state.maxConcurrent, active);
    res.on('close', () => {
      active -= 1;
    });
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    get maxConcurrent() {
      return state.maxConcurrent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
