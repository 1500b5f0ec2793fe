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
  { id: 'coherence_paragraph', label: 'Coh-para.', description: 'paragraph coherence by a discourse-coherence scorer; without one, 1/PPL of the whole text (a departure, see the protocol)', range: [0, 1], better: 'higher', format: 'number', equation: 'Eq. 4', headline: true },
  { id: 'informativeness', label: 'Inform.', description: '1 - exp(mean log P(k_t | k_<t, q)) under a reference language model', range: [0, 1], better: 'higher', format: 'number', equation: 'Eq. 5', headline: true },
  { id: 'helpfulness', label: 'Helpful.', description: "max(0, 1 - mean_q L(q,k,a) / mean_q L(q,k^-,a)) over the set, clipped after averaging as the paper's Table 2: how much the knowledge lowers the gold answer's loss against u random other knowledge texts", range: [0, 1], better: 'higher', format: 'number', equation: 'Eq. 6', headline: true },
  { id: 'helpfulness_raw', label: 'Helpful. raw', description: "1 - mean_q L(q,k,a) / mean_q L(q,k^-,a) without max(0, .), as the paper's Table 16; negative when the knowledge helps less than random knowledge (below -1 only when it more than doubles the loss)", range: [-1, 1], better: 'higher', format: 'number', equation: 'Eq. 6 (Table 16)' },
  { id: 'validity', label: 'Validity', description: 'NLI entailment of the answer given the knowledge: by (q, a*) for span answers, by retrieved evidence for open answers', range: [0, 1], better: 'higher', format: 'percent', equation: 'Eq. 7, Eq. 8', headline: true },
];

export const connerMethod: EvaluationMethod = {
  interfaceVersion: METHOD_INTERFACE_VERSION,
  id: 'conner',
  version: '1',
  title: 'CONNER: quality of LLM-generated knowledge (factuality, relevance, coherence, informativeness, helpfulness, validity)',
  paper: 'Chen et al. Beyond Factuality: A Comprehensive Evaluation of Large Language Models as Knowledge Generators. EMNLP 2023.',
  roles: [
    { id: 'model', kind: 'text-generation', required: true, description: 'the knowledge generator under test: writes knowledge for each query (Tables 11-12)' },
    { id: 'answerer', kind: 'text-generation', required: false, description: "the fixed few-shot answerer (Appendix G, Table 13; the paper: LLaMA-65B) that writes the downstream answers helpfulness and validity judge, the same for every generator compared; at scoring, helpfulness's answer losses are its own (Table 14)", fallback: 'the generator answers its own knowledge, and the scorer scores helpfulness; both recorded as departures' },
    { id: 'scorer', kind: 'scoring', required: false, description: 'reference language model: sentence perplexity (Eq. 3), informativeness (Eq. 5), helpfulness (Eq. 6), paragraph coherence fallback (Eq. 4); the paper used GPT-Neo 2.7B and LLaMA-65B', fallback: 'those metrics are not scored, recorded in the protocol' },
    { id: 'nli', kind: 'classification', required: false, description: 'NLI model for factuality (Eq. 1) and validity (Eq. 7-8); the paper used NLI-RoBERTa-large', fallback: 'factuality and validity are not scored, recorded in the protocol' },
    { id: 'relevance', kind: 'classification', required: false, description: 'query-passage relevance model (Eq. 2), one logit or several with a "relevant" label; the paper used a two-logit monoBERT ms-marco ranker', fallback: 'relevance is not scored, recorded in the protocol' },
    { id: 'coherence', kind: 'classification', required: false, description: 'discourse-coherence scorer of one paragraph (Eq. 4, task "coherence"); the paper used Coherence-Momentum', fallback: '1/PPL of the whole text under the scorer, recorded as a departure' },
    { id: 'embedder', kind: 'embedding', required: false, description: 'dense evidence retrieval (the paper used ColBERTv2); not used yet: this version retrieves evidence with BM25', fallback: 'BM25 over the corpus (--corpus), recorded as a departure' },
  ],
  stages: [
    { id: 'generate', description: "knowledge per query (zero- or few-shot, Tables 11-12), then the answerer's answer with and without it (Table 13)" },
    { id: 'score', description: 'the six perspectives per knowledge text (Eq. 1-8), with evidence and scorer ids' },
    { id: 'select-demos', description: 'use case 1: rank candidate demonstrations by Q = gamma . [fact, rel, coh_para, info] (Eq. 9)' },
    { id: 'best-of', description: 'use case 2: draw r knowledge texts per query by top-p sampling (p = 0.9, r = 5), keep the one with the highest Q (Eq. 9)' },
  ],
  metricDefs: CONNER_METRIC_DEFS,
  citation: 'Chen et al. (CONNER, EMNLP 2023)',
  protocolChoices: {
    answerer: 'answerer (Appendix G)',
    evidence: 'evidence',
    premises: 'reference premises',
    'factuality-rule': 'factuality rule (Eq. 1)',
    'factuality-aggregation': 'factuality over sentences',
    'nli-window': 'NLI input length',
    'dialogue-query': 'dialogue query (Eq. 2, 5)',
    'dialogue-validity': 'dialogue validity premises (Eq. 8)',
    'coherence-sentence': 'sentence coherence (Eq. 3)',
    'coherence-paragraph': 'paragraph coherence (Eq. 4)',
    'informativeness-prefix': 'informativeness prefix (Eq. 5)',
    helpfulness: 'helpfulness (Eq. 6)',
    'helpfulness-scorer': 'helpfulness scorer (Eq. 6)',
    'shots-fitted': 'demonstrations and context',
    demonstrations: 'demonstrations',
    'scorer-truncation': 'scorer input length',
    underflow: 'probability underflow',
    sentences: 'sentence splitting',
    'prompt-line-breaks': 'prompt line breaks',
    'empty-knowledge': 'empty knowledge',
    limit: 'queries scored',
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
