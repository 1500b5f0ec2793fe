/**
 * `llmkb/conner`: the CONNER method's own API (Chen et al., EMNLP 2023) for library users: the
 * method, its query files and paper prompts, generation and scoring one step at a time, its
 * choices, summaries and the two use cases. Each `llmkb conner` command is one call here
 * (`generateKnowledgeFile`, `scoreToFiles`, `selectDemosFromPool`, `bestOfFromFiles`,
 * `bestOfFromSamples`). The package root (`llmkb`) runs it like any method
 * (`runMethod(getMethod('conner'), ...)`).
 */
export { connerMethod } from './conner-method.js';
export { CONNER_METRIC_DEFS } from './metric-defs.js';
export { connerOptions, scoringChoices, type ConnerOptions } from './pipeline/options.js';
export { KNOWLEDGE_SETTINGS, BEST_ZERO_SHOT_PROMPT, type KnowledgeSetting } from './defaults.js';
export { DEFAULT_CHOICES, RELEASED_CODE_CHOICES, type ScoringChoices } from './conner-choices.js';
export { readConnerQueries, parseConnerTestFile, taskOfConnerFile, connerQuerySchema, type ConnerQuery, type ConnerTask } from './generation/conner-queries.js';
export { ZERO_SHOT_PROMPTS, zeroShotKnowledgePrompt, fewShotKnowledgePrompt, answerPrompt, type Demonstration } from './generation/conner-prompts.js';
export { generateKnowledge, generateOne, demonstrationsOf, type GeneratedKnowledge, type GenerateOptions } from './generation/generate-knowledge.js';
export { generateKnowledgeFile, type GeneratedFile } from './generation/generate-file.js';
export { readKnowledgeFile, generatedKnowledgeSchema } from './generation/knowledge-file.js';
export { scoreKnowledge, type ScoreOptions } from './scoring/score-knowledge.js';
export { executorClassifier, executorTokenScorer } from './scoring/executor-scorers.js';
export { scorersOf, probeScorers, type ScoringExecutors, type ScoringSetup } from './scoring/scoring-setup.js';
export { referenceEvidence, corpusEvidence, type Evidence, type EvidenceSource } from './evidence/evidence-source.js';
export type { ConnerScores, ScoredKnowledge } from './scoring/scored-knowledge.js';
export type { LogLikelihood, NliVector, PairClassifier, TokenScorer } from './scoring/scorers.js';
export { connerRunSummaries, formatConnerRuns, type ConnerBreakdowns } from './summary/conner-summary.js';
export { estimateMetric, metricValue, type MetricEstimate } from './summary/metric-aggregates.js';
export { readRatings, matchRatings, humanCorrelation, type HumanRating } from './summary/human-ratings.js';
export { knowledgeQuality, parseGamma, DEFAULT_GAMMA, type Gamma } from './use-cases/knowledge-quality.js';
export { selectDemonstrations, selectDemosFromPool, demonstrationPool, type SelectedDemonstration, type SelectDemosSummary } from './use-cases/select-demos.js';
export { bestOf, bestOfSamples, type BestOfChoice, type SampledChoice, type CandidateScoring } from './use-cases/best-of.js';
export { bestOfFromFiles, bestOfFromSamples, type BestOfOutput, type BestOfResult, type BestOfSummary } from './use-cases/best-of-run.js';
export { scoreFiles, scoreToFiles, type KnowledgeFile, type ScoreFilesOptions, type ScoreToFilesOptions } from './score-files.js';
