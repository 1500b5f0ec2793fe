/**
 * Builds the model a scoring or classification role names (CONNER's scorer, relevance and NLI
 * roles), from a spec string or config entry:
 *
 *   tei:URL/MODEL                         TEI /rerank or /predict           (classification)
 *   vllm-score: / vllm-rerank: / vllm-classify:URL/v1/MODEL   vLLM pooling  (classification)
 *   llm-nli: / llm-relevance:<text model spec>   a text model prompted     (classification)
 *   gguf:, hf:, vllm:, ...                the text model specs: in-process GGUF and vLLM
 *                                         (echo) are scoring models too (`scoreTokens`)
 *
 * The caller checks the kind it needs with `requireKind` (src/providers/model-kinds.ts).
 */
import { entryOptions, type ModelEntry, type ModelEntryOptions } from '../config/config.js';
import type { ClassifierOptions } from './classification/classifier-options.js';
import { createLanguageModel, type CreateModelContext } from './create-language-model.js';
import type { LanguageModel } from './language-model.js';
import { llmClassifierProvider } from './llm-classifier/llm-classifier-provider.js';
import type { ClassificationModel } from './model-kinds.js';
import { teiProvider } from './tei/tei-provider.js';
import { vllmPoolingProvider } from './vllm-pooling/vllm-pooling-provider.js';

export type ScorerModel = ClassificationModel | LanguageModel;

/** Spec schemes of the classification backends. */
export const CLASSIFIER_SCHEMES: readonly string[] = [...teiProvider.schemes, ...vllmPoolingProvider.schemes, ...llmClassifierProvider.schemes];

export async function createScorerModel(entry: ModelEntry, context: CreateModelContext): Promise<ScorerModel> {
  const options = entryOptions(entry) as ModelEntryOptions & ClassifierOptions;
  const env = context.env ?? process.env;
  const spec = options.spec.trim();
  const colon = spec.indexOf(':');
  const scheme = colon === -1 ? '' : spec.slice(0, colon).toLowerCase();
  const rest = spec.slice(colon + 1);
  if ((teiProvider.schemes as readonly string[]).includes(scheme)) return teiProvider.create(teiProvider.parseSpec(spec, scheme, rest), options, { env });
  if ((vllmPoolingProvider.schemes as readonly string[]).includes(scheme)) return vllmPoolingProvider.create(vllmPoolingProvider.parseSpec(spec, scheme, rest), options, { env });
  if ((llmClassifierProvider.schemes as readonly string[]).includes(scheme)) return llmClassifierProvider.create(llmClassifierProvider.parseSpec(spec, scheme, rest), options, { ...context, env });
  return createLanguageModel(entry, context);
}
