/**
 * The model `llmkb eval` (and the library's `evaluate`) runs when none is given and the config
 * names none: a small instruction-tuned GGUF, downloaded once. A module that imports nothing, so
 * `--help` can show it without loading a provider.
 */
export const DEFAULT_MODEL = 'hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M';
