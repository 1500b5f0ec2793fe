/**
 * What the command definitions show in `--help`, from the module that holds them without
 * importing anything (loading asking, consistency, data or evaluation would load zod, SQLite,
 * node-llama-cpp and Vega just to print help).
 */
export { ANSWER_MAX_TOKENS, DEFAULT_MODEL, LEXICAL_JUDGE_ID, MODE_AGREEMENT_SAMPLE, PAPER_CUTOFF, PROMPT_SETTINGS } from '../methods/reliability/defaults.js';
