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

/** Excludes the question itself (a user's set may overlap the repository). */
function notSelf(question: string): (item: QAItem) => boolean {
  const q = normalizeAnswer(question);
  return (item) => normalizeAnswer(item.question) !== q;
}

class Bm25Index {
  readonly #docs: string[][];
  readonly #df = new Map<string, number>();
  readonly #avgLength: number;

  constructor(texts: readonly string[], readonly k1 = 1.2, readonly b = 0.75) {
    this.#docs = texts.map(tokens);
    for (const doc of this.#docs) for (const t of new Set(doc)) this.#df.set(t, (this.#df.get(t) ?? 0) + 1);
    this.#avgLength = this.#docs.reduce((s, d) => s + d.length, 0) / Math.max(1, this.#docs.length);
  }

  scores(query: string): number[] {
    const n = this.#docs.length;
    const terms = [...new Set(tokens(query))];
    return this.#docs.map((doc) => {
      let score = 0;
      for (const term of terms) {
        const df = this.#df.get(term);
        if (!df) continue;
        let tf = 0;
        for (const t of doc) if (t === term) tf++;
        if (tf === 0) continue;
        const idf = Math.log((n - df + 0.5) / (df + 0.5) + 1);
        score += (idf * tf * (this.k1 + 1)) / (tf + this.k1 * (1 - this.b + (this.b * doc.length) / this.#avgLength));
      }
      return score;
    });
  }
}

/** Indices of the k highest scores, ties broken by repository order (deterministic). */
function topK(scores: readonly number[], k: number, allowed: (i: number) => boolean): number[] {
  return scores
    .map((score, i) => ({ score, i }))
    .filter(({ i }) => allowed(i))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, k)
    .map(({ i }) => i);
}

export class Bm25ShotSelector implements ShotSelector {
  readonly id = 'bm25-v1';
  readonly #repos: Record<'seen' | 'unseen', { items: readonly QAItem[]; index: Bm25Index }>;

  constructor(rSeen: readonly QAItem[], rUnseen: readonly QAItem[]) {
    this.#repos = {
      seen: { items: rSeen, index: new Bm25Index(rSeen.map((i) => i.question)) },
      unseen: { items: rUnseen, index: new Bm25Index(rUnseen.map((i) => i.question)) },
    };
  }

  async prepare(): Promise<void> {}

  nearest(question: string, repository: 'seen' | 'unseen', k: number): QAItem[] {
    const { items, index } = this.#repos[repository];
    const ok = notSelf(question);
    return topK(index.scores(question), k, (i) => ok(items[i]!)).map((i) => items[i]!);
  }
}

function unit(v: readonly number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

export class EmbeddingShotSelector implements ShotSelector {
  readonly id: string;
  readonly #executor: ModelExecutor;
  readonly #repos: Record<'seen' | 'unseen', { items: readonly QAItem[]; vectors: number[][] }>;
  readonly #queries = new Map<string, number[]>();

  constructor(executor: ModelExecutor, rSeen: readonly QAItem[], rUnseen: readonly QAItem[]) {
    this.#executor = executor;
    this.id = `embedding:${executor.model.cacheIdentity}`;
    this.#repos = { seen: { items: rSeen, vectors: [] }, unseen: { items: rUnseen, vectors: [] } };
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
    const { items, vectors } = this.#repos[repository];
    const scores = vectors.map((v) => v.reduce((s, x, i) => s + x * query[i]!, 0));
    const ok = notSelf(question);
    return topK(scores, k, (i) => ok(items[i]!)).map((i) => items[i]!);
  }
}
