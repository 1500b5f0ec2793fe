/** CONNER's settings and defaults, in one light module (the method's definition and its commands read them). */

/** The knowledge prompts: zero-shot (Table 11) and few-shot (Table 12). */
export type KnowledgeSetting = 'zero-shot' | 'few-shot';
export const KNOWLEDGE_SETTINGS: readonly KnowledgeSetting[] = ['zero-shot', 'few-shot'];

/** Table 11's prompt 4, the one the paper marks as best. */
export const BEST_ZERO_SHOT_PROMPT = 4;
export const DEFAULT_KNOWLEDGE_MAX_TOKENS = 128;
export const DEFAULT_ANSWER_MAX_TOKENS = 32;
/** Few-shot demonstrations per knowledge prompt (the paper: k randomly chosen training examples). */
export const DEFAULT_SHOTS = 8;
/** Demonstrations in the answer prompt (Appendix G). */
export const DEFAULT_ANSWER_SHOTS = 4;
/** Evidence passages per sentence from a corpus (--evidence-list retrieved). */
export const DEFAULT_EVIDENCE_TOP = 5;
/** Retrieved passages per item after the gold passage, as scripts/nq_factuality.sh's IR_num=10. */
export const RELEASED_EVIDENCE_TOP = 10;
/** The seed of every sampled thing in CONNER's commands and runs, as in the reliability method. */
export const DEFAULT_SEED = 42;
/** `--quick`: a seeded sample of this many queries, recorded in the protocol. */
export const QUICK_QUERIES = 20;
