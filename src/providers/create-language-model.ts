import { entryOptions, type ModelEntry } from '../config/config.js';
import type { LanguageModel } from './language-model.js';
import type { CreateModelContext } from './model-provider.js';
import { resolveModelSpec } from './provider-registry.js';

export type { CreateModelContext };

/** Builds the model a spec string or config entry names, through the provider that owns its scheme. Fails early on a missing API key. */
export async function createLanguageModel(entry: ModelEntry, context: CreateModelContext): Promise<LanguageModel> {
  const options = entryOptions(entry);
  const env = context.env ?? process.env;
  const { provider, parsed } = resolveModelSpec(options.spec, env);
  return provider.create(parsed, options, { ...context, env });
}
