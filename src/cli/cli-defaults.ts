/**
 * Defaults and choices the command definitions show in `--help`. They are copies: importing
 * them from their modules (asking, consistency, data, evaluation) would load zod, SQLite,
 * node-llama-cpp and Vega just to print help, which made `llmkb --help` take 0.5-0.9 s.
 * test/cli-defaults.test.ts fails as soon as a copy differs from its source.
 */

/** = PROMPT_SETTINGS in src/asking/ask-questions.ts */
export const PROMPT_SETTINGS = ['zero-shot', 'four-shot', 'four-shot-2'] as const;
/** = ANSWER_MAX_TOKENS in src/asking/ask-questions.ts */
export const ANSWER_MAX_TOKENS = 100;
/** = MODE_AGREEMENT_SAMPLE in src/consistency/consistency-stage.ts */
export const MODE_AGREEMENT_SAMPLE = 5;
/** = PAPER_CUTOFF in src/data/unseenqa.ts */
export const PAPER_CUTOFF = '2024-04-13';
/** = DEFAULT_MODEL in src/evaluation/evaluate-model.ts */
export const DEFAULT_MODEL = 'hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M';
/** = LEXICAL_JUDGE_ID in src/judging/lexical-match.ts */
export const LEXICAL_JUDGE_ID = 'lexical-v2';
