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
import { classifierOptions } from '../providers/classification/classifier-options.js';
import { llamaOptions } from '../providers/llama/llama-provider.js';
import { openAICompatibleOptions } from '../providers/openai-compatible/openai-compatible-provider.js';

/**
 * A role's model: a spec string, or an object with the spec and options. The options are the
 * executor's (concurrency, time-outs, retries) and each built-in provider's own (`optionsSchema`
 * in src/providers/<provider>/), so a provider's options are declared in one place.
 */
export const modelEntrySchema = z.union([
  z.string().min(1),
  z
    .object({
      spec: z.string().min(1),
      ...openAICompatibleOptions.shape,
      timeoutMs: z.number().int().min(1).optional(),
      maxRetries: z.number().int().min(0).max(20).optional(),
      /** Longest wait a server's Retry-After may impose before a retry (default 60000); longer ones are capped. */
      maxRetryAfterMs: z.number().int().min(1).optional(),
      ...llamaOptions.shape,
      /** Classification backends (tei:, vllm-score:, llm-nli:, ...): task, labels, scores, endpoint, ... */
      ...classifierOptions.omit({ apiKeyEnv: true, concurrency: true }).shape,
    })
    .strict(),
]);
export type ModelEntry = z.infer<typeof modelEntrySchema>;
export type ModelEntryOptions = Exclude<ModelEntry, string>;

