/**
 * A CONNER summary: per generator and setting, every metric as the paper's tables report it
 * (./metric-aggregates.ts: means, helpfulness over the set) with a 95% percentile bootstrap
 * interval over items (seeded), the factuality shares, the scorer behind each metric, the run's
 * protocol notes, and, given human ratings, Somers' D between each metric and the ratings (the
 * paper's section 6).
 *
 * `summarizeConner` computes all groups at once; `connerRunSummaries` turns each group into a
 * summary of the method seam (`llmkb-summary-v2`, one run = one generator x setting), the file
 * `llmkb conner score --out` writes and `compare`, `report` and `view` read.
 */
import { flagged, FLAG_NOTE, warningLines } from '../../summary-warnings.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import { VERSION } from '../../../version.js';
import type { MetricDef } from '../../method.js';
import { SUMMARY_SCHEMA, type MethodProtocol, type MethodSummary, type SummaryWarning } from '../../method-summary.js';
import type { ScoringChoices } from '../conner-choices.js';
import { CONNER_METHOD, CONNER_METRIC_DEFS, PAPER_TABLE_METRICS } from '../metric-defs.js';
import { connerProtocol, type ConnerProtocolNote } from '../conner-protocol.js';
import { groupFacts, type ConnerRunFacts } from '../conner-run-facts.js';
import { settingLabel, type GeneratedKnowledge } from '../generation/generate-knowledge.js';
import type { ScoredKnowledge } from '../scoring/scored-knowledge.js';
import { humanCorrelation, type HumanRating } from './human-ratings.js';
import { estimateMetric, factualityLabelCounts, type MetricEstimate } from './metric-aggregates.js';
import type { SomersResult } from './somers-d.js';
import { markNotAsPaper, NOT_AS_PAPER_NOTE, notAsPaperLines, paperColumns, type ColumnVerdict } from './paper-columns.js';

export { estimate, metricValue, type MetricEstimate } from './metric-aggregates.js';
export { readRatings, ratingSchema, type HumanRating } from './human-ratings.js';

export const CONNER_SUMMARY_SCHEMA = 'llmkb-conner-summary-v1' as const;

export interface ConnerGroupSummary {
  generator: string;
  setting: string;
  n: number;
  metrics: Record<string, MetricEstimate>;
  scorers: Record<string, string>;
  /** What this group's run did (ids: conner-protocol.ts). */
  protocol: ConnerProtocolNote[];
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
}

export interface SummarizeOptions {
  resamples: number;
  seed: number;
  /** What the scoring command chose. */
  run: ConnerRunFacts;
  /** The knowledge records the scores came from (their demonstrations and dropped shots go into the protocol). */
  knowledge?: readonly GeneratedKnowledge[];
  /** Ratings by knowledge text, as `matchRatings` gives them. */
  ratings?: ReadonlyMap<string, HumanRating>;
  permutations?: number;
}

const groupKey = (generator: string, setting: string): string => `${generator}\u0000${setting}`;

/** Groups by (generator, setting) in order of first appearance, so the output order follows the input. */
export function summarizeConner(records: readonly ScoredKnowledge[], options: SummarizeOptions): ConnerSummary {
  const groups = new Map<string, ScoredKnowledge[]>();
  for (const r of records) {
    const key = groupKey(r.generator, r.setting);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(r);
  }
  const knowledge = new Map<string, GeneratedKnowledge[]>();
  for (const k of options.knowledge ?? []) {
    const key = groupKey(k.generator, settingLabel(k));
    knowledge.set(key, [...(knowledge.get(key) ?? []), k]);
  }
  return {
    schema: CONNER_SUMMARY_SCHEMA,
    method: CONNER_METHOD.id,
    methodVersion: CONNER_METHOD.version,
    metricDefs: CONNER_METRIC_DEFS,
    groups: [...groups.entries()].map(([key, rs]) => {
      const first = rs[0]!;
      const metrics: Record<string, MetricEstimate> = {};
      for (const def of CONNER_METRIC_DEFS) {
        metrics[def.id] = estimateMetric(
          rs,
          def.id,
          options.run.choices,
          options.resamples,
          SeededRandom.stream(options.seed, 'conner-bootstrap', first.generator, first.setting, def.id),
        );
      }
      const protocol = connerProtocol(options.run, groupFacts(rs, knowledge.get(key)));
      const group: ConnerGroupSummary = { generator: first.generator, setting: first.setting, n: rs.length, metrics, scorers: first.scorers, protocol };
      if (options.ratings) group.humanCorrelation = humanCorrelation(rs, options.ratings, options.permutations ?? 1000, options.seed);
      return group;
    }),
    bootstrap: { resamples: options.resamples, seed: options.seed, confidence: 0.95 },
  };
}

