/**
 * Error classes. Every error a user can cause by their input or environment is an `LlmkbError`:
 * the CLI prints its message and hint (never a stack trace) and exits with its exit code.
 * Anything else reaching the top level is a bug in llmkb and is reported as such.
 */
import { redactSecrets } from './secrets.js';

/**
 * Every exit code of the `llmkb` command, in one place (the README's "Exit codes" table mirrors
 * this). Scripts and CI gates branch on them, so a code never changes meaning.
 */
export const EXIT_CODES = {
  ok: 0,
  /** Bad usage or bad input: an option, the config, or the content of an input file. */
  usage: 2,
  /** A model could not be reached or answered with an error (after retries), or a download timed out. */
  model: 3,
  /** `--fail-under`: the evaluation finished but a metric is below its threshold. */
  threshold: 4,
  /** Another llmkb process holds the run (see `--wait`). */
  busy: 5,
  /** A file or folder cannot be read or written: missing, no permission, a folder where a file is expected, read-only. */
  fileAccess: 6,
  /** A bug in llmkb (EX_SOFTWARE). */
  internal: 70,
} as const;

/**
 * An error the user can act on. Its message and hint never hold a credential (./secrets.ts):
 * they often carry what a server sent back, and they reach the terminal, logs and the run store.
 */
export class LlmkbError extends Error {
  /** What the user can do about it; printed on its own line after the message. */
  readonly hint: string | undefined;
  readonly exitCode: number;

  constructor(message: string, options: { hint?: string; exitCode?: number; cause?: unknown } = {}) {
    super(redactSecrets(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint === undefined ? undefined : redactSecrets(options.hint);
    this.exitCode = options.exitCode ?? EXIT_CODES.usage;
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

  constructor(file: string, line: number | undefined, field: string | undefined, problem: string, hint?: string) {
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
    super(message, { ...(options.hint === undefined ? {} : { hint: options.hint }), cause: options.cause, exitCode: EXIT_CODES.model });
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
    super(message, {
      hint: 'Use fewer shots (--reduce-shots drops shots until the prompt fits, and records it), or a model/context size with room for the prompt.',
    });
  }
}

/** A model file that is missing, unreadable or not a GGUF. */
export class ModelFileError extends LlmkbError {}

/**
 * A path that cannot be read or written. Raised by the shared file and store helpers, which
 * know the path; the message names it and the hint says what to do about this errno.
 */
export class FileAccessError extends LlmkbError {
  readonly path: string;
  readonly code: string | undefined;

  constructor(path: string, message: string, options: { code?: string; hint?: string; cause?: unknown } = {}) {
    super(message, { exitCode: EXIT_CODES.fileAccess, ...(options.hint === undefined ? {} : { hint: options.hint }), cause: options.cause });
    this.path = path;
    this.code = options.code;
  }
}

/** Errno codes that mean "the user's file system is in the way", not a bug in llmkb. */
const FILE_ERRORS: Record<string, { problem: string; read: string; write: string }> = {
  ENOENT: { problem: 'no such file or folder', read: 'Check the path.', write: 'Create the folder first, or give a path inside an existing folder.' },
  EACCES: {
    problem: 'permission denied',
    read: 'Make the file readable (chmod), or run as a user who can read it.',
    write: 'Choose a path you can write to, or fix the permissions (chmod/chown).',
  },
  EPERM: { problem: 'operation not permitted', read: "Check the file's permissions.", write: 'Choose a path you can write to, or fix the permissions.' },
  EISDIR: { problem: 'is a folder, not a file', read: 'Give the path of a file inside it.', write: 'Give a file name (e.g. DIR/out.jsonl), not a folder.' },
  ENOTDIR: {
    problem: 'a part of the path is a file, not a folder',
    read: 'Check the path.',
    write: 'Check the path: a file stands where a folder is expected.',
  },
  EROFS: { problem: 'read-only file system', read: 'Check the path.', write: 'Write somewhere writable (another output path or --store file).' },
  EEXIST: { problem: 'already exists and is not a folder', read: 'Check the path.', write: 'Remove or rename it, or choose another path.' },
  ENOSPC: { problem: 'no space left on the device', read: 'Free some space.', write: 'Free some space, or write elsewhere.' },
  EMFILE: { problem: 'too many open files', read: 'Raise the open-file limit (ulimit -n).', write: 'Raise the open-file limit (ulimit -n).' },
  ENAMETOOLONG: { problem: 'file name too long', read: 'Use a shorter path.', write: 'Use a shorter path.' },
};

/** Node's errno code (`ENOENT`...) of an error, if it has one. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Turns a file-system error from reading or writing `path` into a FileAccessError naming the
 * path; anything that is not a known file-system error is returned unchanged (a bug stays a bug).
 */
export function fileAccessError(path: string, error: unknown, action: 'read' | 'write', what = 'file'): unknown {
  if (error instanceof LlmkbError) return error;
  const code = errnoCode(error);
  const known = code === undefined ? undefined : FILE_ERRORS[code];
  if (known === undefined) return error;
  return new FileAccessError(path, `cannot ${action} ${what} ${path}: ${known.problem}`, { code: code!, hint: known[action], cause: error });
}

/** Another process is working on the same run: doing it twice would waste every model call. */
export class RunBusyError extends LlmkbError {
  constructor(message: string, hint: string) {
    super(message, { hint, exitCode: EXIT_CODES.busy });
  }
}

export function isLlmkbError(error: unknown): error is LlmkbError {
  return error instanceof LlmkbError;
}
