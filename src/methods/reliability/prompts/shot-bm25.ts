/**
 * Okapi BM25 (k1 = 1.2, b = 0.75 by default) over a fixed list of short texts: the repository
 * questions of the dynamic few-shot selection (`bm25-v1`, shot-selector.ts) when no embedder is
 * configured. Document corpora have their own BM25 with stored term bounds (src/corpus/).
 *
 * Written here rather than taken from npm: the small packages available match terms as
 * regular-expression substrings (so "art" scores "party"), and a few thousand short documents
 * need only an inverted index of a few lines.
 */
import { normalizeAnswer } from '../../../text/normalize-answer.js';

/** Terms of a text: its SQuAD-normalised words (src/text/normalize-answer.ts). */
export function bm25Terms(text: string): string[] {
  return normalizeAnswer(text).split(' ').filter(Boolean);
}

/**
 * Okapi BM25 over a fixed list of texts, tokenised and indexed once: an inverted index (term ->
 * the documents holding it and how often), so a query costs its terms' postings, not a pass over
 * every document. Scores are summed term by term in the query's term order, exactly as a
 * document-by-document loop does, so they are the same numbers bit for bit.
 */
export class Bm25Index {
  readonly #postings = new Map<string, { docs: Int32Array; tfs: Int32Array }>();
  readonly #lengths: Int32Array;
  readonly #avgLength: number;
  readonly #n: number;

  constructor(
    texts: readonly string[],
    readonly k1 = 1.2,
    readonly b = 0.75,
    readonly tokenize: (text: string) => string[] = bm25Terms,
  ) {
    const docs = texts.map((t) => this.tokenize(t));
    this.#n = docs.length;
    this.#lengths = Int32Array.from(docs, (d) => d.length);
    this.#avgLength = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, docs.length);
    const lists = new Map<string, { docs: number[]; tfs: number[] }>();
    docs.forEach((doc, i) => {
      const tf = new Map<string, number>();
      for (const t of doc) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, count] of tf) {
        let list = lists.get(t);
        if (!list) lists.set(t, (list = { docs: [], tfs: [] }));
        list.docs.push(i);
        list.tfs.push(count);
      }
    });
    for (const [t, list] of lists) this.#postings.set(t, { docs: Int32Array.from(list.docs), tfs: Int32Array.from(list.tfs) });
  }

  scores(query: string): Float64Array {
    const n = this.#n;
    const scores = new Float64Array(n);
    for (const term of new Set(this.tokenize(query))) {
      const posting = this.#postings.get(term);
      if (!posting) continue;
      const df = posting.docs.length;
      const idf = Math.log((n - df + 0.5) / (df + 0.5) + 1);
      for (let j = 0; j < posting.docs.length; j++) {
        const d = posting.docs[j]!;
        const tf = posting.tfs[j]!;
        scores[d]! += (idf * tf * (this.k1 + 1)) / (tf + this.k1 * (1 - this.b + (this.b * this.#lengths[d]!) / this.#avgLength));
      }
    }
    return scores;
  }
}

/**
 * Indices of the k highest scores, ties broken by repository order (deterministic): the order a
 * full sort by (score descending, index ascending) gives, kept in a k-long list instead of
 * sorting every score (one pass; a query costs O(n k), not O(n log n) and an object per document).
 */
export function topK(scores: ArrayLike<number>, k: number, allowed: (i: number) => boolean): number[] {
  const best: number[] = [];
  if (k <= 0) return best;
  for (let i = 0; i < scores.length; i++) {
    const score = scores[i]!;
    // Indices only grow, so an equal score never goes before one already kept.
    if (best.length === k && !(score > scores[best[k - 1]!]!)) continue;
    if (!allowed(i)) continue;
    let at = best.length;
    while (at > 0 && score > scores[best[at - 1]!]!) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
  }
  return best;
}
