/**
 * Dense retrieval over a corpus: one embedding per passage, stored beside the passages in the
 * workspace database (`corpus_vec_<id>`: passage id -> Float32 BLOB, unit length, so the inner
 * product is the cosine similarity), and exact k-nearest-neighbour search by streaming those
 * rows (one row in memory at a time, a k-sized heap of the best): fine up to about a million
 * passages without an approximate index or an SQLite vector extension.
 *
 * The embedding model that made the vectors is recorded per corpus (`corpus_embedders`): a
 * search with another model is refused rather than comparing vectors of two models; vectors are
 * made with `embedPassages` (every call through the executor: cached, resumable: passages that
 * have a vector are not embedded again).
 */
import { LlmkbError } from '../errors.js';
import type { Db } from '../store/database.js';

/** What dense retrieval needs of an executor (ModelExecutor has it). */
export interface Embedder {
  readonly model: { readonly cacheIdentity: string; readonly modelId: string };
  embed(texts: string[]): Promise<{ value: number[][] }>;
}

export const EMBEDDER_SCHEMA = `
CREATE TABLE IF NOT EXISTS corpus_embedders (
  corpus_id INTEGER PRIMARY KEY REFERENCES corpora(id) ON DELETE CASCADE,
  identity TEXT NOT NULL,
  model TEXT NOT NULL,
  dimensions INTEGER NOT NULL
);`;

export function vectorTable(corpusId: number): string {
  return `corpus_vec_${corpusId}`;
}

export function ensureVectorTable(db: Db, corpusId: number): void {
  db.exec(`${EMBEDDER_SCHEMA}\nCREATE TABLE IF NOT EXISTS ${vectorTable(corpusId)} (passage_id INTEGER PRIMARY KEY, vector BLOB NOT NULL)`);
}

/** Unit-length Float32 copy of a vector (a zero vector stays zero). */
export function normalized(vector: readonly number[]): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  const out = new Float32Array(vector.length);
  if (norm > 0) for (let i = 0; i < vector.length; i += 1) out[i] = vector[i]! / norm;
  return out;
}

export class EmbedderMismatchError extends LlmkbError {}

function checkEmbedder(db: Db, corpusId: number, corpusName: string, embedder: Embedder, dimensions?: number): void {
  const row = db.prepare('SELECT identity, model, dimensions FROM corpus_embedders WHERE corpus_id = ?').get(corpusId) as
    | { identity: string; model: string; dimensions: number }
    | undefined;
  if (row === undefined) {
    if (dimensions !== undefined)
      db.prepare('INSERT INTO corpus_embedders (corpus_id, identity, model, dimensions) VALUES (?, ?, ?, ?)').run(
        corpusId,
        embedder.model.cacheIdentity,
        embedder.model.modelId,
        dimensions,
      );
    return;
  }
  if (row.identity !== embedder.model.cacheIdentity) {
    throw new EmbedderMismatchError(`corpus "${corpusName}" was embedded with ${row.model}, not ${embedder.model.modelId}`, {
      hint: `Search it with the same embedding model, or drop its vectors with \`llmkb corpus embed ${corpusName} --reset\` and embed it again.`,
    });
  }
  if (dimensions !== undefined && dimensions !== row.dimensions)
    throw new EmbedderMismatchError(`the embedding model returned ${dimensions} dimensions, the corpus's vectors have ${row.dimensions}`);
}

export interface EmbedProgress {
  embedded: number;
  total: number;
}

/**
 * Embeds the passages of a corpus that have no vector yet, `batch` at a time (each batch one
 * transaction, so an interrupted run keeps what it finished and resumes from there).
 */
