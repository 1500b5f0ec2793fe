/**
 * A model provider: one backend family, reached through the spec strings whose scheme it owns
 * (`gguf:`, `hf:` for the in-process runtime; `vllm:`, `openai:`, ... for OpenAI-compatible
 * servers; `mock:` for scripted replies). `create-language-model.ts` looks the scheme up in the
 * registry (./provider-registry.ts) and hands the parsed spec and the config entry's options to
 * `create`; nothing else in llmkb names a provider.
 */
import type { z } from 'zod';
import type { Model } from './language-model.js';
import type { ModelEntryOptions } from './model-entry.js';
import type { ModelKind } from './model-kinds.js';

/** What a provider builds: a model of one or more kinds (text, embedding, scoring, classification). */
export type ProvidedModel = Model;

export interface CreateModelContext {
  /** Download cache; GGUF models go to `<cacheDir>/models`. */
  cacheDir: string;
  env?: NodeJS.ProcessEnv;
  /** Builds a text model from its entry (a provider that wraps one, e.g. a text model prompted as a classifier). */
  createTextModel?(entry: ModelEntryOptions): Promise<Model>;
}

/** A parsed spec: which provider, and whatever that provider needs to reach the model. */
export interface ParsedSpec {
  provider: string;
}

/** The options of a config entry a provider reads, with the spec itself. */
export type EntryOptions<Options> = Options & { spec: string };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ModelProvider<Spec extends ParsedSpec = ParsedSpec, Options extends object = any> {
  /** Provider name, as models report it in `provider` (e.g. `llama`, `openai-compatible`). */
  readonly id: string;
  /** Spec schemes this provider owns, lower case, without the colon. */
  readonly schemes: readonly string[];
  /** The model kinds its models can implement (a given model may offer fewer; see its `kinds`). */
  readonly kinds: readonly ModelKind[];
  /** The config-entry options this provider reads (the rest are the executor's or other providers'). */
  readonly optionsSchema: z.ZodType<Options>;
  /** One example spec per scheme, for error hints and `--help`. */
  readonly examples: readonly string[];
  /** A spec with no scheme this provider claims (a bare `*.gguf` path), if any. */
  matchesBare?(spec: string): boolean;
  /** `rest` is what follows `scheme:` (the whole spec when matched bare, with `scheme` ''). */
  parseSpec(spec: string, scheme: string, rest: string, env: NodeJS.ProcessEnv): Spec;
  /** Builds the model; fails early (a missing API key, a missing file) before any call. */
  create(spec: Spec, options: EntryOptions<Options>, context: CreateModelContext): Promise<ProvidedModel>;
}
