/**
 * Where a run's results are: `<stem>.<setting><suffix>` in a results folder, with
 * `.summary.json` (the summary, schema v2), `.records.jsonl` (one output record per item) and
 * `.run.json` (when and how it ran). `<stem>` is the run label made safe for a file name;
 * `<suffix>` says what makes the run differ from the method's default run of that label:
 * `.quick` (a quick look), the method's own words (e.g. `.mcqs-2`, the user's question file) and
 * `.limit-N` (a seeded sample), so no such run overwrites a full run's files or another's.
 * An evaluation's report over its settings is `<stem><suffix>.report.html` beside them.
 * This module is the only code that knows these names.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileAccessError, LlmkbError } from '../errors.js';
import { writeFileAtomic } from './files.js';
import { resultFileStem } from './result-file-stem.js';
import { temporaryFileFor } from './temporary-file.js';

export { resultFileStem };

const SUMMARY = '.summary.json';
const RECORDS = '.records.jsonl';
const EXECUTION = '.run.json';

/** The three files of one run. */
export interface ResultFiles {
  /** The path without its ending: `<dir>/<stem>.<setting><suffix>`. */
  base: string;
  summary: string;
  records: string;
  execution: string;
}

export function resultFiles(base: string): ResultFiles {
  return { base, summary: `${base}${SUMMARY}`, records: `${base}${RECORDS}`, execution: `${base}${EXECUTION}` };
}

/** What makes a run's results differ from its method's default run of the same label. */
export interface RunVariant {
  quick?: boolean;
  /** The method's words (`EvaluationMethod.resultTags`). */
  tags?: readonly string[];
  /** A seeded sample of this many items. */
  limit?: number;
}

/** The suffix of a run's files: `.quick`, then each tag, then `.limit-N` (empty for the default run). */
export function runSuffix(variant: RunVariant): string {
  const words = [
    ...(variant.quick ? ['quick'] : []),
    ...(variant.tags ?? []).map((t) => t.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+|-+$/g, '')).filter(Boolean),
    ...(variant.limit === undefined ? [] : [`limit-${variant.limit}`]),
  ];
  return words.map((w) => `.${w}`).join('');
}

/** The files of the run of `label` in `setting` inside `dir`. */
export function runResultFiles(dir: string, label: string, setting: string, suffix = ''): ResultFiles {
  return resultFiles(join(dir, `${resultFileStem(label)}.${resultFileStem(setting)}${suffix}`));
}

/** One evaluation's report over its settings: `<stem><suffix>.report.html`, so another model's or variant's evaluation into the same folder never overwrites it. */
export function runReportFile(dir: string, label: string, suffix = ''): string {
  return join(dir, `${resultFileStem(label)}${suffix}.report.html`);
}

/** The base of a result file's path (its three files share it), or undefined when it is none of them. */
export function resultBase(file: string): string | undefined {
  for (const ending of [SUMMARY, RECORDS, EXECUTION]) if (file.endsWith(ending)) return file.slice(0, -ending.length);
  return undefined;
}

/** A records file's path without its ending (`.records.jsonl`, or `.jsonl` for one named otherwise): the base its summary shares. */
export function recordsFileBase(file: string): string {
  if (file.endsWith(RECORDS)) return file.slice(0, -RECORDS.length);
  return file.endsWith('.jsonl') ? file.slice(0, -'.jsonl'.length) : file;
}

/** The summary written beside a records file (or the file itself when it is a summary). */
export function summaryBeside(file: string): string | undefined {
  const base = resultBase(file);
  return base === undefined ? undefined : `${base}${SUMMARY}`;
}

/** The runs whose result files are in `dir` (not below it), by base, in name order. */
export function runsInFolder(dir: string): Array<ResultFiles & { has: { summary: boolean; records: boolean; execution: boolean } }> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    throw fileAccessError(dir, error, 'read', 'folder');
  }
  const present = new Set(names);
  const bases = new Set<string>();
  for (const n of names) {
    const base = n.endsWith(SUMMARY) || n.endsWith(RECORDS) ? resultBase(n) : undefined;
    if (base !== undefined) bases.add(base);
  }
  return [...bases].sort().map((b) => ({
    ...resultFiles(join(dir, b)),
    has: { summary: present.has(`${b}${SUMMARY}`), records: present.has(`${b}${RECORDS}`), execution: present.has(`${b}${EXECUTION}`) },
  }));
}

/** Writes a JSON value atomically, pretty-printed as every llmkb result file is. */
export function writeJsonFile(file: string, value: unknown): void {
  writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A records file written as the records come (one JSON line each, in chunks, never as one string
 * the size of the file) and atomically: into a temporary file renamed by `commit`.
 */
export class JsonlWriter {
  readonly #file: string;
  readonly #tmp: string;
  #fd: number | undefined;
  #chunk = '';

  constructor(file: string) {
    this.#file = file;
    this.#tmp = temporaryFileFor(file);
    try {
      this.#fd = openSync(this.#tmp, 'w');
    } catch (error) {
      throw fileAccessError(file, error, 'write');
    }
  }

  write(record: unknown): void {
    this.#chunk += `${JSON.stringify(record)}\n`;
    if (this.#chunk.length >= 1 << 20) this.#flush();
  }

  /** Closes the file and puts it in place. */
  commit(): void {
    try {
      this.#flush();
      closeSync(this.#fd!);
      this.#fd = undefined;
      renameSync(this.#tmp, this.#file);
    } catch (error) {
      this.abort();
      throw error instanceof LlmkbError ? error : fileAccessError(this.#file, error, 'write');
    }
  }

  /** Leaves no temporary file behind (the old file, if any, stays). */
  abort(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    rmSync(this.#tmp, { force: true });
  }

  #flush(): void {
    if (this.#chunk === '') return;
    writeSync(this.#fd!, this.#chunk);
    this.#chunk = '';
  }
}

/** Writes a whole records file from `records`, streamed (see JsonlWriter). */
export function writeJsonlStream(file: string, records: Iterable<unknown>): void {
  const writer = new JsonlWriter(file);
  try {
    for (const r of records) writer.write(r);
  } catch (error) {
    writer.abort();
    throw error;
  }
  writer.commit();
}

export function hasResults(files: ResultFiles): boolean {
  return existsSync(files.summary);
}

/** A string field of a JSON result file (a summary's `runId`, a `.run.json`'s `modelSpec`); undefined when the file is missing, unreadable or has none. */
export function resultFileString(file: string, field: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const value = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)[field];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
