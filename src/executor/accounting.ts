/** What an executor's calls cost in this process (ModelExecutor.accounting). */
export interface Accounting {
  calls: number;
  cacheHits: number;
  /** HTTP requests / in-process evaluations actually made, retries included. */
  requests: number;
  retries: number;
  rateLimited: number;
  failures: number;
  promptTokens: number;
  completionTokens: number;
  evaluatedTokens: number;
  /** Tokens that cache hits did not have to pay for. */
  cachedPromptTokens: number;
  cachedCompletionTokens: number;
  latencyMsTotal: number;
}

/** Accounting with nothing counted yet. */
export function newAccounting(): Accounting {
  return {
    calls: 0,
    cacheHits: 0,
    requests: 0,
    retries: 0,
    rateLimited: 0,
    failures: 0,
    promptTokens: 0,
    completionTokens: 0,
    evaluatedTokens: 0,
    cachedPromptTokens: 0,
    cachedCompletionTokens: 0,
    latencyMsTotal: 0,
  };
}
