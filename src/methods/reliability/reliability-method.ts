/**
 * The reliability method (Zheng, Lapata & Pan, "How Reliable are LLMs as Knowledge Bases?
 * Re-thinking Factuality and Consistency"), described through the method seam: its roles, its
 * stages and the definitions of its metrics (section 2; equation numbers are the paper's).
 */
import { METHOD_INTERFACE_VERSION, type EvaluationMethod } from '../method.js';
import { RELIABILITY_METHOD, RELIABILITY_METRIC_DEFS } from './metrics/metric-defs.js';
import { runDetails, runHeadline } from './across-models/run-details.js';
import { PROMPT_SETTINGS } from './defaults.js';
import { PROTOCOL_PER_SETTING, PROTOCOL_TITLES } from './protocol.js';

export const reliabilityMethod: EvaluationMethod = {
  interfaceVersion: METHOD_INTERFACE_VERSION,
  id: RELIABILITY_METHOD.id,
  version: RELIABILITY_METHOD.version,
  title: 'Reliability of an LLM as a knowledge base: factuality and consistency on seen and unseen knowledge',
  paper: 'Zheng, Lapata & Pan. How Reliable are LLMs as Knowledge Bases? Re-thinking Factuality and Consistency.',
  roles: [
    { id: 'model', kind: 'text-generation', required: true, description: 'the model under test: answers the questions and the MCQs' },
    { id: 'judge', kind: 'text-generation', required: false, description: "decides correct vs wrong where exact match does not (paper Table 7); filters time-sensitive questions when building SeenQA (Table 5)", fallback: 'the lexical rule and the keyword rule, recorded as approximations' },
    { id: 'distractor', kind: 'text-generation', required: false, description: 'writes the MCQ distractors (paper Table 8)', fallback: 'an answer pool of other questions, recorded as an approximation' },
    { id: 'embedder', kind: 'embedding', required: false, description: 'finds the nearest few-shot examples (dynamic few-shot)', fallback: 'BM25, recorded as an approximation' },
  ],
  stages: [
    { id: 'ask', description: 'ask every SeenQA and UnseenQA question under one prompt setting (paper Table 6)' },
    { id: 'judge', description: 'label each response uninformative, correct or wrong (section 3.3, Table 7)' },
    { id: 'consistency', description: 're-ask each correct or wrong response as MCQs and score Cons(q, r) (Eq. 4, Table 8)' },
  ],
  metricDefs: RELIABILITY_METRIC_DEFS,
  citation: 'Zheng, Lapata & Pan',
  settings: PROMPT_SETTINGS,
  protocolChoices: PROTOCOL_TITLES,
  protocolPerSetting: PROTOCOL_PER_SETTING,
  checkSummary: async (summary) => (await import('./check-summary.js')).checkReliabilitySummary(summary),
  compare: async (runs, options) => (await import('./across-models/compare-reliability.js')).compareReliability(runs, options),
  report: {
    title: 'llmkb report: reliability of LLMs as knowledge bases',
    approximateNote: 'were judged without a judge LLM (lexical rule)',
    sections: async (summaries, context) => (await import('./across-models/report-sections.js')).reportSections(summaries, context),
    runHeadline: (summary) => runHeadline(summary),
    runDetails: (summary, records) => runDetails(summary, records),
  },
};
