/**
 * Text inputs (corpus files, query and QA files, configs) are read as UTF-8. A byte sequence that is no UTF-8 character (text saved as
 * Latin-1 or Windows-1252, a binary file with a text name) would otherwise become U+FFFD in
 * the index or the prompts without a word; instead the reader stops with the file and line of the first one.
 *
 * `Utf8Check` validates a stream chunk by chunk (`buffer.isUtf8`), carrying the bytes of a
 * character cut at a chunk's end into the next; `firstInvalidLine` finds the line afterwards
 * (a second pass, paid only when a file is refused): a line break (0x0A) is never part of a
 * multi-byte character, so each line can be checked on its own.
 */
import { isUtf8 } from 'node:buffer';
import { InputFileError } from '../errors.js';

/** How many bytes of `data` end on a character boundary (the rest may be a character cut short). */
function wholeCharacters(data: Buffer): number {
  let i = data.length - 1;
  while (i >= 0 && data.length - i <= 3 && (data[i]! & 0xc0) === 0x80) i -= 1;
  if (i < 0) return data.length;
  const lead = data[i]!;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + length > data.length ? i : data.length;
}

export class Utf8Check {
  #carry: Buffer = Buffer.alloc(0);
  #valid = true;

  /** Checks the next chunk; false once any byte so far is not UTF-8. */
  push(chunk: Buffer): boolean {
    if (!this.#valid) return false;
    const data = this.#carry.length === 0 ? chunk : Buffer.concat([this.#carry, chunk]);
    const whole = wholeCharacters(data);
    this.#valid = isUtf8(data.subarray(0, whole));
    this.#carry = Buffer.from(data.subarray(whole));
    return this.#valid;
  }

  /** At the end of the stream: false when any byte was not UTF-8, or the last character is cut short. */
  end(): boolean {
    if (this.#carry.length > 0) this.#valid = false;
    return this.#valid;
  }
}

/** The 1-based number of the first line of `chunks` that is not UTF-8, or undefined. */
export async function firstInvalidLine(chunks: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<number | undefined> {
  let line = 1;
  let pending: Buffer[] = [];
  for await (const chunk of chunks) {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
      pending.push(chunk.subarray(from, nl));
      if (!isUtf8(Buffer.concat(pending))) return line;
      pending = [];
      line += 1;
      from = nl + 1;
    }
    pending.push(chunk.subarray(from));
  }
  return isUtf8(Buffer.concat(pending)) ? undefined : line;
}

/** The 1-based number of the first line of a whole file's bytes that is not UTF-8, or undefined. */
export function firstInvalidLineOf(data: Buffer): number | undefined {
  if (isUtf8(data)) return undefined;
  let line = 1;
  let from = 0;
  for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, from)) {
    if (!isUtf8(data.subarray(from, nl))) return line;
    line += 1;
    from = nl + 1;
  }
  return line;
}

/** The error for a file that is not UTF-8 at `line`; `kind` names the files (`Corpus files`, `Input files`). */
export function notUtf8Error(file: string, line: number | undefined, kind = 'Corpus files'): InputFileError {
  return new InputFileError(
    file,
    line,
    undefined,
    'not UTF-8 text: a byte sequence that is no UTF-8 character (Latin-1 or Windows-1252 text, or a binary file?)',
    `${kind} are read as UTF-8: convert the file first, e.g. \`iconv -f latin1 -t utf-8 FILE > FILE.utf8\` (with the encoding it was written in).`,
  );
}
