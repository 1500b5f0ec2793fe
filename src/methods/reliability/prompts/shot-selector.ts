/**
 * Dynamic few-shot selection (paper Appendix D, following Nori et al. 2023): the shots for a
 * question are its nearest neighbours in the repository. "Nearest" is cosine similarity of
 * question embeddings from the configured embedder; with no embedder, Okapi BM25 over the
 * repository questions (`bm25-v1`, k1 = 1.2, b = 0.75), and the run records which was used.
 * BM25 itself is shot-bm25.ts.
 */
import type { QAItem } from '../data/qa-item.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import { Bm25Index, topK } from './shot-bm25.js';
import { normalizeAnswer } from '../../../text/normalize-answer.js';

export interface ShotSelector {
  /** Recorded with the run: `embedding:<model identity>` or `bm25-v1`. */
  readonly id: string;
  /** Prepares for these questions (embeds them in batches); call before `nearest`. */
  prepare(questions: readonly string[]): Promise<void>;
  /** The `k` repository items most similar to `question`, most similar first. */
  nearest(question: string, repository: 'seen' | 'unseen', k: number): QAItem[];
}

export class Bm25ShotSelector implements ShotSelector {
  readonly id = 'bm25-v1';
  readonly #repos: Record<'seen' | 'unseen', { items: readonly QAItem[]; normalized: string[]; index: Bm25Index }>;

  constructor(rSeen: readonly QAItem[], rUnseen: readonly QAItem[]) {
    const repo = (items: readonly QAItem[]) => ({
      items,
      normalized: items.map((i) => normalizeAnswer(i.question)),
      index: new Bm25Index(items.map((i) => i.question)),
    });
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
    this.#repos = {
      seen: { items: rSeen, normalized: normalized(rSeen), vectors: [] },
      unseen: { items: rUnseen, normalized: normalized(rUnseen), vectors: [] },
    };
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
