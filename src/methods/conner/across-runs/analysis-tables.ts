/**
 * The paper's analyses as tables, one set per task (NQ and WoW never in one table), for `compare`
 * (Markdown and CSV) and the report (HTML): Table 16's layout, Table 8 (each generator's greedy
 * run beside its best-of selection), Somers' D between intrinsic and extrinsic metrics (Tables 5,
 * 6 and 15), factuality by pageviews (Fig. 2a, when the records carry their topic's pageviews:
 * `conner score --pageviews FILE`) and by sentence count (Fig. 2b), and Table 10's baselines.
 * The numbers come from ../summary/analyses.ts.
 */
import type { ComparedRun } from '../../method.js';
import type { MethodSummary } from '../../method-summary.js';
import type { ScoredKnowledge } from '../scoring/scored-knowledge.js';
import {
  baselineMeans,
  BASELINE_METRICS,
  EXTRINSIC_ROWS,
  INTRINSIC_COLUMNS,
  intrinsicExtrinsicSomers,
  longForm,
  LONG_FORM_MIN_WORDS,
  longTail,
  type FactualityBin,
} from '../summary/analyses.js';
import type { SomersResult } from '../summary/somers-d.js';
import { taskOf } from './paper-table.js';

export interface AnalysisTable {
  /** File name part: `conner-<task>-<id>.md/.csv`. */
  id: string;
  title: string;
  header: string[];
  rows: string[][];
  note: string;
}

const name = (s: MethodSummary): string => `${s.model} (${s.setting})`;
const f3 = (v: number | null | undefined): string => (typeof v === 'number' ? v.toFixed(3) : '-');
const recordsOf = (r: ComparedRun): ScoredKnowledge[] => (r.records ?? []) as ScoredKnowledge[];

/** Table 16's layout: fact-consistent share, relevance, paragraph coherence, informativeness, unclipped helpfulness, validity, as fractions to 3 dp. */
export function table16(runs: readonly MethodSummary[]): AnalysisTable {
  const cols = ['fact_consistent', 'relevance', 'coherence_paragraph', 'informativeness', 'helpfulness_raw', 'validity'];
  return {
    id: 'table16',
    title: "Table 16's layout",
    header: ['Model', 'Setting', 'n', 'Fact.', 'Rel.', 'Coh.', 'Info', 'Help.', 'Val.'],
    rows: runs.map((s) => [s.model, s.setting, String(s.counts.items ?? ''), ...cols.map((c) => f3(s.metrics[c]))]),
    note: "As the paper's Table 16: Fact. is the fact-consistent share, Coh. paragraph coherence, Help. helpfulness without max(0, .), all as fractions to 3 decimals.",
  };
}

/** The base setting a best-of selection drew from (`best-of 5 (top-p 0.9, T 1; zero-shot)` -> `zero-shot`). */
function baseSetting(setting: string): string | undefined {
  return /; ([^;()]+)\)$/.exec(setting)?.[1];
}

/**
 * Whether two runs divide by the same baseline losses on the queries both scored (helpfulness
 * compares like for like only then); undefined without records of both.
 */
export function sameBaseline(a: readonly ScoredKnowledge[] | undefined, b: readonly ScoredKnowledge[] | undefined): boolean | undefined {
  if (!a?.length || !b?.length) return undefined;
  const byId = new Map(b.map((r) => [r.id, r.helpfulness?.baselineLosses]));
  const shared = a.filter((r) => r.helpfulness && byId.get(r.id) !== undefined);
  if (shared.length === 0) return undefined;
  return shared.every((r) => {
    const other = byId.get(r.id)!;
    return other.length === r.helpfulness!.baselineLosses.length && other.every((l, i) => Math.abs(l - r.helpfulness!.baselineLosses[i]!) < 1e-9);
  });
}

