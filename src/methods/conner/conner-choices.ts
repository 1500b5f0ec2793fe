/**
 * The choices a CONNER scoring run makes where the paper's equations and the authors' released
 * scripts (ChanLiang/CONNER) differ, or where the paper is silent. The default of each is the
 * paper's equation; the scripts' form is an option. `conner-protocol.ts` records every choice a
 * run made in its summary.
 */
/** How the sentences' NLI vectors become one (Eq. 1 takes the minimum of entailment). */
export type FactualityAggregation = 'min' | 'mean' | 'max';

/**
 * How sentence results become an item's factuality (Eq. 1). `vector`: the NLI 3-vectors are
 * aggregated along the entailment dimension, as the paper writes it. `labels`: each sentence is
 * labelled by the argmax of its best evidence's vector and the labels are combined as ordinals
 * (inconsistent < non-verified < consistent), as src/eval_exp.py `single_instance_eval` does.
 */
export type FactualityRule = 'vector' | 'labels';
export const FACTUALITY_RULES: readonly FactualityRule[] = ['vector', 'labels'];

/**
 * The premises a reference (gold) passage gives the NLI model. `sentences`: its sentences and
 * then the whole passage, the first 32 pairs kept (src/eval_exp.py: `sent_tokenize(doc_ref_str) +
 * [doc_ref_str]`, `premise_hypothesis_pairs[:32]`); `passage`: the whole passage only.
 */
export type ReferencePremises = 'sentences' | 'passage';
export const REFERENCE_PREMISES: readonly ReferencePremises[] = ['sentences', 'passage'];
/** The authors' cap on premise-hypothesis pairs per sentence. */
export const MAX_PREMISES = 32;

/**
 * Sentence coherence. `mean-inverse`: Eq. 3, (1/m) sum_i 1/PPL(s_i). `inverse-mean`: the
 * authors' src/ppl.py `calculate_ppls`, 1 / ((1/m) sum_i min(PPL(s_i), 200)).
 */
export type SentenceCoherenceForm = 'mean-inverse' | 'inverse-mean';
export const SENTENCE_COHERENCE_FORMS: readonly SentenceCoherenceForm[] = ['mean-inverse', 'inverse-mean'];
/** src/ppl.py caps each sentence's perplexity at 200. */
export const PPL_CAP = 200;

/**
 * A dialogue's query for relevance and informativeness. `utterance`: the partner's last
 * utterance, as Table 11's caption defines {utterance}; `history`: the whole dialogue history as
 * the test file holds it (turns joined by " [SEP] "), as src/relevance.py and src/info.py read it.
 */
export type DialogueQuery = 'utterance' | 'history';
export const DIALOGUE_QUERIES: readonly DialogueQuery[] = ['utterance', 'history'];

/**
 * The premises of open-answer validity (Eq. 8). `evidence`: the evidence collected for the answer;
 * `response-and-evidence`: the gold response first, then that evidence, as src/wow_validity.py
 * `single_instance_eval` builds them.
 */
export type DialogueValidity = 'evidence' | 'response-and-evidence';
export const DIALOGUE_VALIDITIES: readonly DialogueValidity[] = ['evidence', 'response-and-evidence'];

/**
 * What informativeness (Eq. 5) conditions on. `table11`: the query in the zero-shot knowledge
 * prompt of Table 11 (prompt 4); `code`: src/info.py's instruction, "Generate a Wikipedia to
 * answer the given question.\nTopic: {topic}.\nQuestion: {query}?\nWikipedia: ".
 */
export type InformativenessPrefix = 'table11' | 'code';
export const INFORMATIVENESS_PREFIXES: readonly InformativenessPrefix[] = ['table11', 'code'];

export interface ScoringChoices {
  aggregation: FactualityAggregation;
  factualityRule: FactualityRule;
  premises: ReferencePremises;
  sentenceCoherence: SentenceCoherenceForm;
  dialogueQuery: DialogueQuery;
  dialogueValidity: DialogueValidity;
  informativenessPrefix: InformativenessPrefix;
  /** u in Eq. 6. */
  negatives: number;
}

export const DEFAULT_NEGATIVES = 5;

/** The paper's equations; where the paper is silent (reference premises), the authors' scripts. */
export const DEFAULT_CHOICES: ScoringChoices = {
  aggregation: 'min',
  factualityRule: 'vector',
  premises: 'sentences',
  sentenceCoherence: 'mean-inverse',
  dialogueQuery: 'utterance',
  dialogueValidity: 'evidence',
  informativenessPrefix: 'table11',
  negatives: DEFAULT_NEGATIVES,
};

/**
 * Every form of the authors' released scripts at once (`--as-released`), with the aggregation
 * their scripts/nq_factuality.sh runs (`outer_strategy=max`) and the one negative of
 * src/helpfulness.py's random_knowledge baseline (u = 1). The scripts' few-shot helpfulness
 * prompt and their baseline passages (gold knowledge of demonstrations) have no form here.
 */
export const RELEASED_CODE_CHOICES: ScoringChoices = {
  aggregation: 'max',
  factualityRule: 'labels',
  premises: 'sentences',
  sentenceCoherence: 'inverse-mean',
  dialogueQuery: 'history',
  dialogueValidity: 'response-and-evidence',
  informativenessPrefix: 'code',
  negatives: 1,
};
