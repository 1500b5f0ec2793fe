/**
 * Defaults the generic commands show in `--help`, from a module that imports nothing (loading a
 * method's stages would load zod, SQLite, node-llama-cpp and Vega just to print help).
 */

/** The model `llmkb eval` runs when none is given: a small instruction-tuned GGUF, downloaded once. */
export const DEFAULT_MODEL = 'hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M';

export const LIMIT_HELP = 'only N items, for a quick look: a seeded sample (split between the data sets in proportion, kept in file order); a run of its own';
