/**
 * Defaults the generic commands show in `--help`, from modules that import nothing else (loading
 * a method's stages would load zod, SQLite, node-llama-cpp and Vega just to print help).
 */

/** The model `llmkb eval` runs when none is given: a small instruction-tuned GGUF, downloaded once. */
export { DEFAULT_MODEL } from '../providers/default-model.js';

export const LIMIT_HELP = 'only N items, for a quick look: a seeded sample (split between the data sets in proportion, kept in file order); a run of its own';
