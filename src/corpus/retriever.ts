/**
 * One interface for every retriever: BM25 over a corpus's SQLite FTS5 index, dense (embedding)
 * search, hybrid (reciprocal-rank fusion of the two), and an OpenSearch/Elasticsearch index over
 * HTTP (corpus-retriever.ts, opensearch-retriever.ts). CONNER's factuality step and
 * `llmkb corpus search` take any of them.
 */
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
