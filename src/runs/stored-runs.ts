/**
 * Runs of the store as the commands that list them see them: their method (recorded with the
 * run, or claimed by a method for runs written before it was recorded), label and state.
 */
import type { EvaluationMethod } from '../methods/method.js';
import { findMethod, listMethods } from '../methods/registry.js';
import type { RunSpec } from '../store/run-store.js';

/** The method of a stored run: the one it records, else the registered method that claims it (by its spec and the names of its stages). */
export function methodOfStoredRun(spec: Pick<RunSpec, 'method' | 'setting' | 'params'>, stages: readonly string[]): EvaluationMethod | undefined {
  if (spec.method !== undefined) return findMethod(spec.method);
  return listMethods().find((m) => m.claimsStoredRun?.({ setting: spec.setting, ...(spec.params ? { params: spec.params } : {}) }, stages));
}

/** The method id a stored run is listed under (`unknown` when no registered method claims it). */
export function methodIdOfStoredRun(spec: Pick<RunSpec, 'method' | 'setting' | 'params'>, stages: readonly string[]): string {
  return spec.method ?? methodOfStoredRun(spec, stages)?.id ?? 'unknown';
}
