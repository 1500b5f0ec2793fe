/**
 * Reading documents from files, streamed: a CSV/TSV file or a JSONL file yields one document
 * per row/line without being loaded whole; a JSON file (an array), a text, Markdown or PDF file
 * is read whole. The files and their formats come from `corpus-files.ts`.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { isUtf8 } from 'node:buffer';
import { fileAccessError, InputFileError } from '../errors.js';
import { firstInvalidLine, notUtf8Error, Utf8Check } from '../io/utf8-check.js';
import type { CorpusFile } from './corpus-files.js';

export interface ReadOptions {
  /** CSV/TSV column with the document text (default "article"). */
  textColumn?: string;
  /** CSV/TSV column with the document id (default "filename"; the row number when the default column is absent). */
  idColumn?: string;
  /** JSON/JSONL field with the document text (default "text"). */
  textField?: string;
  /** JSON/JSONL field with the document id (default "id"; the line number when the default field is absent). */
  idField?: string;
}

export const DEFAULT_TEXT_COLUMN = 'article';
export const DEFAULT_ID_COLUMN = 'filename';
export const DEFAULT_TEXT_FIELD = 'text';
export const DEFAULT_ID_FIELD = 'id';

export interface SourceDocument {
  docId: string;
  text: string;
  /** Offsets of pages 1, 2, ... in `text` (PDFs); [0] otherwise. */
  pageStarts: number[];
  /** The other columns/fields of the row, or the PDF's info. */
  metadata: Record<string, unknown>;
  /** Where the document is, for messages: `file:line`. */
  location: string;
}

/** Raised inside a reader when its bytes stop being UTF-8; the reader then finds the line. */
const NOT_UTF8 = new Error('not UTF-8');

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return undefined;
}

/** Streams the rows of a CSV/TSV file with a header row. */
async function* readCsv(file: CorpusFile, options: ReadOptions, onBytes?: (n: number) => void): AsyncGenerator<SourceDocument> {
  const { parse } = await import('csv-parse');
  const textColumn = options.textColumn ?? DEFAULT_TEXT_COLUMN;
  const idColumn = options.idColumn ?? DEFAULT_ID_COLUMN;
  let header: string[] | undefined;
  const parser = parse({
    bom: true,
    delimiter: file.format === 'tsv' ? '\t' : ',',
    columns: (names: string[]) => {
      header = names.map((n) => String(n));
      return header;
    },
    info: true,
    skip_empty_lines: true,
  });
  const input = createReadStream(file.path);
  input.on('error', (error) => parser.destroy(fileAccessError(file.path, error, 'read') as Error));
  if (onBytes) input.on('data', (chunk) => onBytes(chunk.length));
  const utf8 = new Utf8Check();
  input.on('data', (chunk) => {
    if (!utf8.push(chunk as Buffer)) parser.destroy(NOT_UTF8);
  });
  input.pipe(parser);
  const checkHeader = (): void => {
    if (header === undefined) return;
    if (!header.includes(textColumn)) {
      throw new InputFileError(
        file.path,
        1,
        textColumn,
        `no text column "${textColumn}"; the columns are: ${header.map((h) => JSON.stringify(h)).join(', ')}`,
        'Name the column with the document text with --text-column.',
      );
    }
    if (options.idColumn !== undefined && !header.includes(idColumn)) {
      throw new InputFileError(
        file.path,
        1,
        idColumn,
        `no id column "${idColumn}"; the columns are: ${header.map((h) => JSON.stringify(h)).join(', ')}`,
        'Name the column with the document id with --id-column, or leave it out to number the rows.',
      );
    }
  };
  let checked = false;
  try {
    for await (const row of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      if (!checked) {
        checkHeader();
        checked = true;
      }
      const { record, info } = row;
      const text = record[textColumn] ?? '';
      const id = header!.includes(idColumn) ? record[idColumn] : undefined;
      const metadata: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(record)) if (k !== textColumn && k !== idColumn) metadata[k] = v;
      yield {
        docId: id !== undefined && id.length > 0 ? id : `${file.name}#${info.lines}`,
        text,
        pageStarts: [0],
        metadata,
        location: `${file.path}:${info.lines}`,
      };
    }
  } catch (error) {
    input.destroy();
    if (error === NOT_UTF8) throw notUtf8Error(file.path, await firstInvalidLine(createReadStream(file.path)));
    if (error instanceof InputFileError) throw error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('CSV_')) {
      const e = error as { lines?: number; column?: number | string | null; message: string };
      const column = typeof e.column === 'number' ? `, column ${e.column + 1}` : typeof e.column === 'string' ? `, column "${e.column}"` : '';
      throw new InputFileError(
        file.path,
        e.lines,
        undefined,
        `malformed ${file.format.toUpperCase()}${column}: ${e.message}`,
        'Check the quoting at that line (fields with commas, quotes or line breaks must be in double quotes, with inner quotes doubled).',
      );
    }
    throw fileAccessError(file.path, error, 'read');
  }
  if (!utf8.end()) throw notUtf8Error(file.path, await firstInvalidLine(createReadStream(file.path)));
  if (!checked) checkHeader();
}

