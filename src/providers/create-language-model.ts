import { join } from 'node:path';
import { entryOptions, type ModelEntry } from '../config/config.js';
import { ConfigError } from '../errors.js';
import type { LanguageModel } from './language-model.js';
import { LlamaProvider } from './llama-provider.js';
import { parseModelSpec } from './model-spec.js';
import { OpenAICompatibleProvider } from './openai-compatible-provider.js';

export interface CreateModelContext {
  /** Download cache; GGUF models go to `<cacheDir>/models`. */
  cacheDir: string;
  env?: NodeJS.ProcessEnv;
}

/** Builds the provider a spec string or config entry names. Fails early on a missing API key. */
export async function createLanguageModel(entry: ModelEntry, context: CreateModelContext): Promise<LanguageModel> {
  const options = entryOptions(entry);
  const env = context.env ?? process.env;
  const spec = parseModelSpec(options.spec, env);
  if (spec.provider === 'llama') {
    return LlamaProvider.load({
      model: spec.model,
      modelsDir: join(context.cacheDir, 'models'),
      ...(options.threads === undefined ? {} : { threads: options.threads }),
      ...(options.sequences === undefined ? {} : { sequences: options.sequences }),
      ...(options.contextSize === undefined ? {} : { contextSize: options.contextSize }),
      ...(options.gpu === undefined ? {} : { gpu: options.gpu }),
    });
  }
  const apiKeyEnv = options.apiKeyEnv ?? spec.apiKeyEnv;
  let apiKey: string | undefined;
  if (apiKeyEnv !== undefined) {
    apiKey = env[apiKeyEnv];
    if (apiKey === undefined || apiKey === '') {
      throw new ConfigError(`the API key variable ${apiKeyEnv} is not set (needed for ${options.spec})`, {
        hint: `export ${apiKeyEnv}=... in your shell. llmkb never takes API keys on the command line or in config files.`,
      });
    }
  }
  return new OpenAICompatibleProvider({
    baseURLs: spec.baseURLs,
    model: spec.model,
    ...(apiKey === undefined ? {} : { apiKey }),
    api: options.api ?? spec.api,
    echo: options.echo ?? spec.echo,
    topLogprobs: options.topLogprobs ?? 20,
    flavor: spec.flavor,
    concurrency: options.concurrency ?? (spec.flavor === 'openai' ? 16 : 64),
  });
}
