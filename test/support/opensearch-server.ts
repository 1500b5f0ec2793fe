/**
 * A real HTTP server on 127.0.0.1 that answers `POST /<index>/_search` as OpenSearch and
 * Elasticsearch do, for the OpenSearch retriever's tests: a `match` query scored over an
 * in-memory index (the score is the number of query words in the passage, enough to rank), the
 * response in the documented shape (`took`, `timed_out`, `_shards`, `hits.total`,
 * `hits.max_score`, `hits.hits[]` with `_index`, `_id`, `_score`, `_source`), and the error
 * shapes (`{"error": {"root_cause": [...], "type", "reason"}, "status"}`) for a missing index
 * (404 index_not_found_exception) and missing credentials (401 security_exception).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OpenSearchDoc {
  id: string;
  source: Record<string, unknown>;
}

export interface OpenSearchTestServer {
  url: string;
  requests: Array<{ method: string; path: string; body: unknown; authorization: string | undefined }>;
  close(): Promise<void>;
}

function errorBody(status: number, type: string, reason: string, index?: string): string {
  const cause = { type, reason, ...(index === undefined ? {} : { index, 'resource.type': 'index_or_alias', 'resource.id': index }) };
  return JSON.stringify({ error: { root_cause: [cause], ...cause }, status });
}

export async function startOpenSearchServer(indices: Record<string, OpenSearchDoc[]>, options: { authorization?: string } = {}): Promise<OpenSearchTestServer> {
  const requests: OpenSearchTestServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end(errorBody(400, 'parse_exception', 'request body is required'));
        return;
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', body, authorization: req.headers.authorization });
      if (options.authorization !== undefined && req.headers.authorization !== options.authorization) {
        res
          .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Basic realm="security" charset="UTF-8"' })
          .end(errorBody(401, 'security_exception', 'missing authentication credentials for REST request [/_search]'));
        return;
      }
      const m = /^\/([^/]+)\/_search$/.exec(req.url ?? '');
      if (m === null || (req.method !== 'POST' && req.method !== 'GET')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(errorBody(404, 'illegal_argument_exception', `no handler found for uri [${req.url}] and method [${req.method}]`));
        return;
      }
      const index = decodeURIComponent(m[1]!);
      const docs = indices[index];
      if (docs === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(errorBody(404, 'index_not_found_exception', `no such index [${index}]`, index));
        return;
      }
      const { size = 10, query } = body as { size?: number; query?: { match?: Record<string, unknown> } };
      const [field, value] = Object.entries(query?.match ?? {})[0] ?? [];
      const text = typeof value === 'string' ? value : typeof value === 'object' && value !== null ? String((value as { query?: unknown }).query ?? '') : '';
      const words = new Set(text.toLowerCase().match(/\p{L}+/gu) ?? []);
      const scored = docs
        .map((d) => {
          const fieldText = String(d.source[field ?? ''] ?? '').toLowerCase();
          const score = [...words].filter((w) => new RegExp(`\\b${w}\\b`, 'u').test(fieldText)).length;
          return { d, score: score * 1.5 };
        })
        .filter((x) => x.score > 0)
        .sort((a, b) => b.score - a.score || (a.d.id < b.d.id ? -1 : 1));
      const hits = scored.slice(0, size).map((x) => ({ _index: index, _id: x.d.id, _score: x.score, _source: x.d.source }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          took: 3,
          timed_out: false,
          _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
          hits: { total: { value: scored.length, relation: 'eq' }, max_score: hits[0]?._score ?? null, hits },
        }),
      );
    });
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
