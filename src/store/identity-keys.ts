/**
 * Cached calls keyed before the key carried what the server serves. A call of a served model is
 * keyed on the model's identity and, since llmkb keys on it, what its server reports (vLLM's
 * root, Ollama's digest, TEI's revision: src/executor/key-identity.ts). Entries written before
 * were keyed on the model's identity alone; they are not found while the server reports an
 * identity. Which server answered them is not known, so they are not moved under a new key.
 * An in-process model (a GGUF, keyed on its file's hash) has no served part: its keys are as they
 * were.
 */
import { inflateRawSync } from 'node:zlib';
import { cacheKey, CanonicalRequest } from './call-key.js';
import type { Db } from './database.js';

/**
 * Per model identity and kind of call, the entries keyed on the model's identity alone, counted
 * for the model identities that also have entries keyed with what their server serves (so their
 * server reports an identity, and those entries are not reused). One pass over the store,
 * recomputing each entry's key.
 */
export function notReusedEntries(db: Db): Map<string, number> {
  const alone = new Map<string, number>();
  const served = new Set<string>();
  const rows = db.prepare('SELECT key, model, kind, request FROM calls').raw(true).iterate() as IterableIterator<[Buffer, string, string, Buffer | string]>;
  for (const [key, model, kind, request] of rows) {
    const json = typeof request === 'string' ? request : inflateRawSync(request).toString('utf8');
    if (cacheKey(model, kind, new CanonicalRequest(json)) === key.toString('hex')) {
      const id = `${model}\n${kind}`;
      alone.set(id, (alone.get(id) ?? 0) + 1);
    } else served.add(model);
  }
  const out = new Map<string, number>();
  for (const [id, n] of alone) if (served.has(id.slice(0, id.lastIndexOf('\n')))) out.set(id, n);
  return out;
}
