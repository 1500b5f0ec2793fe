/** The retrievers of the corpora a name can stand for: a corpus of the store, or a remote index. */
import { LlmkbError } from '../errors.js';
import type { Db } from '../store/database.js';
import { Corpus } from './corpus.js';
import type { SearchMode } from './corpus-search.js';
import type { Embedder } from './dense-index.js';
import { remoteCorpus, remoteRetriever } from './remote-corpora.js';
import type { RetrievedPassage, Retriever } from './retriever.js';

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
    throw new LlmkbError(`corpus "${name}" is an OpenSearch index: search mode "${options.mode}" is not available for it`, {
      hint: 'A remote index is searched with its own ranking (--mode bm25).',
    });
  }
  return remoteRetriever(remote, options.env);
}