/** Table 8: each best-of selection beside the greedy run of the same generator and base setting. */
export function table8(runs: readonly MethodSummary[], records?: ReadonlyMap<MethodSummary, readonly ScoredKnowledge[]>): AnalysisTable | undefined {
  const rows: string[][] = [];
  for (const selected of runs.filter((s) => s.setting.startsWith('best-of'))) {
    const base = baseSetting(selected.setting);
    const greedy = runs.find((s) => s.model === selected.model && !s.setting.startsWith('best-of') && (base === undefined || s.setting === base));
    if (!greedy) continue;
    const same = sameBaseline(records?.get(greedy), records?.get(selected));
    const h = (s: MethodSummary): number | null | undefined => s.metrics.helpfulness;
    const gain =
      typeof h(greedy) === 'number' && typeof h(selected) === 'number' && h(greedy)! > 0 ? `${(100 * (h(selected)! / h(greedy)! - 1)).toFixed(2)}%` : '-';
    const pct = (v: number | null | undefined): string => (typeof v === 'number' ? `${(100 * v).toFixed(2)}%` : '-');
    const baseline = same === undefined ? 'records not given' : same ? 'the same' : 'differ';
    rows.push([
      greedy.model,
      greedy.setting,
      String(greedy.counts.items ?? ''),
      f3(h(greedy)),
      f3(greedy.metrics.helpfulness_raw),
      pct(greedy.metrics.validity),
      '',
      '',
    ]);
    rows.push([
      selected.model,
      selected.setting,
      String(selected.counts.items ?? ''),
      f3(h(selected)),
      f3(selected.metrics.helpfulness_raw),
      pct(selected.metrics.validity),
      gain,
      baseline,
    ]);
  }
  if (rows.length === 0) return undefined;
  return {
    id: 'table8',
    title: 'Table 8: with and without knowledge selection',
    header: ['Model', 'Setting', 'n', 'Helpfulness', 'Helpful. raw', 'Validity', 'helpfulness change', 'baseline losses'],
    rows,
    note: "Each generator's greedy run, then its best-of selection (`conner best-of`, scored by `conner score`); the change is relative, as the paper's 43.15%. Helpfulness compares like for like only when both runs divide by the same baseline losses (the last column, from the records: the same on every shared query, or not); the paper's scripts use one baseline per data set.",
  };
}

const dagger = (r: SomersResult | null): string => (r === null || r.d === null ? '-' : `${r.d.toFixed(2)}${r.pValue !== null && r.pValue < 0.05 ? '†' : ''}`);
const EXTRINSIC_LABELS: Record<string, string> = { helpfulness_raw: 'helpful.', validity: 'validity' };

/** Tables 5, 6 and 15: D(extrinsic | intrinsic) per run, and over all runs of the task pooled. */
export function somersTable(runs: readonly ComparedRun[], options: { permutations: number; seed: number }): AnalysisTable | undefined {
  const withRecords = runs.filter((r) => recordsOf(r).length > 2);
  if (withRecords.length === 0) return undefined;
  const groups: Array<[string, ScoredKnowledge[]]> = withRecords.map((r) => [name(r.summary), recordsOf(r)]);
  if (withRecords.length > 1) groups.push([`all ${withRecords.length} runs pooled`, withRecords.flatMap(recordsOf)]);
  const rows = groups.flatMap(([label, records]) => {
    const d = intrinsicExtrinsicSomers(records, options);
    return EXTRINSIC_ROWS.map((e) => [label, EXTRINSIC_LABELS[e]!, ...INTRINSIC_COLUMNS.map((i) => dagger(d[e][i]))]);
  });
  return {
    id: 'somers',
    title: "Somers' D between intrinsic and extrinsic metrics (Tables 5, 6, 15)",
    header: ['Run', 'Extrinsic', 'Fact.', 'Rel.', 'Coh-sent.', 'Coh-para.', 'Info.'],
    rows,
    note: `D(extrinsic | intrinsic) over the items with both values (Fact.: the item's S_fact; helpful.: the item's helpfulness before max(0, .)); † p < 0.05 by a two-sided permutation test (${options.permutations} permutations, seed ${options.seed}).`,
  };
}

function binRows(label: string, bins: readonly FactualityBin[]): string[][] {
  return bins.map((b) => [label, b.bin, String(b.n), f3(b.consistent), f3(b.nonVerified), f3(b.inconsistent)]);
}

