/**
 * A model provider: one backend family, reached through the spec strings whose scheme it owns
 * (`gguf:`, `hf:` for the in-process runtime; `vllm:`, `openai:`, ... for OpenAI-compatible
 * servers; `mock:` for scripted replies). `create-language-model.ts` looks the scheme up in the
 * registry (./provider-registry.ts) and hands the parsed spec and the config entry's options to
 * `create`. What the rest of llmkb needs to know of a model before it is built (whether it runs
 * in this process, its endpoints, its files, whether it has a Batch API) it asks the provider
 * through its spec (./spec-traits.ts), so nothing outside src/providers/ names a provider.
 */
import type { z } from 'zod';
import type { BatchApi } from './batch-api.js';
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

/** What a spec's model is, known from the spec alone (nothing built): a sweep plans with it. */
export interface SpecTraits {
  /** Runs inside this process (a sweep runs such models one at a time). */
  inProcess: boolean;
  /** Endpoints (replicas) its calls are spread over. */
  endpoints: number;
  /** Calls in flight per endpoint when the entry names no `concurrency`. */
  maxConnections: number;
  /** Local files the model reads, checked before a sweep starts. */
  files: string[];
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds providers of every options type
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
  /** What the spec's model is (defaults: served elsewhere, one endpoint, 64 connections, no local file). */
  traits?(spec: Spec): Partial<SpecTraits>;
  /**
   * Schemes whose spec is a local path (`gguf:models/a.gguf`): a study reads a relative one from
   * its own folder.
   */
  readonly localPathSchemes?: readonly string[];
  /** The spec with its endpoints replaced (a study's `endpoints:`); undefined (or absent) when its models have none to replace. */
  withEndpoints?(spec: Spec, endpoints: readonly string[]): string | undefined;
  /** The provider's Batch API for a spec's model (`llmkb sweep --batch`); absent when it has none. */
  batchApi?(spec: Spec, options: EntryOptions<Options>, env: NodeJS.ProcessEnv): Promise<BatchApi>;
  /** Builds the model; fails early (a missing API key, a missing file) before any call. */
  create(spec: Spec, options: EntryOptions<Options>, context: CreateModelContext): Promise<ProvidedModel>;
}
