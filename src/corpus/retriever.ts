/**
 * One interface for every retriever: BM25 over a corpus's SQLite FTS5 index, dense (embedding)
 * search, hybrid (reciprocal-rank fusion of the two), and an OpenSearch/Elasticsearch index over
 * HTTP. CONNER's factuality step, the question writer and `llmkb corpus search` take any of them.
 */
import { LlmkbError } from '../errors.js';
import type { Db } from '../store/database.js';
import { Corpus, type SearchMode } from './corpus.js';
import type { Embedder } from './dense-index.js';
import { remoteCorpus, remoteRetriever } from './remote-corpora.js';

export interface RetrievedPassage {
  /** 1-based rank in the result. */
  rank: number;
  /** The retriever's score, higher is better: -bm25() for BM25, cosine similarity for dense, the fused score for hybrid, `_score` for OpenSearch. */
  score: number;
  text: string;
  /** The document the passage comes from. */
  docId: string;
  /** The file the document was read from (corpus retrievers), or the index (OpenSearch). */
  source?: string;
  /** 1-based page the passage starts and ends on, when known. */
  page?: number;
  pageEnd?: number;
  /** Character offsets of the passage in its document's text, when known. */
  start?: number;
  end?: number;
  /** 0-based passage number within the document, when known. */
  passage?: number;
}

export interface Retriever {
  /** What it searches, for reports (e.g. `corpus papers (hybrid)`). */
  readonly description: string;
  search(query: string, k: number): Promise<RetrievedPassage[]>;
}

export interface CorpusRetrieverOptions {
  mode?: SearchMode;
  /** Needed for dense and hybrid. */
  embedder?: Embedder;
}

/** A retriever over a corpus in the workspace store. */
export class CorpusRetriever implements Retriever {
  readonly corpus: Corpus;
  readonly mode: SearchMode;
  readonly #embedder: Embedder | undefined;

  constructor(corpus: Corpus, options: CorpusRetrieverOptions = {}) {
    this.corpus = corpus;
    this.mode = options.mode ?? 'bm25';
    this.#embedder = options.embedder;
  }

  get description(): string {
    return `corpus ${this.corpus.name} (${this.mode})`;
  }

  async search(query: string, k: number): Promise<RetrievedPassage[]> {
    return this.corpus.retrieve(query, { k, mode: this.mode, ...(this.#embedder === undefined ? {} : { embedder: this.#embedder }) });
  }
}

/** The retriever of corpus `name` in `db`. */
export function corpusRetriever(db: Db, name: string, options: CorpusRetrieverOptions = {}): CorpusRetriever {
  return new CorpusRetriever(Corpus.open(db, name), options);
}

/**
 * The retriever of the corpus called `name`: a remote index registered with `llmkb corpus
 * add-remote` (its own ranking: only bm25 mode), or a corpus of the store.
 */
export function retrieverFor(db: Db, name: string, options: CorpusRetrieverOptions & { env?: NodeJS.ProcessEnv } = {}): Retriever {
  const remote = remoteCorpus(db, name);
  if (remote === undefined) return corpusRetriever(db, name, options);
  if (options.mode !== undefined && options.mode !== 'bm25') {
    throw new LlmkbError(`corpus "${name}" is an OpenSearch index: search mode "${options.mode}" is not available for it`, { hint: 'A remote index is searched with its own ranking (--mode bm25).' });
  }
  return remoteRetriever(remote, options.env);
}
