/**
 * The provider for OpenAI-compatible servers.
 *
 *   openai:gpt-4o-mini           api.openai.com, key from $OPENAI_API_KEY
 *   vllm:http://host:8000/v1/meta-llama/Llama-3-8B
 *                                any OpenAI-compatible server: base URL up to /v1, then the model;
 *                                several replicas: vllm:http://a:8000/v1,http://b:8000/v1/model
 *   openai-compatible:...        same as vllm:
 *   llamacpp:http://host:8080/v1/model   llama.cpp server, same form
 *   ollama:llama3.1              Ollama on $OLLAMA_HOST or 127.0.0.1:11434
 */
import { z } from 'zod';
import { ConfigError, ModelSpecError } from '../../errors.js';
import { registerSecret } from '../../secrets.js';
import { checkNoCredentials } from '../../url-credentials.js';
import type { ModelProvider } from '../model-provider.js';

export interface OpenAICompatibleSpec {
  provider: 'openai-compatible';
  flavor: 'openai' | 'vllm' | 'ollama' | 'llamacpp' | 'openai-compatible';
  baseURLs: string[];
  model: string;
  /** Environment variable holding the API key, when the endpoint needs one. */
  apiKeyEnv: string | undefined;
  api: 'completions' | 'chat';
  echo: boolean;
}

export const openAICompatibleOptions = z.object({
  /** Name of the environment variable (not the key) holding the API key, or a whole Authorization value ("Basic …", "Bearer …"). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name, not a key')
    .optional(),
  api: z.enum(['completions', 'chat']).optional(),
  echo: z.boolean().optional(),
  topLogprobs: z.number().int().min(1).max(100).optional(),
  concurrency: z.number().int().min(1).max(1024).optional(),
});

export const openAICompatibleProvider: ModelProvider<OpenAICompatibleSpec, z.infer<typeof openAICompatibleOptions>> = {
  id: 'openai-compatible',
  schemes: ['openai', 'ollama', 'vllm', 'llamacpp', 'openai-compatible'],
  kinds: ['text-generation', 'embedding'],
  optionsSchema: openAICompatibleOptions,
  examples: ['openai:gpt-4o-mini', 'vllm:http://localhost:8000/v1/meta-llama/Llama-3-8B', 'ollama:llama3.1'],
  parseSpec(spec, scheme, rest, env) {
    switch (scheme) {
      case 'openai':
        if (rest === '') throw new ModelSpecError(`"${spec}" names no model`, { hint: 'Write openai:MODEL, e.g. openai:gpt-4o-mini' });
        return {
          provider: 'openai-compatible',
          flavor: 'openai',
          baseURLs: ['https://api.openai.com/v1'],
          model: rest,
          apiKeyEnv: 'OPENAI_API_KEY',
          api: 'chat',
          echo: false,
        };
      case 'ollama': {
        if (rest === '') throw new ModelSpecError(`"${spec}" names no model`, { hint: 'Write ollama:MODEL, e.g. ollama:llama3.1' });
        const host = (env.OLLAMA_HOST ?? '127.0.0.1:11434').replace(/\/+$/, '');
        const base = /^https?:\/\//.test(host) ? host : `http://${host}`;
        checkNoCredentials(base, 'OLLAMA_HOST');
        return {
          provider: 'openai-compatible',
          flavor: 'ollama',
          baseURLs: [`${base}/v1`],
          model: rest,
          apiKeyEnv: undefined,
          api: 'completions',
          echo: false,
        };
      }
      default: {
        const { baseURLs, model } = splitServerSpec(spec, rest);
        const flavor = scheme as 'vllm' | 'llamacpp' | 'openai-compatible';
        return { provider: 'openai-compatible', flavor, baseURLs, model, apiKeyEnv: undefined, api: 'completions', echo: flavor !== 'llamacpp' };
      }
    }
  },
  traits: (spec) => ({ endpoints: spec.baseURLs.length, maxConnections: defaultConcurrency(spec) }),
  withEndpoints: (spec, endpoints) =>
    spec.flavor === 'vllm' || spec.flavor === 'llamacpp' || spec.flavor === 'openai-compatible'
      ? `${spec.flavor}:${endpoints.join(',')}/${spec.model}`
      : undefined,
  async batchApi(spec, options, env) {
    const keyEnv = options.apiKeyEnv ?? spec.apiKeyEnv;
    const apiKey = keyEnv ? env[keyEnv] : undefined;
    const { openAIBatchApi } = await import('./openai-batch-api.js');
    return openAIBatchApi({ baseURL: spec.baseURLs[0]!, ...(apiKey ? { apiKey } : {}), model: spec.model, api: options.api ?? spec.api });
  },
  async create(spec, options, context) {
    const env = context.env ?? process.env;
    const apiKeyEnv = options.apiKeyEnv ?? spec.apiKeyEnv;
    let apiKey: string | undefined;
    if (apiKeyEnv !== undefined) {
      apiKey = env[apiKeyEnv];
      // Registered now, not at the first request: the Batch API client (./batch-client.ts) sends it too.
      registerSecret(apiKey);
      if (apiKey === undefined || apiKey === '') {
        throw new ConfigError(`the API key variable ${apiKeyEnv} is not set (needed for ${options.spec})`, {
          hint: `export ${apiKeyEnv}=... in your shell. llmkb never takes API keys on the command line or in config files.`,
        });
      }
    }
    // Loaded here, not at the top: the config imports this file for `optionsSchema` at start-up.
    const { OpenAICompatibleModel } = await import('./openai-compatible-model.js');
    return new OpenAICompatibleModel({
      baseURLs: spec.baseURLs,
      model: spec.model,
      ...(apiKey === undefined ? {} : { apiKey }),
      api: options.api ?? spec.api,
      echo: options.echo ?? spec.echo,
      topLogprobs: options.topLogprobs ?? 20,
      flavor: spec.flavor,
      concurrency: options.concurrency ?? defaultConcurrency(spec),
    });
  },
};

/** Calls in flight per endpoint by default: fewer to api.openai.com (its rate limits), more to a server of one's own. */
function defaultConcurrency(spec: OpenAICompatibleSpec): number {
  return spec.flavor === 'openai' ? 16 : 64;
}

/** `http://a:8000/v1,http://b:8000/v1/org/model` → base URLs and the model id after the last `/v1/`. */
function splitServerSpec(spec: string, rest: string): { baseURLs: string[]; model: string } {
  const at = rest.lastIndexOf('/v1/');
  if (at === -1 || !/^https?:\/\//.test(rest)) {
    throw new ModelSpecError(`"${spec}" must be a base URL ending in /v1 followed by the model name`, {
      hint: 'Write e.g. vllm:http://localhost:8000/v1/meta-llama/Llama-3-8B (the model name as the server lists it at /v1/models).',
    });
  }
  const model = rest.slice(at + 4);
  const baseURLs = rest
    .slice(0, at + 3)
    .split(',')
    .map((u) => u.trim());
  if (model === '') throw new ModelSpecError(`"${spec}" names no model after /v1/`, { hint: 'Append the model name, e.g. .../v1/meta-llama/Llama-3-8B' });
  for (const url of baseURLs) {
    if (!/^https?:\/\/[^/\s]+(\/.*)?\/v1$/.test(url)) {
      throw new ModelSpecError(`"${url}" in "${spec}" is not a base URL ending in /v1`, {
        hint: 'Separate replicas with commas, each ending in /v1: vllm:http://a:8000/v1,http://b:8000/v1/MODEL',
      });
    }
  }
  return { baseURLs, model };
}
