/**
 * llmkb library API. Exported by name: what users build on — evaluation methods and their
 * summaries, model kinds and providers, the executor, the workspace and store, the reliability
 * method's data sets, stages and evaluation, comparisons and reports, document corpora. Anything
 * not listed here is internal and may change without notice; `test/public-api.test.ts` lists
 * every exported value, so a change to the API is a visible diff.
 */
export { EXIT_CODES, LlmkbError, ModelSpecError, ConfigError, InputFileError, ModelCallError, UnsupportedCapabilityError, ContextOverflowError, ModelFileError, FileAccessError, RunBusyError, isLlmkbError } from './errors.js';
export { VERSION } from './version.js';

// Evaluation methods: the seam, the registry, the generic stage runner, summaries (schema v2)
export {
  METHOD_INTERFACE_VERSION,
  type EvaluationMethod, type MetricDef, type RoleDef, type StageDef, type StageContext, type SummarizeContext, type ComparedRun, type CompareOutput, type MethodPresentation, type MethodView, type ViewItem, type PreparedInputs, type PrepareContext, type MethodOption, type SummarizedRun,
} from './methods/method.js';
export { registerMethod, listMethods, getMethod, findMethod } from './methods/registry.js';
export { runMethod, prepareMethod, checkRoles, type RunMethodOptions, type MethodRunResult, type Prepared } from './methods/run-method.js';
export {
  SUMMARY_SCHEMA, migrateSummary, checkSummary, headlineDefs, formatMetric,
  type MethodSummary, type MethodProtocol, type ProtocolEntry, type RunMeta, type ExecutionRecord,
} from './methods/method-summary.js';
export { connerMethod, CONNER_METRIC_DEFS } from './methods/conner/conner-method.js';
export { readConnerQueries, type ConnerQuery, type ConnerTask } from './methods/conner/generation/conner-queries.js';
export { generateKnowledge, type GeneratedKnowledge, type GenerateOptions } from './methods/conner/generation/generate-knowledge.js';
export { readKnowledgeFile } from './methods/conner/generation/knowledge-file.js';
export { scoreKnowledge, type ScoredKnowledge, type ScoreOptions, type ConnerScores } from './methods/conner/scoring/score-knowledge.js';
export { executorTokenScorer, executorClassifier } from './methods/conner/scoring/executor-scorers.js';
export type { TokenScorer, PairClassifier } from './methods/conner/scoring/scorers.js';
export { corpusEvidence, referenceEvidence, type EvidenceSource } from './methods/conner/evidence/evidence-source.js';
export { connerProtocol } from './methods/conner/conner-protocol.js';
export { summarizeConner, formatConnerSummary, connerRunSummaries, formatConnerRuns, type ConnerSummary, type ConnerBreakdowns } from './methods/conner/summary/conner-summary.js';
export { somersD } from './methods/conner/summary/somers-d.js';
export { selectDemonstrations } from './methods/conner/use-cases/select-demos.js';
export { bestOf, bestOfSamples, type BestOfChoice, type SampledChoice } from './methods/conner/use-cases/best-of.js';
export { sampleKnowledge, type SampledKnowledge } from './methods/conner/generation/sample-knowledge.js';
export { knowledgeQuality } from './methods/conner/use-cases/knowledge-quality.js';

// Models: kinds, providers, the executor
export { MODEL_KINDS, NLI_LABELS, hasKind, requireKind, type ModelKind, type ModelBase, type ScoringModel, type ClassificationModel, type TokenScoresRequest, type TokenScoresResult, type ClassificationTask, type TextPair, type ClassificationRequest, type ClassificationResult, type NliLabel } from './providers/model-kinds.js';
export {
  MODEL_SPECIFICATION_VERSION,
  type Model, type TextGenerationModel, type EmbeddingModel, type ModelRuntime, type ChatMessage, type CompletionRequest, type ChatRequest, type NextTokenLogprobsRequest,
  type ContinuationLogLikelihoodRequest, type EmbeddingRequest, type Usage, type CompletionResult, type NextTokenLogprobsResult, type ContinuationLogLikelihoodResult,
  type EmbeddingResult, type CallOptions, type Sampling,
} from './providers/language-model.js';
export { registerProvider, listProviders } from './providers/provider-registry.js';
export type { ModelProvider, CreateModelContext, ParsedSpec } from './providers/model-provider.js';
export { createLanguageModel } from './providers/create-language-model.js';
export { parseModelSpec, type ModelSpec } from './providers/model-spec.js';
export { OpenAICompatibleModel, type OpenAICompatibleSettings } from './providers/openai-compatible/openai-compatible-model.js';
export { LlamaModel, type LlamaSettings } from './providers/llama/llama-model.js';
export { MockModel, type MockSettings, type MockRule, type MockCall, type MockResponder } from './providers/mock/mock-model.js';
export { readMockReplies } from './providers/mock/mock-provider.js';
export { ModelExecutor, type Accounting, type ExecutableModel, type Executed, type ExecutorOptions } from './executor/model-executor.js';
export { createScorerModel, type ScorerModel } from './providers/create-scorer-model.js';
export { TeiClassifier, type TeiSettings } from './providers/tei/tei-classifier.js';
export { VllmPoolingClassifier, type VllmPoolingSettings } from './providers/vllm-pooling/vllm-pooling-classifier.js';
export { LlmClassifier, type LlmClassifierSettings } from './providers/llm-classifier/llm-classifier.js';
export { OnnxClassifier, type OnnxClassifierSettings } from './providers/onnx/onnx-classifier.js';
export { LlamaReranker, type LlamaRerankerSettings } from './providers/llama/llama-reranker.js';