export const ROLES = ['model', 'judge', 'distractor', 'embedder', 'scorer', 'nli', 'relevance', 'coherence', 'answerer', 'question_writer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * `defaults`: any command-line setting, per command, under its option's long name in camelCase
 * (`--max-tokens` -> `maxTokens`, `--no-cache` -> `"cache": false`), with the same values as on
 * the command line; the command line wins. `llmkb` holds the options given before the command
 * (`--wait`, `--no-cache`). Not here: `--config`; `--store` (the top-level `store`); model specs
 * (`--model`, `--judge`, `--distractor`, `--embedder`, `--filter-model`: the role entries); the
 * required `-i` of judge and consistency. test/config-defaults.test.ts checks this list against
 * the commands, so an option added to the CLI without its config name fails a test.
 *
 * Types are checked here; the values themselves go through the option's own parser when a
 * command runs (src/cli/config-defaults.ts), so `"mcqs": 0` fails as `--mcqs 0` does.
 */
export const COMMAND_OPTIONS = {
  llmkb: { cache: 'boolean', wait: 'boolean' },
  complete: { maxTokens: 'number', stop: 'list', chat: 'boolean' },
  'cache clear': { modelIdentity: 'string' },
  runs: { json: 'boolean' },
  'data seenqa': { dataDir: 'string', out: 'string', seed: 'number', perSource: 'number', llmFilter: 'boolean', batchSize: 'number', popqaLongtail: 'boolean' },
  'data unseenqa': { dataDir: 'string', out: 'string', seed: 'number', cutoff: 'string', perTemplate: 'number' },
  'data repositories': { dataDir: 'string', out: 'string', seed: 'number', cutoff: 'string', perTemplate: 'number' },
  'data from-corpus': { count: 'number', out: 'string', seed: 'number', maxAnswerWords: 'number', dateField: 'string' },
  ask: { setting: 'string', data: 'string', input: 'list', rSeen: 'string', rUnseen: 'string', seed: 'number', maxTokens: 'number', reduceShots: 'boolean', output: 'string', limit: 'number' },
  judge: { output: 'string', limit: 'number' },
  'judge check': { evouna: 'string', input: 'string', concurrency: 'number', limit: 'number', json: 'boolean' },
  consistency: { output: 'string', distractorLlm: 'boolean', mode: 'string', mcqs: 'number', seed: 'number', data: 'string', compareModes: 'number', limit: 'number' },
  metrics: { input: 'string', run: 'string', format: 'string', setting: 'string', resamples: 'number', seed: 'number', params: 'number', fineTuned: 'boolean', base: 'boolean' },
  compare: { run: 'list', out: 'string', resamples: 'number', seed: 'number', json: 'boolean' },
  report: { output: 'string', title: 'string' },
  eval: {
    name: 'string', settings: 'list', quick: 'boolean', data: 'string', dataDir: 'string', out: 'string', seed: 'number', maxTokens: 'number', mcqs: 'number', mode: 'string',
    cutoff: 'string', params: 'number', fineTuned: 'boolean', limit: 'number', failUnder: 'list', junit: 'string',
  },
  methods: { json: 'boolean' },
  view: { port: 'number', host: 'string' },
  sweep: { out: 'string', plan: 'boolean', shard: 'string', batch: 'boolean', limit: 'number' },
  merge: { fromStore: 'list' },
  'corpus add': { textColumn: 'string', idColumn: 'string', textField: 'string', idField: 'string', passageWords: 'number', overlapWords: 'number', stem: 'boolean', json: 'boolean' },
  'corpus search': { top: 'number', mode: 'string', json: 'boolean' },
  'corpus add-remote': { textField: 'string', docIdField: 'string', pageField: 'string', startField: 'string', endField: 'string', authEnv: 'string' },
  'corpus embed': { reset: 'boolean' },
  'corpus list': { json: 'boolean' },
  'corpus stats': { json: 'boolean' },
  'conner generate': { setting: 'string', prompt: 'number', shots: 'number', answerShots: 'number', demos: 'string', fixedDemos: 'boolean', task: 'string', seed: 'number', maxTokens: 'number', answerMaxTokens: 'number', limit: 'number', output: 'string' },
  'conner score': { corpus: 'string', evidenceTop: 'number', aggregation: 'string', factualityRule: 'string', premises: 'string', coherenceSentence: 'string', dialogueQuery: 'string', dialogueValidity: 'string', informativenessPrefix: 'string', asReleased: 'boolean', negatives: 'number', seed: 'number', resamples: 'number', ratings: 'string', output: 'string', out: 'string', concurrency: 'number', limit: 'number', json: 'boolean' },
  'conner select-demos': { candidates: 'number', top: 'number', gamma: 'string', corpus: 'string', evidenceTop: 'number', aggregation: 'string', factualityRule: 'string', premises: 'string', coherenceSentence: 'string', dialogueQuery: 'string', dialogueValidity: 'string', informativenessPrefix: 'string', asReleased: 'boolean', seed: 'number', task: 'string', output: 'string', summary: 'string' },
  'conner best-of': {
    input: 'list', samples: 'number', topP: 'number', temperature: 'number', setting: 'string', prompt: 'number', shots: 'number', answerShots: 'number', demos: 'string', fixedDemos: 'boolean', task: 'string',
    maxTokens: 'number', answerMaxTokens: 'number', limit: 'number', gamma: 'string', corpus: 'string', evidenceTop: 'number', aggregation: 'string', factualityRule: 'string', premises: 'string', coherenceSentence: 'string', dialogueQuery: 'string', dialogueValidity: 'string', informativenessPrefix: 'string', asReleased: 'boolean', seed: 'number', output: 'string', summary: 'string',
  },
} as const satisfies Record<string, Record<string, 'boolean' | 'number' | 'string' | 'list'>>;

const OPTION_TYPES = {
  boolean: z.boolean(),
  number: z.number(),
  string: z.string().min(1),
  /** A repeatable option: a list, or one value. */
  list: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
};

export type CommandDefaults = Partial<Record<string, Record<string, boolean | number | string | string[]>>>;

export const defaultsSchema = z
  .object(Object.fromEntries(Object.entries(COMMAND_OPTIONS).map(([command, options]) => [command, z.object(Object.fromEntries(Object.entries(options).map(([name, type]) => [name, OPTION_TYPES[type].optional()]))).strict().optional()])))
  .strict();

export const configSchema = z
  .object({
    model: modelEntrySchema.optional(),
    judge: modelEntrySchema.optional(),
    distractor: modelEntrySchema.optional(),
    embedder: modelEntrySchema.optional(),
    /** CONNER: reference language model (perplexity, informativeness, helpfulness). */
    scorer: modelEntrySchema.optional(),
    /** CONNER: NLI model (factuality, validity). */
    nli: modelEntrySchema.optional(),
    /** CONNER: query-passage relevance model. */
    relevance: modelEntrySchema.optional(),
    /** CONNER: paragraph-coherence (discourse-coherence) scorer. */
    coherence: modelEntrySchema.optional(),
    /** CONNER: the fixed few-shot answerer of the downstream answers (Appendix G). */
    answerer: modelEntrySchema.optional(),
    /** Writes questions from corpus passages (`llmkb data from-corpus`). */
    question_writer: modelEntrySchema.optional(),
    /** SQLite file holding the call cache and the run store. */
    store: z.string().min(1).optional(),
    /** Downloads (data sets, GGUF models). */
    cacheDir: z.string().min(1).optional(),
    /** Command-line settings per command (see COMMAND_OPTIONS); the command line wins. */
    defaults: defaultsSchema.optional(),
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
    throw new ConfigError(`${file}: field "${field}": ${issue.message}`, { hint: configHint(issue.path) });
  }
  return { config: parsed.data, file };
}

function configHint(path: ReadonlyArray<PropertyKey>): string {
  if (path[0] !== 'defaults') return `Allowed top-level fields: ${Object.keys(configSchema.shape).join(', ')}. A model is a spec string or {"spec": ..., "apiKeyEnv": ..., "concurrency": ...}.`;
  const command = typeof path[1] === 'string' ? COMMAND_OPTIONS[path[1] as keyof typeof COMMAND_OPTIONS] : undefined;
  const how = 'options by their long name in camelCase (--max-tokens: "maxTokens"; --no-cache: "cache": false), with the values the command line takes';
  if (command === undefined) return `"defaults" holds one section per command: ${Object.keys(COMMAND_OPTIONS).map((c) => `"${c}"`).join(', ')}; each with its ${how}.`;
  return `"defaults.${String(path[1])}" takes ${Object.keys(command).join(', ')}: the ${how}. Model specs go in the top-level role entries (model, judge, distractor, embedder, question_writer).`;
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
