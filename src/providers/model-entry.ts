/**
 * A model as the config, a study or the command line names it: a spec string, or the spec with
 * options (the executor's time-outs and retries, and the provider's own, which the provider
 * types and checks).
 */

/** A model entry with its options. */
export type ModelEntryOptions = {
  spec: string;
  timeoutMs?: number;
  maxRetries?: number;
  maxRetryAfterMs?: number;
  revision?: string;
  concurrency?: number;
  apiKeyEnv?: string;
  [option: string]: unknown;
};

/** A model entry: a spec string, or the spec with options. */
export type ModelEntry = string | ModelEntryOptions;

export function entryOptions(entry: ModelEntry): ModelEntryOptions {
  return typeof entry === 'string' ? { spec: entry } : entry;
}
