/**
 * Builds the model a scoring or classification role names (CONNER's scorer, relevance and NLI
 * roles), from a spec string or config entry:
 *
 *   tei:URL/MODEL                         TEI /rerank or /predict           (classification)
 *   vllm-score: / vllm-rerank: / vllm-classify:URL/v1/MODEL   vLLM pooling  (classification)
 *   llm-nli: / llm-relevance:<text model spec>   a text model prompted     (classification)
 *   onnx:FOLDER                           in-process ONNX via transformers.js (classification)
 *   gguf-rerank:FILE.gguf / hf:...        in-process GGUF reranker          (classification, relevance)
 *   gguf:, hf:, vllm:, ...                the text model specs: in-process GGUF and vLLM
 *                                         (echo) are scoring models too (`scoreTokens`)
 *
 * The caller checks the kind it needs with `requireKind` (src/providers/model-kinds.ts).
 */
import { createLanguageModel } from './create-language-model.js';
import { entryOptions, type ModelEntry } from './model-entry.js';
import type { CreateModelContext, ProvidedModel } from './model-provider.js';
import { resolveModelSpec } from './provider-registry.js';

export type ScorerModel = ProvidedModel;

/** Any model the registry builds, text models included (the in-process GGUF and vLLM ones score tokens). */
export async function createScorerModel(entry: ModelEntry, context: CreateModelContext): Promise<ScorerModel> {
  const options = entryOptions(entry);
  const env = context.env ?? process.env;
  const { provider, parsed } = resolveModelSpec(options.spec, env);
  return provider.create(parsed, options, { ...context, env, createTextModel: (text) => createLanguageModel(text, { ...context, env }) });
}
