/**
 * A real HTTP server on 127.0.0.1 speaking the scorer APIs llmkb's classification backends call,
 * in the servers' own request/response shapes:
 *
 * - Text Embeddings Inference (router/src/http/types.rs, server.rs): `POST /rerank`
 *   `{query, texts, raw_scores, return_text, truncate}` -> `[{index, score}]` sorted by score,
 *   highest first; `POST /predict` `{inputs: [[a, b], ...], raw_scores, truncate}` ->
 *   `[[{label, score}, ...], ...]`, each list sorted by score; without raw_scores TEI applies
 *   softmax (several labels) or sigmoid (one); errors `{error, error_type}` with 413/422/424/429;
 *   the `x-compute-tokens` header.
 * - vLLM pooling (entrypoints/pooling/scoring/protocol.py, classify/protocol.py): `POST /score`
 *   and `/v1/score` `{model, text_1, text_2, use_activation?}` -> `{id, object: "list", created,
 *   model, data: [{index, object: "score", score}], usage}`; `POST /rerank`, `/v1/rerank`
 *   `{model, query, documents, top_n}` -> `{id, model, usage, results: [{index, document: {text},
 *   relevance_score}]}` sorted by score; `POST /classify` `{model, input: [..]}` -> `{data: [{index,
 *   label, probs, num_classes}], usage}`; the activation (sigmoid / softmax) applies unless
 *   `use_activation: false`; errors `{object: "error", message, type, param, code}`.
 *
 * The "model" is a deterministic function of the texts (word overlap), so tests compute the
 * expected numbers themselves; faults are scripted per request as in openai-compatible-server.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScorerRequest {
  path: string;
  body: Record<string, unknown>;
  authorization: string | undefined;
}

export type ScorerFault =
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'malformed' }
  | { kind: 'delay'; ms: number };

export interface ScorerScript {
  /** The cross-encoder's relevance logit for (query, passage). */
  relevance?: (query: string, passage: string) => number;
  /** The NLI model's logits for (premise, hypothesis), one per label in `labelNames` order. */
  nli?: (premise: string, hypothesis: string) => number[];
  /**
   * A relevance model with several outputs (monoBERT: [not relevant, relevant]), labelled by
   * `labelNames` (default LABEL_0, LABEL_1, ...); served on /predict and /classify.
   */
  relevanceLogits?: (query: string, passage: string) => number[];
  /** The coherence model's logits for one paragraph (default `overlapCoherence`: one logit). */
  coherence?: (text: string) => number[];
  /** The model's id2label, in class-index order (NLI default: cross-encoder/nli-deberta-v3-base's). */
  labelNames?: string[];
  /** The server's model: `nli` (several labels), `relevance` (a pair) or `coherence` (one text). */
  serves: 'nli' | 'relevance' | 'coherence';
  /** The model's window in tokens (as `tokens` counts them): a longer input is TEI's 413 / vLLM's 400. */
  maxTokens?: number;
  /** vLLM /classify gets one text: where a pair's halves were joined. */
  classifySeparator?: string;
  fault?: (index: number, path: string) => ScorerFault | undefined;
  /** TEI's --max-client-batch-size (default 32). */
  maxBatch?: number;
}

export interface ScorerServer {
  url: string;
  requests: ScorerRequest[];
  close(): Promise<void>;
}

const words = (text: string): string[] => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/** Shared words of length > 2, minus 1.5: a relevance logit. */
export function overlapLogit(query: string, passage: string): number {
  const p = new Set(words(passage));
  return words(query).filter((w) => w.length > 2 && p.has(w)).length - 1.5;
}

/** Logits in [contradiction, entailment, neutral] order (cross-encoder/nli-deberta-v3-base's id2label). */
export function overlapNli(premise: string, hypothesis: string): number[] {
  const p = new Set(words(premise));
  const h = words(hypothesis);
  const covered = h.length === 0 ? 0 : h.filter((w) => p.has(w)).length / h.length;
  const negated = words(premise).includes('not') !== h.includes('not');
  return [negated ? 4 : -1, covered * 4 - 1, 0.5];
}

export const DEBERTA_NLI_LABELS = ['contradiction', 'entailment', 'neutral'];

