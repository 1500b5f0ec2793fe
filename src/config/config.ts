/**
 * `llmkb.config.json`: names the models for each role of the methods and how to reach them, the
 * user's own providers and methods, and command-line settings per command.
 *
 * {
 *   "model":      "vllm:http://localhost:8000/v1/meta-llama/Llama-3-8B",
 *   "judge":      { "spec": "openai:gpt-4o", "apiKeyEnv": "OPENAI_API_KEY", "concurrency": 8 },
 *   "distractor": "openai:gpt-3.5-turbo-instruct",
 *   "embedder":   { "spec": "openai:text-embedding-3-small" },
 *   "store":      ".llmkb/llmkb.sqlite"
 * }
 *
 * API keys are never written in the file: only the name of the environment variable that holds one;
 * a spec with a user name or password in its URL is refused (../url-credentials.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError, fileAccessError } from '../errors.js';
import { entryOptions, type ModelEntry, type ModelEntryOptions } from '../providers/model-entry.js';
import { modelEntrySchema } from '../providers/model-entry-schema.js';
import { checkNoCredentials } from '../url-credentials.js';
import { expandHome } from '../io/home-path.js';
import { NO_MODEL } from './no-model.js';

export { modelEntrySchema };
export { entryOptions, type ModelEntry, type ModelEntryOptions };

/** A setting of `defaults`: what the command line takes, as JSON (a list for a repeatable option). */
const defaultValueSchema = z.union([z.boolean(), z.number(), z.string().min(1), z.array(z.string().min(1)).min(1)]);

/**
 * The config's own fields; every other top-level field names a model role of a registered method
 * (`model`, `judge`, `nli`, ...: `llmkb methods` lists them) and holds its model entry, checked
 * against the registered roles by `checkConfigRoles`.
 */
const ownFields = {
  /** SQLite file holding the call cache and the run store. */
  store: z.string().min(1).optional(),
  /** Downloads (data sets, GGUF models). */
  cacheDir: z.string().min(1).optional(),
  /** Modules of the user's own model providers, relative to the config file (docs/models.md#adding-a-provider). */
  providers: z.array(z.string().min(1)).min(1).optional(),
  /** Modules of the user's own evaluation methods, relative to the config file (docs/method.md). */
  methods: z.array(z.string().min(1)).min(1).optional(),
  /**
   * Command-line settings per command: `defaults.<command path>.<option>` (`defaults.eval.mcqs`),
   * the option under its long name in camelCase (`--max-tokens` -> `maxTokens`, `--no-cache` ->
   * `"cache": false`), with the values the command line takes; the command line wins. Checked
   * against the commands themselves (src/cli/config-defaults.ts).
   */
  defaults: z.record(z.string(), z.record(z.string(), defaultValueSchema)).optional(),
};

/** The config's schema, with the model-entry options of the providers registered when it is called. */
export function configSchema() {
  return z.object(ownFields).catchall(modelEntrySchema());
}
/** A config: its own fields, and one model entry per role it names. */
export type LlmkbConfig = {
  store?: string;
  cacheDir?: string;
  providers?: string[];
  methods?: string[];
  defaults?: Record<string, Record<string, boolean | number | string | string[]>>;
} & { [role: string]: unknown };

/** A role's model entry in the config, by role id. */
export function configuredRole(config: LlmkbConfig, role: string): ModelEntry | undefined {
  if (role in ownFields) return undefined;
  const entry = config[role] as ModelEntry | undefined;
  // `"judge": "none"`: no model for the role, as `--judge none` says (the role's fallback runs).
  return entry !== undefined && entryOptions(entry).spec.trim() === NO_MODEL ? undefined : entry;
}

/** Refuses a top-level field that is neither the config's own nor a registered role (a typo would otherwise be ignored). */
export function checkConfigRoles(config: LlmkbConfig, file: string | undefined, roles: readonly string[]): void {
  for (const key of Object.keys(config)) {
    if (key in ownFields || roles.includes(key)) continue;
    throw new ConfigError(`${file ?? 'the config'}: field "${key}" is not a model role of any registered method`, {
      hint: `Model roles: ${roles.join(', ')} (llmkb methods lists them); other fields: ${Object.keys(ownFields).join(', ')}.`,
    });
  }
}

