/**
 * One seam for evaluation methods (in the spirit of Inspect AI's task = dataset + solver +
 * scorer). A method says which model roles it needs and of which kind, the stages it runs (each
 * a resumable stage over the run store), and the metrics it reports, each with its definition, so
 * that listings, comparisons and reports can show any method's numbers from `metricDefs` alone.
 *
 * Versioned like the model interface: a method built against another version of this interface
 * is refused at registration rather than misread.
 */
import type { ModelKind } from '../providers/model-kinds.js';

export type { ModelKind };

export const METHOD_INTERFACE_VERSION = 'llmkb-method-v1' as const;

export interface RoleDef {
  /** As named in the config and on the command line: `model`, `judge`, `distractor`, ... */
  id: string;
  kind: ModelKind;
  /** A required role with no model is an error at start-up; an optional one has a fallback. */
  required: boolean;
  description: string;
  /** What is used when an optional role has no model, and how that is recorded. */
  fallback?: string;
}

export interface StageDef {
  id: string;
  description: string;
}

export interface MetricDef {
  /** Key in a summary's `metrics`, e.g. `NCCR`. */
  id: string;
  label: string;
  description: string;
  /** The values the metric can take. */
  range: [number, number];
  better: 'higher' | 'lower';
  /** `percent`: shown x100 with two decimals, as the papers' tables do. */
  format: 'percent' | 'number';
  /** Where the paper defines it, e.g. `Eq. 9`. */
  equation?: string;
  /** Shown in headline tables (the paper's own headline metrics). */
  headline?: boolean;
}

export interface EvaluationMethod {
  readonly interfaceVersion: typeof METHOD_INTERFACE_VERSION;
  /** Stable id, e.g. `reliability`. */
  readonly id: string;
  /** Version of the method's implementation; a change that moves numbers bumps it. */
  readonly version: string;
  readonly title: string;
  /** The publication the method implements. */
  readonly paper: string;
  readonly roles: readonly RoleDef[];
  readonly stages: readonly StageDef[];
  readonly metricDefs: readonly MetricDef[];
}