/** Words shared by each sentence and the next, minus 1: a coherence logit for one paragraph. */
export function overlapCoherence(text: string): number[] {
  const sentences = text.split(/(?<=[.!?])\s+/).map((x) => new Set(words(x)));
  let shared = 0;
  for (let i = 1; i < sentences.length; i++) shared += [...sentences[i]!].filter((w) => w.length > 2 && sentences[i - 1]!.has(w)).length;
  return [shared - 1];
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
function softmax(xs: number[]): number[] {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startScorerServer(script: ScorerScript): Promise<ScorerServer> {
  const requests: ScorerRequest[] = [];
  let counter = 0;
  const relevance = script.relevance ?? overlapLogit;
  const nli = script.nli ?? overlapNli;
  const coherence = script.coherence ?? overlapCoherence;
  const labelNames = script.labelNames ?? (script.serves === 'nli' ? DEBERTA_NLI_LABELS : undefined);
  const logitsOf = (a: string, b: string): number[] =>
    script.serves === 'nli'
      ? nli(a, b)
      : script.serves === 'coherence'
        ? coherence(a)
        : script.relevanceLogits
          ? script.relevanceLogits(a, b)
          : [relevance(a, b)];
  const labelsOf = (n: number): string[] => labelNames?.slice(0, n) ?? Array.from({ length: n }, (_, i) => `LABEL_${i}`);
  const activate = (xs: number[]): number[] => (xs.length === 1 ? [sigmoid(xs[0]!)] : softmax(xs));
  const tokens = (a: string, b: string): number => words(a).length + words(b).length + 3;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const path = req.url ?? '';
    // The executor's question about the served model (GET /info, /v1/models): not a call, not counted.
    if (req.method === 'GET') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    const index = counter++;
    let body: Record<string, unknown>;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      res
        .writeHead(422, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'Failed to parse the request body as JSON', error_type: 'Validation' }));
      return;
    }
    requests.push({ path, body, authorization: req.headers.authorization });
    const fault = script.fault?.(index, path);
    if (fault?.kind === 'delay') await new Promise((r) => setTimeout(r, fault.ms));
    if (fault?.kind === 'status') {
      res
        .writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers })
        .end(fault.body ?? JSON.stringify({ error: `scripted ${fault.status}`, error_type: 'Backend' }));
      return;
    }
    if (fault?.kind === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('[{"index": 0, "sco');
      return;
    }
    const vllmError = (status: number, message: string): void => {
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'error', message, type: 'BadRequestError', param: null, code: status }));
    };
    const teiError = (status: number, error: string, errorType: string): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error, error_type: errorType }));
    };
    const created = Math.floor(Date.now() / 1000);
    const model = String(body.model ?? 'served-model');
    const activation = body.use_activation !== false;

    if (path === '/predict') {
      const inputs = body.inputs as unknown;
      if (!Array.isArray(inputs) || !inputs.every((p) => Array.isArray(p) && (p.length === 1 || p.length === 2))) {
        teiError(
          422,
          'Failed to deserialize the JSON body into the target type: inputs: a string, a pair of strings [string, string] or a batch of mixed strings and pairs [[string], [string, string], ...]',
          'Validation',
        );
        return;
      }
      const pairs = inputs as string[][];
      if (pairs.length > (script.maxBatch ?? 32)) {
        teiError(422, `batch size ${pairs.length} > maximum allowed batch size ${script.maxBatch ?? 32}`, 'Validation');
        return;
      }
      const over = script.maxTokens === undefined ? -1 : pairs.findIndex(([a, b]) => tokens(a!, b ?? '') > script.maxTokens!);
      if (over !== -1) {
        teiError(
          413,
          `Input validation error: \`inputs\` must have less than ${script.maxTokens} tokens. Given: ${tokens(pairs[over]![0]!, pairs[over]![1] ?? '')}`,
          'Validation',
        );
        return;
      }
      let computed = 0;
      const out = pairs.map(([a, b]) => {
        computed += tokens(a!, b ?? '');
        const logits = logitsOf(a!, b ?? '');
        const scores = body.raw_scores === true ? logits : activate(logits);
        return labelsOf(logits.length)
          .map((label, i) => ({ score: scores[i]!, label }))
          .sort((x, y) => y.score - x.score);
      });
      res.writeHead(200, { 'content-type': 'application/json', 'x-compute-tokens': String(computed) }).end(JSON.stringify(out));
      return;
    }
    if (path === '/rerank' && Array.isArray(body.texts)) {
      if (script.serves !== 'relevance') {
        teiError(424, 'model is not a re-ranker model', 'Backend');
        return;
      }
      const query = String(body.query);
      const texts = body.texts as string[];
      if (texts.length > (script.maxBatch ?? 32)) {
        teiError(422, `batch size ${texts.length} > maximum allowed batch size ${script.maxBatch ?? 32}`, 'Validation');
        return;
      }
      const long = script.maxTokens === undefined ? -1 : texts.findIndex((t) => tokens(query, t) > script.maxTokens!);
      if (long !== -1) {
        teiError(413, `Input validation error: \`inputs\` must have less than ${script.maxTokens} tokens. Given: ${tokens(query, texts[long]!)}`, 'Validation');
        return;
      }
      const ranks = texts.map((t, i) => {
        const logit = relevance(query, t);
        return { index: i, ...(body.return_text === true ? { text: t } : {}), score: body.raw_scores === true ? logit : sigmoid(logit) };
      });
      ranks.sort((x, y) => y.score - x.score);
      const computed = texts.reduce((n, t) => n + tokens(query, t), 0);
      res.writeHead(200, { 'content-type': 'application/json', 'x-compute-tokens': String(computed) }).end(JSON.stringify(ranks));
      return;
    }
    if (path === '/score' || path === '/v1/score') {
      if (script.serves !== 'relevance') {
        vllmError(400, 'The model does not support Score API');
        return;
      }
      const t1 = body.text_1 ?? body.queries ?? body.data_1;
      const t2 = body.text_2 ?? body.documents ?? body.data_2 ?? body.items;
      const left = Array.isArray(t1) ? (t1 as string[]) : [String(t1)];
      const right = Array.isArray(t2) ? (t2 as string[]) : [String(t2)];
      if (left.length !== 1 && left.length !== right.length) {
        vllmError(400, 'Input lengths must be either 1:1, 1:N or N:N');
        return;
      }
      const pairs = right.map((r, i) => [left.length === 1 ? left[0]! : left[i]!, r] as const);
      const promptTokens = pairs.reduce((n, [a, b]) => n + tokens(a, b), 0);
      const data = pairs.map(([a, b], i) => ({ index: i, object: 'score', score: activation ? sigmoid(relevance(a, b)) : relevance(a, b) }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `score-${index}`,
          object: 'list',
          created,
          model,
          data,
          usage: { prompt_tokens: promptTokens, total_tokens: promptTokens, completion_tokens: 0, prompt_tokens_details: null },
        }),
      );
      return;
    }
    if (path === '/rerank' || path === '/v1/rerank' || path === '/v2/rerank') {
      if (script.serves !== 'relevance') {
        vllmError(400, 'The model does not support Rerank (Score) API');
        return;
      }
      const query = String(body.query);
      const documents = body.documents as string[];
      const results = documents.map((d, i) => ({
        index: i,
        document: { text: d, multi_modal: null },
        relevance_score: activation ? sigmoid(relevance(query, d)) : relevance(query, d),
      }));
      results.sort((x, y) => y.relevance_score - x.relevance_score);
      const topN = Number(body.top_n ?? 0);
      const promptTokens = documents.reduce((n, d) => n + tokens(query, d), 0);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `rerank-${index}`,
          model,
          usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
          results: topN > 0 ? results.slice(0, topN) : results,
        }),
      );
      return;
    }
    if (path === '/classify') {
      const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
      const sep = script.classifySeparator ?? '\n';
      let promptTokens = 0;
      const data = input.map((text, i) => {
        const at = script.serves === 'coherence' ? -1 : text.indexOf(sep);
        const [a, b] = at === -1 ? [text, ''] : [text.slice(0, at), text.slice(at + sep.length)];
        promptTokens += tokens(a, b);
        const logits = logitsOf(a, b);
        const probs = activation ? activate(logits) : logits;
        const best = probs.indexOf(Math.max(...probs));
        return { index: i, label: labelsOf(logits.length)[best] ?? null, probs, num_classes: probs.length };
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `classify-${index}`,
          object: 'list',
          created,
          model,
          data,
          usage: { prompt_tokens: promptTokens, total_tokens: promptTokens, completion_tokens: 0 },
        }),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Not Found' }));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