export { NO_MODEL };

export const DEFAULT_CONFIG_FILE = 'llmkb.config.json';

/** Reads and validates a config file; with no path, `./llmkb.config.json` if it exists, else empty. */
export function loadConfig(path?: string): { config: LlmkbConfig; file: string | undefined } {
  const file = path ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : undefined);
  if (file === undefined) return { config: {}, file: undefined };
  const config = parseConfig(readConfigJson(file), configSchema(), file) as LlmkbConfig;
  for (const [role, entry] of Object.entries(config)) {
    if (role in ownFields || entry === undefined) continue;
    if ((typeof entry === 'string' ? entry : (entry as ModelEntryOptions).spec).trim() === NO_MODEL) continue;
    const spec = typeof entry === 'string' ? entry : (entry as ModelEntryOptions).spec;
    checkNoCredentials(spec, `the model spec in ${file} (field "${typeof entry === 'string' ? role : `${role}.spec`}")`);
  }
  // Paths of the config's own fields may start with `~` (the home folder).
  if (config.store !== undefined) config.store = expandHome(config.store);
  if (config.cacheDir !== undefined) config.cacheDir = expandHome(config.cacheDir);
  if (config.providers !== undefined) config.providers = config.providers.map((m) => expandHome(m));
  if (config.methods !== undefined) config.methods = config.methods.map((m) => expandHome(m));
  return { config, file };
}

/** A config file's JSON value (a byte-order mark dropped), or a ConfigError naming the file. */
function readConfigJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const access = fileAccessError(file, error, 'read', 'config file');
    throw access !== error ? access : new ConfigError(`cannot read config file ${file}`, { hint: 'Check the --config path.', cause: error });
  }
  // A byte-order mark (Windows editors write one) is not JSON; drop it.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The config checked against a schema; the first problem as a ConfigError naming the file and field. */
function parseConfig(json: unknown, schema: z.ZodType, file: string): unknown {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    const field = first.path.join('.') || '(top level)';
    throw new ConfigError(`${file}: field "${field}": ${first.message}`, { hint: configHint(first.path) });
  }
  return parsed.data;
}

function configHint(path: ReadonlyArray<PropertyKey>): string {
  if (path[0] === 'defaults')
    return '"defaults" holds one section per command ("eval", "data seenqa", ...), each with its options by their long name in camelCase (--max-tokens: "maxTokens"; --no-cache: "cache": false) and the values the command line takes.';
  return `Fields: ${Object.keys(ownFields).join(', ')}, and one per model role (llmkb methods lists them). A model is a spec string or {"spec": ..., "apiKeyEnv": ..., "concurrency": ...}.`;
}

/**
 * The config file's lists of modules, read before anything else: `providers` (their schemes and
 * options), then `methods` (their roles and commands). Only these two fields are checked here, since
 * a model entry may use an option of a provider the list brings; the whole file is read when the
 * command runs.
 */
export function configModules(file: string): { providers: string[]; methods: string[] } {
  const lists = parseConfig(readConfigJson(file), z.object({ providers: ownFields.providers, methods: ownFields.methods }), file) as {
    providers?: string[];
    methods?: string[];
  };
  return { providers: (lists.providers ?? []).map((m) => expandHome(m)), methods: (lists.methods ?? []).map((m) => expandHome(m)) };
}

/** An environment variable's value; an empty one (`LLMKB_STORE=`) is unset, not the current folder. */
function envPath(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** Where downloads go: `cacheDir` in the config, else $LLMKB_CACHE_DIR, else ~/.cache/llmkb. */
export function cacheDir(config: LlmkbConfig, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(config.cacheDir ?? envPath(env, 'LLMKB_CACHE_DIR') ?? join(envPath(env, 'XDG_CACHE_HOME') ?? join(homedir(), '.cache'), 'llmkb'));
}

/** The SQLite store: `store` in the config, else $LLMKB_STORE (unless empty), else ./.llmkb/llmkb.sqlite. */
export function storePath(config: LlmkbConfig, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(config.store ?? envPath(env, 'LLMKB_STORE') ?? join('.llmkb', 'llmkb.sqlite'));
}
