/**
 * The types every kind of model call shares (the text-generation and embedding kinds in
 * ./language-model.ts and the scoring and classification kinds in ./model-kinds.ts): where a
 * model runs, what a call cost, and the options of one call. A module of types only.
 */

/** Where and how a model runs, as far as it changes the numbers (recorded in a run's protocol). */
export interface ModelRuntime {
  /** `cpu`, `cuda`, `vulkan`, `metal` for in-process models; `server` for HTTP ones. */
  backend: string;
  /** Calls evaluated together in one batch (in-process); above 1 results may vary run to run. */
  sequences: number;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /**
   * Tokens the model actually had to evaluate. In-process this excludes a reused prompt
   * prefix; for servers it equals promptTokens + completionTokens (prefix caching is invisible).
   */
  evaluatedTokens: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Which of the provider's endpoints to use (the executor balances load across them). */
  endpoint?: string;
  /** The executor's cache key of this call: a model that answers later (the Batch API's) files the answer under it. */
  cacheKey?: string;
}
