/**
 * Summary schema v2 (`llmkb-summary-v2`): one run of any evaluation method, self-describing.
 * Next to the values it carries the method (id and version) and the definitions of its metrics
 * (`metricDefs`: label, range, direction, format, the paper's equation), so that `compare`,
 * `report` and a viewer show any method's numbers from the summary alone.
 */
import { z } from 'zod';
import { InputFileError } from '../errors.js';
import type { Accounting } from '../executor/model-executor.js';
import type { MetricDef } from './metric-def.js';

import { SUMMARY_SCHEMA } from './summary-schema.js';

export { SUMMARY_SCHEMA };

/** A protocol choice of a run: what it did, and whether that is the paper's way. */
export interface ProtocolEntry {
  choice: string;
  status: 'paper' | 'approximation' | 'nondeterministic';
  note?: string;
}

/** How close a run is to its paper's protocol; the choices are the method's (`EvaluationMethod.protocolChoices`). */
export interface MethodProtocol {
  schema: string;
  entries: Record<string, ProtocolEntry>;
  /** Data set files the run read, with their SHA-256. */
  datasets: Record<string, string>;
  seed: number;
  /** Where the model under test ran: `cpu`, `cuda`, `vulkan`, `metal`, or `server`. */
  computeBackend: string;
}

export interface RunMeta {
  /** Parameter count in billions, for the size analysis. */
  paramsB?: number;
  /** Instruction-tuned / RLHF ("fine-tuned" in the paper) or base. */
  fineTuned?: boolean;
  family?: string;
}

export interface MethodSummary {
  schema: typeof SUMMARY_SCHEMA;
  method: { id: string; version: string };
  llmkbVersion: string;
  /** Display name of the model (spec or label). */
  model: string;
  /** Cache identity of the model (content hash for GGUF). */
  modelIdentity?: string;
  /** The method's variant the run used (the reliability method's prompt setting). */
  setting: string;
  /** Part of the scoring used an approximation (e.g. no judge LLM): said in every output. */
  approximate: boolean;
  datasetChecksums: Record<string, string>;
  counts: Record<string, number>;
  metricDefs: MetricDef[];
  /** By metric id; null = undefined (a mean over nothing), shown as `-`, never as 0. */
  metrics: Record<string, number | null>;
  /** Confidence intervals by metric id (null: too often undefined in the resamples). */
  intervals: Record<string, [number, number] | null>;
  bootstrap?: { resamples: number; seed: number; confidence: number };
  /** Method-specific breakdowns (by source, by answer type, ...). */
  breakdowns?: Record<string, unknown>;
  meta?: RunMeta;
  runId?: string;
  protocol?: MethodProtocol;
  /**
   * What a reader must know before reading some of the numbers (e.g. "most MCQ answers were
   * invalid: the consistency metrics measure the answer parser"): every output shows each one
   * beside the run, and marks the metrics it names as flagged, not plain numbers.
   */
  warnings?: SummaryWarning[];
}

/** A warning about a run's numbers, and the metrics it makes unreliable. */
export interface SummaryWarning {
  message: string;
  /** Metric ids whose values the warning concerns (none: the run as a whole). */
  metrics?: string[];
}

/** When and how a run ran (`<stem>.run.json`): everything about it that differs between two runs of the same command. */
export interface ExecutionRecord {
  schema: 'llmkb-execution-v1';
  runId: string;
  label: string;
  setting: string;
  /** The spec the model under test was made from (what tells two models of one file name apart). */
  modelSpec?: string;
  command?: string;
  startedAt: string;
  finishedAt: string;
  llmkbVersion: string;
  node: string;
  /** Per role: calls, cache hits, requests made and tokens paid for in this run, over every process that worked on it. */
  calls: Record<string, Pick<Accounting, 'calls' | 'cacheHits' | 'requests' | 'promptTokens' | 'completionTokens'>>;
  /** The same, for the last process alone (the command that wrote this record). */
  callsHere?: Record<string, Pick<Accounting, 'calls' | 'cacheHits' | 'requests' | 'promptTokens' | 'completionTokens'>>;
  /** Per role served by several replicas: the calls each replica answered and failed in this run, and how often it was taken out. */
  replicas?: Record<string, Array<{ url: string; served: number; failed: number; trips: number }>>;
}

