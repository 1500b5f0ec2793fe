/**
 * The choices a CONNER scoring run makes where the paper's equations and the authors' released
 * scripts (ChanLiang/CONNER) differ, or where the paper is silent. Two profiles set them all: the
 * default `as-released` is the scripts' forms, which produced the paper's Tables 2 and 3;
 * `equations` is the text's equations. Each option given wins over its profile.
 * `conner-protocol.ts` records every choice a run made in its summary, and the profile.
 */
/** `as-released`: the released scripts' forms (the published tables); `equations`: the paper text's equations. */
export type ConnerProfile = 'as-released' | 'equations';
export const CONNER_PROFILES: readonly ConnerProfile[] = ['as-released', 'equations'];
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
/**
 * src/ppl.py:36 caps each sentence's perplexity at 200 (`min(math.exp(loss.item()), 200)`); the
 * shipped output file emnlp_data/nq/random_testset/nq_ref_avg_sent_ppl was made with a cap of 100.
 */
export const PPL_CAP = 200;

/**
 * The prompt helpfulness's answer losses are scored after. `released`: src/helpfulness.py:165-176
 * with zero_shot=False (scripts/helpfulness/*.sh): up to 8 demonstrations "Passage: {knowledge}
 * \nQuery: {query}\nAnswer: {answer}" joined by a blank line while they stay under 1,800 words,
 * then "Passage: {k}\nQuery: {query}\nAnswer: ", no Topic line; `table13`: Table 13's template
 * with no demonstrations.
 */
export type HelpfulnessPrompt = 'released' | 'table13';
export const HELPFULNESS_PROMPTS: readonly HelpfulnessPrompt[] = ['released', 'table13'];

/**
 * The baseline L(q, k^-, a) of Eq. 6. `shared`: one baseline per data set, as the scripts' single
 * random_knowledge run (scripts/helpfulness/nq_random_knowledge.sh): per query the gold passage of
 * another query of the set, the same for every generator and every run scored on those queries;
 * `negatives`: u other queries' knowledge of the same generator (the text's "u randomly sampled
 * knowledge").
 */
export type HelpfulnessBaseline = 'shared' | 'negatives';
export const HELPFULNESS_BASELINES: readonly HelpfulnessBaseline[] = ['shared', 'negatives'];

/**
 * Factuality's evidence with a corpus. `gold-and-retrieved`: one list per item, the gold passage's
 * sentences, the gold passage whole, then the item's top retrieved passages, the first 32 pairs
 * (src/eval_exp.py:77-114 with scripts/*_factuality.sh's IR_num=10,
 * wo_ground_truth_knowledge=False); `retrieved`: each sentence's own top passages of the corpus.
 */
export type EvidenceList = 'gold-and-retrieved' | 'retrieved';
export const EVIDENCE_LISTS: readonly EvidenceList[] = ['gold-and-retrieved', 'retrieved'];

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
  /** The profile the other choices start from (each option given wins over it). */
  profile: ConnerProfile;
  aggregation: FactualityAggregation;
  factualityRule: FactualityRule;
  premises: ReferencePremises;
  sentenceCoherence: SentenceCoherenceForm;
  /** The perplexity cap of `inverse-mean`. */
  pplCap: number;
  evidenceList: EvidenceList;
  dialogueQuery: DialogueQuery;
  dialogueValidity: DialogueValidity;
  informativenessPrefix: InformativenessPrefix;
  helpfulnessPrompt: HelpfulnessPrompt;
  helpfulnessBaseline: HelpfulnessBaseline;
  /** u in Eq. 6 (baseline `negatives`). */
  negatives: number;
}

export const DEFAULT_NEGATIVES = 5;

/** The paper text's equations (Eq. 1 with min, Eq. 3, u = 5 random other knowledge texts); where the text is silent, the scripts. */
export const EQUATIONS_CHOICES: ScoringChoices = {
  profile: 'equations',
  aggregation: 'min',
  factualityRule: 'vector',
  premises: 'sentences',
  sentenceCoherence: 'mean-inverse',
  pplCap: PPL_CAP,
  evidenceList: 'retrieved',
  dialogueQuery: 'utterance',
  dialogueValidity: 'evidence',
  informativenessPrefix: 'table11',
  helpfulnessPrompt: 'table13',
  helpfulnessBaseline: 'negatives',
  negatives: DEFAULT_NEGATIVES,
};

/**
 * The released scripts' forms, the default: factuality by sentence labels with max
 * (src/eval_exp.py:136-146, scripts/nq_factuality.sh:17 `outer_strategy=max`) over the scripts'
 * evidence list, 1/mean(min(PPL, 200)) (src/ppl.py:36-37,65-66), the whole dialogue as the query
 * (src/relevance.py, src/info.py), the gold response among open-answer validity's premises
 * (src/wow_validity.py), src/info.py:38's prefix, and helpfulness with src/helpfulness.py's 8-shot
 * prompt and one shared baseline per data set (u = 1).
 */
export const RELEASED_CODE_CHOICES: ScoringChoices = {
  profile: 'as-released',
  aggregation: 'max',
  factualityRule: 'labels',
  premises: 'sentences',
  sentenceCoherence: 'inverse-mean',
  pplCap: PPL_CAP,
  evidenceList: 'gold-and-retrieved',
  dialogueQuery: 'history',
  dialogueValidity: 'response-and-evidence',
  informativenessPrefix: 'code',
  helpfulnessPrompt: 'released',
  helpfulnessBaseline: 'shared',
  negatives: 1,
};

/** The default profile: the released scripts, whose numbers the paper's tables are. */
export const DEFAULT_CHOICES: ScoringChoices = RELEASED_CODE_CHOICES;

/** A profile's choices. */
export function profileChoices(profile: ConnerProfile): ScoringChoices {
  return profile === 'equations' ? EQUATIONS_CHOICES : RELEASED_CODE_CHOICES;
}
