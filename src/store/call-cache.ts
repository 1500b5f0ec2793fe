/**
 * Content-addressed cache of model calls.
 *
 * The key is a hash of the model's cache identity, the kind of call and every parameter that
 * changes the output; never of transport settings (URL, time-out, concurrency) or credentials.
 * Writes are group-committed: results that finish close together share one transaction (see
 * CallCacheOptions), and a caller's promise resolves only after its row is committed, so a
 * result the pipeline has seen is a result that survives a kill.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Db } from './database.js';

export interface CacheEntry {
  response: unknown;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
}

interface Pending {
  key: string;
  model: string;
  kind: string;
  request: string;
  entry: CacheEntry;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const KEY_VERSION = 'llmkb-cache-v1';

/** JSON with object keys sorted, so equal requests hash equally whatever order fields were set in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  });
}

export function cacheKey(modelIdentity: string, kind: string, request: unknown): string {
  return createHash('sha256').update(`${KEY_VERSION}\n${modelIdentity}\n${kind}\n${canonicalJson(request)}`).digest('hex');
}

export interface CallCacheOptions {
  /**
   * Group commit: a batch is committed at the end of the tick in which its first result
   * finished, but no sooner than this many milliseconds after the previous commit, so that under
   * load one transaction carries many results (each commit rewrites whole pages, whatever it
   * holds). Callers wait for the commit; 0 commits every tick.
   */
  commitIntervalMs?: number;
}

/**
 * Default group-commit interval (see CallCacheOptions). 0: every tick. Measured with
 * `npm run bench:paper-scale -- --commit-interval N`: 4 ms wrote no fewer bytes than 0 (results
 * finishing in one tick already share a commit) and made every call wait longer.
 */
export const COMMIT_INTERVAL_MS = 0;

export class CallCache {
  readonly #db: Db;
  readonly #get: import('better-sqlite3').Statement<[Buffer], { response: string; prompt_tokens: number; completion_tokens: number; latency_ms: number }>;
  readonly #insert: import('better-sqlite3').Statement<unknown[]>;
  readonly #interval: number;
  #pending: Pending[] = [];
  #scheduled = false;
  #lastCommit = 0;

  constructor(db: Db, options: CallCacheOptions = {}) {
    this.#db = db;
    this.#interval = options.commitIntervalMs ?? COMMIT_INTERVAL_MS;
    this.#get = db.prepare('SELECT response, prompt_tokens, completion_tokens, latency_ms FROM calls WHERE key = ?');
    this.#insert = db.prepare(
      'INSERT OR REPLACE INTO calls (key, model, kind, request, response, prompt_tokens, completion_tokens, latency_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
  }

  get(key: string): CacheEntry | undefined {
    const row = this.#get.get(Buffer.from(key, 'hex'));
    if (!row) return undefined;
    return { response: JSON.parse(row.response), promptTokens: row.prompt_tokens, completionTokens: row.completion_tokens, latencyMs: row.latency_ms };
  }

  /** Resolves once the entry is committed. */
  put(key: string, model: string, kind: string, request: unknown, entry: CacheEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ key, model, kind, request: canonicalJson(request), entry, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        const wait = this.#lastCommit + this.#interval - performance.now();
        if (wait > 0) setTimeout(() => setImmediate(() => this.#flush()), wait);
        else setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    const now = new Date().toISOString();
    try {
      this.#db.transaction(() => {
        for (const p of batch) {
          this.#insert.run(Buffer.from(p.key, 'hex'), p.model, p.kind, deflateRawSync(p.request, { level: 1 }), JSON.stringify(p.entry.response), p.entry.promptTokens, p.entry.completionTokens, p.entry.latencyMs, now);
        }
      })();
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    } finally {
      this.#lastCommit = performance.now();
    }
    for (const p of batch) p.resolve();
  }

  /** The request a cached call was made with (its canonical JSON), for inspection. */
  request(key: string): string | undefined {
    const row = this.#db.prepare('SELECT request FROM calls WHERE key = ?').get(Buffer.from(key, 'hex')) as { request: Buffer | string } | undefined;
    if (!row) return undefined;
    return typeof row.request === 'string' ? row.request : inflateRawSync(row.request).toString('utf8');
  }

  stats(): { entries: number; byModel: Array<{ model: string; kind: string; entries: number; promptTokens: number; completionTokens: number }> } {
    const entries = (this.#db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n;
    const byModel = this.#db
      .prepare(
        'SELECT model, kind, count(*) AS entries, sum(prompt_tokens) AS promptTokens, sum(completion_tokens) AS completionTokens FROM calls GROUP BY model, kind ORDER BY model, kind',
      )
      .all() as Array<{ model: string; kind: string; entries: number; promptTokens: number; completionTokens: number }>;
    return { entries, byModel };
  }

  clear(model?: string): number {
    const result = model === undefined ? this.#db.prepare('DELETE FROM calls').run() : this.#db.prepare('DELETE FROM calls WHERE model = ?').run(model);
    return result.changes;
  }
}
