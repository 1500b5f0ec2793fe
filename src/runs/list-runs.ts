/**
 * Every run a user can open: the runs of the store (with the stages they have done, and whether a
 * process still works on them) and the runs found as result files in a results folder and its
 * subfolders (a sweep's folder holds one per model). A run both in the store and as files is
 * listed once, from the store, with its files. A result file that cannot be read is listed with
 * what is wrong with it (file and line), never skipped.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { StageStatus } from '../store/run-spec.js';
import type { RunStore } from '../store/run-store.js';
import { resultFiles, runsInFolder, type ResultFiles } from '../io/result-files.js';
import { methodIdOfStoredRun } from './stored-runs.js';

export interface ListedRun {
  /** URL-safe key: the store run id, or `f-` + a hash of the result files' path. */
  key: string;
  kind: 'store' | 'file';
  runId?: string;
  /** How the run is shown; `labels` are every label it was opened with (one model file under two labels is one run). */
  label: string;
  labels: string[];
  setting: string;
  /** The method's id (`unknown` when no registered method claims a stored run). */
  method: string;
  /** Made by the method's runner (`llmkb eval`, `sweep`), or its result files; false: by a command that runs some stages (`llmkb ask`, ...: the run records it as its `step`), or before the runner recorded its method. */
  evaluation: boolean;
  /** The model's cache identity. */
  modelIdentity?: string;
  /** What else made the run's results what they are (stored runs). */
  params?: Record<string, unknown>;
  createdAt?: string;
  updatedAt?: string;
  /** What the run's result files are named by besides label and setting (`quick`, a method's words such as `mcqs-2`, `limit-N`). */
  variant?: string[];
  /** Checksum of the run's items (its question set). */
  dataset?: string;
  stages: Array<{ stage: string; status: StageStatus; records: number }>;
  /** The run's result files, where they exist. */
  files?: ResultFiles & { has: { summary: boolean; records: boolean; execution: boolean } };
  /** Why a result file of the run could not be read (file, line and what is wrong). */
  unreadable?: string;
}

const SKIP = new Set(['node_modules', '.git', 'batches']);

/** Result files of `dir` and its subfolders, a few levels down. */
function filesBelow(dir: string, depth = 3): ReturnType<typeof runsInFolder> {
  const out = runsInFolder(dir);
  if (depth === 0) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !entry.name.startsWith('.') && !SKIP.has(entry.name)) out.push(...filesBelow(join(dir, entry.name), depth - 1));
  }
  return out;
}

/** Summary files as last read, by path, with the size and time they had then: listing a folder again (the viewer's runs list on every load) parses only the files that changed. */
const readSummaries = new Map<string, { size: number; mtimeMs: number; read: { summary?: Record<string, unknown>; problem?: string } }>();

/** A summary file's JSON, or what is wrong with it; read again only when the file changed. */
function readSummary(file: string): { summary?: Record<string, unknown>; problem?: string } {
  let stat: { size: number; mtimeMs: number } | undefined;
  try {
    stat = statSync(file);
  } catch {
    stat = undefined;
  }
  const known = readSummaries.get(file);
  if (stat && known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) return known.read;
  const read = readSummaryFile(file);
  if (stat) readSummaries.set(file, { size: stat.size, mtimeMs: stat.mtimeMs, read });
  return read;
}

function readSummaryFile(file: string): { summary?: Record<string, unknown>; problem?: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { problem: `${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  try {
    const summary = JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
    if (summary === null || typeof summary !== 'object' || Array.isArray(summary)) return { problem: `${file}: not a JSON object` };
    return { summary: summary as Record<string, unknown> };
  } catch (error) {
    const at = /position (\d+)/.exec(String((error as Error).message));
    // A file cut short (no position in the message): it is its last line that ends too soon.
    const line = at
      ? text.slice(0, Number(at[1])).split('\n').length
      : /end of JSON input/.test(String((error as Error).message))
        ? text.replace(/\n+$/, '').split('\n').length
        : undefined;
    return { problem: `${file}${line ? `, line ${line}` : ''}: not valid JSON (${(error as Error).message}); the run is shown without its summary` };
  }
}

/** The method a summary file belongs to: the one it names. */
function methodOfSummary(summary: Record<string, unknown> | undefined): string {
  const method = summary?.method;
  return typeof method === 'object' && method !== null && typeof (method as { id?: unknown }).id === 'string' ? (method as { id: string }).id : 'unknown';
}

/** The runs of a results folder (and its subfolders) as result files. */
export function listResultRuns(resultsDir: string): ListedRun[] {
  const dir = resolve(resultsDir);
  return filesBelow(dir).map((f) => {
    const { summary, problem } = f.has.summary ? readSummary(f.summary) : {};
    const base = f.base.slice(f.base.lastIndexOf('/') + 1);
    const setting = typeof summary?.setting === 'string' ? summary.setting : (/\.([a-z0-9-]+)(\.limit-\d+)?$/.exec(base)?.[1] ?? 'unknown');
    const label = typeof summary?.model === 'string' ? summary.model : base;
    const stat = statSync(f.has.records ? f.records : f.summary);
    return {
      key: `f-${createHash('sha256').update(resolve(f.base)).digest('hex').slice(0, 16)}`,
      kind: 'file' as const,
      ...(typeof summary?.runId === 'string' ? { runId: summary.runId } : {}),
      label,
      labels: [label],
      setting,
      method: methodOfSummary(summary),
      evaluation: true,
      ...(typeof summary?.modelIdentity === 'string' ? { modelIdentity: summary.modelIdentity } : {}),
      updatedAt: stat.mtime.toISOString(),
      stages: f.has.records ? [{ stage: 'records', status: 'done' as const, records: -1 }] : [],
      files: f,
      ...(problem ? { unreadable: problem } : {}),
    };
  });
}

/** Every run: the store's, then result files that are not a store run (by run id). */
export function listRuns(options: { runs?: RunStore; resultsDir?: string }): ListedRun[] {
  const files = options.resultsDir ? listResultRuns(options.resultsDir) : [];
  const filesByRunId = new Map(files.filter((f) => f.runId).map((f) => [f.runId!, f]));
  const out: ListedRun[] = [];
  const storeIds = new Set<string>();
  for (const r of options.runs?.list() ?? []) {
    storeIds.add(r.id);
    const file = filesByRunId.get(r.id);
    const label = r.spec.label ?? r.spec.model;
    out.push({
      key: r.id,
      kind: 'store',
      runId: r.id,
      label,
      labels: [label, ...(r.spec.labels ?? [])],
      setting: r.spec.setting,
      method: methodIdOfStoredRun(r.spec),
      evaluation: r.spec.method !== undefined && r.spec.step === undefined,
      modelIdentity: r.spec.model,
      ...(r.spec.params ? { params: r.spec.params } : {}),
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      ...(r.spec.variant ? { variant: r.spec.variant } : {}),
      dataset: r.spec.dataset,
      stages: r.stages,
      ...(file?.files ? { files: file.files } : {}),
      ...(file?.unreadable ? { unreadable: file.unreadable } : {}),
    });
  }
  for (const f of files) if (!(f.runId && storeIds.has(f.runId))) out.push(f);
  return out;
}

export { resultFiles };
