/**
 * The model providers llmkb knows, by spec scheme. The built-in ones register here; a library
 * user registers another with `registerProvider`, a CLI user lists its module in the config's
 * `providers` (`loadProviderModules`), and names its models with its scheme.
 */
import { LlmkbError, ModelSpecError } from '../errors.js';
import { importUserModule } from '../io/user-module.js';
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
    if (owner && owner !== (provider as unknown as ModelProvider))
      throw new LlmkbError(`spec scheme "${scheme}:" already belongs to provider "${owner.id}"`, { hint: `Give provider "${provider.id}" another scheme.` });
  }
  if (providers.includes(provider as unknown as ModelProvider)) return;
  providers.push(provider as unknown as ModelProvider);
  for (const scheme of provider.schemes) bySchemes.set(scheme, provider as unknown as ModelProvider);
}

export function listProviders(): ModelProvider[] {
  return [...providers];
}

/** Whether a module's export is a model provider (an id, its schemes, and the functions that parse a spec and make a model). */
function isProvider(value: unknown): value is ModelProvider {
  const p = value as Partial<ModelProvider> | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.id === 'string' &&
    Array.isArray(p.schemes) &&
    typeof p.parseSpec === 'function' &&
    typeof p.create === 'function'
  );
}

/**
 * Imports the user's provider modules (the config's `providers` list; relative paths from
 * `baseDir`) and registers every provider each exports, before a config or a study is read.
 */
export async function loadProviderModules(paths: readonly string[], baseDir: string): Promise<ModelProvider[]> {
  const loaded: ModelProvider[] = [];
  for (const path of paths) {
    const { file, exports: mod } = await importUserModule(
      path,
      baseDir,
      'provider',
      'The config\'s "providers" lists ES modules that export a model provider (docs/models.md, "Adding a provider"); a .ts module needs node --import tsx.',
    );
    const found = [...new Set(Object.values(mod).filter(isProvider))];
    if (found.length === 0)
      throw new LlmkbError(`${file} exports no model provider`, {
        hint: 'Export the provider object (id, schemes, kinds, optionsSchema, examples, parseSpec, create), e.g. `export default myProvider` (docs/models.md, "Adding a provider").',
      });
    for (const p of found) {
      registerProvider(p);
      loaded.push(p);
    }
  }
  return loaded;
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
