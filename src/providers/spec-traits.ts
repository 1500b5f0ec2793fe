/**
 * What the rest of llmkb asks of a model spec before any model is built, answered by the provider
 * that owns its scheme (its `traits`, `withEndpoints`, `localPathSchemes` and `batchApi`): whether
 * it runs in this process, how many endpoints and connections, which local files it reads, its
 * Batch API. The sweep plans with these instead of naming providers.
 */
import { isAbsolute, resolve } from 'node:path';
import { LlmkbError } from '../errors.js';
import type { BatchApi } from './batch-api.js';
import { entryOptions, type ModelEntry } from './model-entry.js';
import type { SpecTraits } from './model-provider.js';
import { listProviders, resolveModelSpec } from './provider-registry.js';

const DEFAULT_TRAITS: SpecTraits = { inProcess: false, endpoints: 1, maxConnections: 64, files: [] };

/** The traits of a spec's model, as its provider declares them (defaults for what it leaves out). */
export function specTraits(spec: string, env: NodeJS.ProcessEnv = process.env): SpecTraits {
  const { provider, parsed } = resolveModelSpec(spec, env);
  return { ...DEFAULT_TRAITS, ...provider.traits?.(parsed) };
}

/** The spec with its endpoints replaced by `endpoints` (base URLs); throws when its provider's models have none. */
export function specWithEndpoints(spec: string, endpoints: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  const { provider, parsed } = resolveModelSpec(spec, env);
  const replaced = provider.withEndpoints?.(parsed, endpoints);
  if (replaced === undefined)
    throw new LlmkbError(`"endpoints" is for models behind servers named by URL (such as vllm:, llamacpp:, openai-compatible:), not ${spec}`);
  return replaced;
}

/** A spec whose scheme names a local path, with a relative path read from `dir` (a study's folder); other specs as they are. */
export function specRelativeTo(spec: string, dir: string): string {
  const colon = spec.indexOf(':');
  if (colon === -1) return spec;
  const scheme = spec.slice(0, colon);
  const rest = spec.slice(colon + 1);
  if (!listProviders().some((p) => p.localPathSchemes?.includes(scheme))) return spec;
  // Absolute (POSIX or a Windows drive), a URL, or a Hugging Face URI: not a path to resolve.
  if (rest === '' || isAbsolute(rest) || /^[A-Za-z]:[\\/]/.test(rest) || /^[a-z][a-z0-9+.-]*:\/\//i.test(rest) || rest.startsWith('hf:')) return spec;
  return `${scheme}:${resolve(dir, rest)}`;
}

/** The Batch API of an entry's model (`llmkb sweep --batch`); throws when its provider has none. */
export async function batchApiOf(entry: ModelEntry, env: NodeJS.ProcessEnv = process.env): Promise<BatchApi> {
  const options = entryOptions(entry);
  const { provider, parsed } = resolveModelSpec(options.spec, env);
  if (!provider.batchApi) {
    throw new LlmkbError(`--batch: ${options.spec} has no Batch API (its provider, ${provider.id}, batches nothing)`, {
      hint: 'Batch only roles served by the OpenAI API (or a server with /v1/files and /v1/batches): give the others "batch: false" in the study (e.g. answerer: { spec: ..., batch: false }), or drop --batch.',
    });
  }
  return provider.batchApi(parsed, options, env);
}
