/**
 * The in-process provider: GGUF models run by node-llama-cpp.
 *
 *   gguf:./model.gguf            local GGUF file (a bare path ending in .gguf works too)
 *   hf:owner/repo:Q4_K_M         GGUF from Hugging Face, downloaded once into the models cache
 */
import { join } from 'node:path';
import { z } from 'zod';
import { ModelSpecError } from '../../errors.js';
import type { ModelProvider } from '../model-provider.js';

export interface LlamaSpec {
  provider: 'llama';
  /** A local path or an `hf:` URI (kept whole for node-llama-cpp to resolve). */
  model: string;
}

export const llamaOptions = z.object({
  threads: z.number().int().min(1).optional(),
  sequences: z.number().int().min(1).max(64).optional(),
  contextSize: z.number().int().min(64).optional(),
  gpu: z.boolean().optional(),
});

export const llamaProvider: ModelProvider<LlamaSpec, z.infer<typeof llamaOptions>> = {
  id: 'llama',
  schemes: ['gguf', 'hf'],
  kinds: ['text-generation', 'embedding'],
  optionsSchema: llamaOptions,
  examples: ['gguf:./model.gguf', 'hf:owner/repo:Q4_K_M'],
  matchesBare: (spec) => /\.gguf$/i.test(spec) && !/^[a-z-]+:/i.test(spec.replace(/^[a-z]:[\\/]/i, '')),
  parseSpec(spec, scheme, rest) {
    if (scheme === '') return { provider: 'llama', model: rest };
    if (scheme === 'gguf') {
      if (rest === '') throw new ModelSpecError(`"${spec}" names no file`, { hint: 'Write gguf:PATH, e.g. gguf:./models/qwen2.5-0.5b-instruct-q4_k_m.gguf' });
      return { provider: 'llama', model: rest };
    }
    if (!/^[^/\s]+\/[^/\s:]+(:[^\s]+|\/.+\.gguf)?$/.test(rest)) {
      throw new ModelSpecError(`"${spec}" is not a Hugging Face GGUF URI`, {
        hint: 'Write hf:owner/repo:QUANT (e.g. hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M) or hf:owner/repo/file.gguf',
      });
    }
    return { provider: 'llama', model: spec.trim() };
  },
  localPathSchemes: ['gguf'],
  traits: (spec) => ({ inProcess: true, files: isLocalFile(spec.model) ? [spec.model] : [] }),
  async create(spec, options, context) {
    // Loaded here, not at the top: the CLI starts without node-llama-cpp's bindings.
    const { LlamaModel } = await import('./llama-model.js');
    return LlamaModel.load({
      model: spec.model,
      modelsDir: join(context.cacheDir, 'models'),
      ...(options.threads === undefined ? {} : { threads: options.threads }),
      ...(options.sequences === undefined ? {} : { sequences: options.sequences }),
      ...(options.contextSize === undefined ? {} : { contextSize: options.contextSize }),
      ...(options.gpu === undefined ? {} : { gpu: options.gpu }),
    });
  },
};

/** A model path on this machine (not an `hf:` URI, a URL or a Hugging Face `owner/repo:quant`). */
function isLocalFile(model: string): boolean {
  return !model.startsWith('hf:') && !/^[a-z]+:\/\//i.test(model) && !/^[^/\\]+\/[^/\\:]+:/.test(model);
}
