/**
 * The method seam (in the spirit of Inspect AI's task = dataset + solver + scorer). A method is a
 * complete plugin: it says which model roles it needs and of which kind, prepares its inputs
 * (`prepare`: data sets, knowledge files), runs its stages over the run store (each stage reads
 * the previous stage's records by id and writes its own, resumably, through cached calls),
 * summarises a run from its output records, and presents its runs (compare tables, report
 * sections, the viewer's columns and item page, the CLI's result table, its own subcommands).
 * One runner (`./run-method.ts`) drives every method; nothing outside a method's folder knows it.
 *
 * Versioned like the model interface: a method built against another version of this interface
 * is refused at registration rather than misread. A method's definition module imports nothing
 * heavy: its stages, summaries and presentation load when they are first used.
 */
import type { ModelExecutor } from '../executor/model-executor.js';
import type { ProgressOptions } from '../progress/progress.js';
import type { ModelKind } from '../providers/model-kinds.js';
import type { Db } from '../store/database.js';
import type { Run } from '../store/run-store.js';
import type { MetricDef } from './metric-def.js';
import type { MethodSummary, RunMeta } from './method-summary.js';
import type { MethodCli } from './method-cli.js';
import type { MethodPresentation } from './method-presentation.js';

export type { MetricDef, ModelKind };

export const METHOD_INTERFACE_VERSION = 'llmkb-method-v2' as const;

export interface RoleDef {
  /** As named in the config, in a study and on the command line: `model`, `judge`, `distractor`, ... */
  id: string;
  kind: ModelKind;
  /** A required role with no model is an error at start-up; an optional one has a fallback. */
  required: boolean;
  description: string;
  /** What is used when an optional role has no model, and how that is recorded. */
  fallback?: string;
  /** A text-generation role whose calls can go through a Batch API in `llmkb sweep --batch` (latency does not matter). */
  batchable?: boolean;
}

/** A method's input item: anything with a unique id. */
export interface MethodItem {
  id: string;
}

/** What `check` gets. */
export interface CheckContext {
  /** The method's options, already checked against `options`. */
  options: Record<string, unknown>;
  /** Executors by role id (an optional role without a model is absent). */
  roles: Readonly<Record<string, ModelExecutor>>;
  /** The settings that will run. */
  settings: readonly string[];
  quick: boolean;
}

/** What `prepare` gets: the method's options, the run's roles and the places the user gave. */
export interface PrepareContext {
  /** The settings that will run (a method may need some inputs only for some settings). */
  settings: readonly string[];
  /** The method's options, already checked against `optionsSchema`. */
  options: Record<string, unknown>;
  /** Executors by role id (an optional role without a model is absent). */
  roles: Readonly<Record<string, ModelExecutor>>;
  seed: number;
  /** A small subset for a quick look (the method says what "quick" is, and records it). */
  quick: boolean;
  /** Where downloads and built data are cached. */
  cacheDir: string;
  /** Relative paths of the options are read from here (a study file's folder, else the working directory). */
  baseDir: string;
  /** The store's database, where the corpora of `llmkb corpus add` live (a method reading evidence opens one from it). */
  db?: Db;
  log: (line: string) => void;
}

/** A method's inputs for its runs: the same for every setting of one evaluation. */
export interface PreparedInputs {
  items: readonly MethodItem[];
  /** Checksums of what the items and the method's other inputs were read from (the summary's `datasetChecksums`). */
  datasets: Record<string, string>;
  /** Anything else the stages need (few-shot repositories, demonstration pools, evidence sources). */
  context?: unknown;
  /** A note for the run header (e.g. "50 seen + 50 unseen questions, quick"). */
  note?: string;
}

/** The run a stage works in, and everything it may use. */
export interface StageContext {
  /** The run in the store: a stage reads the previous stage's records by id and saves its own (`runStoredStage`), so a run resumes. */
  run: Run;
  /** The run's items, in order. */
  items: readonly MethodItem[];
  /** `PreparedInputs.context`. */
  context: unknown;
  options: Record<string, unknown>;
  /** Executors by role id (an optional role without a model is absent). */
  roles: Readonly<Record<string, ModelExecutor>>;
  setting: string;
  seed: number;
  progress?: ProgressOptions;
  log: (line: string) => void;
}

