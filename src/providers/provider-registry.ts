/**
 * The model providers llmkb knows, by spec scheme. The built-in ones register here; a library
 * user registers another with `registerProvider` and names its models with its scheme.
 */
import { LlmkbError, ModelSpecError } from '../errors.js';
import { checkNoCredentials } from '../url-credentials.js';
import { llamaProvider } from './llama/llama-provider.js';
import { llamaRerankerProvider } from './llama/llama-reranker-provider.js';
import { mockProvider } from './mock/mock-provider.js';
import { llmClassifierProvider } from './llm-classifier/llm-classifier-provider.js';
import type { ModelProvider, ParsedSpec } from './model-provider.js';
import { onnxProvider } from './onnx/onnx-provider.js';
import { openAICompatibleProvider } from './openai-compatible/openai-compatible-provider.js';
import { teiProvider } from './tei/tei-provider.js';
import { vllmPoolingProvider } from './vllm-pooling/vllm-pooling-provider.js';

const providers: ModelProvider[] = [];
const bySchemes = new Map<string, ModelProvider>();

export function registerProvider<S extends ParsedSpec>(provider: ModelProvider<S>): void {
  for (const scheme of provider.schemes) {
    const owner = bySchemes.get(scheme);
    if (owner && owner !== (provider as unknown as ModelProvider)) throw new LlmkbError(`spec scheme "${scheme}:" already belongs to provider "${owner.id}"`, { hint: `Give provider "${provider.id}" another scheme.` });
  }
  if (providers.includes(provider as unknown as ModelProvider)) return;
  providers.push(provider as unknown as ModelProvider);
  for (const scheme of provider.schemes) bySchemes.set(scheme, provider as unknown as ModelProvider);
}

export function listProviders(): ModelProvider[] {
  return [...providers];
}

function examples(): string {
  return `Examples: ${providers.flatMap((p) => p.examples).join(', ')}`;
}

/**
 * The provider a spec string names, and the spec parsed by it. A spec with credentials in a URL is
 * refused before anything else (../url-credentials.ts): every model spec of every command, config
 * entry and study passes here before it becomes a label, a key or a message.
 */
export function resolveModelSpec(spec: string, env: NodeJS.ProcessEnv = process.env): { provider: ModelProvider; parsed: ParsedSpec } {
  const trimmed = spec.trim();
  if (trimmed === '') throw new ModelSpecError('empty model spec', { hint: examples() });
  checkNoCredentials(trimmed, 'the model spec');
  const bare = providers.find((p) => p.matchesBare?.(trimmed));
  if (bare) return { provider: bare, parsed: bare.parseSpec(spec, '', trimmed, env) };
  const colon = trimmed.indexOf(':');
  const scheme = colon === -1 ? '' : trimmed.slice(0, colon).toLowerCase();
  const provider = bySchemes.get(scheme);
  if (!provider) throw new ModelSpecError(`unknown model spec "${spec}"`, { hint: examples() });
  return { provider, parsed: provider.parseSpec(spec, scheme, trimmed.slice(colon + 1), env) };
}

registerProvider(llamaProvider);
registerProvider(openAICompatibleProvider);
registerProvider(mockProvider);
registerProvider(teiProvider);
registerProvider(vllmPoolingProvider);
registerProvider(llmClassifierProvider);
registerProvider(onnxProvider);
registerProvider(llamaRerankerProvider);
