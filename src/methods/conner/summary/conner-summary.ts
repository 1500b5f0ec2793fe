/**
 * A CONNER summary: per generator and setting, the mean of every metric with a 95% percentile
 * bootstrap interval (seeded), the factuality shares, the scorer behind each metric, the run's
 * protocol notes, and, given human ratings, Somers' D between each metric and the ratings (the
 * paper's section 6).
 *
 * `summarizeConner` computes all groups at once (the terminal table); `connerRunSummaries` turns
 * each group into a summary of the method seam (`llmkb-summary-v2`, one run = one generator x
 * setting), the file `llmkb conner score --out` writes and `compare`, `report` and `view` read.
 */
import { z } from 'zod';
import { readJsonl } from '../../../io/jsonl.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import { VERSION } from '../../../version.js';
import type { MetricDef } from '../../method.js';
import { SUMMARY_SCHEMA, type MethodProtocol, type MethodSummary } from '../../method-summary.js';
import { CONNER_METHOD, CONNER_METRIC_DEFS } from '../metric-defs.js';
import type { ConnerProtocolNote } from '../conner-protocol.js';
import type { ScoredKnowledge } from '../scoring/score-knowledge.js';
import { somersTest, type SomersResult } from './somers-d.js';

export const CONNER_SUMMARY_SCHEMA = 'llmkb-conner-summary-v1' as const;

export interface MetricEstimate {
  mean: number | null;
  /** Items the metric is defined for. */
  n: number;
  ci: [number, number] | null;
}

export interface ConnerGroupSummary {
  generator: string;
  setting: string;
  n: number;
  metrics: Record<string, MetricEstimate>;
  scorers: Record<string, string>;
  /** Somers' D(metric | human rating) per metric, when ratings were given. */
  humanCorrelation?: Record<string, SomersResult>;
}

export interface ConnerSummary {
  schema: typeof CONNER_SUMMARY_SCHEMA;
  method: string;
  methodVersion: string;
  metricDefs: readonly MetricDef[];
  groups: ConnerGroupSummary[];
  bootstrap: { resamples: number; seed: number; confidence: number };
  protocol: ConnerProtocolNote[];
}

/** One item's value for a metric id of CONNER_METRIC_DEFS; null when undefined for it. */
export function metricValue(r: ScoredKnowledge, id: string): number | null {
  const s = r.scores;
  switch (id) {
    case 'fact_consistent':
      return s.factualityLabel === null ? null : s.factualityLabel === 'factual-consistent' ? 1 : 0;
    case 'non_verified':
      return s.factualityLabel === null ? null : s.factualityLabel === 'non-verified' ? 1 : 0;
    case 'fact_inconsistent':
      return s.factualityLabel === null ? null : s.factualityLabel === 'factual-inconsistent' ? 1 : 0;
    default: {
      const v = (s as unknown as Record<string, number | null>)[id];
      return typeof v === 'number' ? v : null;
    }
  }
}

function percentile(sorted: readonly number[], p: number): number {
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function estimate(values: readonly number[], resamples: number, rng: SeededRandom, confidence = 0.95): MetricEstimate {
  if (values.length === 0) return { mean: null, n: 0, ci: null };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  if (resamples <= 0) return { mean, n: values.length, ci: null };
  const means: number[] = [];
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += values[rng.int(0, values.length - 1)]!;
    means.push(sum / values.length);
  }
  means.sort((a, b) => a - b);
  const alpha = (1 - confidence) / 2;
  return { mean, n: values.length, ci: [percentile(means, alpha), percentile(means, 1 - alpha)] };
}

/** Human ratings (0 unacceptable, 1 acceptable, 2 excellent; paper Table 17), one JSONL line per item. */
export const ratingSchema = z
  .object({
    id: z.string().min(1),
    /** Which knowledge was rated when several generators or settings share query ids. */
    generator: z.string().optional(),
    setting: z.string().optional(),
    factuality: z.number().optional(),
    relevance: z.number().optional(),
    coherence: z.number().optional(),
    informativeness: z.number().optional(),
    helpfulness: z.number().optional(),
    validity: z.number().optional(),
  })
  .strict();
export type HumanRating = z.infer<typeof ratingSchema>;

export function readRatings(file: string): HumanRating[] {
  return readJsonl(file, ratingSchema, 'rating');
}

/** Which human rating each metric is compared with (Table 17's dimensions; coherence for both levels). */
const RATING_OF: Record<string, keyof Omit<HumanRating, 'id' | 'generator' | 'setting'>> = {
  factuality: 'factuality',
  relevance: 'relevance',
  coherence_sentence: 'coherence',
  coherence_paragraph: 'coherence',
  informativeness: 'informativeness',
  helpfulness: 'helpfulness',
  validity: 'validity',
};

