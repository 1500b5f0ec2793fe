/**
 * The call journal: the calls a process answered since they last moved into the store, appended
 * to a file beside it. Keys are random, so a call written straight into the table's key index
 * would rewrite a random index page with every commit; appended here, calls move into the store
 * many at a time (see CallCache).
 *
 * File name: `<store>.calls-<host>~<pid>~<random>.journal`, so a dead process's journal is found
 * and moved by the next process that opens the store.
 *
 * Format, all integers little-endian u32:
 * - a frame (one write: the calls answered in one tick) is `0x80000000 | length` (the top bit
 *   marks a frame), then `length` bytes of raw DEFLATE of its entries. Calls of one tick share
 *   most of their prompts (the method's instructions, the question, the shots), which one
 *   DEFLATE stream compresses far better than each entry on its own.
 * - an entry is `length` (of the rest of the entry), the 32-byte key, `header length`, the header
 *   (a JSON array: model, kind, response JSON text, prompt tokens, completion tokens, latency in
 *   ms, created at, and for a call a run paid for: the run, the role, the process and the
 *   requests, see paid-calls.ts), then the request's canonical JSON as UTF-8.
 * - an entry outside a frame (journals of llmkb versions before frames) has the same layout with
 *   its request raw-DEFLATEd; such journals are still read when found beside a store.
 * A frame or entry cut short (a kill during its write) ends the journal: its callers never saw
 * their calls as done.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, ftruncateSync, openSync, readSync, rmSync, writevSync } from 'node:fs';
import { hostLabel } from '../io/process-alive.js';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { CallRow } from './calls-table.js';
import { REQUEST_DEFLATE, SMALL_DEFLATE, SMALL_INFLATE } from './compression.js';

const FRAME_FLAG = 0x80000000;

/** A call to append: a row of `calls` with its request as canonical JSON text. */
export type JournalEntry = Omit<CallRow, 'request'> & { request: string };

/** The part of a journaled call a lookup needs. */
export type JournaledCall = Pick<CallRow, 'response' | 'promptTokens' | 'completionTokens' | 'latencyMs'>;

const JOURNAL_NAME = /^(.*)\.calls-([A-Za-z0-9_.-]*)~(\d+)~[0-9a-f]+\.journal$/;

/** Whose journal a file of the store's folder is (undefined: not a journal of `storeName`). */
export function journalOwner(fileName: string, storeName: string): { pid: number; thisHost: boolean } | undefined {
  const m = JOURNAL_NAME.exec(fileName);
  if (!m || m[1] !== storeName) return undefined;
  return { pid: Number(m[3]), thisHost: m[2] === hostLabel() };
}

/**
 * The buffer a frame's entries are written into before they are deflated (deflateRawSync copies
 * what it reads): one buffer for every write, grown to the largest batch, instead of a few
 * short-lived Buffers per entry.
 */
let entriesScratch = Buffer.allocUnsafe(1 << 16);

function encodeEntries(entries: readonly JournalEntry[]): Buffer {
  const headers = entries.map((e) =>
    JSON.stringify(
      e.payer
        ? [
            e.model,
            e.kind,
            e.response,
            e.promptTokens,
            e.completionTokens,
            e.latencyMs,
            e.createdAt,
            e.payer.run,
            e.payer.role,
            e.payer.process,
            e.payer.requests,
          ]
        : [e.model, e.kind, e.response, e.promptTokens, e.completionTokens, e.latencyMs, e.createdAt],
    ),
  );
  let size = 0;
  for (let i = 0; i < entries.length; i++) size += 40 + Buffer.byteLength(headers[i]!, 'utf8') + Buffer.byteLength(entries[i]!.request, 'utf8');
  if (entriesScratch.length < size) entriesScratch = Buffer.allocUnsafe(Math.max(size, 2 * entriesScratch.length));
  const out = entriesScratch;
  let at = 0;
  entries.forEach((e, i) => {
    const start = at;
    e.key.copy(out, at + 4);
    const headerLength = out.write(headers[i]!, at + 40, 'utf8');
    out.writeUInt32LE(headerLength, at + 36);
    at += 40 + headerLength;
    at += out.write(e.request, at, 'utf8');
    out.writeUInt32LE(at - start - 4, start);
  });
  return out.subarray(0, at);
}

const EMPTY = Buffer.alloc(0);

/** What a decoded entry's request becomes, given its bytes in the entry. */
type RequestOf = (stored: Buffer) => Buffer;
/** A lookup does not need the request. */
const skipRequest: RequestOf = () => EMPTY;
/** A framed entry's request (text) as the store keeps it. */
const deflateRequest: RequestOf = (text) => deflateRawSync(text, REQUEST_DEFLATE);
/** An unframed entry's request, already deflated. */
const copyRequest: RequestOf = (deflated) => Buffer.from(deflated);

