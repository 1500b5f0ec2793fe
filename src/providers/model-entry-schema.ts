/**
 * The schema of a model entry (a config role, a study model or role), built from the providers
 * registered when it is asked for: a provider added with `registerProvider` before a config or a
 * study is read has its own options accepted, as the built-in ones do.
 */
import { z } from 'zod';
import { listProviders } from './provider-registry.js';

/** Options every model entry may have: the executor's (time-outs and retries) besides the spec. */
const executorOptions = {
  spec: z.string().min(1),
  timeoutMs: z.number().int().min(1).optional(),
  maxRetries: z.number().int().min(0).max(20).optional(),
  /** Longest wait a server's Retry-After may impose before a retry (default 60000); longer ones are capped. */
  maxRetryAfterMs: z.number().int().min(1).optional(),
  /** The checkpoint's revision as the user declares it: part of the call cache's key instead of what the server reports. */
  revision: z.string().min(1).optional(),
};

/** Every registered provider's own options (`optionsSchema` in src/providers/<provider>/), the first provider's declaration of a shared one. */
function providerOptions(): z.ZodRawShape {
  const shape: Record<string, z.ZodType> = {};
  for (const provider of listProviders()) {
    const schema = provider.optionsSchema;
    if (!(schema instanceof z.ZodObject)) continue;
    for (const [key, type] of Object.entries(schema.shape as Record<string, z.ZodType>)) if (!(key in shape)) shape[key] = type;
  }
  return shape;
}

/** The fields of a model entry object: the registered providers' own options and the executor's. */
export function modelEntryShape(): z.ZodRawShape {
  return { ...providerOptions(), ...executorOptions };
}

/**
 * A role's model: a spec string, or an object with the spec and options: the executor's and the
 * registered providers' own, so a provider's options are declared in one place (its provider).
 */
export function modelEntrySchema() {
  return z.union([z.string().min(1), z.object(modelEntryShape()).strict()]);
}