export interface StageDef {
  id: string;
  description: string;
  /** Runs the stage resumably: items with a stored record are skipped, a stage marked done returns at once. */
  run(ctx: StageContext): Promise<void>;
}

/** What a run's summary is made from. */
export interface SummarizeContext {
  run: Run;
  /** The run's output records, streamed once in item order; the runner writes the records file from the same stream. */
  records: Iterable<object>;
  /** The prepared inputs when the run was just made; undefined for a run read back from the store alone. */
  prepared?: {
    items: readonly MethodItem[];
    context: unknown;
    options: Record<string, unknown>;
    roles: Readonly<Record<string, ModelExecutor>>;
    quick: boolean;
  };
  /** The run label (model name in tables). */
  model: string;
  modelIdentity: string;
  setting: string;
  seed: number;
  runId: string;
  datasetChecksums: Record<string, string>;
  /** `--limit N`: the run is a seeded sample of `n` of `of` items. */
  limit?: { n: number; of: number };
  meta?: RunMeta;
  /** Bootstrap resamples for the intervals (default 1000). */
  resamples?: number;
}

/** What `plan` knows of a run that has not run yet (or only partly). */
export interface PlanContext {
  options: Record<string, unknown>;
  setting: string;
  quick: boolean;
  limit?: number;
  /** Role ids the study gives a model (the model under test included). */
  roles: ReadonlySet<string>;
  /** The model's knowledge cutoff as the study gives it (YYYY, YYYY-MM or YYYY-MM-DD). */
  knowledgeCutoff?: string;
  label: string;
  /** The run's stages in the store, if it has started: records done and whether each is finished. */
  stages?: ReadonlyMap<string, { records: number; done: boolean }>;
  baseDir: string;
}

export interface PlanEstimate {
  /** Items a run reads (null: unknown until its inputs are built). */
  items: number | null;
  /** Calls still to pay for per role, with typical tokens in and out; null when unknown. */
  calls: Record<string, { calls: number; in: number; out: number }> | null;
  /** How the estimate was made (its assumptions), said once under the plan. */
  how: string;
  /** What the reader must know about this run before paying for it. */
  warnings?: string[];
}

/** A summary, and what of each record the report needs (kept small: the report's significance marks and examples). */
export interface SummarizedRun {
  summary: MethodSummary;
  reportRecords?: readonly object[];
}

/** An option of the method for `llmkb eval` (and, by its key, a study's `methods:` entry). */
export interface MethodOption {
  /** Key in the options object and in a study file, e.g. `mcqs`. */
  key: string;
  /** Commander flags, e.g. `--mcqs <n>`. */
  flags: string;
  description: string;
  /** Parses a command-line value (throw commander's InvalidArgumentError on a bad one). */
  parse?: (value: string) => unknown;
  /** The JSON type a study file gives (checked before any work). */
  type: 'string' | 'number' | 'integer' | 'boolean' | 'string[]';
  /**
   * A path, relative to the study file's folder or the working directory; `llmkb eval` checks it
   * before any work: an input file or folder must exist, an output folder must be writable.
   */
  path?: 'input-file' | 'input-folder' | 'output-folder' | 'any';
  /** Documented default, applied by the method. */
  defaultValue?: unknown;
  /** The method cannot run without it (checked with the options, before any model loads). */
  required?: boolean;
  /** Allowed values. */
  choices?: readonly string[];
  /** The least value of a number. */
  min?: number;
  /** The largest value of a number. */
  max?: number;
}

