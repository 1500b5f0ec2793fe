/**
 * A provider's Batch API, as `llmkb sweep --batch` uses it: greedy calls gathered into request
 * lines, submitted as one batch, waited for, and read back as the provider reads a live answer.
 * The gathering, the journal and the call cache are the sweep's (src/sweep/batch/); how lines look
 * and where they go are the provider's (e.g. ./openai-compatible/openai-batch-api.ts).
 */
import type { ChatRequest, CompletionRequest, CompletionResult } from './language-model.js';

/** A request that failed inside a batch; `contextOverflow`: its prompt is longer than the model's context (as the provider says live). */
export interface BatchError {
  message: string;
  retryable: boolean;
  contextOverflow?: boolean;
  status?: number;
}

/** A batch that ended: its status, why it failed as a whole (if it did), and each line's outcome by custom id. */
export interface BatchOutcome {
  id: string;
  status: string;
  /** Set when the whole batch failed (its input refused). */
  failure?: string;
  outcomes: Map<string, { result?: unknown; error?: BatchError }>;
}

export interface BatchApi {
  /** Where the batches go, without credentials: the journal keeps it to find a batch again after an interruption. */
  readonly endpoint: string;
  /** A greedy call as one request line: the url and body the provider would post live. */
  line(kind: 'complete' | 'chat', request: CompletionRequest | ChatRequest): { url: string; body: unknown };
  /** Submits lines (all of one url) as a batch; returns its id. */
  submit(url: string, lines: ReadonlyArray<{ customId: string; body: unknown }>): Promise<string>;
  /** Waits until a batch ends, polling every `pollMs`. */
  wait(batchId: string, total: number, options: { pollMs: number; label: string; signal?: AbortSignal }): Promise<BatchOutcome>;
  /** An answer from a batch's output, read as the provider reads a live one (throws on another shape). */
  result(url: string, body: unknown): CompletionResult;
}
