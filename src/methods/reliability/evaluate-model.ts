/**
 * The main job: for one model and each prompt setting, ask -> judge -> consistency -> metrics,
 * all inside one resumable run per setting, then one report over the settings.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ANSWER_MAX_TOKENS, datasetChecksum, runAskStage, shotsFromIds, type AskedRecord, type PromptSetting } from './asking/ask-questions.js';
import { compareAnswerModes, consistencyRecordOf, DEFAULT_ANSWER_MODE, MODE_AGREEMENT_SAMPLE, runConsistencyStage, type ConsistencyRecord } from './consistency/consistency-stage.js';
import type { AnswerMode } from './consistency/mcq.js';
import { buildRepositoryFiles, buildSeenQAFiles, buildUnseenQAFiles, DATASET_FILES } from './data/build-datasets.js';
import { readQAItems, type QAItem } from './data/qa-item.js';
import { sha256 } from '../../io/checksum.js';
import { writeFileAtomic } from '../../io/files.js';
import { DataSourceError } from './data/source-files.js';
import { fileAccessError, LlmkbError } from '../../errors.js';
import { SeededRandom } from '../../sampling/seeded-random.js';
import type { Accounting, ModelExecutor } from '../../executor/model-executor.js';
import { runJudgeStage } from './judging/judge-records.js';
import { LEXICAL_JUDGE_AGREEMENT, LEXICAL_JUDGE_ID } from './judging/lexical-match.js';
import { JUDGE_REPLY_UNPARSEABLE, ResponseJudge, type JudgedRecord } from './judging/judge-response.js';
import type { ExecutionRecord } from '../method-summary.js';
import { summarizeRun, type RunMeta, type RunSummary, type ScoredRecord } from './metrics/summarize-run.js';

export type { ExecutionRecord };
import { Bm25ShotSelector, EmbeddingShotSelector, type ShotSelector } from './prompts/shot-selector.js';
import { renderReport } from '../../report/html-report.js';
import { exampleRecords } from './across-models/run-details.js';
import type { ProgressOptions } from '../../progress/progress.js';
import type { Run, RunStore } from '../../store/run-store.js';
import { VERSION } from '../../version.js';
import { limitItems } from '../../sampling/limit-items.js';
import { resultFileStem } from '../../io/result-file-stem.js';
import { describeRuntime } from '../../providers/language-model.js';
import { buildProtocol, type TimeFilterProvenance } from './protocol.js';
import { meetsThreshold } from '../../analysis/thresholds.js';

export { DEFAULT_MODEL } from './defaults.js';

/** The lexical fallback judge and its measured agreement with human labels (README, "Asking and judging"). */
const LEXICAL_JUDGE = {
  id: LEXICAL_JUDGE_ID,
  note: `labels agree with humans ${LEXICAL_JUDGE_AGREEMENT.agreement.toFixed(3)} on ${LEXICAL_JUDGE_AGREEMENT.dataset} (Cohen's kappa ${LEXICAL_JUDGE_AGREEMENT.kappa.toFixed(2)}, ${LEXICAL_JUDGE_AGREEMENT.responses} human-labelled answers)`,
};

export interface EvaluationOptions {
  model: ModelExecutor;
  /**
   * The run's label: how the model is shown in tables and what its result files are named by
   * (`--name`; by default the whole model spec, see `defaultRunLabel`).
   */
  modelName: string;
  /** The command line that started the run, for its execution record. */
  command?: string;
  judge?: ModelExecutor;
  distractor?: ModelExecutor;
  embedder?: ModelExecutor;
  settings: PromptSetting[];
  runs: RunStore;
  /** Folder with (or for) the data sets; results go to `<outDir>`. */
  dataDir: string;
  outDir: string;
  /** Source files for building missing data sets (else downloaded into cacheDir). */
  sourceDataDir?: string;
  cacheDir: string;
  seed: number;
  /** Small seeded subset: `quick.seen` + `quick.unseen` questions, `quick.mcqs` MCQs. */
  quick?: { seen: number; unseen: number; mcqs: number };
  /**
   * `--limit N`: a seeded sample of N questions (see limit-items.ts), after `quick`. A run of its
   * own (another run id), recorded as an approximation in the protocol block; its result files
   * are named `<label>.<setting>.limit-N.*` and its report `report.limit-N.html`, so a quick
   * look never overwrites a full run's results.
   */
  limit?: number;
  mcqs?: number;
  maxTokens?: number;
  mode?: AnswerMode;
  cutoff?: string;
  meta?: RunMeta;
  log?: (line: string) => void;
  /** How the stages show their progress (e.g. whole lines, for runs side by side in `llmkb sweep`). */
  progress?: ProgressOptions;
}

