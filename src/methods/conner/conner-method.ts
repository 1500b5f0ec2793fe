/**
 * CONNER (Chen et al., "Beyond Factuality: A Comprehensive Evaluation of Large Language Models as
 * Knowledge Generators", EMNLP 2023), as a plugin of the method seam: its roles, stages and metric
 * definitions, with the paper's equation numbers. This module imports nothing heavy.
 */
import { METHOD_INTERFACE_VERSION, type EvaluationMethod } from '../method.js';
import { checkMaxTokens } from '../token-budget.js';
import { KNOWLEDGE_SETTINGS } from './defaults.js';
import { CONNER_METHOD, CONNER_METRIC_DEFS } from './metric-defs.js';
import type { ConnerContext } from './pipeline/inputs.js';
import { CONNER_OPTIONS, connerOptions } from './pipeline/options.js';
import { planConner } from './pipeline/plan.js';
import { connerRunParams } from './pipeline/run-params.js';

export { CONNER_METRIC_DEFS };

const stages = () => import('./pipeline/stages.js');

export const connerMethod: EvaluationMethod = {
  interfaceVersion: METHOD_INTERFACE_VERSION,
  id: CONNER_METHOD.id,
  version: CONNER_METHOD.version,
  title: 'CONNER: quality of LLM-generated knowledge (factuality, relevance, coherence, informativeness, helpfulness, validity)',
  paper: 'Chen et al. Beyond Factuality: A Comprehensive Evaluation of Large Language Models as Knowledge Generators. EMNLP 2023.',
  roles: [
    { id: 'model', kind: 'text-generation', required: true, description: 'the knowledge generator under test: writes knowledge for each query (Tables 11-12)' },
    {
      id: 'answerer',
      kind: 'text-generation',
      required: false,
      batchable: true,
      description:
        "the fixed few-shot answerer (Appendix G, Table 13; the paper: LLaMA-65B) that writes the downstream answers helpfulness and validity judge, the same for every generator compared; at scoring, helpfulness's answer losses are its own (Table 14)",
      fallback: 'the generator answers its own knowledge, and the scorer scores helpfulness; both recorded as departures',
    },
    {
      id: 'scorer',
      kind: 'scoring',
      required: false,
      description:
        'reference language model: sentence perplexity (Eq. 3), informativeness (Eq. 5), helpfulness (Eq. 6), paragraph coherence fallback (Eq. 4); the paper used GPT-Neo 2.7B and LLaMA-65B',
      fallback: 'those metrics are not scored, recorded in the protocol',
    },
    {
      id: 'nli',
      kind: 'classification',
      required: false,
      description: 'NLI model for factuality (Eq. 1) and validity (Eq. 7-8); the paper used NLI-RoBERTa-large',
      fallback: 'factuality and validity are not scored, recorded in the protocol',
    },
    {
      id: 'relevance',
      kind: 'classification',
      required: false,
      description: 'query-passage relevance model (Eq. 2), one logit or several with a "relevant" label; the paper used a two-logit monoBERT ms-marco ranker',
      fallback: 'relevance is not scored, recorded in the protocol',
    },
    {
      id: 'coherence',
      kind: 'classification',
      required: false,
      description: 'discourse-coherence scorer of one paragraph (Eq. 4, task "coherence"); the paper used Coherence-Momentum',
      fallback: '1/PPL of the whole text under the scorer, recorded as a departure',
    },
  ],
  settings: KNOWLEDGE_SETTINGS,
  options: CONNER_OPTIONS,
  stages: [
    {
      id: 'generate',
      description: "knowledge per query (zero-shot: Table 11, few-shot: Table 12), then the answerer's answer with and without it (Table 13)",
      run: async (ctx) => (await stages()).generateStage(ctx),
    },
    {
      id: 'score',
      description: 'the six perspectives per knowledge text (Eq. 1-8), with evidence and scorer ids',
      run: async (ctx) => (await stages()).scoreStage(ctx),
    },
  ],
  check: (ctx) => {
    const options = connerOptions(ctx.options);
    checkMaxTokens(ctx.roles.model, options.maxTokens, '--max-tokens (maxTokens in a study)', 128);
    checkMaxTokens(ctx.roles.answerer ?? ctx.roles.model, options.answerMaxTokens, '--answer-max-tokens (answerMaxTokens in a study)', 32);
  },
  prepare: async (ctx) => (await import('./pipeline/inputs.js')).prepareConner(ctx),
  // By sorted ids, as the `conner` commands sample: `generate --limit n` and `eval --limit n` read the same queries.
  limitItems: async (items, n, seed) => (await import('../../sampling/limit-items.js')).limitItemsById(items, n, seed),
  runParams: ({ roles, setting, context }) => connerRunParams(roles, setting, context as ConnerContext),
  outputRecords: async (run) => (await import('./pipeline/summary.js')).connerOutputRecords(run),
  summarize: async (ctx) => (await import('./pipeline/summary.js')).summarizeConnerRun(ctx),
  plan: (ctx) => planConner(ctx),
  // The paper's Table 2 (QA, Natural Questions) and Table 3 (dialogue, Wizard of Wikipedia).
  tableOf: (summary) => String((summary.breakdowns as { task?: unknown } | undefined)?.task ?? 'qa'),
  protocolPerSetting: ['shots-fitted', 'demonstrations'],
  protocolShared: [
    'evidence',
    'premises',
    'factuality-rule',
    'factuality-aggregation',
    'dialogue-query',
    'dialogue-validity',
    'coherence-sentence',
    'coherence-paragraph',
    'informativeness-prefix',
    'helpfulness',
  ],
  presentation: async () => (await import('./presentation.js')).connerPresentation,
  cli: { load: () => import('./cli/register.js') },
  metricDefs: CONNER_METRIC_DEFS,
  citation: 'Chen et al. (CONNER, EMNLP 2023)',
  itemsNoun: 'queries',
  protocolDocs: 'conner.md#how-close-to-the-paper-is-a-conner-run',
  protocolChoices: {
    answerer: 'answerer (Appendix G)',
    evidence: 'evidence',
    premises: 'reference premises',
    'factuality-rule': 'factuality rule (Eq. 1)',
    'factuality-aggregation': 'factuality over sentences',
    'nli-window': 'NLI input length',
    'relevance-window': 'relevance input length (Eq. 2)',
    'dialogue-query': 'dialogue query (Eq. 2, 5)',
    'dialogue-validity': 'dialogue validity premises (Eq. 8)',
    'coherence-sentence': 'sentence coherence (Eq. 3)',
    'coherence-paragraph': 'paragraph coherence (Eq. 4)',
    'informativeness-prefix': 'informativeness prefix (Eq. 5)',
    helpfulness: 'helpfulness (Eq. 6)',
    'helpfulness-scorer': 'helpfulness scorer (Eq. 6)',
    'helpfulness-prompt': 'helpfulness prompt (Eq. 6)',
    'helpfulness-baseline': 'helpfulness baseline k^- (Eq. 6)',
    'nli-model': 'NLI model (Eq. 1, 7-8)',
    'relevance-model': 'relevance model (Eq. 2)',
    'scorer-model': 'reference language model (Eq. 3, 5)',
    'coherence-model': 'paragraph-coherence model (Eq. 4)',
    'shots-fitted': 'demonstrations and context',
    demonstrations: 'demonstrations',
    'scorer-truncation': 'scorer input length',
    underflow: 'probability underflow',
    sentences: 'sentence splitting',
    'prompt-line-breaks': 'prompt line breaks',
    'empty-knowledge': 'empty knowledge',
    limit: 'queries scored',
  },
};