// Workspace, config and store
export { Workspace, type WorkspaceOptions } from './workspace.js';
export { loadConfig, modelEntrySchema, configSchema, type LlmkbConfig, type ModelEntry, type ModelEntryOptions } from './config/config.js';
export { openDatabase, type Db } from './store/database.js';
export { CallCache, type CacheEntry } from './store/call-cache.js';
export { RunStore, Run, type RunSpec, type RunInfo, type StageStatus } from './store/run-store.js';
export { runStage, runStoredStage, type StageWork, type StoredStageWork, type StageItems } from './store/run-stage.js';
export { Progress, type ProgressOptions } from './progress/progress.js';
export { readJsonl, toJsonl } from './io/jsonl.js';
export { writeFileAtomic } from './io/files.js';
export { normalizeAnswer } from './text/normalize-answer.js';
export { SeededRandom } from './sampling/seeded-random.js';

// The reliability method (Zheng, Lapata & Pan): its definition, data sets, stages and evaluation
export { reliabilityMethod } from './methods/reliability/reliability-method.js';
export { ANSWER_TYPES, qaItemSchema, readQAItems, type AnswerType, type QAItem } from './methods/reliability/data/qa-item.js';
export { buildSeenQAFiles, buildUnseenQAFiles, buildRepositoryFiles, DATASET_FILES } from './methods/reliability/data/build-datasets.js';
export { UNSEEN_TEMPLATES, PAPER_CUTOFF, buildUnseenQA, templatesForCutoff } from './methods/reliability/data/unseenqa.js';
export { QA_INSTRUCTION, MCQ_INSTRUCTION, qaPrompt, judgePrompt, distractorPrompt, timeSensitivePrompt, type Shot } from './methods/reliability/prompts/paper-prompts.js';
export { Bm25ShotSelector, EmbeddingShotSelector, type ShotSelector } from './methods/reliability/prompts/shot-selector.js';
export { askQuestions, PROMPT_SETTINGS, ANSWER_MAX_TOKENS, type PromptSetting, type AskedRecord } from './methods/reliability/asking/ask-questions.js';
export { ResponseJudge, type JudgedRecord, type ResponseRecord, type Label } from './methods/reliability/judging/judge-response.js';
export { judgeRecords } from './methods/reliability/judging/judge-records.js';
export { LEXICAL_JUDGE_ID } from './methods/reliability/judging/lexical-match.js';
export { measureJudge, type AgreementStats, type AgreementReport, type HumanLabelledResponse } from './methods/reliability/judging/judge-agreement.js';
export { runConsistency, type ConsistencyRecord } from './methods/reliability/consistency/consistency-stage.js';
export { type Mcq, type AnswerMode } from './methods/reliability/consistency/mcq.js';
export { METRIC_KEYS, computeMetrics, type MetricKey, type Metrics, type MetricCounts, type MetricRecord } from './methods/reliability/metrics/reliability-metrics.js';
export { summarizeRun, formatSummary, type RunSummary, type ScoredRecord } from './methods/reliability/metrics/summarize-run.js';
export { resultFileStem, runResultFiles, type ResultFiles } from './runs/result-files.js';
export { type Protocol, type ProtocolStatus, type ProtocolChoice } from './methods/reliability/protocol.js';

// Across runs of any method
export { compareRuns } from './analysis/compare-methods.js';
export { headlineTable, rankRuns, settingsOf, type PairedTest } from './analysis/runs.js';
export { renderReport } from './report/html-report.js';

// Document corpora (BM25 over SQLite FTS5)
export { Corpus, CorpusAddError, CorpusNotFoundError, searchCorpus, ensureCorpusSchema, POSTING_BUDGET, reciprocalRankFusion, RRF_K, EmbedderMismatchError, CorpusRetriever, corpusRetriever, retrieverFor, OpenSearchRetriever, addRemoteCorpus, remoteCorpus, Bm25TopK, splitPassages, DEFAULT_PASSAGE_WORDS, DEFAULT_OVERLAP_WORDS, ftsQuery, STOP_WORDS, extractPdfText, PdfSkipError } from './corpus/index.js';
export type { CorpusSettings, CorpusInfo, CorpusStats, AddOptions, AddReport, FileResult, SkippedFile, SearchOptions, SearchHit, SearchMode, RetrieveOptions, Embedder, EmbedProgress, Retriever, RetrievedPassage, CorpusRetrieverOptions, OpenSearchRetrieverOptions, RemoteCorpusInfo, RemoteCorpusSettings, Bm25Hit, Bm25Plan, Passage, PassageOptions, PdfText, ReadOptions, CorpusFormat } from './corpus/index.js';
export { buildCorpusQuestions, REJECTION_REASONS, type CorpusQuestionOptions, type CorpusQuestionReport, type CorpusQAItem, type RejectionReason } from './methods/reliability/data/corpus-questions.js';
export { writeCorpusQuestions } from './methods/reliability/data/corpus-question-card.js';
export { documentDate, type DocumentDates } from './methods/reliability/data/document-dates.js';
export { findSpan } from './methods/reliability/data/answer-span.js';
export { questionWriterPrompt, QUESTION_WRITER_PROMPT_VERSION, type QuestionWriter } from './methods/reliability/data/question-writer.js';

// Studies: many models x settings in one command (llmkb sweep / merge)
export { loadStudy, studySchema, type Study, type StudyFile, type StudyModel } from './sweep/study.js';
export { runStudy, type SweepOptions, type SweepRecord, type SweepResult } from './sweep/run-study.js';
export { planStudy, formatPlan, type StudyPlan } from './sweep/study-plan.js';
export { mergeResults, type MergeOptions } from './sweep/merge-results.js';
export { studyJobs, parseShard, type StudyJob, type Shard } from './sweep/study-jobs.js';
export { BatchingModel, recoverBatches, type BatchSettings } from './sweep/batch/batching-model.js';
