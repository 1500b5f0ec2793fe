import { entryOptions, type ModelEntry } from './model-entry.js';
import { UnsupportedCapabilityError } from '../errors.js';
import type { Model } from './language-model.js';
import type { CreateModelContext } from './model-provider.js';
import { resolveModelSpec } from './provider-registry.js';

export type { CreateModelContext };

/** Builds the model a spec string or config entry names, through the provider that owns its scheme. Fails early on a missing API key. */
export async function createLanguageModel(entry: ModelEntry, context: CreateModelContext): Promise<Model> {
  const options = entryOptions(entry);
  const env = context.env ?? process.env;
  const { provider, parsed } = resolveModelSpec(options.spec, env);
  const model = await provider.create(parsed, options, { ...context, env, createTextModel: (text) => createLanguageModel(text, { ...context, env }) });
  if (!model.kinds.includes('text-generation') && !model.kinds.includes('embedding')) {
    await model.close();
    throw new UnsupportedCapabilityError(
      `${options.spec} is a ${model.kinds.join(', ')} model (${provider.id}): it scores text pairs and cannot generate text`,
      {
        hint: 'Use it for a role that needs a classification model (see `llmkb methods`), and a text model (gguf:, vllm:, openai:, ...) here.',
      },
    );
  }
  return model;
}
