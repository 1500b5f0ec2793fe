/**
 * The main job: for one model and each prompt setting, ask -> judge -> consistency -> metrics,
 * all inside one resumable run per setting, then one report over the settings.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ANSWER_MAX_TOKENS, askQuestions, datasetChecksum, shotsFromIds, type PromptSetting } from '../asking/ask-questions.js';
import { compareAnswerModes, defaultAnswerMode, MODE_AGREEMENT_SAMPLE, runConsistency } from '../consistency/consistency-stage.js';
import type { AnswerMode } from '../consistency/mcq.js';
import { buildRepositoryFiles, buildSeenQAFiles, buildUnseenQAFiles, DATASET_FILES } from '../data/build-datasets.js';
import { readQAItems, toJsonl, writeFileAtomic, type QAItem } from '../data/qa-item.js';
import { SeededRandom } from '../data/seeded-random.js';
import type { ModelExecutor } from '../executor/model-executor.js';
import { judgeRecords } from '../judging/judge-records.js';
import { ResponseJudge, type JudgedRecord } from '../judging/judge-response.js';
import { summarizeRun, type RunMeta, type RunSummary } from '../metrics/summarize-run.js';
import { Bm25ShotSelector, EmbeddingShotSelector, type ShotSelector } from '../prompts/shot-selector.js';
import { renderReport } from '../report/html-report.js';
import type { RunStore } from '../store/run-store.js';

export const DEFAULT_MODEL = 'hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M';

export interface EvaluationOptions {
  model: ModelExecutor;
  /** How the model is shown in tables (the spec string by default). */
  modelName: string;
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
  mcqs?: number;
  maxTokens?: number;
  mode?: AnswerMode;
  cutoff?: string;
  meta?: RunMeta;
  log?: (line: string) => void;
}

export interface EvaluationResult {
  summaries: RunSummary[];
  reportFile: string;
  summaryFiles: string[];
}

async function ensureDatasets(options: EvaluationOptions): Promise<void> {
  const need = Object.values(DATASET_FILES).filter((f) => !existsSync(join(options.dataDir, f)));
  if (need.length === 0) return;
  options.log?.(`building data sets in ${options.dataDir} (missing: ${need.join(', ')})`);
  const base = { outDir: options.dataDir, seed: options.seed, cacheDir: options.cacheDir, ...(options.sourceDataDir ? { dataDir: options.sourceDataDir } : {}) };
  if (!existsSync(join(options.dataDir, DATASET_FILES.seenqa))) await buildSeenQAFiles({ ...base, perSource: 1000, ...(options.judge ? { timeSensitiveExecutor: options.judge } : {}) });
  if (!existsSync(join(options.dataDir, DATASET_FILES.unseenqa))) await buildUnseenQAFiles({ ...base, ...(options.cutoff ? { cutoff: options.cutoff } : {}) });
  await buildRepositoryFiles({ ...base, ...(options.cutoff ? { cutoff: options.cutoff } : {}) });
}

function slug(text: string): string {
  return text.replace(/^.*[\\/]/, '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 80) || 'model';
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
  const mcqs = options.quick?.mcqs ?? options.mcqs ?? 20;
  const mode = options.mode ?? defaultAnswerMode(options.model);
  const selector: ShotSelector = options.embedder ? new EmbeddingShotSelector(options.embedder, rSeen, rUnseen) : new Bm25ShotSelector(rSeen, rUnseen);
  const judge = new ResponseJudge(options.judge ? { judge: options.judge } : {});
  const checksums = { questions: datasetChecksum(items) };
  mkdirSync(options.outDir, { recursive: true });
  const summaries: RunSummary[] = [];
  const summaryFiles: string[] = [];
  for (const setting of options.settings) {
    const run = options.runs.open({
      model: options.model.model.cacheIdentity,
      dataset: checksums.questions,
      setting,
      seed: options.seed,
      params: {
        kind: 'eval',
        maxTokens: options.maxTokens ?? ANSWER_MAX_TOKENS,
        shots: setting === 'zero-shot' ? 'none' : selector.id,
        judge: options.judge?.model.cacheIdentity ?? 'lexical-v2',
        distractor: options.distractor?.model.cacheIdentity ?? 'pool',
        mcqs,
        mode,
      },
      label: options.modelName,
    });
    options.log?.(`${options.modelName} · ${setting} · run ${run.id}`);
    const { records: asked } = await askQuestions({ items, executor: options.model, setting, seed: options.seed, selector, maxTokens: options.maxTokens ?? ANSWER_MAX_TOKENS, runs: options.runs, run, label: options.modelName });
    const { records: judged } = await judgeRecords({ records: asked, judge, judgeIdentity: options.judge?.model.cacheIdentity ?? 'lexical-v2', runs: options.runs, run });
    const byId = new Map(asked.map((a) => [a.id, a]));
    const shotsFor = (r: JudgedRecord) => shotsFromIds(byId.get(r.id)?.shots, rSeen, rUnseen);
    const { records: scored } = await runConsistency({ records: judged, executor: options.model, ...(options.distractor ? { distractor: options.distractor } : {}), mode, mcqs, seed: options.seed, shotsFor, runs: options.runs, run });
    const agreement = await compareAnswerModes({ run, executor: options.model, records: judged, shotsFor, sample: MODE_AGREEMENT_SAMPLE, seed: options.seed });
    if (agreement) options.log?.(`${setting}: ${mode} and the other answer mode chose the same option in ${agreement.agree}/${agreement.mcqs} sampled MCQs (${(100 * agreement.rate).toFixed(1)}%)`);
    const summary = summarizeRun(scored, { model: options.modelName, modelIdentity: options.model.model.cacheIdentity, setting, datasetChecksums: checksums, seed: options.seed, runId: run.id, ...(options.meta ? { meta: options.meta } : {}) });
    const base = join(options.outDir, `${slug(options.modelName)}.${setting}`);
    writeFileAtomic(`${base}.records.jsonl`, toJsonl(scored));
    writeFileAtomic(`${base}.summary.json`, `${JSON.stringify(summary, null, 2)}\n`);
    summaryFiles.push(`${base}.summary.json`);
    summaries.push(summary);
  }
  const reportFile = join(options.outDir, 'report.html');
  writeFileAtomic(reportFile, await renderReport(summaries, { title: `llmkb report: ${options.modelName}` }));
  return { summaries, reportFile, summaryFiles };
}

/** `--fail-under NCCR=0.2`: the metrics below their threshold (an undefined metric fails too). */
export function failedThresholds(summaries: readonly RunSummary[], thresholds: ReadonlyArray<{ metric: string; value: number }>): string[] {
  const failures: string[] = [];
  for (const s of summaries) {
    for (const t of thresholds) {
      const v = s.metrics[t.metric as keyof typeof s.metrics];
      if (v === null || v === undefined || v < t.value) failures.push(`${t.metric} = ${v === null || v === undefined ? 'undefined' : v.toFixed(4)} < ${t.value} (${s.model}, ${s.setting})`);
    }
  }
  return failures;
}
