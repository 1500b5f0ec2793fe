/**
 * The reliability method (Zheng, Lapata & Pan, "How Reliable are LLMs as Knowledge Bases?
 * Re-thinking Factuality and Consistency"), described through the method seam: its roles, its
 * stages and the definitions of its metrics (section 2; equation numbers are the paper's).
 */
import { METRIC_KEYS, type MetricKey } from './metrics/reliability-metrics.js';
import { METHOD_INTERFACE_VERSION, type EvaluationMethod, type MetricDef } from '../method.js';

const DEFS: Record<MetricKey, Omit<MetricDef, 'id' | 'format'>> = {
  CR: { label: 'CR', description: 'correct rate: seen questions answered correctly, over all seen questions', range: [0, 1], better: 'higher', equation: 'Eq. 2' },
  WR: { label: 'WR', description: 'wrong rate: seen questions answered wrongly, over all seen questions', range: [0, 1], better: 'lower', equation: 'Eq. 2' },
  NCR: { label: 'NCR', description: 'net correct rate: CR - WR (factuality on seen knowledge)', range: [-1, 1], better: 'higher', equation: 'Eq. 1', headline: true },
  UR: { label: 'UR', description: 'uninformative rate: unseen questions the model declined or answered uninformatively, over all unseen questions', range: [0, 1], better: 'higher', equation: 'Eq. 3', headline: true },
  C_correct: { label: 'C_correct', description: 'mean Cons(q, r) over correct seen responses: how consistently the model keeps a correct answer when re-asked as MCQs', range: [0, 1], better: 'higher', equation: 'Eq. 5', headline: true },
  C_wrong_seen: { label: 'C_wrong^s', description: 'mean Cons(q, r) over wrong seen responses', range: [0, 1], better: 'lower', equation: 'Eq. 7' },
  C_wrong_unseen: { label: 'C_wrong^u', description: 'mean Cons(q, r) over wrong (informative) unseen responses', range: [0, 1], better: 'lower', equation: 'Eq. 8' },
  C_wrong: { label: 'C_wrong', description: '(C_wrong^s + C_wrong^u) / 2; the defined side when one is undefined', range: [0, 1], better: 'lower', equation: 'Eq. 6', headline: true },
  CCR: { label: 'CCR', description: 'consistently correct rate: CR x C_correct', range: [0, 1], better: 'higher', equation: 'Eq. 9' },
  CWR: { label: 'CWR', description: 'consistently wrong rate: WR x C_wrong^s', range: [0, 1], better: 'lower', equation: 'Eq. 9' },
  NCCR: { label: 'NCCR', description: 'net consistently correct rate: CCR - CWR (reliability on seen knowledge)', range: [-1, 1], better: 'higher', equation: 'Eq. 9', headline: true },
  IUR: { label: 'IUR', description: 'inconsistent or uninformative rate on unseen knowledge: 1 - (1 - UR) x C_wrong^u; 1 when UR = 1', range: [0, 1], better: 'higher', equation: 'Eq. 10', headline: true },
};

export const reliabilityMethod: EvaluationMethod = {
  interfaceVersion: METHOD_INTERFACE_VERSION,
  id: 'reliability',
  version: '1',
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
  metricDefs: METRIC_KEYS.map((id) => ({ id, format: 'percent', ...DEFS[id] })),
};