function fmt(def: MetricDef, value: number | null | undefined): string {
  if (value === null || value === undefined) return '-';
  return def.format === 'percent' ? `${(value * 100).toFixed(2)}%` : value.toFixed(4);
}

/** The terminal table's columns: the paper's (Tables 2-3, with helpfulness before the clip as Table 16), then the mean S_fact. */
const TERMINAL_COLUMNS = [...PAPER_TABLE_METRICS, 'factuality'];

function table(
  rows: ReadonlyArray<{
    model: string;
    setting: string;
    n: number | undefined;
    value: (id: string) => number | null | undefined;
    summary?: MethodSummary;
    columns?: Record<string, ColumnVerdict>;
  }>,
): string[] {
  const defs = TERMINAL_COLUMNS.map((id) => CONNER_METRIC_DEFS.find((d) => d.id === id)!);
  const header = ['Model', 'Setting', 'n', ...defs.map((d) => d.label)];
  const cells = rows.map((r) => [
    r.model,
    r.setting,
    String(r.n ?? ''),
    ...defs.map((d) => markNotAsPaper(flagged(fmt(d, r.value(d.id)), r.summary, d.id), r.columns?.[d.id])),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]): string =>
    c
      .map((x, i) => x.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)];
}

function correlationLines(name: string, hc: Record<string, SomersResult> | undefined): string[] {
  if (!hc) return [];
  if (Object.keys(hc).length === 0) return ['', `Somers' D with human ratings (${name}): no metric has two rated items with a value`];
  return [
    '',
    `Somers' D with human ratings (${name}):`,
    ...Object.entries(hc).map(
      ([m, r]) => `  ${m}: D = ${r.d === null ? '-' : r.d.toFixed(2)} (n ${r.n}${r.pValue === null ? '' : `, p ${r.pValue.toFixed(3)}`})`,
    ),
  ];
}

/**
 * Protocol lines: each departure with what it means, the decisions by their choice only (the
 * summaries hold their notes); a choice runs differ in names the runs.
 */
function protocolLines(
  runs: ReadonlyArray<{ name: string; entries: ReadonlyArray<{ id: string; departure: boolean; choice: string; text: string }> }>,
): string[] {
  const byId = new Map<string, Map<string, { departure: boolean; text: string; runs: string[] }>>();
  for (const r of runs) {
    for (const e of r.entries) {
      const choices = byId.get(e.id) ?? new Map();
      // A departure with other counts (items affected) is said per run too.
      const key = e.departure ? `${e.choice}\u0000${e.text}` : e.choice;
      const seen = choices.get(key) ?? { departure: e.departure, text: e.departure ? e.text : e.choice, runs: [] };
      seen.runs.push(r.name);
      choices.set(key, seen);
      byId.set(e.id, choices);
    }
  }
  const whose = (c: { runs: string[] }, choices: Map<string, unknown>): string =>
    choices.size > 1 || c.runs.length < runs.length ? ` [${c.runs.join(', ')}]` : '';
  const departures: string[] = [];
  const decisions: string[] = [];
  for (const [id, choices] of byId) {
    for (const c of choices.values())
      (c.departure ? departures : decisions).push(c.departure ? `  [departure] ${id}: ${c.text}${whose(c, choices)}` : `${id} = ${c.text}${whose(c, choices)}`);
  }
  return [
    '',
    "Protocol (each choice and what it means: the summaries' protocol block, docs/conner.md):",
    ...departures,
    `  [decisions] ${decisions.join('; ')}`,
  ];
}

/** The paper's Table 2/3 layout: one row per generator and setting. */
export function formatConnerSummary(s: ConnerSummary): string {
  const out = table(s.groups.map((g) => ({ model: g.generator, setting: g.setting, n: g.n, value: (id) => g.metrics[id]?.mean })));
  for (const g of s.groups) out.push(...correlationLines(`${g.generator}, ${g.setting}`, g.humanCorrelation));
  out.push(
    ...protocolLines(
      s.groups.map((g) => ({ name: `${g.generator} (${g.setting})`, entries: g.protocol.map((n) => ({ ...n, departure: n.kind === 'departure' })) })),
    ),
  );
  return out.join('\n');
}