export function humanCorrelation(records: readonly ScoredKnowledge[], ratings: readonly HumanRating[], permutations: number, seed: number): Record<string, SomersResult> {
  // The most specific match wins: (generator, setting, id), then (generator, id), then id alone.
  const key = (generator: string, setting: string, id: string): string => `${generator}\u0000${setting}\u0000${id}`;
  const byKey = new Map(ratings.map((r) => [key(r.generator ?? '', r.setting ?? '', r.id), r]));
  const out: Record<string, SomersResult> = {};
  for (const [metric, dim] of Object.entries(RATING_OF)) {
    const x: number[] = [];
    const y: number[] = [];
    for (const r of records) {
      const rating = byKey.get(key(r.generator, r.setting, r.id)) ?? byKey.get(key(r.generator, '', r.id)) ?? byKey.get(key('', '', r.id));
      const h = rating?.[dim];
      const v = metricValue(r, metric);
      if (h === undefined || v === null) continue;
      x.push(h);
      y.push(v);
    }
    if (x.length > 1) out[metric] = somersTest(x, y, permutations, seed);
  }
  return out;
}

export interface SummarizeOptions {
  resamples: number;
  seed: number;
  protocol: ConnerProtocolNote[];
  ratings?: readonly HumanRating[];
  permutations?: number;
}

/** Groups by (generator, setting) in order of first appearance, so the output order follows the input. */
export function summarizeConner(records: readonly ScoredKnowledge[], options: SummarizeOptions): ConnerSummary {
  const groups = new Map<string, ScoredKnowledge[]>();
  for (const r of records) {
    const key = `${r.generator}\u0000${r.setting}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(r);
  }
  return {
    schema: CONNER_SUMMARY_SCHEMA,
    method: CONNER_METHOD.id,
    methodVersion: CONNER_METHOD.version,
    metricDefs: CONNER_METRIC_DEFS,
    groups: [...groups.values()].map((rs) => {
      const first = rs[0]!;
      const metrics: Record<string, MetricEstimate> = {};
      for (const def of CONNER_METRIC_DEFS) {
        const values = rs.map((r) => metricValue(r, def.id)).filter((v): v is number => v !== null);
        metrics[def.id] = estimate(values, options.resamples, SeededRandom.stream(options.seed, 'conner-bootstrap', first.generator, first.setting, def.id));
      }
      const group: ConnerGroupSummary = { generator: first.generator, setting: first.setting, n: rs.length, metrics, scorers: first.scorers };
      if (options.ratings) group.humanCorrelation = humanCorrelation(rs, options.ratings, options.permutations ?? 1000, options.seed);
      return group;
    }),
    bootstrap: { resamples: options.resamples, seed: options.seed, confidence: 0.95 },
    protocol: options.protocol,
  };
}

function fmt(def: MetricDef, e: MetricEstimate | undefined): string {
  if (!e || e.mean === null) return '-';
  return def.format === 'percent' ? `${(e.mean * 100).toFixed(2)}%` : e.mean.toFixed(4);
}

/** The paper's Table 2/3 layout: one row per generator and setting. */
export function formatConnerSummary(s: ConnerSummary): string {
  const defs = s.metricDefs;
  const header = ['Model', 'Setting', 'n', ...defs.map((d) => d.label)];
  const rows = s.groups.map((g) => [g.generator, g.setting, String(g.n), ...defs.map((d) => fmt(d, g.metrics[d.id]))]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [line(header), ...rows.map(line)];
  for (const g of s.groups) {
    if (!g.humanCorrelation) continue;
    out.push('', `Somers' D with human ratings (${g.generator}, ${g.setting}):`);
    for (const [m, r] of Object.entries(g.humanCorrelation)) out.push(`  ${m}: D = ${r.d === null ? '-' : r.d.toFixed(2)} (n ${r.n}${r.pValue === null ? '' : `, p ${r.pValue.toFixed(3)}`})`);
  }
  out.push('', 'Protocol:');
  for (const p of s.protocol) out.push(`  [${p.kind}] ${p.text}`);
  return out.join('\n');
}

/** What a CONNER v2 summary keeps beside the metrics (`breakdowns`). */
export interface ConnerBreakdowns {
  /** `qa` (Natural Questions: the paper's Table 2) or `dialogue` (Wizard of Wikipedia: Table 3). */
  task: string;
  /** The scorer behind each metric (model ids, evidence source, aggregation). */
  scorers: Record<string, string>;
  /** Items per factuality label (the counts behind Fact-cons./Non-verif./Fact-incon.). */
  factualityLabels: Record<string, number>;
  /** Somers' D(metric | human rating) per metric, when ratings were given (the paper's section 6). */
  humanCorrelation?: Record<string, SomersResult>;
}

