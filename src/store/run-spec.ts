/**
 * What identifies a run and what the store says of it: its spec (model x dataset x prompt setting
 * x seed, plus any other parameter that changes its results, and labels that do not), the id
 * derived from exactly the parts that change results, its stages' states, and the calls made for
 * it per role.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './call-key.js';

export interface RunSpec {
  /** The model's cache identity (content, not location). */
  model: string;
  /** Checksum of the question set. */
  dataset: string;
  setting: string;
  seed: number;
  /** Any other parameter that changes results (max tokens, number of MCQs, judge identity...). */
  params?: Record<string, unknown>;
  /** Shown in listings; not part of the id. */
  label?: string;
  /** The evaluation method whose run it is; not part of the id (runs written before it was recorded lack it). */
  method?: string;
  /** The method's own command that made the run (`ask`, `conner generate`, ...) when the runner did not: a run of some of its stages, no evaluation; not part of the id. */
  step?: string;
  /**
   * Other labels the same run was opened with (two labels for one model file: one run, since its
   * results are the same); not part of the id. Listings show them all.
   */
  labels?: string[];
  /** The study's `methods:` entry it ran for, when its name is not the method's (the same method on other inputs); not part of the id. */
  entry?: string;
  /** What the run's result files are named by besides label and setting (e.g. `quick`, `mcqs-2`, `limit-6`), for listings; not part of the id. */
  variant?: string[];
}

/** `stopped`: started, not finished, and no live process works on it (interrupted or failed: running the same command resumes it). */
export type StageStatus = 'pending' | 'running' | 'stopped' | 'done';

export interface RunInfo {
  id: string;
  spec: RunSpec;
  createdAt: string;
  updatedAt: string;
  stages: Array<{ stage: string; status: StageStatus; records: number }>;
}

export function runId(spec: RunSpec): string {
  const { label: _label, method: _method, step: _step, labels: _labels, entry: _entry, variant: _variant, ...identity } = spec;
  return createHash('sha256').update(canonicalJson(identity)).digest('hex').slice(0, 16);
}

/** Calls made for a run by one role. */
export interface RunCalls {
  calls: number;
  cacheHits: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
}
