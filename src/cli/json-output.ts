/**
 * The JSON documents commands print with `--json` (docs/json-output.md lists each shape): one
 * document on stdout with a `schema` field naming its shape and version; progress and notes go
 * to stderr, so stdout always parses.
 */
import type { ExecutionRecord, MethodSummary } from '../methods/method-summary.js';
import { runNotices } from '../analysis/run-notices.js';
import type { ListedRun } from '../runs/list-runs.js';
import type { ResultFiles } from '../io/result-files.js';

export const JSON_SCHEMAS = {
  eval: 'llmkb-eval-result-v1',
  runs: 'llmkb-runs-v1',
  cacheStats: 'llmkb-cache-stats-v1',
  complete: 'llmkb-completion-v1',
  sweep: 'llmkb-sweep-result-v1',
} as const;

interface EvalRunResult {
  summary: MethodSummary;
  runId: string;
  execution: ExecutionRecord;
  files?: ResultFiles;
}

/** `llmkb eval --json`: the runs (summary, files, notices), the report, the calls and the failed thresholds. */
export function evalResultJson(r: {
  label: string;
  method: string;
  modelSpec: string;
  report: string;
  calls: { calls: number; requests: number; cacheHits: number };
  results: readonly EvalRunResult[];
  failures: readonly string[];
  junit?: string;
}) {
  return {
    schema: JSON_SCHEMAS.eval,
    label: r.label,
    method: r.method,
    model: r.modelSpec,
    report: r.report,
    runs: r.results.map((x) => ({
      setting: x.summary.setting,
      runId: x.runId,
      ...(x.files ? { files: { summary: x.files.summary, records: x.files.records, execution: x.files.execution } } : {}),
      notices: runNotices(x.summary),
      summary: x.summary,
    })),
    calls: r.calls,
    failedThresholds: [...r.failures],
    ...(r.junit === undefined ? {} : { junit: r.junit }),
  };
}

/** `llmkb runs --json`: every run with what tells two runs of one label apart. */
export function runsJson(store: string, runs: readonly ListedRun[], describe: (run: ListedRun) => Record<string, unknown>) {
  return { schema: JSON_SCHEMAS.runs, store, runs: runs.map((r) => ({ ...r, ...describe(r) })) };
}
