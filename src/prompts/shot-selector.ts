/**
 * Dynamic few-shot selection (paper Appendix D, following Nori et al. 2023): the shots for a
 * question are its nearest neighbours in the repository. "Nearest" is cosine similarity of
 * question embeddings from the configured embedder; with no embedder, Okapi BM25 over the
 * repository questions (`bm25-v1`, k1 = 1.2, b = 0.75), and the run records which was used.
 *
 * BM25 is written here rather than taken from npm: the small packages available match terms as
 * regular-expression substrings (so "art" scores "party"), and 280 short documents need only an
 * inverted index of a few lines.
 */
import type { QAItem } from '../data/qa-item.js';
import type { ModelExecutor } from '../executor/model-executor.js';
import { normalizeAnswer } from '../judging/normalize-answer.js';

export interface ShotSelector {
  /** Recorded with the run: `embedding:<model identity>` or `bm25-v1`. */
  readonly id: string;
  /** Prepares for these questions (embeds them in batches); call before `nearest`. */
  prepare(questions: readonly string[]): Promise<void>;
  /** The `k` repository items most similar to `question`, most similar first. */
  nearest(question: string, repository: 'seen' | 'unseen', k: number): QAItem[];
}

function tokens(text: string): string[] {
  return normalizeAnswer(text).split(' ').filter(Boolean);
}

/**
 * Okapi BM25 over a fixed list of texts, tokenised and indexed once: an inverted index (term ->
 * the documents holding it and how often), so a query costs its terms' postings, not a pass over
 * every document. Scores are summed term by term in the query's term order, exactly as a
 * document-by-document loop does, so they are the same numbers bit for bit.
 */
class Bm25Index {
  readonly #postings = new Map<string, { docs: Int32Array; tfs: Int32Array }>();
  readonly #lengths: Int32Array;
  readonly #avgLength: number;
  readonly #n: number;

  constructor(texts: readonly string[], readonly k1 = 1.2, readonly b = 0.75) {
    const docs = texts.map(tokens);
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
    for (const term of new Set(tokens(query))) {
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

/** Indices of the k highest scores, ties broken by repository order (deterministic). */
function topK(scores: ArrayLike<number>, k: number, allowed: (i: number) => boolean): number[] {
  const ranked: Array<{ score: number; i: number }> = [];
  for (let i = 0; i < scores.length; i++) if (allowed(i)) ranked.push({ score: scores[i]!, i });
  return ranked
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, k)
    .map(({ i }) => i);
}

export class Bm25ShotSelector implements ShotSelector {
  readonly id = 'bm25-v1';
  readonly #repos: Record<'seen' | 'unseen', { items: readonly QAItem[]; normalized: string[]; index: Bm25Index }>;

  constructor(rSeen: readonly QAItem[], rUnseen: readonly QAItem[]) {
    const repo = (items: readonly QAItem[]) => ({ items, normalized: items.map((i) => normalizeAnswer(i.question)), index: new Bm25Index(items.map((i) => i.question)) });
    this.#repos = { seen: repo(rSeen), unseen: repo(rUnseen) };
  }

  async prepare(): Promise<void> {}

  nearest(question: string, repository: 'seen' | 'unseen', k: number): QAItem[] {
    const { items, normalized, index } = this.#repos[repository];
    // Excludes the question itself (a user's set may overlap the repository).
    const self = normalizeAnswer(question);
    return topK(index.scores(question), k, (i) => normalized[i] !== self).map((i) => items[i]!);
  }
}

function unit(v: readonly number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

export class EmbeddingShotSelector implements ShotSelector {
  readonly id: string;
  readonly #executor: ModelExecutor;
  readonly #repos: Record<'seen' | 'unseen', { items: readonly QAItem[]; normalized: string[]; vectors: number[][] }>;
  readonly #queries = new Map<string, number[]>();

  constructor(executor: ModelExecutor, rSeen: readonly QAItem[], rUnseen: readonly QAItem[]) {
    this.#executor = executor;
    this.id = `embedding:${executor.model.cacheIdentity}`;
    const normalized = (items: readonly QAItem[]) => items.map((i) => normalizeAnswer(i.question));
    this.#repos = { seen: { items: rSeen, normalized: normalized(rSeen), vectors: [] }, unseen: { items: rUnseen, normalized: normalized(rUnseen), vectors: [] } };
  }

  async prepare(questions: readonly string[]): Promise<void> {
    for (const repo of Object.values(this.#repos)) {
      if (repo.vectors.length === 0) repo.vectors = (await this.#executor.embed(repo.items.map((i) => i.question))).value.map(unit);
    }
    const missing = [...new Set(questions)].filter((q) => !this.#queries.has(q));
    const vectors = (await this.#executor.embed(missing)).value;
    missing.forEach((q, i) => this.#queries.set(q, unit(vectors[i]!)));
  }

  nearest(question: string, repository: 'seen' | 'unseen', k: number): QAItem[] {
    const query = this.#queries.get(question);
    if (!query) throw new Error(`EmbeddingShotSelector.prepare() was not called for "${question}"`);
    const { items, normalized, vectors } = this.#repos[repository];
    const scores = vectors.map((v) => v.reduce((s, x, i) => s + x * query[i]!, 0));
    const self = normalizeAnswer(question);
    return topK(scores, k, (i) => normalized[i] !== self).map((i) => items[i]!);
  }
}
