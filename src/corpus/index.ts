/**
 * The corpus modules' public face: everything the rest of llmkb (commands, methods, the
 * package root) uses of document corpora is imported from here.
 */
export { Corpus, CorpusNotFoundError, searchCorpus, type StoredPassage } from './corpus.js';
export { ensureCorpusSchema, type CorpusSettings } from './corpus-schema.js';
export { addFiles, type AddFilesOptions, type AddFilesResult } from './add-files.js';
export { CorpusAddError } from './corpus-add-error.js';
export type { AddOptions, AddProgress, AddReport, FileResult, SkippedFile } from './corpus-ingest.js';
export type { RetrieveOptions, SearchHit, SearchMode, SearchOptions } from './corpus-search.js';
export type { CorpusInfo, CorpusStats } from './corpus-stats.js';
export { Bm25TopK, POSTING_BUDGET, type Bm25Hit, type Bm25Plan } from './bm25-top-k.js';
export { EmbedderMismatchError, reciprocalRankFusion, RRF_K, type EmbedProgress, type Embedder } from './dense-index.js';
export { CorpusRetriever, corpusRetriever, retrieverFor, type CorpusRetrieverOptions } from './corpus-retriever.js';
export type { RetrievedPassage, Retriever } from './retriever.js';
export { OpenSearchRetriever, type OpenSearchRetrieverOptions } from './opensearch-retriever.js';
export {
  addRemoteCorpus,
  describeRemote,
  listRemoteCorpora,
  remoteCorpus,
  remoteRetriever,
  removeRemoteCorpus,
  type RemoteCorpusInfo,
  type RemoteCorpusSettings,
} from './remote-corpora.js';
export { DEFAULT_OVERLAP_WORDS, DEFAULT_PASSAGE_WORDS, splitPassages, type Passage, type PassageOptions } from './passages.js';
export { ftsQuery, queryTokens, STOP_WORDS } from './fts-query.js';
export { extractPdfText, PdfSkipError, type PdfText } from './pdf-text.js';
export type { CorpusFormat } from './corpus-files.js';
export type { ReadOptions } from './readers.js';
export { describeUnfinishedAdd, type UnfinishedAdd } from './unfinished-adds.js';
