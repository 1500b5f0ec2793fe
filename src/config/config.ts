/**
 * `llmkb.config.json`: names the models for each role of the method and how to reach them.
 *
 * {
 *   "model":      "vllm:http://localhost:8000/v1/meta-llama/Llama-3-8B",
 *   "judge":      { "spec": "openai:gpt-4o", "apiKeyEnv": "OPENAI_API_KEY", "concurrency": 8 },
 *   "distractor": "openai:gpt-3.5-turbo-instruct",
 *   "embedder":   { "spec": "openai:text-embedding-3-small" },
 *   "store":      ".llmkb/llmkb.sqlite"
 * }
 *
 * API keys are never written in the file: only the name of the environment variable that holds one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError, fileAccessError } from '../errors.js';

export const modelEntrySchema = z.union([
  z.string().min(1),
  z
    .object({
      spec: z.string().min(1),
      /** Name of the environment variable holding the API key (not the key). */
      apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name, not a key').optional(),
      api: z.enum(['completions', 'chat']).optional(),
      echo: z.boolean().optional(),
      topLogprobs: z.number().int().min(1).max(100).optional(),
      concurrency: z.number().int().min(1).max(1024).optional(),
      timeoutMs: z.number().int().min(1).optional(),
      maxRetries: z.number().int().min(0).max(20).optional(),
      /** Longest wait a server's Retry-After may impose before a retry (default 60000); longer ones are capped. */
      maxRetryAfterMs: z.number().int().min(0).optional(),
      threads: z.number().int().min(1).optional(),
      sequences: z.number().int().min(1).max(64).optional(),
      contextSize: z.number().int().min(64).optional(),
      gpu: z.boolean().optional(),
    })
    .strict(),
]);
export type ModelEntry = z.infer<typeof modelEntrySchema>;
export type ModelEntryOptions = Exclude<ModelEntry, string>;

export const ROLES = ['model', 'judge', 'distractor', 'embedder'] as const;
export type Role = (typeof ROLES)[number];

export const configSchema = z
  .object({
    model: modelEntrySchema.optional(),
    judge: modelEntrySchema.optional(),
    distractor: modelEntrySchema.optional(),
    embedder: modelEntrySchema.optional(),
    /** SQLite file holding the call cache and the run store. */
    store: z.string().min(1).optional(),
    /** Downloads (data sets, GGUF models). */
    cacheDir: z.string().min(1).optional(),
  })
  .strict();
export type LlmkbConfig = z.infer<typeof configSchema>;

export const DEFAULT_CONFIG_FILE = 'llmkb.config.json';

/** Reads and validates a config file; with no path, `./llmkb.config.json` if it exists, else empty. */
export function loadConfig(path?: string): { config: LlmkbConfig; file: string | undefined } {
  const file = path ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : undefined);
  if (file === undefined) return { config: {}, file: undefined };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const access = fileAccessError(file, error, 'read', 'config file');
    throw access !== error ? access : new ConfigError(`cannot read config file ${file}`, { hint: 'Check the --config path.', cause: error });
  }
  // A byte-order mark (Windows editors write one) is not JSON; drop it.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = configSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || '(top level)';
    throw new ConfigError(`${file}: field "${field}": ${issue.message}`, {
      hint: `Allowed top-level fields: ${Object.keys(configSchema.shape).join(', ')}. A model is a spec string or {"spec": ..., "apiKeyEnv": ..., "concurrency": ...}.`,
    });
  }
  return { config: parsed.data, file };
}

export function entryOptions(entry: ModelEntry): ModelEntryOptions {
  return typeof entry === 'string' ? { spec: entry } : entry;
}

/** Where downloads go: `cacheDir` in the config, else $LLMKB_CACHE_DIR, else ~/.cache/llmkb. */
export function cacheDir(config: LlmkbConfig, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(config.cacheDir ?? env.LLMKB_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'llmkb'));
}

/** The SQLite store: `store` in the config, else $LLMKB_STORE, else ./.llmkb/llmkb.sqlite. */
export function storePath(config: LlmkbConfig, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(config.store ?? env.LLMKB_STORE ?? join('.llmkb', 'llmkb.sqlite'));
}
