/** CONNER's metrics (paper section 3; equation numbers are the paper's), defined once: summaries, comparisons, reports and the viewer take their labels, ranges and directions from here. */
import type { MetricDef } from '../method.js';

/** The method's id and version as summaries record them; a change that moves numbers bumps the version. */
export const CONNER_METHOD = { id: 'conner', version: '2' } as const;

export const CONNER_METRIC_DEFS: readonly MetricDef[] = [
  {
    id: 'factuality',
    label: 'S_fact',
    description: 'factual-consistent score: entailment of each sentence by its best evidence (NLI), aggregated over sentences (min by default)',
    range: [0, 1],
    better: 'higher',
    format: 'number',
    equation: 'Eq. 1',
    headline: true,
  },
  {
    id: 'fact_consistent',
    label: 'Fact-cons.',
    description: 'share of knowledge texts whose factuality vector is largest on factual-consistent',
    range: [0, 1],
    better: 'higher',
    format: 'percent',
    equation: 'Eq. 1',
    headline: true,
  },
  {
    id: 'non_verified',
    label: 'Non-verif.',
    description: 'share of knowledge texts whose factuality vector is largest on non-verified',
    range: [0, 1],
    better: 'lower',
    format: 'percent',
    equation: 'Eq. 1',
  },
  {
    id: 'fact_inconsistent',
    label: 'Fact-incon.',
    description: 'share of knowledge texts whose factuality vector is largest on factual-inconsistent',
    range: [0, 1],
    better: 'lower',
    format: 'percent',
    equation: 'Eq. 1',
  },
  {
    id: 'relevance',
    label: 'Relevance',
    description: 'query-knowledge relevance by a passage ranker',
    range: [0, 1],
    better: 'higher',
    format: 'number',
    equation: 'Eq. 2',
    headline: true,
  },
  {
    id: 'coherence_sentence',
    label: 'Coh-sent.',
    description: 'mean over sentences of 1/PPL(s_i) under a language model',
    range: [0, 1],
    better: 'higher',
    format: 'number',
    equation: 'Eq. 3',
    headline: true,
  },
  {
    id: 'coherence_paragraph',
    label: 'Coh-para.',
    description: 'paragraph coherence by a discourse-coherence scorer; without one, 1/PPL of the whole text (a departure, see the protocol)',
    range: [0, 1],
    better: 'higher',
    format: 'number',
    equation: 'Eq. 4',
    headline: true,
  },
  {
    id: 'informativeness',
    label: 'Inform.',
    description: '1 - exp(mean log P(k_t | k_<t, q)) under a reference language model',
    range: [0, 1],
    better: 'higher',
    format: 'number',
    equation: 'Eq. 5',
    headline: true,
  },
  {
    id: 'helpfulness',
    label: 'Helpful.',
    description:
      "max(0, 1 - mean_q L(q,k,a) / mean_q L(q,k^-,a)) over the set, clipped after averaging as the paper's Table 2: how much the knowledge lowers the gold answer's loss against u random other knowledge texts",
    range: [0, 1],
    better: 'higher',
    format: 'number',
    equation: 'Eq. 6',
    headline: true,
  },
  {
    id: 'helpfulness_raw',
    label: 'Helpful. raw',
    description:
      "1 - mean_q L(q,k,a) / mean_q L(q,k^-,a) without max(0, .), as the paper's Table 16; negative when the knowledge helps less than random knowledge (below -1 only when it more than doubles the loss)",
    range: [-1, 1],
    better: 'higher',
    format: 'number',
    equation: 'Eq. 6 (Table 16)',
  },
  {
    id: 'validity',
    label: 'Validity',
    description: 'NLI entailment of the answer given the knowledge: by (q, a*) for span answers, by retrieved evidence for open answers',
    range: [0, 1],
    better: 'higher',
    format: 'percent',
    equation: 'Eq. 7, Eq. 8',
    headline: true,
  },
];

/**
 * The paper's columns, in its order (the factuality score itself is not a column of its tables),
 * with helpfulness before max(0, .) beside helpfulness (Table 16's value).
 */
export const PAPER_TABLE_METRICS = [
  'fact_consistent',
  'non_verified',
  'fact_inconsistent',
  'relevance',
  'coherence_sentence',
  'coherence_paragraph',
  'informativeness',
  'helpfulness',
  'helpfulness_raw',
  'validity',
] as const;
