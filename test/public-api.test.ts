import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as llmkb from '../src/index.js';
import { METRIC_KEYS, reliabilityMethod } from '../src/methods/reliability/index.js';
import { llmkb as cli } from './support/run-cli.js';

/**
 * Every value the package exports, at its root and at each subpath (package.json "exports"). A
 * change here is a change to the public API: make it on purpose (and say so in the changelog),
 * never by re-exporting a whole module.
 */
const EXPORTED: Record<string, { module: string; names: string[] }> = {
  '.': {
    module: '../src/index.js',
    names: [
      'ConfigError',
      'ContextOverflowError',
      'EXIT_CODES',
      'FileAccessError',
      'InputFileError',
      'LlmkbError',
      'METHOD_INTERFACE_VERSION',
      'MODEL_KINDS',
      'MODEL_SPECIFICATION_VERSION',
      'ModelCallError',
      'ModelExecutor',
      'ModelFileError',
      'ModelSpecError',
      'NLI_LABELS',
      'Progress',
      'Run',
      'RunBusyError',
      'RunStore',
      'SUMMARY_SCHEMA',
      'SeededRandom',
      'UnsupportedCapabilityError',
      'VERSION',
      'Workspace',
      'checkSummary',
      'compareResults',
      'compareRuns',
      'createLanguageModel',
      'createScorerModel',
      'evaluate',
      'findMethod',
      'formatMetric',
      'getMethod',
      'hasKind',
      'headlineDefs',
      'headlineTable',
      'isLlmkbError',
      'listMethods',
      'listProviders',
      'listRuns',
      'loadConfig',
      'loadMethodModules',
      'loadResultRun',
      'loadStoredRun',
      'normalizeAnswer',
      'parseModelSpec',
      'prepareMethod',
      'rankRuns',
      'readJsonl',
      'readSummaryFile',
      'registerMethod',
      'registerProvider',
      'renderReport',
      'reportRuns',
      'requireKind',
      'resultFileStem',
      'runMethod',
      'runResultFiles',
      'runStoredStage',
      'settingsOf',
      'toJsonl',
      'writeFileAtomic',
    ],
  },
  './reliability': {
    module: '../src/methods/reliability/index.js',
    names: [
      'ANSWER_MAX_TOKENS',
      'ANSWER_TYPES',
      'Bm25ShotSelector',
      'DATASET_FILES',
      'EmbeddingShotSelector',
      'LEXICAL_JUDGE_ID',
      'MCQ_INSTRUCTION',
      'METRIC_KEYS',
      'PAPER_CUTOFF',
      'PROMPT_SETTINGS',
      'QA_INSTRUCTION',
      'REJECTION_REASONS',
      'ResponseJudge',
      'UNSEEN_TEMPLATES',
      'askQuestions',
      'buildCorpusQuestions',
      'buildRepositoryFiles',
      'buildSeenQAFiles',
      'buildUnseenQA',
      'buildUnseenQAFiles',
      'computeMetrics',
      'distractorPrompt',
      'formatSummary',
      'judgePrompt',
      'judgeRecords',
      'measureJudge',
      'qaItemSchema',
      'qaPrompt',
      'readQAItems',
      'reliabilityMethod',
      'runConsistency',
      'summarizeRun',
      'templatesForCutoff',
      'timeSensitivePrompt',
    ],
  },
  './conner': {
    module: '../src/methods/conner/index.js',
    names: [
      'BEST_ZERO_SHOT_PROMPT',
      'CONNER_METRIC_DEFS',
      'DEFAULT_CHOICES',
      'DEFAULT_GAMMA',
      'KNOWLEDGE_SETTINGS',
      'RELEASED_CODE_CHOICES',
      'ZERO_SHOT_PROMPTS',
      'answerPrompt',
      'bestOf',
      'bestOfFromFiles',
      'bestOfFromSamples',
      'bestOfSamples',
      'connerMethod',
      'connerOptions',
      'connerQuerySchema',
      'connerRunSummaries',
      'corpusEvidence',
      'demonstrationPool',
      'demonstrationsOf',
      'estimateMetric',
      'executorClassifier',
      'executorTokenScorer',
      'fewShotKnowledgePrompt',
      'formatConnerRuns',
      'generateKnowledge',
      'generateKnowledgeFile',
      'generateOne',
      'generatedKnowledgeSchema',
      'humanCorrelation',
      'knowledgeQuality',
      'matchRatings',
      'metricValue',
      'parseConnerTestFile',
      'parseGamma',
      'probeScorers',
      'readConnerQueries',
      'readKnowledgeFile',
      'readRatings',
      'referenceEvidence',
      'scoreFiles',
      'scoreKnowledge',
      'scoreToFiles',
      'scorersOf',
      'scoringChoices',
      'selectDemonstrations',
      'selectDemosFromPool',
      'taskOfConnerFile',
      'zeroShotKnowledgePrompt',
    ],
  },
  './corpus': {
    module: '../src/corpus/api.js',
    names: [
      'Corpus',
      'CorpusAddError',
      'CorpusNotFoundError',
      'CorpusRetriever',
      'DEFAULT_OVERLAP_WORDS',
      'DEFAULT_PASSAGE_WORDS',
      'EmbedderMismatchError',
      'OpenSearchRetriever',
      'PdfSkipError',
      'addFiles',
      'addRemoteCorpus',
      'corpusRetriever',
      'extractPdfText',
      'listRemoteCorpora',
      'remoteCorpus',
      'removeRemoteCorpus',
      'retrieverFor',
      'searchCorpus',
      'splitPassages',
    ],
  },
  './sweep': {
    module: '../src/sweep/index.js',
    names: ['formatPlan', 'loadStudy', 'mergeResults', 'parseShard', 'planStudy', 'runStudy', 'studyJobs', 'studySchema'],
  },
  './providers': {
    module: '../src/providers/index.js',
    names: [
      'LlamaModel',
      'LlamaReranker',
      'LlmClassifier',
      'MockModel',
      'OnnxClassifier',
      'OpenAICompatibleModel',
      'TeiClassifier',
      'VllmPoolingClassifier',
      'readMockReplies',
    ],
  },
};

