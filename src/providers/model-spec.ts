/**
 * Model spec strings: one string picks the provider and the model.
 *
 *   gguf:./model.gguf            local GGUF file, in-process (a bare path ending in .gguf works too)
 *   hf:owner/repo:Q4_K_M         GGUF from Hugging Face, downloaded once into the models cache
 *   openai:gpt-4o-mini           api.openai.com, key from $OPENAI_API_KEY
 *   vllm:http://host:8000/v1/meta-llama/Llama-3-8B
 *                                any OpenAI-compatible server: base URL up to /v1, then the model;
 *                                several replicas: vllm:http://a:8000/v1,http://b:8000/v1/model
 *   openai-compatible:...        same as vllm:
 *   llamacpp:http://host:8080/v1/model   llama.cpp server, same form
 *   ollama:llama3.1              Ollama on $OLLAMA_HOST or 127.0.0.1:11434
 */
import { ModelSpecError } from '../errors.js';

export type ModelSpec =
  | { provider: 'llama'; model: string }
  | {
      provider: 'openai-compatible';
      flavor: 'openai' | 'vllm' | 'ollama' | 'llamacpp' | 'openai-compatible';
      baseURLs: string[];
      model: string;
      /** Environment variable holding the API key, when the endpoint needs one. */
      apiKeyEnv: string | undefined;
      api: 'completions' | 'chat';
      echo: boolean;
    };

const EXAMPLES =
  'Examples: gguf:./model.gguf, hf:owner/repo:Q4_K_M, openai:gpt-4o-mini, vllm:http://localhost:8000/v1/meta-llama/Llama-3-8B, ollama:llama3.1';

export function parseModelSpec(spec: string, env: NodeJS.ProcessEnv = process.env): ModelSpec {
  const trimmed = spec.trim();
  if (trimmed === '') throw new ModelSpecError('empty model spec', { hint: EXAMPLES });
  if (/\.gguf$/i.test(trimmed) && !/^[a-z-]+:/i.test(trimmed.replace(/^[a-z]:[\\/]/i, ''))) {
    return { provider: 'llama', model: trimmed };
  }
  const colon = trimmed.indexOf(':');
  const scheme = colon === -1 ? '' : trimmed.slice(0, colon).toLowerCase();
  const rest = colon === -1 ? '' : trimmed.slice(colon + 1);
  switch (scheme) {
    case 'gguf':
      if (rest === '') throw new ModelSpecError(`"${spec}" names no file`, { hint: 'Write gguf:PATH, e.g. gguf:./models/qwen2.5-0.5b-instruct-q4_k_m.gguf' });
      return { provider: 'llama', model: rest };
    case 'hf':
      if (!/^[^/\s]+\/[^/\s:]+(:[^\s]+|\/.+\.gguf)?$/.test(rest)) {
        throw new ModelSpecError(`"${spec}" is not a Hugging Face GGUF URI`, { hint: 'Write hf:owner/repo:QUANT (e.g. hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M) or hf:owner/repo/file.gguf' });
      }
      return { provider: 'llama', model: trimmed };
    case 'openai':
      if (rest === '') throw new ModelSpecError(`"${spec}" names no model`, { hint: 'Write openai:MODEL, e.g. openai:gpt-4o-mini' });
      return { provider: 'openai-compatible', flavor: 'openai', baseURLs: ['https://api.openai.com/v1'], model: rest, apiKeyEnv: 'OPENAI_API_KEY', api: 'chat', echo: false };
    case 'ollama': {
      if (rest === '') throw new ModelSpecError(`"${spec}" names no model`, { hint: 'Write ollama:MODEL, e.g. ollama:llama3.1' });
      const host = (env.OLLAMA_HOST ?? '127.0.0.1:11434').replace(/\/+$/, '');
      const base = /^https?:\/\//.test(host) ? host : `http://${host}`;
      return { provider: 'openai-compatible', flavor: 'ollama', baseURLs: [`${base}/v1`], model: rest, apiKeyEnv: undefined, api: 'completions', echo: false };
    }
    case 'vllm':
    case 'llamacpp':
    case 'openai-compatible': {
      const { baseURLs, model } = splitServerSpec(spec, rest);
      return { provider: 'openai-compatible', flavor: scheme, baseURLs, model, apiKeyEnv: undefined, api: 'completions', echo: scheme !== 'llamacpp' };
    }
    default:
      throw new ModelSpecError(`unknown model spec "${spec}"`, { hint: EXAMPLES });
  }
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
  const baseURLs = rest.slice(0, at + 3).split(',').map((u) => u.trim());
  if (model === '') throw new ModelSpecError(`"${spec}" names no model after /v1/`, { hint: 'Append the model name, e.g. .../v1/meta-llama/Llama-3-8B' });
  for (const url of baseURLs) {
    if (!/^https?:\/\/[^/\s]+(\/.*)?\/v1$/.test(url)) {
      throw new ModelSpecError(`"${url}" in "${spec}" is not a base URL ending in /v1`, { hint: 'Separate replicas with commas, each ending in /v1: vllm:http://a:8000/v1,http://b:8000/v1/MODEL' });
    }
  }
  return { baseURLs, model };
}
