import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as llmkb from '../src/index.js';
import { llmkb as cli } from './support/run-cli.js';

/**
 * Every value the package exports. A change here is a change to the public API: make it on
 * purpose (and say so in the changelog), never by re-exporting a whole module.
 */
const EXPORTED = [
  'LEXICAL_JUDGE_ID', 'LEXICAL_JUDGE_AGREEMENT', 'measureJudge', 'agreementStats', 'agreementReport', 'readEvouna', 'readHumanLabelled',
  'ANSWER_MAX_TOKENS', 'ANSWER_TYPES', 'Bm25ShotSelector', 'CallCache', 'ConfigError',
  'ContextOverflowError', 'DATASET_FILES', 'EXIT_CODES', 'FileAccessError', 'RunBusyError', 'DEFAULT_ANSWER_MODE', 'DEFAULT_MODEL', 'EmbeddingShotSelector',
  'InputFileError', 'LlamaModel', 'LlmkbError', 'MCQ_INSTRUCTION', 'METHOD_INTERFACE_VERSION',
  'METRIC_KEYS', 'MODEL_SPECIFICATION_VERSION', 'ModelCallError', 'ModelExecutor', 'ModelFileError',
  'ModelSpecError', 'OpenAICompatibleModel', 'PAPER_CUTOFF', 'PROMPT_SETTINGS', 'PROTOCOL_CHOICES',
  'Progress', 'QA_INSTRUCTION', 'ROLES', 'ResponseJudge', 'Run', 'RunStore', 'SeededRandom',
  'UNSEEN_TEMPLATES', 'UnsupportedCapabilityError', 'VERSION', 'Workspace', 'askQuestions', 'buildMcqs',
  'buildProtocol', 'buildRepositoryFiles', 'buildSeenQAFiles', 'buildUnseenQA', 'buildUnseenQAFiles',
  'compareAnswerModes', 'computeMetrics', 'configSchema', 'consistencyScore', 'correlate', 'countRecords',
  'createLanguageModel', 'defaultRunLabel', 'departures', 'detectUninformative', 'distinguishRuns',
  'distractorPrompt', 'effects', 'evaluateModel', 'extractAnswer', 'failedThresholds', 'formatSummary',
  'getMethod', 'isLlmkbError', 'judgeByRules', 'judgePrompt', 'judgeRecords', 'lexicalMatch', 'listMethods',
  'loadConfig', 'modelEntrySchema', 'normalizeAnswer', 'openDatabase', 'pairedBootstrap', 'paperTable',
  'parseChoice', 'parseModelSpec', 'pearson', 'protocolDifferences', 'qaItemSchema', 'qaPrompt', 'ranking',
  'readJsonl', 'readQAItems', 'registerMethod', 'reliabilityMethod', 'renderReport', 'resultFileStem',
  'runConsistency', 'runStage', 'summarizeRun', 'templatesForCutoff', 'timeSensitivePrompt', 'toCsv',
  'toJsonl', 'toMarkdown', 'writeFileAtomic',
  'Corpus', 'CorpusNotFoundError', 'searchCorpus', 'ensureCorpusSchema', 'splitPassages', 'DEFAULT_PASSAGE_WORDS', 'DEFAULT_OVERLAP_WORDS', 'ftsQuery', 'STOP_WORDS', 'extractPdfText', 'PdfSkipError',
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
