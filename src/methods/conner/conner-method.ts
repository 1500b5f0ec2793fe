/**
 * CONNER (Chen et al., "Beyond Factuality: A Comprehensive Evaluation of Large Language Models as
 * Knowledge Generators", EMNLP 2023), described through the method seam: its roles, stages and
 * metric definitions, with the paper's equation numbers.
 */
import { connerRunDetails, connerRunHeadline } from './across-generators/run-details.js';
import { METHOD_INTERFACE_VERSION, type EvaluationMethod, type MetricDef } from '../method.js';

export const CONNER_METRIC_DEFS: readonly MetricDef[] = [
  { id: 'factuality', label: 'Fact.', description: 'factual-consistent score: entailment of each sentence by its best evidence (NLI), aggregated over sentences (min by default)', range: [0, 1], better: 'higher', format: 'number', equation: 'Eq. 1', headline: true },
  { id: 'fact_consistent', label: 'Fact-cons.', description: 'share of knowledge texts whose factuality vector is largest on factual-consistent', range: [0, 1], better: 'higher', format: 'percent', equation: 'Eq. 1', headline: true },
  { id: 'non_verified', label: 'Non-verif.', description: 'share of knowledge texts whose factuality vector is largest on non-verified', range: [0, 1], better: 'lower', format: 'percent', equation: 'Eq. 1' },
  { id: 'fact_inconsistent', label: 'Fact-incon.', description: 'share of knowledge texts whose factuality vector is largest on factual-inconsistent', range: [0, 1], better: 'lower', format: 'percent', equation: 'Eq. 1' },
  { id: 'relevance', label: 'Relevance', description: 'query-knowledge relevance by a passage ranker', range: [0, 1], better: 'higher', format: 'number', equation: 'Eq. 2', headline: true },
  { id: 'coherence_sentence', label: 'Coh-sent.', description: 'mean over sentences of 1/PPL(s_i) under a language model', range: [0, 1], better: 'higher', format: 'number', equation: 'Eq. 3', headline: true },
  { id: 'coherence_paragraph', label: 'Coh-para.', description: 'paragraph coherence; without a discourse-coherence model, 1/PPL of the whole text (a departure, see the protocol)', range: [0, 1], better: 'higher', format: 'number', equation: 'Eq. 4', headline: true },
  { id: 'informativeness', label: 'Inform.', description: '1 - exp(mean log P(k_t | k_<t, q)) under a reference language model', range: [0, 1], better: 'higher', format: 'number', equation: 'Eq. 5', headline: true },
  { id: 'helpfulness', label: 'Helpful.', description: "max(0, 1 - L(q,k,a) / mean_i L(q,k_i^-,a)): how much the knowledge lowers the gold answer's loss against u random other knowledge texts", range: [0, 1], better: 'higher', format: 'number', equation: 'Eq. 6', headline: true },
  { id: 'validity', label: 'Validity', description: 'NLI entailment of the answer given the knowledge: by (q, a*) for span answers, by retrieved evidence for open answers', range: [0, 1], better: 'higher', format: 'percent', equation: 'Eq. 7, Eq. 8', headline: true },
];

export const connerMethod: EvaluationMethod = {
  interfaceVersion: METHOD_INTERFACE_VERSION,
  id: 'conner',
  version: '1',
  title: 'CONNER: quality of LLM-generated knowledge (factuality, relevance, coherence, informativeness, helpfulness, validity)',
  paper: 'Chen et al. Beyond Factuality: A Comprehensive Evaluation of Large Language Models as Knowledge Generators. EMNLP 2023.',
  roles: [
    { id: 'model', kind: 'text-generation', required: true, description: 'the knowledge generator: writes knowledge for each query (Tables 11-12) and the downstream answers (Table 13)' },
    { id: 'scorer', kind: 'scoring', required: false, description: 'reference language model: sentence perplexity (Eq. 3), informativeness (Eq. 5), helpfulness (Eq. 6), paragraph coherence fallback (Eq. 4); the paper used GPT-Neo 2.7B and LLaMA-65B', fallback: 'those metrics are not scored, recorded in the protocol' },
    { id: 'nli', kind: 'classification', required: false, description: 'NLI model for factuality (Eq. 1) and validity (Eq. 7-8); the paper used NLI-RoBERTa-large', fallback: 'factuality and validity are not scored, recorded in the protocol' },
    { id: 'relevance', kind: 'classification', required: false, description: 'query-passage relevance model (Eq. 2); the paper used a BERT ms-marco ranker', fallback: 'relevance is not scored, recorded in the protocol' },
    { id: 'embedder', kind: 'embedding', required: false, description: 'dense evidence retrieval (the paper used ColBERTv2); not used yet: this version retrieves evidence with BM25', fallback: 'BM25 over the corpus (--corpus), recorded as a departure' },
  ],
  stages: [
    { id: 'generate', description: 'knowledge per query (zero- or few-shot, Tables 11-12), then the answer with and without it (Table 13)' },
    { id: 'score', description: 'the six perspectives per knowledge text (Eq. 1-8), with evidence and scorer ids' },
    { id: 'select-demos', description: 'use case 1: rank candidate demonstrations by Q = gamma . [fact, rel, coh_para, info] (Eq. 9)' },
    { id: 'best-of', description: 'use case 2: draw r knowledge texts per query by top-p sampling (p = 0.9, r = 5), keep the one with the highest Q (Eq. 9)' },
  ],
  metricDefs: CONNER_METRIC_DEFS,
  citation: 'Chen et al. (CONNER, EMNLP 2023)',
  protocolChoices: {
    evidence: 'evidence',
    'coherence-paragraph': 'paragraph coherence (Eq. 4)',
    'factuality-aggregation': 'factuality over sentences',
    'factuality-shares': 'factuality shares',
    helpfulness: 'helpfulness (Eq. 6)',
    'scorer-truncation': 'scorer input length',
    sentences: 'sentence splitting',
    'prompt-line-breaks': 'prompt line breaks',
  },
  compare: async (runs, options) => (await import('./across-generators/compare-conner.js')).compareConner(runs, options),
  report: {
    title: 'llmkb report: quality of LLM-generated knowledge (CONNER)',
    approximateNote: 'used a stand-in for one of the paper\'s scorers (see the departures above)',
    sections: async (summaries, context) => (await import('./across-generators/report-sections.js')).connerReportSections(summaries, context),
    runHeadline: (summary) => connerRunHeadline(summary),
    runDetails: (summary, records) => connerRunDetails(summary, records),
  },
  view: {
    itemFields: { label: '$.scores.factualityLabel', source: '$.topic', dataset: '$.task', question: '$.query', response: '$.knowledge' },
    itemTitles: { label: 'factuality', source: 'topic', dataset: 'task', question: 'Query', response: 'Knowledge', subtype: null, answerType: null, consistency: null },
    itemPage: async (records) => (await import('./across-generators/conner-item-page.js')).connerItemPage(records),
  },
};
