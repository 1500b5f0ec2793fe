/**
 * A summary file's JSON as a v2 summary: a v1 file (a reliability run written before summaries
 * carried their method) is migrated, then the v2 schema is checked, so that an incomplete file is
 * named with its missing field instead of crashing half-way through a comparison or a report.
 */
import { InputFileError } from '../errors.js';
import { checkSummary, summaryVersion, type MethodSummary } from './method-summary.js';
import { listMethods } from './registry.js';

/** A v1 summary as the v2 summary of the method that wrote it. */
function migrated(json: Record<string, unknown>): unknown {
  for (const m of listMethods()) {
    const v2 = m.migrateSummary?.(json);
    if (v2) return v2;
  }
  return json;
}

export const SUMMARY_HINT = 'Give summary JSON files written by `llmkb metrics --format json` / `llmkb eval` (or records files).';

export function loadSummary(json: unknown, file: string, hint = SUMMARY_HINT): MethodSummary {
  const version = summaryVersion(json);
  if (version === undefined && (json as { schema?: unknown } | null)?.schema === 'llmkb-conner-summary-v1') {
    // All generators in one file and no records beside it: not one run, so not migrated; scoring
    // again writes the v2 files from the call cache without a model call.
    throw new InputFileError(file, undefined, 'schema', 'a CONNER summary of the old layout (llmkb-conner-summary-v1: every generator and setting in one file, without their records)', 'Score the same knowledge files again with `llmkb conner score FILES --out DIR` (every model call comes from the cache) and give DIR/*.summary.json.');
  }
  if (version === undefined) {
    const schema = (json as { schema?: unknown } | null)?.schema;
    throw new InputFileError(file, undefined, 'schema', `not an llmkb summary (schema ${JSON.stringify(schema ?? null)}; expected "llmkb-summary-v2" or "llmkb-summary-v1")`, hint);
  }
  const v2 = version === 1 ? migrated(json as Record<string, unknown>) : json;
  return checkSummary(v2, file, hint);
}
