/**
 * `llmkb/corpus`: document corpora for library users: add documents (PDF, CSV/TSV, JSON/JSONL,
 * text), search them (BM25 over SQLite FTS5, dense, hybrid), register an OpenSearch index, and
 * retrieve evidence passages. The rest of llmkb imports corpora through ./index.ts.
 */
export { addFiles, type AddFilesOptions, type AddFilesResult } from './index.js';
export {
  Corpus,
  CorpusNotFoundError,
  CorpusAddError,
  searchCorpus,
  type StoredPassage,
  type CorpusSettings,
  type AddOptions,
  type AddProgress,
  type AddReport,
  type FileResult,
  type SkippedFile,
  type RetrieveOptions,
  type SearchHit,
  type SearchMode,
  type SearchOptions,
  type CorpusInfo,
  type CorpusStats,
} from './index.js';
export { CorpusRetriever, corpusRetriever, retrieverFor, type CorpusRetrieverOptions, type RetrievedPassage, type Retriever } from './index.js';
export {
  OpenSearchRetriever,
  addRemoteCorpus,
  remoteCorpus,
  listRemoteCorpora,
  removeRemoteCorpus,
  type OpenSearchRetrieverOptions,
  type RemoteCorpusInfo,
  type RemoteCorpusSettings,
} from './index.js';
export { EmbedderMismatchError, type Embedder, type EmbedProgress } from './index.js';
export { DEFAULT_OVERLAP_WORDS, DEFAULT_PASSAGE_WORDS, splitPassages, type Passage, type PassageOptions } from './index.js';
export { extractPdfText, PdfSkipError, type PdfText, type CorpusFormat, type ReadOptions } from './index.js';
