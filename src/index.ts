/**
 * llmkb's library API (the package root). Exported by name: what users build on. One evaluation
 * end to end (`evaluate`, what `llmkb eval` runs); a method step by step: the method seam, the
 * registry and the runner; the models: model kinds, providers by spec and the executor; the
 * store's read API and the workspace; runs and their result files; comparisons and reports. Each
 * method's own API, corpora, studies and the providers' classes are subpath exports
 * (`llmkb/reliability`, `llmkb/conner`, `llmkb/corpus`, `llmkb/sweep`, `llmkb/providers`;
 * docs/library.md). Anything else is internal and may change without notice; `test/public-api.test.ts`
 * lists every exported value, so a change to the API is a visible diff.
 */
export {
  EXIT_CODES,
  LlmkbError,
  ModelSpecError,
  ConfigError,
  InputFileError,
  ModelCallError,
  UnsupportedCapabilityError,
  ContextOverflowError,
  ModelFileError,
  FileAccessError,
  RunBusyError,
  isLlmkbError,
} from './errors.js';
export { VERSION } from './version.js';

// One evaluation end to end (what `llmkb eval` runs): the model, every setting's run, the report, the thresholds
export { evaluate, type EvaluateOptions, type EvalResult } from './evaluate.js';
export type { Threshold } from './analysis/thresholds.js';

// Evaluation methods: the seam, the registry, the runner, summaries (schema v2)
export {
  METHOD_INTERFACE_VERSION,
  type EvaluationMethod,
  type MetricDef,
  type RoleDef,
  type StageDef,
  type StageContext,
  type SummarizeContext,
  type SummarizedRun,
  type MethodItem,
  type MethodOption,
  type PreparedInputs,
  type PrepareContext,
  type CheckContext,
  type PlanContext,
  type PlanEstimate,
  type ComparedRun,
  type CompareOutput,
  type MethodPresentation,
  type MethodView,
  type ViewItem,
  type ViewItemField,
} from './methods/method.js';
export type {
  ItemPageContext,
  RunPageContext,
  PairedRow,
  MethodReportContext,
  ItemFieldDef,
  ItemSelection,
  ItemsOptions,
  MetricItems,
  ExtraCell,
} from './methods/method-presentation.js';
export type { MethodCli, CliHost } from './methods/method-cli.js';
export { registerMethod, listMethods, getMethod, findMethod, loadMethodModules } from './methods/registry.js';
export { runMethod, prepareMethod, type RunMethodOptions, type MethodRunResult, type PrepareMethodOptions } from './methods/run-method.js';
export {
  SUMMARY_SCHEMA,
  checkSummary,
  headlineDefs,
  formatMetric,
  type MethodSummary,
  type MethodProtocol,
  type ProtocolEntry,
  type RunMeta,
  type ExecutionRecord,
  type SummaryWarning,
} from './methods/method-summary.js';
export { runStoredStage, type StoredStageWork, type StageItems } from './store/run-stage.js';

// Models: kinds, providers by spec, the executor
export {
  MODEL_KINDS,
  NLI_LABELS,
  hasKind,
  requireKind,
  type ModelKind,
  type ModelBase,
  type ScoringModel,
  type ClassificationModel,
  type TokenScoresRequest,
  type TokenScoresResult,
  type ClassificationTask,
  type TextPair,
  type ClassificationRequest,
  type ClassificationResult,
  type NliLabel,
} from './providers/model-kinds.js';
export {
  MODEL_SPECIFICATION_VERSION,
  type Model,
  type TextGenerationModel,
  type EmbeddingModel,
  type ModelRuntime,
  type ChatMessage,
  type CompletionRequest,
  type ChatRequest,
  type NextTokenLogprobsRequest,
  type ContinuationLogLikelihoodRequest,
  type EmbeddingRequest,
  type Usage,
  type CompletionResult,
  type NextTokenLogprobsResult,
  type ContinuationLogLikelihoodResult,
  type EmbeddingResult,
  type CallOptions,
  type Sampling,
} from './providers/language-model.js';
export { registerProvider, listProviders } from './providers/provider-registry.js';
export type { ModelProvider, CreateModelContext, ParsedSpec, EntryOptions, SpecTraits } from './providers/model-provider.js';
export type { BatchApi, BatchError, BatchOutcome } from './providers/batch-api.js';
export type { ModelEntry, ModelEntryOptions } from './providers/model-entry.js';
export { createLanguageModel } from './providers/create-language-model.js';
export { createScorerModel, type ScorerModel } from './providers/create-scorer-model.js';
export { parseModelSpec, type ModelSpec } from './providers/model-spec.js';
export { ModelExecutor, type Accounting, type ExecutableModel, type Executed, type ExecutorOptions } from './executor/model-executor.js';

// The workspace (config, store, executors by role) and the store's read API
export { Workspace, type WorkspaceOptions } from './workspace.js';
export { loadConfig, type LlmkbConfig } from './config/config.js';
export { RunStore, Run } from './store/run-store.js';
export type { RunSpec, RunInfo, StageStatus } from './store/run-spec.js';

// Runs and their result files: listed, read back, compared, reported
export { resultFileStem, runResultFiles, type ResultFiles } from './io/result-files.js';
export { listRuns, type ListedRun } from './runs/list-runs.js';
export { loadResultRun, loadStoredRun, readSummaryFile, type LoadedRun } from './runs/load-runs.js';
export { compareRuns } from './analysis/compare-methods.js';
export { compareResults, type CompareResults, type CompareResultsOptions } from './analysis/compare-results.js';
export { headlineTable, rankRuns, settingsOf } from './methods/run-tables.js';
export { renderReport, type ReportOptions } from './report/html-report.js';
export { reportRuns, type ReportRunsOptions } from './report/runs-report.js';

// Helpers a method's code uses
export { readJsonl, toJsonl } from './io/jsonl.js';
export { writeFileAtomic } from './io/files.js';
export { normalizeAnswer } from './text/normalize-answer.js';
export { SeededRandom } from './sampling/seeded-random.js';
export { Progress, type ProgressOptions } from './progress/progress.js';
