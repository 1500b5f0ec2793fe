/**
 * A cached call read back for inspection (`llmkb view`'s item pages): the model, the kind of call,
 * the request and the response, from the store's committed calls. Read-only: it opens no journal
 * and moves none (a call a running process still holds in its journal is not there yet).
 */
import { inflateRawSync } from 'node:zlib';
import type { Db } from './database.js';

export interface InspectedCall {
  model: string;
  kind: string;
  request: unknown;
  response: unknown;
}

export function inspectCall(db: Db, key: string): InspectedCall | undefined {
  if (!/^[0-9a-f]{64}$/.test(key)) return undefined;
  const row = db.prepare('SELECT model, kind, request, response FROM calls WHERE key = ?').get(Buffer.from(key, 'hex')) as
    | { model: string; kind: string; request: Buffer | string; response: string }
    | undefined;
  if (!row) return undefined;
  const request = typeof row.request === 'string' ? row.request : inflateRawSync(row.request).toString('utf8');
  return { model: row.model, kind: row.kind, request: JSON.parse(request), response: JSON.parse(row.response) };
}
