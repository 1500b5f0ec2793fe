/**
 * Model spec strings: one string picks the provider and the model. Each provider owns its
 * schemes and documents them (./llama/llama-provider.ts, ./openai-compatible/openai-compatible-provider.ts);
 * the registry (./provider-registry.ts) finds the one a spec names.
 *
 *   gguf:./model.gguf            local GGUF file, in-process (a bare path ending in .gguf works too)
 *   hf:owner/repo:Q4_K_M         GGUF from Hugging Face, downloaded once into the models cache
 *   openai:gpt-4o-mini           api.openai.com, key from $OPENAI_API_KEY
 *   vllm:http://host:8000/v1/meta-llama/Llama-3-8B
 *                                any OpenAI-compatible server: base URL up to /v1, then the model
 *   llamacpp:http://host:8080/v1/model, ollama:llama3.1, openai-compatible:...
 *   mock:./replies.jsonl         scripted replies (./mock/mock-provider.ts)
 */
import type { ParsedSpec } from './model-provider.js';
import { resolveModelSpec } from './provider-registry.js';

/** A spec parsed by its provider: `provider` names it, the other fields are the provider's own (open to every registered provider). */
export type ModelSpec = ParsedSpec & { readonly [field: string]: unknown };

/** The spec parsed by the provider that owns its scheme. */
export function parseModelSpec(spec: string, env: NodeJS.ProcessEnv = process.env): ModelSpec {
  return resolveModelSpec(spec, env).parsed as ModelSpec;
}
