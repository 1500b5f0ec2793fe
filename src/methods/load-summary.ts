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

/** What the method whose older schema this is says about a file of it, if any method claims it. */
function legacySummary(schema: string): { message: string; hint: string } | undefined {
  for (const m of listMethods()) {
    const said = m.legacySummary?.(schema);
    if (said) return said;
  }
  return undefined;
}

export const SUMMARY_HINT = 'Give summary JSON files written by `llmkb metrics --format json` / `llmkb eval` (or records files).';

export function loadSummary(json: unknown, file: string, hint = SUMMARY_HINT): MethodSummary {
  const version = summaryVersion(json);
  if (version === undefined) {
    const schema = (json as { schema?: unknown } | null)?.schema;
    const legacy = typeof schema === 'string' ? legacySummary(schema) : undefined;
    if (legacy) throw new InputFileError(file, undefined, 'schema', legacy.message, legacy.hint);
    throw new InputFileError(file, undefined, 'schema', `not an llmkb summary (schema ${JSON.stringify(schema ?? null)}; expected "llmkb-summary-v2" or "llmkb-summary-v1")`, hint);
  }
  const v2 = version === 1 ? migrated(json as Record<string, unknown>) : json;
  return checkSummary(v2, file, hint);
}