/** Fig. 2a from records that carry their topic's pageviews (`pageviews`). */
export function longTailTable(runs: readonly ComparedRun[]): AnalysisTable | undefined {
  const rows: string[][] = [];
  let missing = 0;
  for (const r of runs) {
    const records = recordsOf(r);
    const views = new Map<string, number>();
    for (const x of records) {
      const v = (x as unknown as { pageviews?: unknown }).pageviews;
      if (typeof v === 'number') views.set(x.topic, v);
    }
    if (views.size === 0) continue;
    const t = longTail(records, views);
    missing += t.withoutViews;
    rows.push(...binRows(name(r.summary), t.bins));
  }
  if (rows.length === 0) return undefined;
  return {
    id: 'long-tail',
    title: 'Factuality by the pageviews of the topic (Fig. 2a)',
    header: ['Run', 'pageviews', 'n', 'Factual-con.', 'Non-verified', 'Factual-incon.'],
    rows,
    note: `Items binned by the decade of their topic's Wikipedia pageviews (as \`conner score --pageviews FILE\` recorded them); each bin's mean of the three factuality parts.${missing ? ` ${missing} items had no pageviews for their topic and are left out.` : ''}`,
  };
}

/** Fig. 2b: factuality of knowledge over 40 words by its number of sentences. */
export function longFormTable(runs: readonly ComparedRun[]): AnalysisTable | undefined {
  const rows = runs.flatMap((r) => binRows(name(r.summary), longForm(recordsOf(r)).bins));
  if (rows.length === 0) return undefined;
  return {
    id: 'long-form',
    title: 'Factuality by the number of sentences (Fig. 2b)',
    header: ['Run', 'sentences', 'n', 'Factual-con.', 'Non-verified', 'Factual-incon.'],
    rows,
    note: `Knowledge over ${LONG_FORM_MIN_WORDS} words (whitespace-separated) by its number of sentences (the units of factuality); each bin's mean of the three factuality parts.`,
  };
}

/** Table 10's reference-reliant baselines per run (means), and their Somers' D with human ratings when the run was scored with --ratings. */
export function baselinesTable(runs: readonly ComparedRun[]): AnalysisTable | undefined {
  const withRecords = runs.filter((r) => recordsOf(r).length > 0);
  if (withRecords.length === 0) return undefined;
  const rows = withRecords.map((r) => {
    const means = baselineMeans(recordsOf(r));
    const hc = (r.summary.breakdowns as { humanCorrelation?: Record<string, SomersResult> } | undefined)?.humanCorrelation;
    return [name(r.summary), ...BASELINE_METRICS.map((b) => `${f3(means[b.id].mean)}${hc?.[b.id] ? ` (D ${dagger(hc[b.id]!)})` : ''}`), 'not computed'];
  });
  return {
    id: 'baselines',
    title: "Table 10's reference-reliant baselines",
    header: ['Run', ...BASELINE_METRICS.map((b) => b.label), 'HE'],
    rows,
    note: `Means over the items that have them: ${BASELINE_METRICS.map((b) => `${b.label}: ${b.what}`).join('; ')}. With human ratings (\`conner score --ratings\`), Somers' D with the rating of the perspective each stands for, as Table 10. HE (hallucinated named entities) needs a named-entity recogniser, which llmkb has not.`,
  };
}

/** Every analysis of one task's runs, in the paper's order. */
export function analysisTables(runs: readonly ComparedRun[], options: { permutations: number; seed: number }): AnalysisTable[] {
  const summaries = runs.map((r) => r.summary);
  const records = new Map(runs.filter((r) => r.records?.length).map((r) => [r.summary, recordsOf(r)]));
  return [table16(summaries), table8(summaries, records), somersTable(runs, options), longTailTable(runs), longFormTable(runs), baselinesTable(runs)].filter(
    (t): t is AnalysisTable => t !== undefined,
  );
}

/** Runs by task, in order of first appearance. */
export function runsByTask<R extends { summary: MethodSummary }>(runs: readonly R[]): Array<{ task: string; runs: R[] }> {
  const tasks = [...new Set(runs.map((r) => taskOf(r.summary)))];
  return tasks.map((task) => ({ task, runs: runs.filter((r) => taskOf(r.summary) === task) }));
}