/** The complete entries at the start of `bytes`, up to the first one cut short or unreadable. */
function decodeEntries(bytes: Buffer, requestOf: RequestOf): CallRow[] {
  const rows: CallRow[] = [];
  let at = 0;
  while (at + 4 <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    if (length < 36 || length & FRAME_FLAG || at + 4 + length > bytes.length) break;
    const headerLength = bytes.readUInt32LE(at + 36);
    if (40 + headerLength > 4 + length) break;
    let header: [string, string, string, number, number, number, string, string?, string?, string?, number?];
    try {
      header = JSON.parse(bytes.subarray(at + 40, at + 40 + headerLength).toString('utf8')) as typeof header;
    } catch {
      break;
    }
    const [model, kind, response, promptTokens, completionTokens, latencyMs, createdAt, run, role, process, requests] = header;
    const key = Buffer.from(bytes.subarray(at + 4, at + 36));
    const request = requestOf(bytes.subarray(at + 40 + headerLength, at + 4 + length));
    const payer =
      typeof run === 'string' && typeof role === 'string' && typeof process === 'string' && typeof requests === 'number'
        ? { run, role, process, requests }
        : undefined;
    rows.push({ key, model, kind, request, response, promptTokens, completionTokens, latencyMs, createdAt, ...(payer ? { payer } : {}) });
    at += 4 + length;
  }
  return rows;
}

/**
 * The frame (or unframed entry) at `at` of a journal file, its length word included, read into
 * `buffer` or, when that is too small, a larger one (returned); undefined at the end of the file
 * or where it is cut short.
 */
function readRecord(fd: number, at: number, buffer: Buffer): { bytes: Buffer; framed: boolean; buffer: Buffer } | undefined {
  if (readSync(fd, buffer, 0, 4, at) < 4) return undefined;
  const word = buffer.readUInt32LE(0);
  const framed = (word & FRAME_FLAG) !== 0;
  const length = framed ? word & ~FRAME_FLAG : word;
  if (!framed && length < 36) return undefined;
  if (buffer.length < 4 + length) buffer = Buffer.allocUnsafe(Math.max(4 + length, 2 * buffer.length));
  if (readSync(fd, buffer, 0, 4 + length, at) < 4 + length) return undefined;
  return { bytes: buffer.subarray(0, 4 + length), framed, buffer };
}

/** The entries of a frame read by readRecord, inflated; undefined if they do not inflate. */
function frameEntries(frame: Buffer): Buffer | undefined {
  try {
    return inflateRawSync(frame.subarray(4), SMALL_INFLATE);
  } catch {
    return undefined;
  }
}

/**
 * The rows of a journal file from its start, with each request deflated as the store keeps it,
 * read and decoded a frame (or an unframed entry) at a time: a move never holds the whole journal
 * or all its rows in memory. Frames are read into one buffer, reused for every frame (a frame's
 * rows copy what they keep of it).
 */
function* fileRows(fd: number): Generator<CallRow> {
  let buffer: Buffer = Buffer.allocUnsafe(1 << 16);
  for (let at = 0; ; ) {
    const record = readRecord(fd, at, buffer);
    if (!record) return;
    buffer = record.buffer;
    if (record.framed) {
      const entries = frameEntries(record.bytes);
      if (!entries) return;
      yield* decodeEntries(entries, deflateRequest);
    } else {
      const rows = decodeEntries(record.bytes, copyRequest);
      if (rows.length === 0) return;
      yield* rows;
    }
    at += record.bytes.length;
  }
}

/** The rows of a journal file another process left (see fileRows); the file is closed when they are read. */
export function* journalFileRows(file: string): Generator<CallRow> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return;
  }
  try {
    yield* fileRows(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * This process's journal of one store file. In memory it keeps only each call's key and where its
 * frame starts (the journal holds up to a move's worth of calls, and memory must not grow with a
 * run): a lookup reads its frame back, and a move reads the file.
 */
export class CallJournal {
  readonly file: string;
  readonly #fd: number;
  /** Key (hex) -> offset of the frame that holds it. */
  readonly #recent = new Map<string, number>();
  /** Bytes in the file: where the next frame starts. */
  #size = 0;

  constructor(store: string) {
    this.file = `${store}.calls-${hostLabel()}~${process.pid}~${randomBytes(4).toString('hex')}.journal`;
    this.#fd = openSync(this.file, 'a+');
  }

  /** Calls in the journal. */
  get entries(): number {
    return this.#recent.size;
  }

  /** Appends the calls as one frame, in one write (a kill tears at most this frame, which no caller has seen); returns its bytes. */
  append(entries: readonly JournalEntry[]): number {
    const body = deflateRawSync(encodeEntries(entries), SMALL_DEFLATE);
    const head = Buffer.allocUnsafe(4);
    head.writeUInt32LE((FRAME_FLAG | body.length) >>> 0, 0);
    writevSync(this.#fd, [head, body]);
    const at = this.#size;
    const length = head.length + body.length;
    this.#size += length;
    for (const e of entries) this.#recent.set(e.key.toString('hex'), at);
    return length;
  }

  /** A call in the journal, read back from its frame. */
  find(key: string): JournaledCall | undefined {
    const at = this.#recent.get(key);
    if (at === undefined) return undefined;
    const record = readRecord(this.#fd, at, Buffer.allocUnsafe(4));
    const entries = record && frameEntries(record.bytes);
    const row = entries && decodeEntries(entries, skipRequest).find((r) => r.key.toString('hex') === key);
    return row && { response: row.response, promptTokens: row.promptTokens, completionTokens: row.completionTokens, latencyMs: row.latencyMs };
  }

  /** Every call in the journal, in the order they were answered (see fileRows). */
  rows(): Generator<CallRow> {
    return fileRows(this.#fd);
  }

  /** Empties the journal (its calls have moved into the store). */
  clear(): void {
    ftruncateSync(this.#fd, 0);
    this.#size = 0;
    this.#recent.clear();
  }

  /** Closes the file, and removes it when it holds no call. */
  close(): void {
    closeSync(this.#fd);
    if (this.#recent.size === 0) rmSync(this.file, { force: true });
  }
}