export async function embedPassages(
  db: Db,
  corpusId: number,
  corpusName: string,
  embedder: Embedder,
  options: { batch?: number; onProgress?: (p: EmbedProgress) => void } = {},
): Promise<{ embedded: number; total: number }> {
  ensureVectorTable(db, corpusId);
  checkEmbedder(db, corpusId, corpusName, embedder);
  const table = vectorTable(corpusId);
  const batch = options.batch ?? 256;
  const missing = `FROM corpus_passages p JOIN corpus_documents d ON d.id = p.document_id WHERE d.corpus_id = ? AND NOT EXISTS (SELECT 1 FROM ${table} v WHERE v.passage_id = p.id)`;
  const total = (db.prepare(`SELECT COUNT(*) AS n ${missing}`).get(corpusId) as { n: number }).n;
  const next = db.prepare(`SELECT p.id, p.text ${missing} AND p.id > ? ORDER BY p.id LIMIT ?`);
  const insert = db.prepare(`INSERT OR REPLACE INTO ${table} (passage_id, vector) VALUES (?, ?)`);
  let embedded = 0;
  let after = 0;
  for (;;) {
    const rows = next.all(corpusId, after, batch) as { id: number; text: string }[];
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.id;
    const { value } = await embedder.embed(rows.map((r) => r.text));
    const dimensions = value[0]?.length ?? 0;
    db.transaction(() => {
      checkEmbedder(db, corpusId, corpusName, embedder, dimensions);
      rows.forEach((r, i) => {
        const v = normalized(value[i]!);
        if (v.length !== dimensions)
          throw new EmbedderMismatchError(`the embedding model returned vectors of ${v.length} and ${dimensions} dimensions in one batch`);
        insert.run(r.id, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
      });
    })();
    embedded += rows.length;
    options.onProgress?.({ embedded, total });
  }
  return { embedded, total };
}

/** Drops a corpus's vectors and its recorded embedding model. */
export function resetVectors(db: Db, corpusId: number): void {
  ensureVectorTable(db, corpusId);
  db.transaction(() => {
    db.exec(`DELETE FROM ${vectorTable(corpusId)}`);
    db.prepare('DELETE FROM corpus_embedders WHERE corpus_id = ?').run(corpusId);
  })();
}

/** Passages of the corpus without a vector. */
export function missingVectors(db: Db, corpusId: number): number {
  ensureVectorTable(db, corpusId);
  return (
    db
      .prepare(
        `SELECT COUNT(*) AS n FROM corpus_passages p JOIN corpus_documents d ON d.id = p.document_id WHERE d.corpus_id = ? AND NOT EXISTS (SELECT 1 FROM ${vectorTable(corpusId)} v WHERE v.passage_id = p.id)`,
      )
      .get(corpusId) as { n: number }
  ).n;
}

/**
 * Exact nearest neighbours by cosine similarity: every stored vector is read once, as a
 * Float32Array over the row's BLOB (no per-vector JS arrays), and only the best `k` are kept
 * (a min-heap), so memory does not grow with the corpus.
 */
export async function denseSearch(
  db: Db,
  corpusId: number,
  corpusName: string,
  embedder: Embedder,
  query: string,
  k: number,
): Promise<Array<{ id: number; score: number }>> {
  ensureVectorTable(db, corpusId);
  checkEmbedder(db, corpusId, corpusName, embedder);
  const { value } = await embedder.embed([query]);
  const q = normalized(value[0]!);
  const heap: Array<{ id: number; score: number }> = [];
  // Min-heap on (score, then larger id = worse) so that ties keep the smaller passage id.
  const worse = (a: { id: number; score: number }, b: { id: number; score: number }): boolean => a.score < b.score || (a.score === b.score && a.id > b.id);
  const push = (item: { id: number; score: number }): void => {
    if (heap.length === k) {
      if (!worse(heap[0]!, item)) return;
      heap[0] = item;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
      return;
    }
    heap.push(item);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!worse(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  const rows = db.prepare(`SELECT passage_id, vector FROM ${vectorTable(corpusId)}`).raw(true);
  const dims = q.length;
  // The BLOB's bytes are 4-byte aligned only by chance (small Buffers share a pool): an unaligned
  // one is copied into this one scratch vector, not into a new allocation per row.
  const scratch = new Float32Array(dims);
  const scratchBytes = new Uint8Array(scratch.buffer);
  for (const row of rows.iterate() as Iterable<[number, Buffer]>) {
    const blob = row[1];
    if (blob.byteLength !== dims * 4) throw new EmbedderMismatchError(`query vector has ${dims} dimensions, stored vectors ${blob.byteLength / 4}`);
    let v: Float32Array = scratch;
    if (blob.byteOffset % 4 === 0) v = new Float32Array(blob.buffer, blob.byteOffset, dims);
    else scratchBytes.set(blob);
    let dot = 0;
    for (let i = 0; i < dims; i += 1) dot += q[i]! * v[i]!;
    push({ id: row[0], score: dot });
  }
  return heap.sort((a, b) => b.score - a.score || a.id - b.id);
}

/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms
 * Condorcet and individual Rank Learning Methods", SIGIR 2009): score(d) = sum over the
 * rankings r of 1 / (k + r(d)), ranks from 1, with k = 60 as in the paper. Ties go to the
 * smaller id.
 */
export const RRF_K = 60;

export function reciprocalRankFusion(rankings: ReadonlyArray<ReadonlyArray<{ id: number }>>, k = RRF_K): Array<{ id: number; score: number }> {
  const scores = new Map<number, number>();
  for (const ranking of rankings) ranking.forEach(({ id }, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1)));
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}
