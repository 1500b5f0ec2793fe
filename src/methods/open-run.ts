/**
 * The one way a method's run is opened in the store: the runner's runs and those a method's own
 * commands make (CONNER's `generate` and `sample`, the reliability method's `ask`, say). Each
 * records the method it belongs to, so listings, `metrics --run` and the viewer find its method
 * by that.
 */
import type { RunSpec } from '../store/run-spec.js';
import type { Run, RunStore } from '../store/run-store.js';

/**
 * Opens the method's run with this spec, or resumes it (the same spec, the same run); `step`: the
 * method's own command that opens it (a run of some of its stages, which the viewer lists apart
 * from evaluations), absent for the runner's.
 */
export function openMethodRun(runs: RunStore, method: { readonly id: string }, spec: Omit<RunSpec, 'method' | 'step'>, step?: string): Run {
  return runs.open({ ...spec, method: method.id, ...(step === undefined ? {} : { step }) });
}
