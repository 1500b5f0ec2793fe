/**
 * The reliability method's defaults, in a module that imports nothing: the modules that use them
 * (asking, consistency, data, evaluation, judging) re-export them, and the CLI shows them in
 * `--help` without loading any of those modules (start-up time, test/startup.test.ts).
 */

/** The paper's three prompt settings (Table 6). */
export const PROMPT_SETTINGS = ['zero-shot', 'four-shot', 'four-shot-2'] as const;

/** New tokens a QA answer may take (greedy decoding). */
export const ANSWER_MAX_TOKENS = 100;

/** Pairs whose MCQs are answered in both modes by default, to report how often the modes agree. */
export const MODE_AGREEMENT_SAMPLE = 5;

/** The paper's UnseenQA creation date: the default knowledge cutoff. */
export const PAPER_CUTOFF = '2024-04-13';

/** The lexical fallback judge (src/methods/reliability/judging/lexical-match.ts). */
export const LEXICAL_JUDGE_ID = 'lexical-v3';

/**
 * The answer pool's rules, part of a run's id: a pool distractor is never the item's response nor
 * one of its accepted answers (src/methods/reliability/consistency/distractors.ts).
 */
export const ANSWER_POOL_ID = 'answer-pool-v2';

/** The stop rule of generate mode's MCQ answers (src/methods/reliability/consistency/mcq.ts), part of a run's id and its protocol. */
export const GENERATE_STOP_ID = 'answer-line-v1';

/** The data set files of a data folder (`llmkb data`, `llmkb eval --data`). */
export const DATASET_FILES = { seenqa: 'seenqa.jsonl', unseenqa: 'unseenqa.jsonl', rSeen: 'r_seen.jsonl', rUnseen: 'r_unseen.jsonl' } as const;

/**
 * A run whose invalid MCQ answers are more than this share of all its MCQ answers carries a
 * warning on its consistency metrics (src/methods/reliability/metrics/mcq-answers.ts): a tenth
 * of the answers can move a mean Cons(q, r) by up to 0.1, ten points on the tables' x100 scale.
 */
export const INVALID_MCQ_WARNING_SHARE = 0.1;

/**
 * Questions a default build of the data sets makes at most (the paper's sizes): SeenQA 1,000 per
 * source of three (src/methods/reliability/pipeline/inputs.ts), UnseenQA 150 per template of 20
 * (src/methods/reliability/data/unseenqa.ts). `sweep --plan` estimates with them before the data
 * sets are built.
 */
export const BUILT_QUESTIONS = { seen: 3000, unseen: 3000 } as const;

/**
 * `--quick`: a seeded subset of seen and unseen questions and fewer MCQs per response (both
 * recorded as approximations in the protocol): a look at every stage and setting in minutes on a
 * small model, not a measurement (wide intervals).
 */
export const QUICK = { seen: 20, unseen: 20, mcqs: 3 } as const;
