/**
 * One scored knowledge text: the record `conner score` writes per item (one line of its scores
 * JSONL, one record of its run), with every score, the evidence chosen for each sentence and for
 * the answer, the losses behind helpfulness, the scorer behind each metric, and a note for every
 * metric it could not score.
 */
import type { Evidence } from '../evidence/evidence-source.js';
import type { GeneratedKnowledge } from '../generation/generate-knowledge.js';
import type { FactualityLabel, SentenceFactuality } from './factuality.js';
import type { PremiseCut } from './nli-window.js';

/**
 * The per-item scores; null where a metric could not be computed (no sentence, no gold answer, no
 * scorer). Fields are camelCase; the metric ids of CONNER_METRIC_DEFS (snake_case) map to them in
 * `metricValue` (summary/metric-aggregates.ts).
 */
export interface ConnerScores {
  /** S_fact's factual-consistent dimension (Eq. 1). */
  factuality: number | null;
  factualConsistent: number | null;
  nonVerified: number | null;
  factualInconsistent: number | null;
  factualityLabel: FactualityLabel | null;
  relevance: number | null;
  /** Eq. 3 (metric id `coherence_sentence`). */
  coherenceSentence: number | null;
  /** Eq. 4 (metric id `coherence_paragraph`). */
  coherenceParagraph: number | null;
  informativeness: number | null;
  /** Eq. 6 of this item alone (the summary's value is taken over the set: helpfulness.ts). */
  helpfulness: number | null;
  /** This item's Eq. 6 without max(0, .). */
  helpfulnessRaw: number | null;
  validity: number | null;
}

export interface ScoredKnowledge {
  id: string;
  generator: string;
  setting: string;
  task: GeneratedKnowledge['task'];
  topic: string;
  query: string;
  knowledge: string;
  /** The query's reference (gold) knowledge, when the query file has one. */
  referenceKnowledge?: string;
  goldAnswer: string | null;
  answer: string | null;
  /** Who wrote `answer`: the fixed answerer (Appendix G), or the generator; null when not known (knowledge brought from elsewhere). */
  answerer: string | null;
  /** The downstream answer with an empty passage (shown beside `answer`; not scored). */
  answerWithoutKnowledge?: string | null;
  scores: ConnerScores;
  /** Per sentence: the evidence with the highest entailment and its NLI vector. */
  sentences: SentenceFactuality[];
  /** Per-sentence 1/PPL(s_i) (Eq. 3). */
  sentenceInversePerplexity: Array<number | null>;
  /** L(q, k, a) and each L(q, k_i^-, a) with the id of k_i^-: the table's helpfulness is recomputed from these. */
  helpfulness: {
    loss: number;
    baselineLosses: number[];
    negatives: string[];
    /** Ids of the queries whose gold passages and answers are the demonstrations of the scripts' 8-shot prompt (in order). */
    demos?: string[];
    /** The shared baseline's key (./helpfulness-baseline.ts): records with the same key divide by the same losses. */
    baseline?: string;
  } | null;
  validityEvidence: Evidence | null;
  /** Scorer per metric. */
  scorers: Record<string, string>;
  /** NLI premises cut to fit the model's window (factuality and validity; each said in `notes`). */
  premiseCuts: number;
  /** The knowledge text cut to fit the relevance model's window (the query never; said in `notes`); absent: no cut. */
  relevanceCut?: PremiseCut;
  /** Tokens scored at the underflow floor (each metric's said in `notes`). */
  flooredTokens: number;
  /** Metrics left unscored for this item, and why; premises cut, probabilities floored. */
  notes: string[];
}