describe('public API', () => {
  for (const [subpath, { module, names }] of Object.entries(EXPORTED)) {
    it(`llmkb${subpath === '.' ? '' : subpath.slice(1)} exports exactly the listed names`, async () => {
      assert.deepEqual(Object.keys((await import(module)) as object).sort(), [...names].sort());
    });
  }

  it('package.json exports exactly these subpaths, each built (types and module)', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    assert.deepEqual(
      Object.keys(pkg.exports)
        .filter((k) => k !== './package.json')
        .sort(),
      Object.keys(EXPORTED).sort(),
    );
  });

  it("the root imports no method's folder: a method is reached through the registry or its own subpath", () => {
    assert.doesNotMatch(readFileSync(join(import.meta.dirname, '..', 'src', 'index.ts'), 'utf8'), /from '\.\/methods\/[^/']+\//);
  });
});

describe('evaluation methods', () => {
  it('lists the reliability method with its roles, stages and the definitions of its metrics', async () => {
    const r = await cli(['methods', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { interfaceVersion, methods } = JSON.parse(r.stdout) as { interfaceVersion: string; methods: llmkb.EvaluationMethod[] };
    assert.equal(interfaceVersion, llmkb.METHOD_INTERFACE_VERSION);
    const reliability = methods.find((m) => m.id === 'reliability')!;
    assert.deepEqual(
      reliability.roles.map((x) => `${x.id}:${x.kind}:${x.required}`),
      [
        'model:text-generation:true',
        'judge:text-generation:false',
        'distractor:text-generation:false',
        'embedder:embedding:false',
        'timeFilter:text-generation:false',
      ],
    );
    assert.deepEqual(
      reliability.stages.map((s) => s.id),
      ['ask', 'judge', 'consistency'],
    );
    assert.deepEqual(
      reliability.metricDefs.map((d) => d.id),
      [...METRIC_KEYS],
    );
    assert.deepEqual(
      reliability.metricDefs.filter((d) => d.headline).map((d) => d.id),
      ['NCR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'],
      "the paper's six headline metrics",
    );
    const nccr = reliability.metricDefs.find((d) => d.id === 'NCCR')!;
    assert.deepEqual([nccr.range, nccr.better, nccr.equation], [[-1, 1], 'higher', 'Eq. 9']);
    const text = await cli(['methods']);
    assert.match(text.stdout, /^reliability \(version 2\)/);
  });

  it("lists CONNER with its roles by kind, its two knowledge settings, two stages and the paper's metrics", async () => {
    const r = await cli(['methods', '--json']);
    const conner = (JSON.parse(r.stdout) as { methods: llmkb.EvaluationMethod[] }).methods.find((m) => m.id === 'conner')!;
    assert.deepEqual(
      conner.roles.map((x) => `${x.id}:${x.kind}:${x.required}`),
      [
        'model:text-generation:true',
        'answerer:text-generation:false',
        'scorer:scoring:false',
        'nli:classification:false',
        'relevance:classification:false',
        'coherence:classification:false',
      ],
    );
    assert.deepEqual(conner.settings, ['zero-shot', 'few-shot']);
    assert.deepEqual(
      conner.stages.map((s) => s.id),
      ['generate', 'score'],
    );
    assert.deepEqual(
      conner.metricDefs.filter((d) => d.headline).map((d) => d.id),
      ['factuality', 'fact_consistent', 'relevance', 'coherence_sentence', 'coherence_paragraph', 'informativeness', 'helpfulness', 'validity'],
    );
  });

  it('registers a method of the same interface version, and refuses a clash or another version', () => {
    const tiny: llmkb.EvaluationMethod = {
      ...reliabilityMethod,
      id: 'tiny-exact-match',
      metricDefs: [{ id: 'EM', label: 'EM', description: 'exact match', range: [0, 1], better: 'higher', format: 'percent' }],
    };
    llmkb.registerMethod(tiny);
    assert.equal(llmkb.getMethod('tiny-exact-match'), tiny);
    assert.throws(() => llmkb.registerMethod({ ...tiny }), /already registered/);
    assert.throws(
      () => llmkb.registerMethod({ ...tiny, id: 'old', interfaceVersion: 'llmkb-method-v0' as typeof llmkb.METHOD_INTERFACE_VERSION }),
      /implements llmkb-method-v0/,
    );
    assert.throws(() => llmkb.getMethod('nope'), /unknown evaluation method "nope"/);
  });
});