export interface EvaluationMethod {
  readonly interfaceVersion: typeof METHOD_INTERFACE_VERSION;
  /** Stable id, e.g. `exact-match`. */
  readonly id: string;
  /** Version of the method's implementation; a change that moves numbers bumps it. */
  readonly version: string;
  readonly title: string;
  /** The publication the method implements. */
  readonly paper: string;
  /** Who defined the metrics, short, for report captions. */
  readonly citation?: string;
  /** What an item of its runs is, in the plural, for messages (e.g. "questions"); default "items". */
  readonly itemsNoun?: string;
  readonly roles: readonly RoleDef[];
  /** Roles its own commands use besides its runs' (e.g. the question writer of a data command): the config may name them. */
  readonly commandRoles?: readonly RoleDef[];
  /** The variants a run can use (e.g. prompt settings), in display order; the first is the default. */
  readonly settings?: readonly string[];
  /** The method's options (`llmkb eval` flags, a study's `methods:` entry). */
  readonly options?: readonly MethodOption[];
  readonly stages: readonly StageDef[];
  readonly metricDefs: readonly MetricDef[];
  /** Protocol choices a run records, in display order, with their titles. */
  readonly protocolChoices?: Readonly<Record<string, string>>;
  /** The docs page (and anchor) that explains each protocol choice, its default and what it changes, relative to docs/ (e.g. `reliability.md#how-close-to-the-paper-is-a-run`). */
  readonly protocolDocs?: string;
  /** Protocol choices that differ between settings by design (not flagged when runs of several settings are shown together). */
  readonly protocolPerSetting?: readonly string[];
  /** Protocol choices one study shares across all its runs: `llmkb merge` refuses shards that differ in one. */
  readonly protocolShared?: readonly string[];
  /**
   * Which of the method's tables a run belongs in, when it has several (CONNER: one per task, as
   * the paper's Tables 2 and 3): runs in different tables are not compared with each other, so
   * their labels may repeat and their question sets differ. Default: one table.
   */
  tableOf?(summary: MethodSummary): string;

  /**
   * Checks the options against the roles' models before any call (e.g. a token budget against a
   * context window): called with the roles known so far before `prepare`, and with every role
   * before each run.
   */
  check?(ctx: CheckContext): void;
  /** Reads or builds the method's inputs. */
  prepare(ctx: PrepareContext): Promise<PreparedInputs>;
  /**
   * `--limit n`: which n of the items a run reads, a seeded sample kept in item order (default
   * `limitItems`: split between the items' `dataset` groups in proportion).
   */
  limitItems?(items: readonly MethodItem[], n: number, seed: number): MethodItem[] | Promise<MethodItem[]>;
  /**
   * What else makes a run's results what they are, besides model, items, setting and seed (max
   * tokens, the judge's identity, ...): part of the run's id, so changing one starts another run.
   */
  runParams(ctx: {
    options: Record<string, unknown>;
    roles: Readonly<Record<string, ModelExecutor>>;
    setting: string;
    quick: boolean;
    context: unknown;
  }): Record<string, unknown>;
  /**
   * Words a run's result file names carry, besides label, setting, `quick` and `limit-N`, for the
   * choices that make its results differ from the method's default run (e.g. `mcqs-2`, the name
   * of the user's own question file): two runs of one label that differ in one never overwrite
   * each other's files. Each word is a file-name-safe `[a-z0-9-]` string.
   */
  resultTags?(ctx: { options: Record<string, unknown>; items: readonly MethodItem[]; quick: boolean; context: unknown }): string[];
  /** The run's output records (the records file), in item order, read from the store one at a time. */
  outputRecords(run: Run): Promise<Iterable<object>>;
  /** The summary (schema v2) from the output records. */
  summarize(ctx: SummarizeContext): Promise<SummarizedRun>;
  /**
   * What a run still costs, for `llmkb sweep --plan`: an estimate of the calls (and typical tokens)
   * per role for the items a run has not done yet, without loading a model or building an input.
   */
  plan?(ctx: PlanContext): PlanEstimate;

  /** How its runs are shown: compare, report, viewer, the CLI's table. Loaded when first needed. */
  presentation?(): Promise<MethodPresentation>;
  /** Its own CLI subcommands (e.g. the steps of a pipeline one at a time). */
  cli?: MethodCli;
}

export type { ComparedRun, CompareOutput, MethodPresentation, MethodReportContext, MethodView, ViewItem, ViewItemField } from './method-presentation.js';
