/**
 * How a method shows its runs: its cross-run analysis (`llmkb compare`), its parts of the HTML
 * report, the viewer's columns, filters and item page, and the CLI's result table. Everything
 * here is optional: without it, runs are shown from their summaries' `metricDefs` alone.
 */
import type { z } from 'zod';
import type { Run } from '../store/run-store.js';
import type { MetricDef } from './metric-def.js';
import type { MethodSummary } from './method-summary.js';

/** A run as `compare` holds it: its summary, and its per-item records when they could be read. */
export interface ComparedRun {
  summary: MethodSummary;
  records?: readonly object[];
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

/** What the report hands a method's sections besides the summaries. */
export interface MethodReportContext {
  /** Per-item records of each summary, same order; undefined where not available. */
  records?: ReadonlyArray<readonly object[] | undefined>;
}

/** The columns of an item in `llmkb view`'s index; each method says what they hold (`itemTitles`). */
export type ViewItemField = 'label' | 'subtype' | 'source' | 'answerType' | 'dataset' | 'question' | 'response' | 'consistency';

/** One item of a run as the viewer indexes it. */
export interface ViewItem {
  itemId: string;
  seq: number;
  label?: string | null;
  subtype?: string | null;
  source?: string | null;
  answerType?: string | null;
  dataset?: string | null;
  question?: string | null;
  response?: string | null;
  consistency?: number | null;
  /** Who decided the label (e.g. `lexical`: approximate). */
  judgedBy?: string | null;
  /** The values of the method's declared item fields (`MethodView.itemFields`), by name; a missing one is null. */
  fields?: Readonly<Record<string, string | number | boolean | null | undefined>>;
}

/**
 * A field of its items a method declares (as Inspect AI's sample metadata and scores): the viewer
 * indexes it, shows it as a column, filters by it (a text field by value, a number field by range)
 * and sorts by it, whatever the method.
 */
export interface ItemFieldDef {
  /** Its key in `ViewItem.fields` and in the viewer's addresses (`f.NAME`, `sort=NAME`): letters, digits, `_` and `-`. */
  name: string;
  /** Its filter's title, e.g. `invalid MCQ answers`. */
  title: string;
  /** The items table's column title where it is shorter than `title`. */
  columnTitle?: string;
  /** Text (filtered by value, with counts) or number (filtered by a range). */
  kind: 'text' | 'number';
  /** How a number is shown: `percent` (x100, 2 decimals), `integer`, or `number` (3 decimals; the default). */
  format?: 'number' | 'percent' | 'integer';
  /** What it is, shown on hover. */
  description?: string;
  /** Whether the items table shows it as a column (default: yes; a hidden one is still filtered and sorted). */
  column?: boolean;
}

/** Items of a run as the viewer selects them: by its columns, and by declared fields (a text field's value, a number field's range). */
export interface ItemSelection {
  label?: string;
  subtype?: string;
  source?: string;
  answerType?: string;
  dataset?: string;
  consistencyMin?: number;
  consistencyMax?: number;
  fields?: Readonly<Record<string, { value?: string; min?: number; max?: number }>>;
}

/** The items a metric's value is computed from, as the viewer links it (e.g. NCR: the seen questions). */
export interface MetricItems {
  selection: ItemSelection;
  /** What the link shows, e.g. `the seen questions (its denominator)`. */
  title: string;
}

/** What `MethodView.items` may leave out. */
export interface ItemsOptions {
  /** false: without `question` and `response` (the items summarised for the runs list, which shows no text); default true. */
  text?: boolean;
}

/** How `llmkb view` shows a method's runs. */
export interface MethodView {
  /** A stored run's items, in item order, read through the run store's read API. */
  items(run: Run, options?: ItemsOptions): Iterable<ViewItem>;
  /** One line of a records file as an item (a run that exists only as result files). */
  itemOf(record: Record<string, unknown>, seq: number): ViewItem;
  /** Titles of the columns and filters on the items page; null hides one. */
  itemTitles: Readonly<Record<ViewItemField, string | null>>;
  /** The method's own fields of an item (scores, metadata), filterable and sortable in the viewer. */
  itemFields?: readonly ItemFieldDef[];
  /** The items behind a metric's value (its link in the runs list and the run page); undefined: all the run's items. */
  metricItems?(metricId: string): MetricItems | undefined;
  /** Titles of the item table's columns where they are shorter than `itemTitles` (e.g. `Cons`). */
  columnTitles?: Partial<Readonly<Record<ViewItemField, string>>>;
  /** Titles of the group column of the run page's count tables, by the column counted (default: `source`, `answer type`, `sub-type`). */
  countTitles?: Partial<Readonly<Record<'source' | 'answer_type' | 'subtype', string>>>;
  /** The order of the labels in count tables (default: as the counts come). */
  labelOrder?: readonly string[];
  /** The commands that make runs of single stages, named beside those runs in the runs list (e.g. `llmkb ask`, `judge`). */
  stageCommands?: readonly string[];
  /** Values of the `source` column shown as a filter of their own (e.g. UnseenQA's templates `T1`-`T20`). */
  sourceGroups?: ReadonlyArray<{ name: string; title: string; pattern: string }>;
  /** The item page's main part (HTML, every piece of model text escaped), from the item's records by stage (a file run: `{ records: line }`). */
  itemPage(records: Readonly<Record<string, Record<string, unknown>>>, context: ItemPageContext): Promise<string>;
  /** The run page's sections after its metrics (breakdowns, charts; HTML). Default: items by label. */
  runSections?(context: RunPageContext): Promise<string>;
  /** A summary computed from the indexed items when the run has no summary file yet (a run in progress). */
  summarizeItems?(
    items: readonly ViewItem[],
    run: { label: string; setting: string; runId?: string; modelIdentity?: string },
    options: { resamples: number },
  ): Promise<MethodSummary | undefined>;
  /** Paired tests of two runs' headline metrics on their shared items, for the compare page. */
  pairedRows?(a: readonly ViewItem[], b: readonly ViewItem[], names: [string, string]): Promise<PairedRow[]>;
}

/** A paired comparison of two runs on one metric. */
export interface PairedRow {
  def: MetricDef;
  a: number | null;
  b: number | null;
  difference: number | null;
  interval: [number, number] | null;
  p: number | null;
  /** Items paired (both runs answered them): the test's sample size. */
  n: number;
}

export interface ItemPageContext {
  /** The item's indexed columns. */
  item: ViewItem;
  /** HTML of a cached model call (what was sent and received), by its cache key; says so when the store does not have it. */
  exchange(key: string): string;
  /** Whether the store has the cached call with this key. */
  hasCall(key: string): boolean;
  /** The run's spec parameters (what its calls were made with), for a stored run. */
  params?: Readonly<Record<string, unknown>>;
  /** The model's cache identity, for a stored run. */
  modelIdentity?: string;
  runLabel: string;
  setting: string;
}

/** A further cell of a count table: text, or text that links to items (`href` from `RunPageContext.itemsHref`). */
export type ExtraCell = string | { text: string; href?: string; title?: string };

export interface RunPageContext {
  /** The run's summary (raw JSON), when there is one. */
  summary?: Record<string, unknown>;
  /** Items counted by a column and dataset and label, groups in natural order; `label`: only items of that label. */
  counts(column: 'source' | 'answer_type' | 'subtype', label?: string): Array<{ grp: string | null; dataset: string | null; label: string | null; n: number }>;
  /** A count table (HTML), every count a link to its items; `extra`: a group's further cells (text, or text linked to items, e.g. the group's metric values). */
  countsTable(
    title: string,
    column: 'source' | 'answer_type' | 'subtype',
    rows: ReadonlyArray<{ grp: string | null; dataset: string | null; label: string | null; n: number }>,
    extra?: (group: string) => ExtraCell[],
    extraHeader?: string[],
  ): string;
  /** The address of the run's items page showing these items. */
  itemsHref(selection: ItemSelection): string;
  /** A Vega-Lite chart as inline SVG. */
  chart(spec: object): Promise<string>;
}

export interface MethodPresentation {
  /** Default title of a report when all runs are of this method. */
  reportTitle?: string;
  /** Why a run is marked approximate, e.g. "were judged without a judge LLM (lexical rule)". */
  approximateNote?: string;
  /** Checks a summary of this method read from a file, beyond the v2 schema; a message per problem (with its field). */
  checkSummary?(summary: MethodSummary): Array<{ path: string; message: string }>;
  /** What compare and report read of each line of the records file beside a summary (default: none is read). */
  recordSchema?: z.ZodType<object>;
  /** Whether a record (the first of a records file with no summary beside it) is one of this method's. */
  claimsRecord?(record: Record<string, unknown>): boolean;
  /**
   * A records file given with no summary beside it: summarised when it is this method's (decided
   * from its first record), undefined when it is not. Throws when it is, but cannot be read alone.
   */
  summarizeRecordsFile?(
    file: string,
    first: Record<string, unknown>,
    options: { resamples: number; seed: number; model?: string; setting?: string; meta?: import('./method-summary.js').RunMeta },
  ): { summary: MethodSummary; records: readonly object[] } | undefined;
  /** Its own cross-run analysis for `llmkb compare` (default: headline tables and rankings from metricDefs). */
  compare?(runs: readonly ComparedRun[], options: { resamples: number; seed: number }): Promise<CompareOutput>;
  /** Report sections after the introduction (tables, figures), replacing the generic headline table. */
  reportSections?(summaries: readonly MethodSummary[], context?: MethodReportContext): Promise<string[]>;
  /** The one-line summary of a run in the report's Runs section (HTML). */
  runHeadline?(summary: MethodSummary): string;
  /** HTML shown under a run's metric table (breakdowns; example records when given). */
  runDetails?(summary: MethodSummary, records?: readonly object[]): string;
  /** A run's summary as `llmkb metrics` prints it (plain text). */
  formatSummary?(summary: MethodSummary): string;
  /** The table `llmkb eval` prints for one model's runs (plain text), with the warnings a reader must see. */
  resultTable?(summaries: readonly MethodSummary[]): string;
  view?: MethodView;
}
