/**
 * `llmkb/reliability`: the reliability method's own API (Zheng, Lapata & Pan) for library users:
 * the method, its data sets, paper prompts, the pipeline one stage at a time, and its metrics.
 * The package root (`llmkb`) runs it like any method (`runMethod(getMethod('reliability'), ...)`).
 */
export { reliabilityMethod } from './reliability-method.js';
export { ANSWER_TYPES, qaItemSchema, readQAItems, type AnswerType, type QAItem } from './data/qa-item.js';
export { buildSeenQAFiles, buildUnseenQAFiles, buildRepositoryFiles, DATASET_FILES } from './data/build-datasets.js';
export { UNSEEN_TEMPLATES, PAPER_CUTOFF, buildUnseenQA, templatesForCutoff } from './data/unseenqa.js';
export {
  buildCorpusQuestions,
  REJECTION_REASONS,
  type CorpusQuestionOptions,
  type CorpusQuestionReport,
  type CorpusQAItem,
  type RejectionReason,
} from './data/corpus-questions.js';
export { QA_INSTRUCTION, MCQ_INSTRUCTION, qaPrompt, judgePrompt, distractorPrompt, timeSensitivePrompt, type Shot } from './prompts/paper-prompts.js';
export { Bm25ShotSelector, EmbeddingShotSelector, type ShotSelector } from './prompts/shot-selector.js';
export { askQuestions, PROMPT_SETTINGS, ANSWER_MAX_TOKENS, type PromptSetting, type AskedRecord } from './asking/ask-questions.js';
export { ResponseJudge, type JudgedRecord, type ResponseRecord, type Label } from './judging/judge-response.js';
export { judgeRecords } from './judging/judge-records.js';
export { LEXICAL_JUDGE_ID } from './judging/lexical-match.js';
export { measureJudge, type AgreementStats, type AgreementReport, type HumanLabelledResponse } from './judging/judge-agreement.js';
export { runConsistency, type ConsistencyRecord } from './consistency/consistency-stage.js';
export type { Mcq, AnswerMode } from './consistency/mcq.js';
export { METRIC_KEYS, computeMetrics, type MetricKey, type Metrics, type MetricCounts, type MetricRecord } from './metrics/reliability-metrics.js';
export { summarizeRun, formatSummary, type RunSummary, type ScoredRecord } from './metrics/summarize-run.js';
export type { Protocol, ProtocolStatus, ProtocolChoice } from './protocol.js';