export interface EvaluationResult {
  summaries: RunSummary[];
  reportFile: string;
  summaryFiles: string[];
  executions: ExecutionRecord[];
}

/**
 * Offline, `llmkb eval --quick` cannot download the default model or the data sources: the two
 * ways out, named whichever download failed first.
 */
export const OFFLINE_HINT =
  'Offline? llmkb eval needs a model and the source files of the data sets: pass a local model with --model gguf:PATH (a .gguf file) and a folder with local copies of the source files with --data-dir DIR (or LLMKB_DATA_DIR); otherwise check the network.';

async function ensureDatasets(options: EvaluationOptions): Promise<void> {
  try {
    await buildMissingDatasets(options);
  } catch (error) {
    if (error instanceof DataSourceError && options.sourceDataDir === undefined) throw new DataSourceError(error.message, { hint: `${error.hint ?? ''} ${OFFLINE_HINT}`.trim(), exitCode: error.exitCode, cause: error });
    throw error;
  }
}

async function buildMissingDatasets(options: EvaluationOptions): Promise<void> {
  const need = Object.values(DATASET_FILES).filter((f) => !existsSync(join(options.dataDir, f)));
  if (need.length === 0) return;
  options.log?.(`building data sets in ${options.dataDir} (missing: ${need.join(', ')})`);
  const base = { outDir: options.dataDir, seed: options.seed, cacheDir: options.cacheDir, ...(options.sourceDataDir ? { dataDir: options.sourceDataDir } : {}) };
  if (!existsSync(join(options.dataDir, DATASET_FILES.seenqa))) await buildSeenQAFiles({ ...base, perSource: 1000, ...(options.judge ? { timeSensitiveExecutor: options.judge } : {}) });
  if (!existsSync(join(options.dataDir, DATASET_FILES.unseenqa))) await buildUnseenQAFiles({ ...base, ...(options.cutoff ? { cutoff: options.cutoff } : {}) });
  await buildRepositoryFiles({ ...base, ...(options.cutoff ? { cutoff: options.cutoff } : {}) });
}

/** A run's label when none is given: the whole model spec, so two models never share one. */
export function defaultRunLabel(spec: string): string {
  return spec;
}

/** The time filter SeenQA was built with, from its machine-readable card. */
function timeFilterOf(dataDir: string): TimeFilterProvenance | undefined {
  const card = join(dataDir, DATASET_FILES.seenqa.replace(/\.jsonl$/, '.card.json'));
  if (!existsSync(card)) return undefined;
  try {
    return (JSON.parse(readFileSync(card, 'utf8')) as { timeFilter?: TimeFilterProvenance }).timeFilter;
  } catch {
    return undefined; // an unreadable card: the protocol says the time filter is unknown
  }
}

/**
 * The records file, written as `toJsonl` would (one JSON line per record) but streamed in
 * chunks as the records come, never as one string the size of the file, and atomically (a
 * temporary file renamed).
 */
function writeJsonlAtomic(file: string, records: Iterable<unknown>): void {
  const tmp = `${file}.tmp-${process.pid}`;
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'w');
    let chunk = '';
    for (const r of records) {
      chunk += `${JSON.stringify(r)}\n`;
      if (chunk.length >= 1 << 20) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    if (chunk) writeSync(fd, chunk);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    throw error instanceof LlmkbError ? error : fileAccessError(file, error, 'write');
  }
}

