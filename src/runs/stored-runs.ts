/**
 * Runs of the store as the commands that list them see them: their method (recorded with the
 * run: every run is opened through src/methods/open-run.ts), label and state.
 */
import type { EvaluationMethod } from '../methods/method.js';
import { findMethod } from '../methods/registry.js';
import type { RunSpec } from '../store/run-spec.js';

/** The registered method of a stored run: the one it records. */
export function methodOfStoredRun(spec: Pick<RunSpec, 'method'>): EvaluationMethod | undefined {
  return spec.method === undefined ? undefined : findMethod(spec.method);
}

/** The method id a stored run is listed under (`unknown` for a run that records none). */
export function methodIdOfStoredRun(spec: Pick<RunSpec, 'method'>): string {
  return spec.method ?? 'unknown';
}
