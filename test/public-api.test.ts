import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as llmkb from '../src/index.js';
import { llmkb as cli } from './support/run-cli.js';

/**
 * Every value the package exports. A change here is a change to the public API: make it on
 * purpose (and say so in the changelog), never by re-exporting a whole module.
 */
const EXPORTED = [
  'ANSWER_MAX_TOKENS', 'ANSWER_TYPES', 'Bm25ShotSelector', 'CallCache', 'ConfigError', 'ContextOverflowError',
  'Corpus', 'CorpusAddError', 'CorpusNotFoundError', 'DATASET_FILES', 'DEFAULT_MODEL', 'DEFAULT_OVERLAP_WORDS',
  'DEFAULT_PASSAGE_WORDS', 'EXIT_CODES', 'EmbeddingShotSelector', 'FileAccessError', 'InputFileError',
  'LEXICAL_JUDGE_ID', 'LlamaModel', 'LlmkbError', 'MCQ_INSTRUCTION', 'METHOD_INTERFACE_VERSION', 'METRIC_KEYS',
  'MODEL_KINDS', 'MODEL_SPECIFICATION_VERSION', 'MockModel', 'ModelCallError', 'ModelExecutor', 'ModelFileError',
  'ModelSpecError', 'NLI_LABELS', 'OpenAICompatibleModel', 'PAPER_CUTOFF', 'PROMPT_SETTINGS', 'PdfSkipError',
  'Progress', 'QA_INSTRUCTION', 'ROLES', 'ResponseJudge', 'Run', 'RunBusyError', 'RunStore', 'STOP_WORDS',
  'SUMMARY_SCHEMA', 'SeededRandom', 'UNSEEN_TEMPLATES', 'UnsupportedCapabilityError', 'VERSION', 'Workspace',
  'askQuestions', 'buildRepositoryFiles', 'buildSeenQAFiles', 'buildUnseenQA', 'buildUnseenQAFiles', 'checkRoles',
  'checkSummary', 'compareRuns', 'computeMetrics', 'configSchema', 'createLanguageModel', 'defaultRunLabel',
  'distractorPrompt', 'ensureCorpusSchema', 'evaluateModel', 'extractPdfText', 'failedThresholds', 'findMethod',
  'formatMetric', 'formatSummary', 'ftsQuery', 'getMethod', 'hasKind', 'headlineDefs', 'headlineTable',
  'isLlmkbError', 'judgePrompt', 'judgeRecords', 'listMethods', 'listProviders', 'loadConfig', 'measureJudge',
  'migrateSummary', 'modelEntrySchema', 'normalizeAnswer', 'openDatabase', 'parseModelSpec', 'qaItemSchema',
  'qaPrompt', 'rankRuns', 'readJsonl', 'readMockReplies', 'readQAItems', 'registerMethod', 'registerProvider',
  'reliabilityMethod', 'renderReport', 'requireKind', 'resultFileStem', 'runConsistency', 'runMethod', 'runStage',
  'searchCorpus', 'settingsOf', 'splitPassages', 'summarizeRun', 'templatesForCutoff', 'timeSensitivePrompt',
  'toJsonl', 'writeFileAtomic',
  'createScorerModel', 'TeiClassifier', 'VllmPoolingClassifier', 'LlmClassifier', 'OnnxClassifier', 'LlamaReranker',
  'connerMethod', 'CONNER_METRIC_DEFS', 'readConnerQueries', 'generateKnowledge', 'readKnowledgeFile', 'scoreKnowledge', 'executorTokenScorer', 'executorClassifier',
  'corpusEvidence', 'referenceEvidence', 'connerProtocol', 'summarizeConner', 'formatConnerSummary', 'connerRunSummaries', 'formatConnerRuns', 'somersD', 'selectDemonstrations', 'bestOf', 'bestOfSamples', 'sampleKnowledge', 'knowledgeQuality',
  'POSTING_BUDGET', 'reciprocalRankFusion', 'RRF_K', 'EmbedderMismatchError', 'CorpusRetriever', 'corpusRetriever', 'retrieverFor', 'OpenSearchRetriever', 'addRemoteCorpus', 'remoteCorpus', 'Bm25TopK', 'buildCorpusQuestions', 'writeCorpusQuestions', 'documentDate', 'findSpan', 'questionWriterPrompt', 'QUESTION_WRITER_PROMPT_VERSION', 'REJECTION_REASONS',
  'loadStudy', 'studySchema', 'runStudy', 'planStudy', 'formatPlan', 'mergeResults', 'studyJobs', 'parseShard', 'BatchingModel', 'recoverBatches',
];

describe('public API', () => {
  it('exports exactly the listed names', () => {
    assert.deepEqual(Object.keys(llmkb).sort(), [...EXPORTED].sort());
  });
});

describe('evaluation methods', () => {
  it('lists the reliability method with its roles, stages and the definitions of its metrics', async () => {
    const r = await cli(['methods', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { interfaceVersion, methods } = JSON.parse(r.stdout) as { interfaceVersion: string; methods: llmkb.EvaluationMethod[] };
    assert.equal(interfaceVersion, llmkb.METHOD_INTERFACE_VERSION);
    const reliability = methods.find((m) => m.id === 'reliability')!;
    assert.deepEqual(reliability.roles.map((x) => `${x.id}:${x.kind}:${x.required}`), ['model:text-generation:true', 'judge:text-generation:false', 'distractor:text-generation:false', 'embedder:embedding:false']);
    assert.deepEqual(reliability.stages.map((s) => s.id), ['ask', 'judge', 'consistency']);
    assert.deepEqual(reliability.metricDefs.map((d) => d.id), [...llmkb.METRIC_KEYS]);
    assert.deepEqual(reliability.metricDefs.filter((d) => d.headline).map((d) => d.id), ['NCR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'], "the paper's six headline metrics");
    const nccr = reliability.metricDefs.find((d) => d.id === 'NCCR')!;
    assert.deepEqual([nccr.range, nccr.better, nccr.equation], [[-1, 1], 'higher', 'Eq. 9']);
    const text = await cli(['methods']);
    assert.match(text.stdout, /^reliability \(version 1\)/);
  });

  it('registers a method of the same interface version, and refuses a clash or another version', () => {
    const tiny: llmkb.EvaluationMethod = { ...llmkb.reliabilityMethod, id: 'tiny-exact-match', metricDefs: [{ id: 'EM', label: 'EM', description: 'exact match', range: [0, 1], better: 'higher', format: 'percent' }] };
    llmkb.registerMethod(tiny);
    assert.equal(llmkb.getMethod('tiny-exact-match'), tiny);
    assert.throws(() => llmkb.registerMethod({ ...tiny }), /already registered/);
    assert.throws(() => llmkb.registerMethod({ ...tiny, id: 'old', interfaceVersion: 'llmkb-method-v0' as typeof llmkb.METHOD_INTERFACE_VERSION }), /implements llmkb-method-v0/);
    assert.throws(() => llmkb.getMethod('nope'), /unknown evaluation method "nope"/);
  });
});