/**
 * What the summary and the report read of every scored record: the fields of the metrics, the
 * breakdowns and the significance marks (issue 13: about 130 bytes a question, with the repeated
 * strings shared; 280 bytes with the texts on the bench's short records). The question, first
 * accepted answer and response the report shows are added afterwards to the few records it shows
 * as examples (withExampleTexts); the rest of a record (raw output, judge decision, MCQs) stays
 * in the records file and the store.
 */
function summaryFields(r: ConsistencyRecord, shared: Map<string, string>): ScoredRecord {
  const one = <T extends string | null | undefined>(s: T): T => {
    if (typeof s !== 'string') return s;
    const known = shared.get(s);
    if (known !== undefined) return known as T;
    shared.set(s, s);
    return s;
  };
  return {
    id: r.id,
    dataset: one(r.dataset),
    source: one(r.source),
    answerType: one(r.answerType),
    label: one(r.label),
    uninformativeType: one(r.uninformativeType),
    consistency: r.consistency,
    ...(r.approximate === undefined ? {} : { approximate: r.approximate }),
  };
}

/** The report's example records (exampleRecords) with their question, first accepted answer and response, read back from the store. */
function withExampleTexts(run: Run, scored: ScoredRecord[]): void {
  for (const r of exampleRecords(scored)) {
    const judged = run.record<JudgedRecord>('judge', r.id)!;
    Object.assign(r, { question: judged.question, answers: judged.answers.slice(0, 1), response: judged.response });
  }
}

/**
 * The run's output records (judged records with their Cons(q, r)), in item order, read from the
 * store one at a time.
 */
function* scoredRecords(run: Run, mode: AnswerMode): Generator<ConsistencyRecord> {
  for (const [, judged] of run.entries<JudgedRecord>('judge')) yield consistencyRecordOf(run, judged, mode);
}

function fileChecksum(file: string): string {
  return sha256(readFileSync(file));
}

function accountingDelta(now: Accounting, before: Accounting): ExecutionRecord['calls'][string] {
  return { calls: now.calls - before.calls, cacheHits: now.cacheHits - before.cacheHits, requests: now.requests - before.requests, promptTokens: now.promptTokens - before.promptTokens, completionTokens: now.completionTokens - before.completionTokens };
}

