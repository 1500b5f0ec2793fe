/**
 * A summary file's JSON as a v2 summary: the schema is checked, so that an incomplete file is
 * named with its missing field instead of crashing half-way through a comparison or a report.
 */
import { InputFileError } from '../errors.js';
import { checkSummary, SUMMARY_SCHEMA, type MethodSummary } from './method-summary.js';

export const SUMMARY_HINT = 'Give summary JSON files written by `llmkb metrics --format json` / `llmkb eval` (or records files).';

export function loadSummary(json: unknown, file: string, hint = SUMMARY_HINT): MethodSummary {
  const schema = (json as { schema?: unknown } | null)?.schema;
  if (schema !== SUMMARY_SCHEMA)
    throw new InputFileError(file, undefined, 'schema', `not an llmkb summary (schema ${JSON.stringify(schema ?? null)}; expected "${SUMMARY_SCHEMA}")`, hint);
  return checkSummary(json, file, hint);
}
