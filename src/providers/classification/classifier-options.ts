/**
 * Config-entry options of the classification backends (TEI, vLLM pooling endpoints, an LLM
 * prompted as a classifier), declared once:
 *
 *   "nli":       { "spec": "tei:http://localhost:8081/cross-encoder/nli-deberta-v3-base", "task": "nli" }
 *   "relevance": { "spec": "vllm-score:http://localhost:8000/v1/cross-encoder/ms-marco-MiniLM-L-6-v2" }
 */
import { z } from 'zod';
import { ConfigError, ModelSpecError } from '../../errors.js';
import { CLASS_LABELS } from './labels.js';

export const classifierOptions = z.object({
  /**
   * What the model does: `nli` (entailment / neutral / contradiction), `relevance` (default) or
   * `coherence` (one paragraph's discourse coherence, CONNER's Eq. 4).
   */
  task: z.enum(['nli', 'relevance', 'coherence']).optional(),
  /**
   * The model's label names (or, for vLLM /classify, class indices "0", "1", ...) -> NLI labels,
   * or, for a relevance / coherence model with several outputs, which one is "relevant" /
   * "coherent" (e.g. monoBERT: {"LABEL_1": "relevant"}).
   */
  labels: z.record(z.string(), z.enum(CLASS_LABELS)).optional(),
  /** Whether the server returns raw logits (`logit`: llmkb applies sigmoid / softmax) or probabilities. */
  scores: z.enum(['logit', 'probability']).optional(),
  /** TEI: `rerank` or `predict`; vLLM: `score`, `rerank`, `v1/rerank` or `classify`. */
  endpoint: z.enum(['rerank', 'predict', 'score', 'v1/rerank', 'classify']).optional(),
  /** Let the server cut over-long inputs (default false: an over-long pair is an error, not a silent cut). */
  truncate: z.boolean().optional(),
  /** vLLM /classify takes one text: how a pair becomes one, with {text} and {textPair}, e.g. "{text}</s></s>{textPair}" for RoBERTa. */
  pairTemplate: z.string().includes('{text}').includes('{textPair}').optional(),
  /** LLM classifier: the prompt, with {text} and {textPair}; default: the built-in prompt of the task. */
  prompt: z.string().includes('{text}').includes('{textPair}').optional(),
  /** LLM classifier: the words that stand for each label, e.g. {"entailment": ["Yes", "yes"], ...}. */
  labelWords: z.record(z.string(), z.array(z.string().min(1)).min(1)).optional(),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name, not a key')
    .optional(),
  concurrency: z.number().int().min(1).max(1024).optional(),
});
export type ClassifierOptions = z.infer<typeof classifierOptions>;

/**
 * `http://a:8080,http://b:8080/org/model` -> server roots and the model id (the path after the last
 * root). Used by `tei:`; the model id is the cache identity, the URLs only transport.
 */
export function splitRootsAndModel(spec: string, rest: string, example: string): { baseURLs: string[]; model: string } {
  const parts = rest.split(',').map((p) => p.trim());
  const last = parts[parts.length - 1] ?? '';
  const origin = /^https?:\/\/[^/\s]+/.exec(last);
  const model = origin ? last.slice(origin[0].length).replace(/^\/+/, '') : '';
  if (!origin || model === '') {
    throw new ModelSpecError(`"${spec}" must be the server's URL followed by the model it serves`, {
      hint: `Write e.g. ${example} (the model id is what the cache keys on).`,
    });
  }
  const baseURLs = [...parts.slice(0, -1), origin[0]].map((u) => u.replace(/\/+$/, ''));
  for (const url of baseURLs) {
    if (!/^https?:\/\/[^/\s]+$/.test(url))
      throw new ModelSpecError(`"${url}" in "${spec}" is not a server root (scheme://host:port)`, {
        hint: `Separate replicas with commas: ${example.replace('http://', 'http://a:8080,http://')}`,
      });
  }
  return { baseURLs, model };
}

/** The API key from the variable the config names; an unset variable is a start-up error. */
export function apiKeyFrom(options: { apiKeyEnv?: string | undefined; spec: string }, env: NodeJS.ProcessEnv): string | undefined {
  if (options.apiKeyEnv === undefined) return undefined;
  const key = env[options.apiKeyEnv];
  if (key === undefined || key === '') {
    throw new ConfigError(`the API key variable ${options.apiKeyEnv} is not set (needed for ${options.spec})`, {
      hint: `export ${options.apiKeyEnv}=... in your shell. llmkb never takes API keys on the command line or in config files.`,
    });
  }
  return key;
}