export async function evaluateModel(options: EvaluationOptions): Promise<EvaluationResult> {
  await ensureDatasets(options);
  const seen = readQAItems(join(options.dataDir, DATASET_FILES.seenqa));
  const unseen = readQAItems(join(options.dataDir, DATASET_FILES.unseenqa));
  const rSeen = readQAItems(join(options.dataDir, DATASET_FILES.rSeen));
  const rUnseen = readQAItems(join(options.dataDir, DATASET_FILES.rUnseen));
  let items: QAItem[] = [...seen, ...unseen];
  if (options.quick) {
    items = [...SeededRandom.stream(options.seed, 'quick', 'seen').sample(seen, options.quick.seen), ...SeededRandom.stream(options.seed, 'quick', 'unseen').sample(unseen, options.quick.unseen)];
  }
  const unlimited = items.length;
  const limited = options.limit !== undefined && options.limit < unlimited;
  if (limited) {
    items = limitItems(items, options.limit!, options.seed);
    options.log?.(`--limit ${options.limit}: ${items.length} of ${unlimited} questions (a seeded sample; a run of its own, results named *.limit-${options.limit}.*)`);
  }
  const suffix = limited ? `.limit-${options.limit}` : '';
  const mcqs = options.quick?.mcqs ?? options.mcqs ?? 20;
  const mode = options.mode ?? DEFAULT_ANSWER_MODE;
  const maxTokens = options.maxTokens ?? ANSWER_MAX_TOKENS;
  const selector: ShotSelector = options.embedder ? new EmbeddingShotSelector(options.embedder, rSeen, rUnseen) : new Bm25ShotSelector(rSeen, rUnseen);
  const judge = new ResponseJudge(options.judge ? { judge: options.judge } : {});
  const checksums = { questions: datasetChecksum(items) };
  const datasets = { questions: checksums.questions, ...Object.fromEntries(Object.values(DATASET_FILES).map((f) => [f, fileChecksum(join(options.dataDir, f))])) };
  const timeFilter = timeFilterOf(options.dataDir);
  const runtime = options.model.model.runtime;
  const roles = { model: options.model, judge: options.judge, distractor: options.distractor, embedder: options.embedder };
  mkdirSync(options.outDir, { recursive: true });
  const summaries: RunSummary[] = [];
  const scoredBySetting: object[][] = [];
  const summaryFiles: string[] = [];
  const executions: ExecutionRecord[] = [];
  for (const setting of options.settings) {
    const startedAt = new Date().toISOString();
    const before = Object.fromEntries(Object.entries(roles).filter(([, e]) => e).map(([role, e]) => [role, { ...e!.accounting }]));
    const replicasBefore = Object.fromEntries(Object.entries(roles).filter(([, e]) => e && e.endpointStats().length > 1).map(([role, e]) => [role, e!.endpointStats()]));
    const run = options.runs.open({
      model: options.model.model.cacheIdentity,
      dataset: checksums.questions,
      setting,
      seed: options.seed,
      params: {
        kind: 'eval',
        maxTokens,
        shots: setting === 'zero-shot' ? 'none' : selector.id,
        judge: options.judge?.model.cacheIdentity ?? LEXICAL_JUDGE_ID,
        distractor: options.distractor?.model.cacheIdentity ?? 'pool',
        mcqs,
        mode,
        // Only when limited, so the ids of full runs stay what they were (resumable).
        ...(limited ? { limit: options.limit } : {}),
      },
      label: options.modelName,
    });
    options.log?.(`${options.modelName} · ${setting} · run ${run.id} · ${runtime ? describeRuntime(runtime) : 'server'}`);
    // Every stage's records go to the store as they finish and are read back one at a time by
    // the next stage and by the pass that writes the records file: memory does not grow with
    // the number of questions (issue 13).
    await runAskStage({ items, executor: options.model, setting, seed: options.seed, selector, maxTokens, runs: options.runs, run, label: options.modelName, ...(options.progress ? { progress: options.progress } : {}) });
    const loadAsked = (id: string): AskedRecord => run.record<AskedRecord>('ask', id)!;
    await runJudgeStage({ records: { ids: items.map((i) => i.id), load: loadAsked, loadMany: (ids) => run.recordsByIds<AskedRecord>('ask', ids) }, judge, judgeIdentity: options.judge?.model.cacheIdentity ?? LEXICAL_JUDGE_ID, ...(options.judge ? { judgeExecutor: options.judge } : {}), runs: options.runs, run, ...(options.progress ? { progress: options.progress } : {}) });
    const loadJudged = (id: string): JudgedRecord => run.record<JudgedRecord>('judge', id)!;
    // A judged record carries its asked record's fields, the ids of its shots among them.
    const shotsFor = (r: JudgedRecord) => shotsFromIds((r as JudgedRecord & Pick<AskedRecord, 'shots'>).shots, rSeen, rUnseen);
    await runConsistencyStage({ judged: (function* () {
      for (const [, r] of run.entries<JudgedRecord>('judge')) yield r;
    })(), load: loadJudged, loadMany: (ids) => run.recordsByIds<JudgedRecord>('judge', ids), executor: options.model, ...(options.distractor ? { distractor: options.distractor } : {}), mode, mcqs, seed: options.seed, shotsFor, runs: options.runs, run, ...(options.progress ? { progress: options.progress } : {}) });
    const agreement = await compareAnswerModes({ run, executor: options.model, records: (id) => run.record<JudgedRecord>('judge', id), shotsFor, sample: MODE_AGREEMENT_SAMPLE, seed: options.seed });
    if (agreement) options.log?.(`${setting}: ${mode} and the other answer mode chose the same option in ${agreement.agree}/${agreement.mcqs} sampled MCQs (${(100 * agreement.rate).toFixed(1)}%)`);
    // One pass over the records: the records file is written as they are read, and only what
    // the summary and the report need of each is kept.
    const base = join(options.outDir, `${resultFileStem(options.modelName)}.${setting}${suffix}`);
    const scored: ScoredRecord[] = [];
    const shared = new Map<string, string>();
    let lexicalFallbacks = 0;
    writeJsonlAtomic(`${base}.records.jsonl`, (function* () {
      for (const r of scoredRecords(run, mode)) {
        if (r.judgedBy === JUDGE_REPLY_UNPARSEABLE) lexicalFallbacks++;
        scored.push(summaryFields(r, shared));
        yield r;
      }
    })());
    withExampleTexts(run, scored);
    const protocol = buildProtocol({
      setting,
      ...(options.judge ? { judge: options.judge.model.cacheIdentity } : {}),
      lexicalJudge: LEXICAL_JUDGE,
      // From the records, not this process's judge calls: a resumed run reads them back from the store.
      lexicalFallbacks,
      ...(timeFilter ? { timeFilter } : {}),
      ...(options.distractor ? { distractor: options.distractor.model.cacheIdentity } : {}),
      shotSelector: selector.id,
      mode,
      ...(options.quick ? { quick: options.quick } : {}),
      ...(limited ? { limit: { n: options.limit!, of: unlimited } } : {}),
      questions: { seen: items.filter((i) => i.dataset === 'seen').length, unseen: items.filter((i) => i.dataset === 'unseen').length },
      mcqs,
      maxTokens,
      ...(runtime ? { sequences: runtime.sequences } : {}),
      computeBackend: runtime?.backend ?? 'server',
      datasets,
      seed: options.seed,
    });
    const summary = summarizeRun(scored, { model: options.modelName, modelIdentity: options.model.model.cacheIdentity, setting, datasetChecksums: checksums, seed: options.seed, runId: run.id, protocol, ...(options.meta ? { meta: options.meta } : {}) });
    const execution: ExecutionRecord = {
      schema: 'llmkb-execution-v1',
      runId: run.id,
      label: options.modelName,
      setting,
      ...(options.command ? { command: options.command } : {}),
      startedAt,
      finishedAt: new Date().toISOString(),
      llmkbVersion: VERSION,
      node: process.version,
      calls: Object.fromEntries(Object.entries(before).map(([role, b]) => [role, accountingDelta(roles[role as keyof typeof roles]!.accounting, b)])),
      ...(Object.keys(replicasBefore).length
        ? {
            replicas: Object.fromEntries(
              Object.entries(replicasBefore).map(([role, b]) => [role, roles[role as keyof typeof roles]!.endpointStats().map((e, i) => ({ url: e.url, served: e.served - b[i]!.served, failed: e.failed - b[i]!.failed, trips: e.trips - b[i]!.trips }))]),
            ),
          }
        : {}),
    };
    writeFileAtomic(`${base}.summary.json`, `${JSON.stringify(summary, null, 2)}\n`);
    writeFileAtomic(`${base}.run.json`, `${JSON.stringify(execution, null, 2)}\n`);
    summaryFiles.push(`${base}.summary.json`);
    summaries.push(summary);
    scoredBySetting.push(scored);
    executions.push(execution);
  }
  const reportFile = join(options.outDir, `report${suffix}.html`);
  writeFileAtomic(reportFile, await renderReport(summaries, { title: `llmkb report: ${options.modelName}`, executions, records: scoredBySetting }));
  return { summaries, reportFile, summaryFiles, executions };
}

/** `--fail-under NCCR=0.2`: the metrics below their threshold (an undefined metric fails too). */
export function failedThresholds(summaries: readonly RunSummary[], thresholds: ReadonlyArray<{ metric: string; value: number }>): string[] {
  const failures: string[] = [];
  for (const s of summaries) {
    for (const t of thresholds) {
      const v = s.metrics[t.metric as keyof typeof s.metrics];
      if (!meetsThreshold(v, t.value)) failures.push(`${t.metric} = ${typeof v === 'number' ? v.toFixed(4) : 'undefined'} < ${t.value} (${s.model}, ${s.setting})`);
    }
  }
  return failures;
}
