/**
 * Error classes. Every error a user can cause by their input or environment is an `LlmkbError`:
 * the CLI prints its message and hint (never a stack trace) and exits with its exit code.
 * Anything else reaching the top level is a bug in llmkb and is reported as such.
 */
export class LlmkbError extends Error {
  /** What the user can do about it; printed on its own line after the message. */
  readonly hint: string | undefined;
  readonly exitCode: number;

  constructor(message: string, options: { hint?: string; exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 2;
  }
}

/** A model spec string or config entry that names no known provider or is malformed. */
export class ModelSpecError extends LlmkbError {}

/** The configuration file, or a value in it, is invalid. */
export class ConfigError extends LlmkbError {}

/** An input file (records, questions, data) is malformed: carries file, line and field. */
export class InputFileError extends LlmkbError {
  readonly file: string;
  readonly line: number | undefined;
  readonly field: string | undefined;

  constructor(
    file: string,
    line: number | undefined,
    field: string | undefined,
    problem: string,
    hint?: string,
  ) {
    const where = `${file}${line === undefined ? '' : `:${line}`}${field === undefined ? '' : ` (field "${field}")`}`;
    super(`${where}: ${problem}`, hint === undefined ? {} : { hint });
    this.file = file;
    this.line = line;
    this.field = field;
  }
}

/**
 * A model call failed. `retryable` decides whether the executor tries again: rate limits,
 * server errors, timeouts and network failures are; a 4xx request error is not.
 */
export class ModelCallError extends LlmkbError {
  readonly retryable: boolean;
  readonly status: number | undefined;
  /** From a `Retry-After` header, when the server sent one. */
  readonly retryAfterMs: number | undefined;
  readonly endpoint: string | undefined;

  constructor(
    message: string,
    options: {
      retryable: boolean;
      status?: number;
      retryAfterMs?: number;
      endpoint?: string;
      hint?: string;
      cause?: unknown;
    },
  ) {
    super(message, { ...(options.hint === undefined ? {} : { hint: options.hint }), cause: options.cause, exitCode: 3 });
    this.retryable = options.retryable;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.endpoint = options.endpoint;
  }
}

/** The provider cannot do what was asked (e.g. log-likelihood on a server without `echo`). */
export class UnsupportedCapabilityError extends LlmkbError {}

/** A prompt longer than the model's context window. */
export class ContextOverflowError extends LlmkbError {
  constructor(message: string) {
    super(message, { hint: 'Use fewer shots (--reduce-shots drops shots until the prompt fits, and records it), or a model/context size with room for the prompt.' });
  }
}

/** A model file that is missing, unreadable or not a GGUF. */
export class ModelFileError extends LlmkbError {}

export function isLlmkbError(error: unknown): error is LlmkbError {
  return error instanceof LlmkbError;
}