function fromRecord(file: CorpusFile, value: unknown, line: number, options: ReadOptions): SourceDocument {
  const textField = options.textField ?? DEFAULT_TEXT_FIELD;
  const idField = options.idField ?? DEFAULT_ID_FIELD;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new InputFileError(
      file.path,
      line,
      undefined,
      `expected a JSON object, not ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}`,
      `Each document is an object with its text in a field: {"${options.idField ?? DEFAULT_ID_FIELD}": "...", "${options.textField ?? DEFAULT_TEXT_FIELD}": "..."}.`,
    );
  const record = value as Record<string, unknown>;
  if (!(textField in record)) {
    throw new InputFileError(
      file.path,
      line,
      textField,
      `no text field "${textField}"; the fields are: ${Object.keys(record)
        .map((k) => JSON.stringify(k))
        .join(', ')}`,
      'Name the field with the document text with --text-field.',
    );
  }
  const text = record[textField];
  if (typeof text !== 'string')
    throw new InputFileError(
      file.path,
      line,
      textField,
      `the text must be a string, not ${text === null ? 'null' : Array.isArray(text) ? 'an array' : typeof text}`,
      `Put the document text in "${textField}" as one string, or name the field that holds it with --text-field.`,
    );
  let docId: string | undefined;
  if (idField in record) {
    docId = asText(record[idField]);
    if (docId === undefined)
      throw new InputFileError(
        file.path,
        line,
        idField,
        'the document id must be a string or a number',
        `Give "${idField}" a string or number value, or name another id field with --id-field.`,
      );
  } else if (options.idField !== undefined) {
    throw new InputFileError(
      file.path,
      line,
      idField,
      `no id field "${idField}"; the fields are: ${Object.keys(record)
        .map((k) => JSON.stringify(k))
        .join(', ')}`,
      'Name the field with the document id with --id-field, or leave it out to number the documents.',
    );
  }
  const metadata: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (k !== textField && k !== idField) metadata[k] = v;
  return { docId: docId ?? `${file.name}#${line}`, text, pageStarts: [0], metadata, location: `${file.path}:${line}` };
}

async function* readJsonlFile(file: CorpusFile, options: ReadOptions, onBytes?: (n: number) => void): AsyncGenerator<SourceDocument> {
  const input = createReadStream(file.path);
  let failure: unknown;
  input.on('error', (error) => {
    failure = error;
  });
  if (onBytes) input.on('data', (chunk) => onBytes(chunk.length));
  const utf8 = new Utf8Check();
  input.on('data', (chunk) => {
    if (!utf8.push(chunk as Buffer)) failure ??= NOT_UTF8;
  });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const raw of lines) {
      if (failure === NOT_UTF8) break;
      n += 1;
      const line = n === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      if (line.trim().length === 0) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new InputFileError(
          file.path,
          n,
          undefined,
          `not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
          'A JSONL file has one JSON object per line.',
        );
      }
      yield fromRecord(file, value, n, options);
    }
  } catch (error) {
    throw fileAccessError(file.path, error, 'read');
  } finally {
    lines.close();
    input.destroy();
  }
  if (failure === NOT_UTF8 || (failure === undefined && !utf8.end())) throw notUtf8Error(file.path, await firstInvalidLine(createReadStream(file.path)));
  if (failure !== undefined) throw fileAccessError(file.path, failure, 'read');
}

function readWhole(file: CorpusFile): Buffer {
  try {
    return readFileSync(file.path);
  } catch (error) {
    throw fileAccessError(file.path, error, 'read');
  }
}

/** The whole text of a UTF-8 file (BOM dropped). */
async function readWholeText(file: CorpusFile): Promise<{ text: string; bytes: number }> {
  const buf = readWhole(file);
  if (!isUtf8(buf)) throw notUtf8Error(file.path, await firstInvalidLine([buf]));
  return { text: buf.toString('utf8').replace(/^\uFEFF/, ''), bytes: buf.length };
}

async function* readJsonFile(file: CorpusFile, options: ReadOptions): AsyncGenerator<SourceDocument> {
  let value: unknown;
  try {
    value = JSON.parse((await readWholeText(file)).text);
  } catch (error) {
    if (error instanceof SyntaxError)
      throw new InputFileError(
        file.path,
        undefined,
        undefined,
        `not valid JSON: ${error.message}`,
        'A .json corpus file holds an array of objects; use JSONL for one object per line.',
      );
    throw error;
  }
  if (!Array.isArray(value))
    throw new InputFileError(
      file.path,
      undefined,
      undefined,
      `expected a JSON array of objects, not ${value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`}`,
      'A .json corpus file holds an array of documents ([{"id": "...", "text": "..."}, ...]); for one object per line, name the file .jsonl.',
    );
  for (let i = 0; i < value.length; i += 1) {
    const doc = fromRecord(file, value[i], i + 1, options);
    yield { ...doc, location: `${file.path} [${i}]` };
  }
}

/**
 * Streams the documents of one file. PDFs are read by `readPdf` (which the corpus loads only
 * when a PDF is met, so that pdf.js is not loaded for text corpora).
 */
export async function* readDocuments(file: CorpusFile, options: ReadOptions = {}, onBytes?: (n: number) => void): AsyncGenerator<SourceDocument> {
  switch (file.format) {
    case 'csv':
    case 'tsv':
      yield* readCsv(file, options, onBytes);
      return;
    case 'jsonl':
      yield* readJsonlFile(file, options, onBytes);
      return;
    case 'json':
      yield* readJsonFile(file, options);
      return;
    case 'text': {
      const { text, bytes } = await readWholeText(file);
      onBytes?.(bytes);
      yield { docId: file.name, text: text.replace(/\r\n?/g, '\n'), pageStarts: [0], metadata: {}, location: file.path };
      return;
    }
    case 'pdf': {
      const { extractPdfText } = await import('./pdf-text.js');
      const buf = readWhole(file);
      onBytes?.(buf.length);
      const pdf = await extractPdfText(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
      yield {
        docId: file.name,
        text: pdf.text,
        pageStarts: pdf.pageStarts,
        metadata: { pages: pdf.pages, ...pdf.info, ...(pdf.droppedLines > 0 ? { droppedHeaderFooterLines: pdf.droppedLines } : {}) },
        location: file.path,
      };
      return;
    }
  }
}