const metricDefSchema = z.object({
  id: z.string().min(1),
  label: z.string(),
  description: z.string(),
  range: z.tuple([z.number(), z.number()]),
  better: z.enum(['higher', 'lower']),
  format: z.enum(['percent', 'number']),
  equation: z.string().optional(),
  headline: z.boolean().optional(),
});

/**
 * The protocol block (`MethodProtocol`): every field is required of a summary that has the block;
 * unknown keys are kept (passthrough), so a newer file still loads.
 */
const protocolSchema = z
  .object({
    schema: z.string(),
    entries: z.record(
      z.string(),
      z.object({ choice: z.string(), status: z.enum(['paper', 'approximation', 'nondeterministic']), note: z.string().optional() }).passthrough(),
    ),
    datasets: z.record(z.string(), z.string()),
    seed: z.number(),
    computeBackend: z.string(),
  })
  .passthrough();

const runMetaSchema = z.object({ paramsB: z.number().positive().optional(), fineTuned: z.boolean().optional(), family: z.string().optional() }).passthrough();

/**
 * What every v2 summary must have; a method may check more (`EvaluationMethod.summarySchema`).
 * The fields `report` and `compare` read are typed here too, so a hand-edited or truncated file
 * is named with its field instead of crashing the report half-way. `modelIdentity`, `meta`, `runId`,
 * `bootstrap` and `protocol` are optional because other writers (a user's method) may lack them.
 */
export const methodSummarySchema = z
  .object({
    schema: z.literal(SUMMARY_SCHEMA),
    method: z.object({ id: z.string().min(1), version: z.string() }),
    model: z.string(),
    modelIdentity: z.string().optional(),
    setting: z.string(),
    approximate: z.boolean(),
    datasetChecksums: z.record(z.string(), z.string()),
    counts: z.record(z.string(), z.number()),
    metricDefs: z.array(metricDefSchema).min(1),
    metrics: z.record(z.string(), z.number().nullable()),
    intervals: z.record(z.string(), z.tuple([z.number(), z.number()]).nullable()),
    bootstrap: z.object({ resamples: z.number(), seed: z.number(), confidence: z.number() }).passthrough().optional(),
    meta: runMetaSchema.optional(),
    runId: z.string().optional(),
    protocol: protocolSchema.optional(),
    warnings: z.array(z.object({ message: z.string(), metrics: z.array(z.string()).optional() }).passthrough()).optional(),
  })
  .passthrough()
  .superRefine((s, ctx) => {
    for (const d of s.metricDefs) {
      if (!(d.id in s.metrics))
        ctx.addIssue({ code: 'custom', path: ['metrics', d.id], message: `metric "${d.id}" is defined in metricDefs but has no value` });
    }
  });

/** Checks a v2 summary read from `file`; errors name the file and the field. */
export function checkSummary(json: unknown, file: string, hint: string): MethodSummary {
  const parsed = methodSummarySchema.safeParse(json);
  if (!parsed.success) throw new InputFileError(file, undefined, parsed.error.issues[0]!.path.join('.') || undefined, parsed.error.issues[0]!.message, hint);
  return parsed.data as unknown as MethodSummary;
}

/** Metrics shown in headline tables: the method's headline ones, or all when it marks none. */
export function headlineDefs(defs: readonly MetricDef[]): MetricDef[] {
  const headline = defs.filter((d) => d.headline);
  return headline.length > 0 ? headline : [...defs];
}

/** A metric value as the papers' tables show it: percent x100 with two decimals, `-` when undefined. */
export function formatMetric(def: Pick<MetricDef, 'format'>, value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined) return '-';
  return def.format === 'percent' ? (100 * value).toFixed(digits) : value.toFixed(digits + 1);
}