/** What a CONNER v2 summary keeps beside the metrics (`breakdowns`). */
export interface ConnerBreakdowns {
  /** `qa` (Natural Questions: the paper's Table 2) or `dialogue` (Wizard of Wikipedia: Table 3). */
  task: string;
  /** The scorer behind each metric (model ids, evidence source, aggregation). */
  scorers: Record<string, string>;
  /** Who wrote the downstream answers (null: not recorded in the knowledge file). */
  answerers: Array<string | null>;
  /** The run's choices where the paper's equations and the authors' scripts differ (conner-choices.ts). */
  choices: ScoringChoices;
  /** The counts behind Fact-cons./Non-verif./Fact-incon.: items per label, or sentences under the sentence-label rule with mean (`factualityLabelsUnit`). */
  factualityLabels: Record<string, number>;
  /** What `factualityLabels` counts (absent in summaries made before it was recorded: items). */
  factualityLabelsUnit?: 'items' | 'sentences';
  /** Somers' D(metric | human rating) per metric, when ratings were given (the paper's section 6). */
  humanCorrelation?: Record<string, SomersResult>;
  /** Per metric of the paper's tables: computed as they were (given the scorers named) or not, and the protocol entries why (./paper-columns.ts). */
  paperColumns?: Record<string, ColumnVerdict>;
}

/**
 * A protocol note as an entry of the seam's protocol block: its choice, `approximation` for a
 * departure from the paper, `paper` otherwise, and what it means.
 */
export function connerProtocolBlock(notes: readonly ConnerProtocolNote[], seed: number, datasets: Record<string, string>): MethodProtocol {
  return {
    schema: 'llmkb-conner-protocol-v2',
    entries: Object.fromEntries(
      notes.map((n) => [n.id, { choice: n.choice, status: n.kind === 'departure' ? ('approximation' as const) : ('paper' as const), note: n.text }]),
    ),
    datasets,
    seed,
    computeBackend: 'n/a (scorers per metric: see breakdowns.scorers)',
  };
}

/**
 * One summary (schema v2) per generator and setting, in the order of `summarizeConner`'s groups.
 * `datasets(generator, setting)`: the SHA-256 of the knowledge files the group was read from.
 */
export function connerRunSummaries(
  records: readonly ScoredKnowledge[],
  options: SummarizeOptions & { datasets?: (generator: string, setting: string) => Record<string, string> },
): MethodSummary[] {
  const all = summarizeConner(records, options);
  return all.groups.map((g) => {
    const datasets = options.datasets?.(g.generator, g.setting) ?? {};
    const group = records.filter((r) => r.generator === g.generator && r.setting === g.setting);
    const labels = factualityLabelCounts(group, options.run.choices);
    const answerers = [...new Set(group.filter((r) => r.answer !== null).map((r) => r.answerer))];
    const warnings = coverageWarnings(g);
    const breakdowns: ConnerBreakdowns = {
      task: group[0]?.task ?? 'qa',
      scorers: g.scorers,
      answerers,
      choices: options.run.choices,
      factualityLabels: labels.counts,
      factualityLabelsUnit: labels.unit,
      ...(g.humanCorrelation ? { humanCorrelation: g.humanCorrelation } : {}),
    };
    const protocol = connerProtocolBlock(g.protocol, options.seed, datasets);
    breakdowns.paperColumns = paperColumns({ protocol, breakdowns: breakdowns as unknown as Record<string, unknown> });
    return {
      schema: SUMMARY_SCHEMA,
      method: { id: CONNER_METHOD.id, version: CONNER_METHOD.version },
      llmkbVersion: VERSION,
      model: g.generator,
      setting: g.setting,
      // Approximate when a column is computed otherwise than the paper's tables (given the scorers
      // named); which ones, and why, is in breakdowns.paperColumns.
      approximate: Object.values(breakdowns.paperColumns).some((v) => !v.asPaper),
      datasetChecksums: datasets,
      // Items, then the items each metric is defined for.
      counts: { items: g.n, ...Object.fromEntries(CONNER_METRIC_DEFS.map((d) => [d.id, g.metrics[d.id]!.n])) },
      metricDefs: CONNER_METRIC_DEFS.map((d) => ({ ...d })),
      metrics: Object.fromEntries(CONNER_METRIC_DEFS.map((d) => [d.id, g.metrics[d.id]!.mean])),
      intervals: Object.fromEntries(CONNER_METRIC_DEFS.map((d) => [d.id, g.metrics[d.id]!.ci])),
      bootstrap: all.bootstrap,
      breakdowns: breakdowns as unknown as Record<string, unknown>,
      protocol,
      ...(warnings.length ? { warnings } : {}),
    };
  });
}

