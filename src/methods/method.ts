/**
 * One seam for evaluation methods (in the spirit of Inspect AI's task = dataset + solver +
 * scorer). A method says which model roles it needs and of which kind, the stages it runs (each
 * a resumable stage over the run store), and the metrics it reports, each with its definition, so
 * that listings, comparisons and reports can show any method's numbers from `metricDefs` alone.
 *
 * Versioned like the model interface: a method built against another version of this interface
 * is refused at registration rather than misread.
 */
import type { ModelExecutor } from '../executor/model-executor.js';
import type { ModelKind } from '../providers/model-kinds.js';
import type { Run } from '../store/run-store.js';
import type { MethodSummary } from './method-summary.js';

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

/** What a stage gets from the generic stage runner (./run-method.ts). */
export interface StageContext {
  /** The run in the store: stages save their records in it (`runStage`), so a run resumes. */
  run: Run;
  items: readonly unknown[];
  /** Executors by role id (an optional role without a model is absent). */
  roles: Readonly<Record<string, ModelExecutor>>;
  setting: string;
  seed: number;
  /** Records of the stages before this one, by stage id, then by item id. */
  records: Readonly<Record<string, Map<string, unknown>>>;
}

export interface StageDef {
  id: string;
  description: string;
  /**
   * Runs the stage resumably (through `runStage`) and returns its records by item id. Left out
   * by a method whose own command orchestrates its stages (the reliability method: `llmkb eval`).
   */
  run?(ctx: StageContext): Promise<Map<string, unknown>>;
}

export interface SummarizeContext {
  records: Readonly<Record<string, Map<string, unknown>>>;
  items: readonly unknown[];
  model: string;
  modelIdentity: string;
  setting: string;
  seed: number;
  runId: string;
  datasetChecksums: Record<string, string>;
}

/** A run as `compare` holds it: its summary, and its scored records when it was read from them. */
export interface ComparedRun {
  summary: MethodSummary;
  records?: readonly unknown[];
  source: string;
}

/** A method's own cross-run analysis (`llmkb compare`), e.g. the paper's tables. */
export interface CompareOutput {
  /** Markdown printed by `llmkb compare`. */
  markdown: string;
  /** Printed by `--json` and written as analysis.json. */
  analysis: Record<string, unknown>;
  /** Extra files written with `--out` (name -> content). */
  files: Record<string, string>;
  /** How `--out` describes what it wrote, e.g. "tables, correlations and analysis.json". */
  wrote?: string;
}

/** A method's own parts of the HTML report; the rest (headline, runs, protocol) is generic. */
export interface MethodReport {
  /** Default page title when all runs are of this method. */
  title?: string;
  /** Why a run is marked approximate, e.g. "were judged without a judge LLM (lexical rule)". */
  approximateNote?: string;
  /**
   * Sections after the introduction (tables, figures), replacing the generic headline table.
   * `records[i]` are the per-item records of `summaries[i]` when the caller has them (e.g. for
   * significance marks); a section must still render without them.
   */
  sections?(summaries: readonly MethodSummary[], context?: MethodReportContext): Promise<string[]>;
  /** The one-line summary of a run in the Runs section (HTML). */
  runHeadline?(summary: MethodSummary): string;
  /** HTML shown under a run's metric table (breakdowns; example responses when its records are given). */
  runDetails?(summary: MethodSummary, records?: readonly object[]): string;
}

/** What the report hands a method's sections besides the summaries. */
export interface MethodReportContext {
  /** Per-item records of each summary, same order; undefined where not available. */
  records?: ReadonlyArray<readonly object[] | undefined>;
}

/** The columns of an item in `llmkb view`'s index (src/view/view-index.ts). */
export type ViewItemField = 'label' | 'subtype' | 'source' | 'answerType' | 'dataset' | 'question' | 'response' | 'consistency';

/** How `llmkb view` shows a method's items; without it, items are read as the reliability method's records. */
export interface MethodView {
  /** Where each column is in one of the method's records (JSON paths for SQLite's json_extract, e.g. `$.scores.factualityLabel`). */
  itemFields?: Partial<Record<ViewItemField, string>>;
  /** Titles of the columns and filters on the items page; null hides one. */
  itemTitles?: Partial<Record<ViewItemField, string | null>>;
  /** The item page's main part (HTML, every piece of model text escaped), from the item's records by stage. */
  itemPage?(records: Readonly<Record<string, Record<string, unknown>>>): Promise<string>;
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
  /** Who defined the metrics, short, for report captions (e.g. "Zheng, Lapata & Pan"). */
  readonly citation?: string;
  /** The variants a run can use (the reliability method's prompt settings), in display order. */
  readonly settings?: readonly string[];
  /** Protocol choices a run records, in display order, with their titles. */
  readonly protocolChoices?: Readonly<Record<string, string>>;
  /** Protocol choices that differ between settings by design (not flagged when runs of several settings are shown together). */
  readonly protocolPerSetting?: readonly string[];
  /** Builds the summary (schema v2) from the stages' records (the generic stage runner). */
  summarize?(ctx: SummarizeContext): MethodSummary;
  /** Checks a summary of this method read from a file, beyond the v2 schema; returns a message per problem (with its field). */
  checkSummary?(summary: MethodSummary): Promise<Array<{ path: string; message: string }>>;
  /** Its own cross-run analysis for `llmkb compare` (default: headline tables and rankings from metricDefs). */
  compare?(runs: readonly ComparedRun[], options: { resamples: number; seed: number }): Promise<CompareOutput>;
  report?: MethodReport;
  view?: MethodView;
}