/**
 * A protocol note as an entry of the seam's protocol block: a departure from the paper is an
 * `approximation`; a decision where the paper says nothing keeps the paper's protocol (`paper`),
 * with the decision in its note.
 */
export function connerProtocolBlock(notes: readonly ConnerProtocolNote[], seed: number, datasets: Record<string, string>): MethodProtocol {
  return {
    schema: 'llmkb-conner-protocol-v1',
    entries: Object.fromEntries(notes.map((n) => [n.id, n.kind === 'departure' ? { choice: n.text, status: 'approximation' as const } : { choice: 'decision (the paper does not say)', status: 'paper' as const, note: n.text }])),
    datasets,
    seed,
    computeBackend: 'n/a (scorers per metric: see breakdowns.scorers)',
  };
}

/**
 * One summary (schema v2) per generator and setting, in the order of `summarizeConner`'s groups.
 * `datasets(generator, setting)`: the SHA-256 of the knowledge files the group was read from.
 */
export function connerRunSummaries(records: readonly ScoredKnowledge[], options: SummarizeOptions & { datasets?: (generator: string, setting: string) => Record<string, string> }): MethodSummary[] {
  const all = summarizeConner(records, options);
  const departs = options.protocol.some((n) => n.kind === 'departure');
  return all.groups.map((g) => {
    const datasets = options.datasets?.(g.generator, g.setting) ?? {};
    const group = records.filter((r) => r.generator === g.generator && r.setting === g.setting);
    const factualityLabels: Record<string, number> = {};
    for (const r of group) {
      const label = r.scores.factualityLabel ?? '(not scored)';
      factualityLabels[label] = (factualityLabels[label] ?? 0) + 1;
    }
    const breakdowns: ConnerBreakdowns = { task: group[0]?.task ?? 'qa', scorers: g.scorers, factualityLabels, ...(g.humanCorrelation ? { humanCorrelation: g.humanCorrelation } : {}) };
    return {
      schema: SUMMARY_SCHEMA,
      method: { id: CONNER_METHOD.id, version: CONNER_METHOD.version },
      llmkbVersion: VERSION,
      model: g.generator,
      setting: g.setting,
      // Every departure (e.g. 1/PPL standing in for the discourse-coherence model) marks the run approximate.
      approximate: departs,
      datasetChecksums: datasets,
      // Items, then the items each metric is defined for.
      counts: { items: g.n, ...Object.fromEntries(CONNER_METRIC_DEFS.map((d) => [d.id, g.metrics[d.id]!.n])) },
      metricDefs: CONNER_METRIC_DEFS.map((d) => ({ ...d })),
      metrics: Object.fromEntries(CONNER_METRIC_DEFS.map((d) => [d.id, g.metrics[d.id]!.mean])),
      intervals: Object.fromEntries(CONNER_METRIC_DEFS.map((d) => [d.id, g.metrics[d.id]!.ci])),
      bootstrap: all.bootstrap,
      breakdowns: breakdowns as unknown as Record<string, unknown>,
      protocol: connerProtocolBlock(options.protocol, options.seed, datasets),
    };
  });
}

/** The paper's Table 3/4 layout from v2 summaries (the terminal table of `llmkb conner score`). */
export function formatConnerRuns(summaries: readonly MethodSummary[]): string {
  const defs = CONNER_METRIC_DEFS;
  const header = ['Model', 'Setting', 'n', ...defs.map((d) => d.label)];
  const rows = summaries.map((s) => [s.model, s.setting, String(s.counts.items ?? ''), ...defs.map((d) => fmt(d, { mean: s.metrics[d.id] ?? null, n: 0, ci: null }))]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [line(header), ...rows.map(line)];
  for (const s of summaries) {
    const hc = (s.breakdowns as unknown as ConnerBreakdowns | undefined)?.humanCorrelation;
    if (!hc) continue;
    out.push('', `Somers' D with human ratings (${s.model}, ${s.setting}):`);
    for (const [m, r] of Object.entries(hc)) out.push(`  ${m}: D = ${r.d === null ? '-' : r.d.toFixed(2)} (n ${r.n}${r.pValue === null ? '' : `, p ${r.pValue.toFixed(3)}`})`);
  }
  const first = summaries[0]?.protocol;
  if (first) {
    out.push('', 'Protocol:');
    for (const [id, e] of Object.entries(first.entries)) out.push(`  [${e.status === 'paper' ? 'decision' : 'departure'}] ${id}: ${e.note ?? e.choice}`);
  }
  return out.join('\n');
}
