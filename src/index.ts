/**
 * llmkb library API. Exported by name: what users build on (the workspace, methods, model
 * interfaces and providers, the store, data sets, the reliability method's stages and summaries,
 * comparisons and reports). Anything not listed here is internal and may change without notice;
 * `test/public-api.test.ts` lists every exported value, so a change to the API is a visible diff.
 */
export { EXIT_CODES, LlmkbError, ModelSpecError, ConfigError, InputFileError, ModelCallError, UnsupportedCapabilityError, ContextOverflowError, ModelFileError, FileAccessError, RunBusyError, isLlmkbError } from './errors.js';
export { VERSION } from './version.js';

// Evaluation methods
export { METHOD_INTERFACE_VERSION, type EvaluationMethod, type MetricDef, type RoleDef, type StageDef, type ModelKind } from './methods/method.js';
export { registerMethod, listMethods, getMethod } from './methods/registry.js';
export { reliabilityMethod } from './methods/reliability/reliability-method.js';

// Models
export {
  MODEL_SPECIFICATION_VERSION,
  type LanguageModel, type ModelCapabilities, type ModelRuntime, type ChatMessage, type CompletionRequest, type ChatRequest, type NextTokenLogprobsRequest,
  type ContinuationLogLikelihoodRequest, type EmbeddingRequest, type Usage, type CompletionResult, type NextTokenLogprobsResult, type ContinuationLogLikelihoodResult,
  type EmbeddingResult, type CallOptions,
} from './providers/language-model.js';
export { OpenAICompatibleModel, type OpenAICompatibleSettings } from './providers/openai-compatible/openai-compatible-model.js';
export { LlamaModel, type LlamaSettings } from './providers/llama/llama-model.js';
export { parseModelSpec, type ModelSpec } from './providers/model-spec.js';
export { createLanguageModel, type CreateModelContext } from './providers/create-language-model.js';
export { ModelExecutor, type Accounting, type Executed, type ExecutorOptions } from './executor/model-executor.js';

// Workspace, config and store
export { Workspace, type WorkspaceOptions } from './workspace.js';
export { loadConfig, modelEntrySchema, configSchema, ROLES, type LlmkbConfig, type ModelEntry, type ModelEntryOptions, type Role } from './config/config.js';
export { openDatabase, type Db } from './store/database.js';
export { CallCache, type CacheEntry } from './store/call-cache.js';
export { RunStore, Run, type RunSpec, type RunInfo, type StageStatus } from './store/run-store.js';
export { runStage, type StageWork } from './store/run-stage.js';
export { Progress, type ProgressOptions } from './progress/progress.js';

// Data sets and question files
export { ANSWER_TYPES, qaItemSchema, readQAItems, type AnswerType, type QAItem } from './methods/reliability/data/qa-item.js';
export { readJsonl, toJsonl } from './io/jsonl.js';
export { writeFileAtomic } from './io/files.js';
export { SeededRandom } from './sampling/seeded-random.js';
export { buildSeenQAFiles, buildUnseenQAFiles, buildRepositoryFiles, DATASET_FILES } from './methods/reliability/data/build-datasets.js';
export { UNSEEN_TEMPLATES, PAPER_CUTOFF, buildUnseenQA, templatesForCutoff } from './methods/reliability/data/unseenqa.js';

// The reliability method's steps (paper prompts used verbatim)
export { QA_INSTRUCTION, MCQ_INSTRUCTION, qaPrompt, judgePrompt, distractorPrompt, timeSensitivePrompt, type Shot } from './methods/reliability/prompts/paper-prompts.js';
export { Bm25ShotSelector, EmbeddingShotSelector, type ShotSelector } from './methods/reliability/prompts/shot-selector.js';
export { askQuestions, extractAnswer, PROMPT_SETTINGS, ANSWER_MAX_TOKENS, type PromptSetting, type AskedRecord } from './methods/reliability/asking/ask-questions.js';
export { normalizeAnswer } from './text/normalize-answer.js';
export { detectUninformative, type UninformativeType, type UninformativeVerdict } from './methods/reliability/judging/uninformative.js';
export { ResponseJudge, judgeByRules, lexicalMatch, type JudgedRecord, type ResponseRecord, type Label } from './methods/reliability/judging/judge-response.js';
export { judgeRecords } from './methods/reliability/judging/judge-records.js';
export { LEXICAL_JUDGE_ID, LEXICAL_JUDGE_AGREEMENT } from './methods/reliability/judging/lexical-match.js';
export { measureJudge, agreementStats, agreementReport, readEvouna, readHumanLabelled, type AgreementStats, type AgreementReport, type HumanLabelledResponse } from './methods/reliability/judging/judge-agreement.js';
export { runConsistency, compareAnswerModes, DEFAULT_ANSWER_MODE, type ConsistencyRecord } from './methods/reliability/consistency/consistency-stage.js';
export { buildMcqs, parseChoice, consistencyScore, type Mcq, type AnswerMode } from './methods/reliability/consistency/mcq.js';
export { METRIC_KEYS, computeMetrics, countRecords, type MetricKey, type Metrics, type MetricCounts, type MetricRecord } from './methods/reliability/metrics/reliability-metrics.js';
export { summarizeRun, formatSummary, type RunSummary, type ScoredRecord, type RunMeta } from './methods/reliability/metrics/summarize-run.js';
export { evaluateModel, failedThresholds, defaultRunLabel, resultFileStem, DEFAULT_MODEL, type EvaluationOptions, type EvaluationResult, type ExecutionRecord } from './methods/reliability/evaluate-model.js';
export { buildProtocol, departures, protocolDifferences, PROTOCOL_CHOICES, type Protocol, type ProtocolEntry, type ProtocolStatus, type ProtocolChoice } from './methods/reliability/protocol.js';

// Across runs
export { paperTable, correlate, pearson, ranking, effects, pairedBootstrap, distinguishRuns, toMarkdown, toCsv, type Correlation, type PairedTest } from './analysis/compare-runs.js';
export { renderReport } from './report/html-report.js';

// Document corpora (BM25 over SQLite FTS5)
export { Corpus, CorpusNotFoundError, searchCorpus, ensureCorpusSchema, type CorpusSettings, type CorpusInfo, type CorpusStats, type AddOptions, type AddReport, type FileResult, type SkippedFile, type SearchOptions, type SearchHit } from './corpus/corpus.js';
export { splitPassages, DEFAULT_PASSAGE_WORDS, DEFAULT_OVERLAP_WORDS, type Passage, type PassageOptions } from './corpus/passages.js';
export { ftsQuery, STOP_WORDS } from './corpus/fts-query.js';
export { extractPdfText, PdfSkipError, type PdfText } from './corpus/pdf-text.js';
export { type ReadOptions, type CorpusFormat } from './corpus/readers.js';

// Studies: many models x settings in one command (llmkb sweep / merge)
export { loadStudy, studySchema, type Study, type StudyFile, type StudyModel } from './sweep/study.js';
export { runStudy, type SweepOptions, type SweepRecord, type SweepResult } from './sweep/run-study.js';
export { planStudy, formatPlan, type StudyPlan } from './sweep/study-plan.js';
export { mergeResults, type MergeOptions } from './sweep/merge-results.js';
export { studyJobs, parseShard, type StudyJob, type Shard } from './sweep/study-jobs.js';
export { BatchingModel, recoverBatches, type BatchSettings } from './sweep/batch/batching-model.js';
