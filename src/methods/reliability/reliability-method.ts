/**
 * The reliability method (Zheng, Lapata & Pan, "How Reliable are LLMs as Knowledge Bases?
 * Re-thinking Factuality and Consistency"), as a plugin of the method seam: its roles, options,
 * stages, the definitions of its metrics (section 2; equation numbers are the paper's), its
 * presentation and its own subcommands. This module imports nothing heavy: the stages, the
 * summary and the presentation load when first used.
 */
import { METHOD_INTERFACE_VERSION, type EvaluationMethod } from '../method.js';
import { PROMPT_SETTINGS } from './defaults.js';
import { RELIABILITY_METHOD, RELIABILITY_METRIC_DEFS } from './metrics/metric-defs.js';
import { PROTOCOL_PER_SETTING, PROTOCOL_SHARED, PROTOCOL_TITLES } from './protocol.js';
import { checkMaxTokens } from '../token-budget.js';
import { RELIABILITY_OPTIONS, reliabilityOptions } from './pipeline/options.js';
import { reliabilityResultTags, reliabilityRunParams } from './pipeline/run-params.js';
import { planReliability as planWith } from './pipeline/plan.js';

const stages = () => import('./pipeline/stages.js');

export const reliabilityMethod: EvaluationMethod = {
  interfaceVersion: METHOD_INTERFACE_VERSION,
  id: RELIABILITY_METHOD.id,
  version: RELIABILITY_METHOD.version,
  title: 'Reliability of an LLM as a knowledge base: factuality and consistency on seen and unseen knowledge',
  paper: 'Zheng, Lapata & Pan. How Reliable are LLMs as Knowledge Bases? Re-thinking Factuality and Consistency.',
  citation: 'Zheng, Lapata & Pan',
  itemsNoun: 'questions',
  roles: [
    { id: 'model', kind: 'text-generation', required: true, description: 'the model under test: answers the questions and the MCQs' },
    {
      id: 'judge',
      kind: 'text-generation',
      required: false,
      batchable: true,
      description:
        'decides correct vs wrong where exact match does not (paper Table 7); filters time-sensitive questions when SeenQA is built (Table 5) unless a timeFilter model is given',
      fallback: 'the lexical rule and the keyword rule, recorded as approximations',
    },
    {
      id: 'distractor',
      kind: 'text-generation',
      required: false,
      batchable: true,
      description: 'writes the MCQ distractors (paper Table 8)',
      fallback: 'an answer pool of other questions, recorded as an approximation',
    },
    {
      id: 'embedder',
      kind: 'embedding',
      required: false,
      description: 'finds the nearest few-shot examples (dynamic few-shot)',
      fallback: 'BM25, recorded as an approximation',
    },
    {
      id: 'timeFilter',
      kind: 'text-generation',
      required: false,
      batchable: true,
      description: 'drops time-sensitive questions when SeenQA is built (paper Table 5)',
      fallback: 'the judge, else the keyword rule (recorded in the data set card)',
    },
  ],
  commandRoles: [
    {
      id: 'question_writer',
      kind: 'text-generation',
      required: false,
      description: 'writes one factoid question per sampled passage for `llmkb data from-corpus`',
    },
  ],
  settings: PROMPT_SETTINGS,
  options: RELIABILITY_OPTIONS,
  stages: [
    {
      id: 'ask',
      description: 'ask every SeenQA and UnseenQA question under one prompt setting (paper Table 6)',
      run: async (ctx) => (await stages()).askStage(ctx),
    },
    {
      id: 'judge',
      description: 'label each response uninformative, correct or wrong (section 3.3, Table 7)',
      run: async (ctx) => (await stages()).judgeStage(ctx),
    },
    {
      id: 'consistency',
      description: 're-ask each correct or wrong response as MCQs and score Cons(q, r) (Eq. 4, Table 8)',
      run: async (ctx) => (await stages()).consistencyStage(ctx),
    },
  ],
  metricDefs: RELIABILITY_METRIC_DEFS,
  protocolChoices: PROTOCOL_TITLES,
  protocolDocs: 'reliability.md#how-close-to-the-paper-is-a-run',
  protocolPerSetting: PROTOCOL_PER_SETTING,
  protocolShared: PROTOCOL_SHARED,
  check: (ctx) => checkMaxTokens(ctx.roles.model, reliabilityOptions(ctx.options).maxTokens),
  prepare: async (ctx) => (await import('./pipeline/inputs.js')).prepareReliability(ctx),
  runParams: ({ options, roles, setting, quick }) => reliabilityRunParams(reliabilityOptions(options), roles, setting, quick),
  resultTags: ({ options, items, quick }) =>
    reliabilityResultTags(reliabilityOptions(options), items as ReadonlyArray<{ dataset?: unknown; source?: unknown }>, quick),
  outputRecords: async (run) => (await import('./pipeline/summary.js')).reliabilityOutputRecords(run),
  summarize: async (ctx) => (await import('./pipeline/summary.js')).summarizeReliability(ctx),
  plan: (ctx) => planWith(ctx),
  presentation: async () => (await import('./presentation.js')).reliabilityPresentation,
  cli: { load: () => import('./cli/register.js') },
};
