/**
 * One run's summary: the paper's metrics, counts, 95% bootstrap confidence intervals, and
 * breakdowns by source data set, UnseenQA template and answer type, and uninformative sub-type.
 * This is the JSON `llmkb metrics --format json` prints and `llmkb compare` / `llmkb report` read
 * (schema `llmkb-summary-v2`, src/methods/method-summary.ts, documented in docs/reliability.md, "Summary JSON").
 */
import { z } from 'zod';
import { SUMMARY_SCHEMA, type MethodSummary, type RunMeta } from '../../method-summary.js';
import { RELIABILITY_METHOD, RELIABILITY_METRIC_DEFS } from './metric-defs.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import { departures, type Protocol } from '../protocol.js';
import { VERSION } from '../../../version.js';
import { FLAG_NOTE, flagged } from '../../summary-warnings.js';
import { countMcqAnswers, invalidMcqWarning, type McqAnswerBreakdown } from './mcq-answers.js';
import {
  computeMetrics,
  countRecords,
  METRIC_KEYS,
  metricsFromSums,
  type MetricCounts,
  type MetricKey,
  type Metrics,
  type MetricSums,
} from './reliability-metrics.js';

export const scoredRecordSchema = z
  .object({
    id: z.string(),
    dataset: z.enum(['seen', 'unseen']),
    source: z.string(),
    answerType: z.string().nullish(),
    label: z.enum(['correct', 'wrong', 'uninformative']),
    uninformativeType: z.enum(['none', 'unsure', 'repetition']).nullish(),
    consistency: z.number().min(0).max(1).nullish(),
    /** How many MCQs a pair was asked and how many of their answers were invalid (the rest of the stage's detail passes through). */
    consistencyDetail: z
      .object({ mcqs: z.number().int().min(0).optional(), invalid: z.number().int().min(0).optional(), fewerOptions: z.number().int().min(0).optional() })
      .passthrough()
      .optional(),
    approximate: z.boolean().optional(),
  })
  .passthrough();
export type ScoredRecord = z.infer<typeof scoredRecordSchema>;

export interface Group {
  counts: MetricCounts;
  metrics: Metrics;
}

export type { RunMeta };

/** A reliability run's summary (schema v2): the generic fields, typed with the method's own metrics, counts and breakdowns. */
export interface RunSummary extends MethodSummary {
  /** With `mcqAnswers` and `invalidMcqAnswers` when every re-asked response says how its MCQs were answered. */
  counts: MetricCounts & {
    mcqAnswers?: number;
    invalidMcqAnswers?: number;
    /** MCQs with fewer than the paper's 5 options (fewer than 3 distractors for their response), when the records say. */
    mcqsWithFewerOptions?: number;
  };
  metrics: Metrics;
  intervals: Record<MetricKey, [number, number] | null>;
  bootstrap: { resamples: number; seed: number; confidence: number };
  breakdowns: {
    bySource: Record<string, Group>;
    byAnswerType: { seen: Record<string, Group>; unseen: Record<string, Group> };
    uninformativeTypes: { seen: Record<string, number>; unseen: Record<string, number> };
    /** MCQ answers and invalid ones by question set and label of the response re-asked (with the counts' `mcqAnswers`). */
    mcqAnswers?: McqAnswerBreakdown;
  };
  /** How close the run is to the paper's protocol (runs made by `llmkb eval`). */
  protocol?: Protocol;
}

function group(records: readonly ScoredRecord[]): Group {
  return { counts: countRecords(records), metrics: computeMetrics(records) };
}

function groupBy(records: readonly ScoredRecord[], key: (r: ScoredRecord) => string | null | undefined): Record<string, Group> {
  const buckets = new Map<string, ScoredRecord[]>();
  for (const r of records) {
    const k = key(r) ?? 'unknown';
    const bucket = buckets.get(k);
    if (bucket) bucket.push(r);
    else buckets.set(k, [r]);
  }
  return Object.fromEntries([...buckets.entries()].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })).map(([k, rs]) => [k, group(rs)]));
}

