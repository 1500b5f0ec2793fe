/**
 * Runs read back for `compare`, `report`, `metrics`, a sweep's comparison and `merge`: from a
 * summary file (with its execution record and, when the method needs them, its records beside
 * it), from a records file (with the summary beside it, or summarised by the method that owns
 * it), or from the run store (summarised from the run's records by its method).
 */
import { existsSync, closeSync, openSync, readSync } from 'node:fs';
import { InputFileError, LlmkbError } from '../errors.js';
import { readTextFile } from '../io/files.js';
import { readJsonl } from '../io/jsonl.js';
import type { EvaluationMethod } from '../methods/method.js';
import type { MethodPresentation } from '../methods/method-presentation.js';
import type { ExecutionRecord, MethodSummary, RunMeta } from '../methods/method-summary.js';
import { loadSummary } from '../methods/load-summary.js';
import { findMethod, listMethods } from '../methods/registry.js';
import type { RunStore } from '../store/run-store.js';
import { resultBase, resultFiles, summaryBeside } from '../io/result-files.js';
import { methodOfStoredRun } from './stored-runs.js';
import { escapeControls } from '../terminal-text.js';

export interface LoadedRun {
  summary: MethodSummary;
  /** Per-item records (those of the records file, or what the report needs of a stored run's). */
  records?: readonly object[];
  /** The run's execution record (`.run.json` beside a summary), when there is one. */
  execution?: ExecutionRecord;
  /** Where it was read from: a file or `run ID`. */
  source: string;
}

export const SUMMARY_HINT = 'Give summary JSON files written by `llmkb eval`, `llmkb sweep` or `llmkb metrics --format json`, or records files (.jsonl).';

async function presentationOf(method: EvaluationMethod | undefined): Promise<MethodPresentation | undefined> {
  return method?.presentation ? await method.presentation() : undefined;
}

function readJsonFile(file: string, hint: string): unknown {
  const text = readTextFile(file);
  if (text.trim() === '')
    throw new InputFileError(file, undefined, undefined, 'the file is empty', `${hint} An empty file usually means an earlier step did not finish.`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputFileError(file, undefined, undefined, `not valid JSON: ${error instanceof Error ? error.message : String(error)}`, hint);
  }
}

/** A summary file as a v2 summary, checked by its method when the method is registered (else shown from its metricDefs alone). */
export async function readSummaryFile(file: string): Promise<MethodSummary> {
  const summary = loadSummary(readJsonFile(file, SUMMARY_HINT), file, SUMMARY_HINT);
  const problem = (await presentationOf(findMethod(summary.method.id)))?.checkSummary?.(summary)[0];
  if (problem) throw new InputFileError(file, undefined, problem.path || undefined, problem.message, SUMMARY_HINT);
  return summary;
}

/** The execution record beside a summary; an unreadable one is said on stderr (the summary is complete without it). */
function readExecution(file: string, warn: (line: string) => void): ExecutionRecord | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readTextFile(file)) as ExecutionRecord;
  } catch (error) {
    warn(`${file} is not readable JSON (${error instanceof Error ? error.message : String(error)}); the run is shown without its execution record`);
    return undefined;
  }
}

/** The first record of a JSONL file, read from its first MiB only (a records file may be hundreds of MB). */
function firstRecord(file: string): Record<string, unknown> | undefined {
  const head = Buffer.alloc(1 << 20);
  const fd = openSync(file, 'r');
  let length: number;
  try {
    length = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const first = head
    .subarray(0, length)
    .toString('utf8')
    .split('\n', 1)[0]!
    .replace(/^\uFEFF/, '')
    .trim();
  try {
    const record = JSON.parse(first) as unknown;
    return record !== null && typeof record === 'object' && !Array.isArray(record) ? (record as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // not JSON: the records reader names the line
  }
}

export interface LoadOptions {
  resamples: number;
  seed: number;
  /** A records file summarised on its own: the model and setting it is shown with (default: from the file name and records). */
  model?: string;
  setting?: string;
  meta?: RunMeta;
  warn?: (line: string) => void;
}

/** A run from a summary file or a records file. */
export async function loadResultRun(file: string, options: LoadOptions): Promise<LoadedRun> {
  const warn = options.warn ?? ((line: string) => process.stderr.write(`warning: ${escapeControls(line)}\n`));
  const beside = summaryBeside(file);
  if (file.endsWith('.jsonl') && (beside === undefined || !existsSync(beside))) return summarizeRecords(file, options);
  const summaryFile = file.endsWith('.jsonl') ? beside! : file;
  const summary = await readSummaryFile(summaryFile);
  const base = resultBase(summaryFile);
  const files = base === undefined ? undefined : resultFiles(base);
  const execution = files ? readExecution(files.execution, warn) : undefined;
  const presentation = await presentationOf(findMethod(summary.method.id));
  // The records beside a summary give the report its examples and significance marks and compare its paired tests.
  const records = presentation?.recordSchema && files && existsSync(files.records) ? readJsonl(files.records, presentation.recordSchema!, 'record') : undefined;
  return { summary, source: summaryFile, ...(execution ? { execution } : {}), ...(records ? { records } : {}) };
}

/** A records file with no summary beside it, summarised by the registered method it belongs to. */
async function summarizeRecords(file: string, options: LoadOptions): Promise<LoadedRun> {
  const first = firstRecord(file);
  if (first === undefined) {
    // Not one JSON object on its first line: the records reader names the line and what is wrong.
    readJsonl(file, (await import('zod')).z.object({}).passthrough(), 'record');
  }
  for (const method of listMethods()) {
    const read = (await presentationOf(method))?.summarizeRecordsFile?.(file, first ?? {}, options);
    if (read) return { summary: read.summary, records: read.records, source: file };
  }
  throw new InputFileError(file, 1, undefined, 'not the records of any registered method, and no summary beside them', SUMMARY_HINT);
}

/** A run of the store, summarised by its method from its records (stages not finished: from the records so far, said on stderr). */
export async function loadStoredRun(
  runs: RunStore,
  id: string,
  options: { resamples: number; seed: number; storePath: string; warn?: (line: string) => void },
): Promise<LoadedRun> {
  const run = runs.get(id);
  if (!run) throw new LlmkbError(`no run ${id} in ${options.storePath}`, { hint: 'List the runs with `llmkb runs`.' });
  const method = methodOfStoredRun(run.spec);
  if (!method)
    throw new LlmkbError(`run ${id} was made by a method that is not registered (${run.spec.method ?? 'unknown'})`, {
      hint: 'Register the method (the "methods" list of llmkb.config.json) to read its runs.',
    });
  const unfinished = method.stages.filter((s) => run.stageStatus(s.id) !== 'done').map((s) => s.id);
  if (unfinished.length === method.stages.length && run.recordIds(method.stages[0]!.id).length === 0)
    throw new LlmkbError(`run ${id} has no records yet`, { hint: "Run it first (llmkb eval, or the method's own commands)." });
  if (unfinished.length)
    (options.warn ?? ((l: string) => process.stderr.write(`note: ${escapeControls(l)}\n`)))(
      `run ${id}: stage(s) ${unfinished.join(', ')} not finished; the metrics use the records so far`,
    );
  const { summary, reportRecords } = await method.summarize({
    run,
    records: await method.outputRecords(run),
    model: run.spec.label ?? run.spec.model,
    modelIdentity: run.spec.model,
    setting: run.spec.setting,
    seed: options.seed,
    resamples: options.resamples,
    runId: run.id,
    datasetChecksums: { questions: run.spec.dataset },
  });
  return { summary, ...(reportRecords ? { records: reportRecords } : {}), source: `run ${id}` };
}