/**
 * A metric scored for fewer than half of the run's knowledge texts (the rest empty, or over the
 * scorer's context) describes the few it could score, not the generator: flagged. A metric with
 * no scorer is not: it has no value (the protocol says it was not scored).
 */
function coverageWarnings(g: ConnerGroupSummary): SummaryWarning[] {
  const thin = CONNER_METRIC_DEFS.filter((d) => {
    const n = g.metrics[d.id]!.n;
    return n > 0 && n < g.n / 2;
  });
  return thin.map((d) => ({
    message: `${d.label} is defined for only ${g.metrics[d.id]!.n} of ${g.n} knowledge texts (the others are empty or did not fit the scorer's context; see the records): it describes those few, not the generator`,
    metrics: [d.id],
  }));
}

/** A summary's column verdicts: recorded, or (older summaries) from its protocol. */
export function columnsOf(s: MethodSummary): Record<string, ColumnVerdict> {
  return (s.breakdowns as Partial<ConnerBreakdowns> | undefined)?.paperColumns ?? paperColumns(s);
}

const TASK_TITLES: Record<string, string> = {
  qa: 'open-domain QA (Table 2: Natural Questions)',
  dialogue: 'knowledge-grounded dialogue (Table 3: Wizard of Wikipedia)',
};

/**
 * The paper's Table 2/3 layout from v2 summaries (the terminal table of `llmkb conner score`):
 * one table per task, never two tasks stacked; "Fact-cons." is the fact-consistent share (Table
 * 16's Fact.), "S_fact" the mean factual-consistent score; a value computed otherwise than the
 * paper's tables is marked, with the entries why under the table.
 */
export function formatConnerRuns(summaries: readonly MethodSummary[]): string {
  const tasks = [...new Set(summaries.map((s) => String((s.breakdowns as { task?: unknown } | undefined)?.task ?? 'qa')))];
  const out: string[] = [];
  for (const task of tasks) {
    const runs = summaries.filter((s) => String((s.breakdowns as { task?: unknown } | undefined)?.task ?? 'qa') === task);
    if (tasks.length > 1) out.push(...(out.length ? [''] : []), `${TASK_TITLES[task] ?? task}:`);
    out.push(
      ...table(runs.map((s) => ({ model: s.model, setting: s.setting, n: s.counts.items, value: (id) => s.metrics[id], summary: s, columns: columnsOf(s) }))),
    );
  }
  const labels = new Map(TERMINAL_COLUMNS.map((id) => [id, CONNER_METRIC_DEFS.find((d) => d.id === id)!.label]));
  const notAsPaper = notAsPaperLines(
    summaries.map((s) => ({ name: `${s.model} (${s.setting})`, columns: columnsOf(s) })),
    labels,
  );
  out.push(
    '',
    notAsPaper.length ? `${NOT_AS_PAPER_NOTE}:` : "Every column is computed as the paper's tables were, given the scorers named.",
    ...notAsPaper.map((l) => `  ${l}`),
  );
  const warned = warningLines(summaries);
  if (warned.length) out.push('', ...warned.map((w) => `WARNING ${w}`), FLAG_NOTE);
  for (const s of summaries)
    out.push(...correlationLines(`${s.model}, ${s.setting}`, (s.breakdowns as unknown as ConnerBreakdowns | undefined)?.humanCorrelation));
  out.push(
    ...protocolLines(
      summaries.map((s) => ({
        name: `${s.model} (${s.setting})`,
        entries: Object.entries(s.protocol?.entries ?? {}).map(([id, e]) => ({
          id,
          departure: e.status !== 'paper',
          choice: e.choice,
          text: e.note ?? e.choice,
        })),
      })),
    ),
  );
  return out.join('\n');
}