function percentile(sorted: readonly number[], p: number): number {
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

const CORRECT = 0;
const WRONG = 1;
const UNINFORMATIVE = 2;

/** A group's records as the bootstrap reads them (see addToSums): label codes and consistency (NaN for none). */
function compactForBootstrap(records: readonly ScoredRecord[]): { groups: Uint8Array; cons: Float64Array } {
  const groups = new Uint8Array(records.length);
  const cons = new Float64Array(records.length);
  records.forEach((r, i) => {
    groups[i] = r.label === 'correct' ? CORRECT : r.label === 'wrong' ? WRONG : UNINFORMATIVE;
    cons[i] = r.consistency ?? Number.NaN;
  });
  return { groups, cons };
}

/**
 * Percentile bootstrap, resampling seen and unseen questions separately (the two sets are fixed
 * in size by design). An interval is null when the metric is undefined in more than half of the
 * resamples.
 */
export function bootstrapIntervals(
  records: readonly ScoredRecord[],
  resamples: number,
  seed: number,
  confidence = 0.95,
): Record<MetricKey, [number, number] | null> {
  const seen = compactForBootstrap(records.filter((r) => r.dataset === 'seen'));
  const unseen = compactForBootstrap(records.filter((r) => r.dataset === 'unseen'));
  const rng = SeededRandom.stream(seed, 'bootstrap');
  const samples: Record<MetricKey, number[]> = Object.fromEntries(METRIC_KEYS.map((k) => [k, []])) as unknown as Record<MetricKey, number[]>;
  for (let b = 0; b < resamples; b++) {
    // addToSums over the resampled records, on local numbers: the same additions in the same
    // order (so the same sums, bit for bit), without an object property per addition.
    let nCorrect = 0;
    let nWrong = 0;
    let lUninformative = 0;
    let consCorrectSum = 0;
    let consCorrectCount = 0;
    let consWrongSeenSum = 0;
    let consWrongSeenCount = 0;
    let consWrongUnseenSum = 0;
    let consWrongUnseenCount = 0;
    for (let i = 0; i < seen.groups.length; i++) {
      const j = rng.int(0, seen.groups.length - 1);
      const group = seen.groups[j]!;
      const cons = seen.cons[j]!;
      if (group === CORRECT) {
        nCorrect++;
        if (cons === cons) {
          consCorrectSum += cons;
          consCorrectCount++;
        }
      } else if (group === WRONG) {
        nWrong++;
        if (cons === cons) {
          consWrongSeenSum += cons;
          consWrongSeenCount++;
        }
      }
    }
    for (let i = 0; i < unseen.groups.length; i++) {
      const j = rng.int(0, unseen.groups.length - 1);
      if (unseen.groups[j] === UNINFORMATIVE) lUninformative++;
      else {
        const cons = unseen.cons[j]!;
        if (cons === cons) {
          consWrongUnseenSum += cons;
          consWrongUnseenCount++;
        }
      }
    }
    const sums: MetricSums = {
      n: seen.groups.length,
      nCorrect,
      nWrong,
      l: unseen.groups.length,
      lUninformative,
      consCorrectSum,
      consCorrectCount,
      consWrongSeenSum,
      consWrongSeenCount,
      consWrongUnseenSum,
      consWrongUnseenCount,
    };
    const m = metricsFromSums(sums);
    for (const k of METRIC_KEYS) if (m[k] !== null) samples[k].push(m[k]!);
  }
  const alpha = (1 - confidence) / 2;
  return Object.fromEntries(
    METRIC_KEYS.map((k) => {
      const values = samples[k].sort((a, b) => a - b);
      return [k, values.length * 2 < resamples || values.length === 0 ? null : [percentile(values, alpha), percentile(values, 1 - alpha)]];
    }),
  ) as Record<MetricKey, [number, number] | null>;
}

export function summarizeRun(
  records: readonly ScoredRecord[],
  options: {
    model: string;
    modelIdentity?: string;
    setting: string;
    datasetChecksums?: Record<string, string>;
    resamples?: number;
    seed?: number;
    meta?: RunMeta;
    runId?: string;
    protocol?: Protocol;
  },
): RunSummary {
  const resamples = options.resamples ?? 1000;
  const seed = options.seed ?? 42;
  const uninformativeTypes = {
    seen: { none: 0, unsure: 0, repetition: 0 } as Record<string, number>,
    unseen: { none: 0, unsure: 0, repetition: 0 } as Record<string, number>,
  };
  for (const r of records)
    if (r.label === 'uninformative' && r.uninformativeType)
      uninformativeTypes[r.dataset][r.uninformativeType] = (uninformativeTypes[r.dataset][r.uninformativeType] ?? 0) + 1;
  const mcqAnswers = countMcqAnswers(records);
  const warning = mcqAnswers ? invalidMcqWarning(mcqAnswers.total) : undefined;
  const fewerOptions = records.some((r) => r.consistencyDetail?.fewerOptions !== undefined)
    ? records.reduce((n, r) => n + (r.consistencyDetail?.fewerOptions ?? 0), 0)
    : undefined;
  return {
    schema: SUMMARY_SCHEMA,
    method: { id: RELIABILITY_METHOD.id, version: RELIABILITY_METHOD.version },
    llmkbVersion: VERSION,
    model: options.model,
    ...(options.modelIdentity === undefined ? {} : { modelIdentity: options.modelIdentity }),
    setting: options.setting,
    approximate: records.some((r) => r.approximate === true),
    datasetChecksums: options.datasetChecksums ?? {},
    counts: {
      ...countRecords(records),
      ...(mcqAnswers ? { mcqAnswers: mcqAnswers.total.answers, invalidMcqAnswers: mcqAnswers.total.invalid } : {}),
      ...(fewerOptions === undefined ? {} : { mcqsWithFewerOptions: fewerOptions }),
    },
    metricDefs: RELIABILITY_METRIC_DEFS.map((d) => ({ ...d })),
    metrics: computeMetrics(records),
    intervals: bootstrapIntervals(records, resamples, seed),
    bootstrap: { resamples, seed, confidence: 0.95 },
    breakdowns: {
      bySource: groupBy(records, (r) => r.source),
      byAnswerType: {
        seen: groupBy(
          records.filter((r) => r.dataset === 'seen'),
          (r) => r.answerType,
        ),
        unseen: groupBy(
          records.filter((r) => r.dataset === 'unseen'),
          (r) => r.answerType,
        ),
      },
      uninformativeTypes,
      ...(mcqAnswers ? { mcqAnswers: mcqAnswers.breakdown } : {}),
    },
    ...(options.meta ? { meta: options.meta } : {}),
    ...(options.runId ? { runId: options.runId } : {}),
    ...(options.protocol ? { protocol: options.protocol } : {}),
    ...(warning ? { warnings: [warning] } : {}),
  };
}

export function formatPercent(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined ? '-' : (100 * value).toFixed(digits);
}

const LABELS: Record<MetricKey, string> = {
  CR: 'CR  correct rate (seen)',
  WR: 'WR  wrong rate (seen)',
  NCR: 'NCR net correct rate',
  UR: 'UR  uninformative rate (unseen)',
  C_correct: 'C_correct',
  C_wrong_seen: 'C_wrong^s',
  C_wrong_unseen: 'C_wrong^u',
  C_wrong: 'C_wrong',
  CCR: 'CCR consistently correct rate',
  CWR: 'CWR consistently wrong rate',
  NCCR: 'NCCR net consistently correct',
  IUR: 'IUR inconsistent/uninformative rate',
};

/** The human-readable table `llmkb metrics` prints (values x100, like the paper). */
export function formatSummary(s: RunSummary): string {
  const lines: string[] = [];
  lines.push(`${s.model}  ${s.setting}  (N=${s.counts.seen} seen, L=${s.counts.unseen} unseen)${s.approximate ? '  [APPROXIMATE: lexical judge]' : ''}`);
  for (const d of s.protocol ? departures(s.protocol) : [])
    lines.push(`departs from the paper: ${d.choice} = ${d.entry.choice} (${d.entry.status}${d.entry.note ? `: ${d.entry.note}` : ''})`);
  lines.push('metric                                   value   95% CI');
  for (const k of METRIC_KEYS) {
    const ci = s.intervals[k];
    lines.push(
      `${LABELS[k].padEnd(38)} ${flagged(formatPercent(s.metrics[k]), s, k).padStart(7)}   ${ci ? `[${formatPercent(ci[0])}, ${formatPercent(ci[1])}]` : '-'}`,
    );
  }
  for (const w of s.warnings ?? []) lines.push(`WARNING: ${w.message}`);
  if (s.warnings?.length) lines.push(FLAG_NOTE);
  lines.push('');
  lines.push('by source            n     CR     WR    NCR     UR  C_correct  C_wrong   NCCR    IUR');
  for (const [source, g] of Object.entries(s.breakdowns.bySource)) {
    const m = g.metrics;
    lines.push(
      `${source.padEnd(14)} ${String(g.counts.seen + g.counts.unseen).padStart(6)} ${formatPercent(m.CR, 1).padStart(6)} ${formatPercent(m.WR, 1).padStart(6)} ${formatPercent(m.NCR, 1).padStart(6)} ${formatPercent(m.UR, 1).padStart(6)} ${formatPercent(m.C_correct, 1).padStart(10)} ${formatPercent(m.C_wrong, 1).padStart(8)} ${formatPercent(m.NCCR, 1).padStart(6)} ${formatPercent(m.IUR, 1).padStart(6)}`,
    );
  }
  lines.push('');
  lines.push(
    `UR by answer type (unseen): ${Object.entries(s.breakdowns.byAnswerType.unseen)
      .map(([t, g]) => `${t} ${formatPercent(g.metrics.UR, 1)}`)
      .join(', ')}`,
  );
  const u = s.breakdowns.uninformativeTypes;
  lines.push(
    `uninformative sub-types: seen ${Object.entries(u.seen)
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')}; unseen ${Object.entries(u.unseen)
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')}`,
  );
  const mcq = s.breakdowns.mcqAnswers;
  if (mcq && s.counts.mcqAnswers !== undefined) {
    const groups = (['seen', 'unseen'] as const).flatMap((d) => Object.entries(mcq[d]).map(([label, c]) => `${d} ${label} ${c.invalid}/${c.answers}`));
    lines.push(`invalid MCQ answers: ${s.counts.invalidMcqAnswers} of ${s.counts.mcqAnswers} (${groups.join(', ')})`);
  }
  if (s.counts.mcqsWithFewerOptions)
    lines.push(
      `MCQs with fewer than the paper's 5 options (too few distractors for the response): ${s.counts.mcqsWithFewerOptions}${s.counts.mcqAnswers === undefined ? '' : ` of ${s.counts.mcqAnswers}`}`,
    );
  return lines.join('\n');
}
