/**
 * A model call's cache key and the canonical JSON it is made from.
 *
 * The key is a hash of the model's cache identity, the kind of call and every parameter that
 * changes the output; never of transport settings (URL, time-out, concurrency) or credentials.
 * Canonical JSON (object keys sorted) makes equal requests hash equally whatever order their
 * fields were set in; other layers use it for the same reason (run ids, CONNER's item ids).
 */
import { hash } from 'node:crypto';

const KEY_VERSION = 'llmkb-cache-v1';

/** JSON with object keys sorted, so equal requests hash equally whatever order fields were set in. */
export function canonicalJson(value: unknown): string {
  // A call's parameters are plain data: written directly (faster than a replacer, which copies
  // every object, and this runs for every cached call); anything else takes the general path.
  const fast = plainCanonicalJson(value);
  return fast ?? replacerCanonicalJson(value);
}

/** An array index as a property key ("0", "17"): objects list those first, in numeric order. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;

/**
 * canonicalJson of plain data (strings, finite numbers, booleans, null, arrays, plain objects
 * without array-index keys), the same text the replacer path gives; undefined for anything else
 * (dates, buffers, class instances, toJSON, bigint, non-finite numbers, undefined in arrays).
 */
function plainCanonicalJson(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : undefined;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        const parts: string[] = [];
        for (const x of v) {
          const j = plainCanonicalJson(x);
          if (j === undefined) return undefined;
          parts.push(j);
        }
        return `[${parts.join(',')}]`;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return undefined;
      const keys = Object.keys(v).sort();
      const parts: string[] = [];
      for (const k of keys) {
        if (INDEX_KEY.test(k)) return undefined;
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined) continue;
        const j = plainCanonicalJson(x);
        if (j === undefined) return undefined;
        parts.push(`${JSON.stringify(k)}:${j}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      return undefined;
  }
}

function replacerCanonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  });
}

/**
 * A request already in canonical JSON: `cacheKey` and `CallCache#put` take it as is instead of
 * serialising the request again (the executor makes both from one call's parameters).
 */
export class CanonicalRequest {
  constructor(readonly json: string) {}

  static of(request: unknown): CanonicalRequest {
    return request instanceof CanonicalRequest ? request : new CanonicalRequest(canonicalJson(request));
  }
}

/** The cache key of a call: hex SHA-256 of the key version, the model's identity, the kind and the request. */
export function cacheKey(modelIdentity: string, kind: string, request: unknown): string {
  // One-shot hashing (crypto.hash): less CPU per call than createHash().update().digest().
  return hash('sha256', `${KEY_VERSION}\n${modelIdentity}\n${kind}\n${CanonicalRequest.of(request).json}`, 'hex');
}
