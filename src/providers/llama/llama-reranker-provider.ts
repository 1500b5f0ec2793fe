/**
 * In-process GGUF rerankers (node-llama-cpp's ranking context) as relevance classifiers.
 *
 *   gguf-rerank:./bge-reranker-v2-m3-Q8_0.gguf                local GGUF reranker
 *   gguf-rerank:hf:gpustack/bge-reranker-v2-m3-GGUF:Q8_0      from Hugging Face, downloaded once
 *
 * What follows `gguf-rerank:` is what a `gguf:` / `hf:` text model spec takes (./llama-provider.ts).
 */
import { join } from 'node:path';
import { z } from 'zod';
import { ModelSpecError } from '../../errors.js';
import { CLASS_LABELS } from '../classification/labels.js';
import type { LlamaReranker } from './llama-reranker.js';
import { llamaProvider } from './llama-provider.js';

export interface LlamaRerankerSpec {
  provider: 'llama-rerank';
  /** A local path or an `hf:` URI. */
  model: string;
}

export const llamaRerankerOptions = z.object({
  /** Only `relevance`: a reranker scores (query, passage) pairs. */
  task: z.literal('relevance').optional(),
  /** A head with several outputs: which one is "relevant" (e.g. {"LABEL_1": "relevant"}); default the one named relevant or yes. */
  labels: z.record(z.string(), z.enum(CLASS_LABELS)).optional(),
  threads: z.number().int().min(1).optional(),
  contextSize: z.number().int().min(16).optional(),
  gpu: z.boolean().optional(),
});
export type LlamaRerankerOptions = z.infer<typeof llamaRerankerOptions>;

const EXAMPLE = 'gguf-rerank:./bge-reranker-v2-m3-Q8_0.gguf';

export function parseLlamaRerankerSpec(spec: string, rest: string, env: NodeJS.ProcessEnv = process.env): LlamaRerankerSpec {
  const model = rest.trim();
  if (model === '') throw new ModelSpecError(`"${spec}" names no reranker file`, { hint: `Write ${EXAMPLE} or gguf-rerank:hf:owner/repo:QUANT` });
  if (/^hf:/i.test(model)) return { provider: 'llama-rerank', model: llamaProvider.parseSpec(model, 'hf', model.slice(3), env).model };
  return { provider: 'llama-rerank', model: model.replace(/^gguf:/i, '') };
}

export async function createLlamaReranker(
  spec: LlamaRerankerSpec,
  options: LlamaRerankerOptions & { spec: string },
  context: { cacheDir: string },
): Promise<LlamaReranker> {
  // Loaded here, not at the top: the CLI starts without node-llama-cpp's bindings.
  const { LlamaReranker } = await import('./llama-reranker.js');
  return LlamaReranker.load({
    model: spec.model,
    modelsDir: join(context.cacheDir, 'models'),
    ...(options.threads === undefined ? {} : { threads: options.threads }),
    ...(options.contextSize === undefined ? {} : { contextSize: options.contextSize }),
    ...(options.gpu === undefined ? {} : { gpu: options.gpu }),
    ...(options.labels === undefined ? {} : { labels: options.labels }),
  });
}

/** The provider entry (scheme, options, parse, create) for the provider registry. */
export const llamaRerankerProvider = {
  id: 'llama-rerank',
  schemes: ['gguf-rerank'] as const,
  localPathSchemes: ['gguf-rerank'],
  traits: () => ({ inProcess: true }),
  kinds: ['classification'] as const,
  optionsSchema: llamaRerankerOptions,
  examples: [EXAMPLE],
  parseSpec: (spec: string, _scheme: string, rest: string, env: NodeJS.ProcessEnv): LlamaRerankerSpec => parseLlamaRerankerSpec(spec, rest, env),
  create: (spec: LlamaRerankerSpec, options: LlamaRerankerOptions & { spec: string }, context: { cacheDir: string }): Promise<LlamaReranker> =>
    createLlamaReranker(spec, options, context),
};
