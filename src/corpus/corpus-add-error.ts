/**
 * The error of an add that stopped at a file it could not read: that file's error, with a hint
 * saying what the corpus now holds of the add.
 */
import { LlmkbError } from '../errors.js';

function fileList(files: readonly string[]): string {
  return `${files.slice(0, 3).join(', ')}${files.length > 3 ? ` and ${files.length - 3} more` : ''}`;
}

/**
 * An add that stopped at a file it could not read: the message is that file's error; the hint
 * says what to do about it and exactly what the corpus now holds of the add (the files written
 * before it stay, it and the files after it are not in the corpus).
 */
export class CorpusAddError extends LlmkbError {
  /** The file the add stopped at. */
  readonly file: string;
  /** Files this add added or updated before it (they stay in the corpus). */
  readonly written: readonly string[];
  /** Files after it, not read. */
  readonly notRead: readonly string[];
  /** The file was in the corpus from an earlier add, and is not any more. */
  readonly earlierVersionRemoved: boolean;
  /** The hint of the file's own error. */
  readonly fileHint: string | undefined;

  constructor(
    corpus: string,
    error: LlmkbError,
    what: { file: string; written: readonly string[]; notRead: readonly string[]; earlierVersionRemoved: boolean },
  ) {
    const s = (n: number): string => (n === 1 ? '' : 's');
    const removed = what.earlierVersionRemoved ? ', and its earlier version was taken out of the corpus' : '';
    const outcome =
      what.written.length + what.notRead.length === 0
        ? `The file was not added${removed}; corpus "${corpus}" is otherwise unchanged.`
        : `${what.written.length === 0 ? `Corpus "${corpus}" got none of the files of this command` : `Corpus "${corpus}" keeps the ${what.written.length} file${s(what.written.length)} this command added before it (${fileList(what.written)})`}; ` +
          `${what.notRead.length === 0 ? 'the file was' : `the file and the ${what.notRead.length} file${s(what.notRead.length)} after it (${fileList(what.notRead)}) were`} not added${removed}. Fix the file and run the same command again: files already added are skipped as unchanged.`;
    super(error.message, { hint: `${error.hint === undefined ? '' : `${error.hint} `}${outcome}`, exitCode: error.exitCode, cause: error });
    this.file = what.file;
    this.written = what.written;
    this.notRead = what.notRead;
    this.earlierVersionRemoved = what.earlierVersionRemoved;
    this.fileHint = error.hint;
  }
}
