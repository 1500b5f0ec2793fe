/**
 * The consistency stage: for every response labelled correct or wrong, distractors, X MCQs,
 * the model's choices, and Cons(q, r) (paper Eq. 4). Every MCQ (options, the response's letter,
 * the raw output, how it was parsed) is kept in the run store; the output records carry the score.
 */
import { checksumOfLines } from '../../../io/checksum.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import { PromptPrefix } from '../../../executor/call-params.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import type { JudgedRecord } from '../judging/judge-response.js';
import type { Shot } from '../prompts/paper-prompts.js';
import type { ProgressOptions } from '../../../progress/progress.js';
import { runStage, runStoredStage } from '../../../store/run-stage.js';
import type { Run, RunStore } from '../../../store/run-store.js';
import { RELIABILITY_METHOD } from '../metrics/metric-defs.js';
import { openMethodRun } from '../../open-run.js';
import { AnswerPool, distractorsFor, type DistractorSet } from './distractors.js';
import type { ModeAgreement } from './mode-agreement.js';
import { answerMcq, buildMcqs, consistencyScore, MAX_OPTION_CHARS, MCQ_OPTIONS, mcqPrompt, mcqPromptPrefix, type AnsweredMcq, type AnswerMode } from './mcq.js';

export type ConsistencyRecord = JudgedRecord & {
  /** Cons(q, r) in [0, 1] for correct and wrong responses; null for uninformative ones. */
  consistency: number | null;
  consistencyDetail?: {
    mcqs: number;
    choseResponse: number;
    choseUnsure: number;
    invalid: number;
    distractorSource: string;
    toppedUp: number;
    mode: AnswerMode;
    /** MCQs with fewer than the paper's 5 options (fewer than 3 distractors were found for the response). */
    fewerOptions?: number;
    /** Cache keys of the distractor call (when an LLM wrote them) and of each MCQ's call, in MCQ order. */
    callKeys?: { distractors?: string; mcqs: string[] };
  };
};

interface StageRecord {
  consistency: number | null;
  mode?: AnswerMode;
  distractors?: DistractorSet;
  mcqs?: AnsweredMcq[];
  evaluatedTokens?: number;
}

export interface ConsistencyDiagnostics {
  pairs: number;
  distractorRepliesWithoutSeparator: number;
  distractorRepliesOverTwenty: number;
  distractorRepliesWithTheResponse: number;
  distractorRepliesEmpty: number;
  pairsToppedUpFromPool: number;
  mcqs: number;
  invalidAnswers: number;
  optionsShortened: number;
  tokensEvaluatedPerMcq: number;
}

export interface ConsistencyOptions {
  records: readonly JudgedRecord[];
  executor: ModelExecutor;
  distractor?: ModelExecutor;
  mode?: AnswerMode;
  mcqs?: number;
  seed: number;
  /** The shots of the record's QA prompt (same setting); none by default. */
  shotsFor?: (record: JudgedRecord) => Shot[];
  runs: RunStore;
  run?: Run;
  progress?: ProgressOptions;
  concurrency?: number;
}

/**
 * The paper answers MCQs by generating and parsing the letter, so that is the default for every
 * model; `logprobs` (one forward pass, faster) is an opt-in that the run's protocol records as a
 * departure.
 */
export const DEFAULT_ANSWER_MODE: AnswerMode = 'generate';

export function answerPoolFrom(records: readonly JudgedRecord[]): AnswerPool {
  const pool = new AnswerPool();
  for (const r of records) addToPool(pool, r);
  return pool;
}

function addToPool(pool: AnswerPool, r: JudgedRecord): void {
  if (r.dataset === 'seen' && r.answers[0]) pool.add(r.answers[0], r.answerType);
  if (r.label === 'correct' || r.label === 'wrong') pool.add(r.response, r.answerType);
}

function checksum(records: readonly JudgedRecord[]): string {
  return checksumOfLines(records, (r) => `${r.id}\u0000${r.question}\u0000${r.response}\u0000${r.label}`);
}

/** MCQs of one pair, asked one after another so the shared prompt prefix is reused. */
async function askPair(
  record: JudgedRecord,
  options: Omit<ConsistencyOptions, 'records' | 'runs'>,
  mode: AnswerMode,
  pool: AnswerPool,
  count: number,
): Promise<{ record: StageRecord; cached: boolean }> {
  const distractors = await distractorsFor({
    itemId: record.id,
    question: record.question,
    response: record.response,
    answers: record.answers,
    answerType: record.answerType,
    pool,
    seed: options.seed,
    ...(options.distractor ? { executor: options.distractor } : {}),
  });
  const { cached: distractorsCached, ...distractorSet } = distractors;
  const shots = options.shotsFor?.(record) ?? [];
  const mcqs = buildMcqs(record.id, record.response, distractorSet.distractors, count, options.seed);
  const answered: AnsweredMcq[] = new Array(mcqs.length);
  let cached = distractorsCached || !options.distractor;
  let evaluatedTokens = 0;
  // Asked in the lexical order of their prompts, so consecutive MCQs also share leading options
  // (more prefix to reuse); results are kept in MCQ order.
  const prompts = mcqs.map((mcq, i) => ({ i, prompt: mcqPrompt(record.question, mcq, shots) }));
  prompts.sort((a, b) => (a.prompt < b.prompt ? -1 : a.prompt > b.prompt ? 1 : a.i - b.i));
  // The text all of them start with, escaped for their cache keys once (see PromptPrefix).
  const prefix = new PromptPrefix(mcqPromptPrefix(record.question, shots));
  for (const { i, prompt } of prompts) {
    const r = await answerMcq(options.executor, prompt, mcqs[i]!, mode, prefix);
    answered[i] = r.answered;
    cached &&= r.cached;
    evaluatedTokens += r.evaluatedTokens;
  }
  return { record: { consistency: consistencyScore(answered), mode, distractors: distractorSet, mcqs: answered, evaluatedTokens }, cached };
}

export async function runConsistency(options: ConsistencyOptions): Promise<{ run: Run; records: ConsistencyRecord[]; diagnostics: ConsistencyDiagnostics }> {
  const mode = options.mode ?? DEFAULT_ANSWER_MODE;
  const count = options.mcqs ?? 20;
  const pool = answerPoolFrom(options.records);
  const run =
    options.run ??
    openMethodRun(
      options.runs,
      RELIABILITY_METHOD,
      {
        model: options.executor.model.cacheIdentity,
        dataset: checksum(options.records),
        setting: 'consistency',
        seed: options.seed,
        params: { mode, mcqs: count, distractor: options.distractor?.model.cacheIdentity ?? 'pool' },
        label: `consistency ${options.executor.model.modelId}`,
      },
      'consistency',
    );
  const pairs = options.records.filter((r) => r.label === 'correct' || r.label === 'wrong');
  // Only what the output records and diagnostics need is read back: the MCQs stay in the store.
  const stored = await runStage<JudgedRecord, StageRecord, PairOutcome>({
    run,
    stage: 'consistency',
    items: pairs,
    idOf: (r) => r.id,
    // Each pair makes its distractor call, then its MCQs one after another: as many pairs at once
    // as the model under test takes calls (the distractor LLM's own limit applies to its calls).
    concurrency: options.concurrency ?? options.executor.concurrency,
    ...(options.progress ? { progress: options.progress } : {}),
    work: (record) => askPair(record, options, mode, pool, count),
    project: (s) => pairOutcome(s, mode),
    info: (done) => combineDiagnostics([...done.values()].map((o) => o.diagnostics)),
  });
  const records: ConsistencyRecord[] = options.records.map((r) => withConsistency(r, stored.get(r.id)));
  return { run, records, diagnostics: combineDiagnostics([...stored.values()].map((o) => o.diagnostics)) };
}

/** A judged record with its pair's Cons(q, r) and detail (null when it is no pair or has no MCQs). */
function withConsistency(r: JudgedRecord, s: PairOutcome | undefined): ConsistencyRecord {
  if (!s?.detail) return { ...r, consistency: null };
  return { ...r, consistency: s.consistency, consistencyDetail: s.detail };
}

/**
 * The consistency stage inside an evaluation run, with its records left in the store: the
 * judged records are read once (for the answer pool and the pairs' ids) and then loaded one
 * pair at a time, so memory does not grow with the number of questions. Read the output
 * records with `consistencyRecordOf`.
 */
export async function runConsistencyStage(
  options: Omit<ConsistencyOptions, 'records' | 'run' | 'runs'> & {
    run: Run;
    /** Every judged record, in item order, read once. */
    judged: Iterable<JudgedRecord>;
    /** A judged record by id. */
    load: (id: string) => JudgedRecord;
    /** Several judged records by id, in that order (one query for many; see StageItems.loadMany). */
    loadMany?: (ids: readonly string[]) => ReadonlyArray<JudgedRecord | undefined>;
  },
): Promise<void> {
  const mode = options.mode ?? DEFAULT_ANSWER_MODE;
  const count = options.mcqs ?? 20;
  // A finished stage needs no answer pool: no pass over the judged records (a re-run).
  await options.run.acquireLease();
  if (options.run.stageStatus('consistency') === 'done') return;
  const pool = new AnswerPool();
  const pairIds: string[] = [];
  for (const r of options.judged) {
    addToPool(pool, r);
    if (r.label === 'correct' || r.label === 'wrong') pairIds.push(r.id);
  }
  await runStoredStage<JudgedRecord, StageRecord, PairDiagnostics>({
    run: options.run,
    stage: 'consistency',
    items: { ids: pairIds, load: options.load, ...(options.loadMany ? { loadMany: options.loadMany } : {}) },
    concurrency: options.concurrency ?? options.executor.concurrency,
    ...(options.progress ? { progress: options.progress } : {}),
    work: (record) => askPair(record, options, mode, pool, count),
    project: pairDiagnostics,
    info: (done) =>
      combineDiagnostics(
        (function* () {
          for (const [, d] of done) yield d;
        })(),
      ),
  });
}

/** A judged record as `runConsistency` outputs it, with its pair's stored consistency (if any). */
export function consistencyRecordOf(run: Run, record: JudgedRecord, mode: AnswerMode = DEFAULT_ANSWER_MODE): ConsistencyRecord {
  const s = record.label === 'correct' || record.label === 'wrong' ? run.record<StageRecord>('consistency', record.id) : undefined;
  return withConsistency(record, s === undefined ? undefined : pairOutcome(s, mode));
}

/** What the output records and the diagnostics need of a stored pair. */
interface PairOutcome {
  consistency: number | null;
  /** Absent when the pair has no MCQs. */
  detail?: NonNullable<ConsistencyRecord['consistencyDetail']>;
  diagnostics: PairDiagnostics;
}

interface PairDiagnostics {
  noSeparator: boolean;
  overTwenty: boolean;
  withTheResponse: boolean;
  emptyReply: boolean;
  toppedUp: boolean;
  mcqs: number;
  invalid: number;
  optionsShortened: number;
  evaluatedTokens: number;
}

function pairOutcome(s: StageRecord, mode: AnswerMode): PairOutcome {
  return {
    consistency: s.consistency,
    ...(s.mcqs
      ? {
          detail: {
            mcqs: s.mcqs.length,
            choseResponse: s.mcqs.filter((m) => m.choseResponse).length,
            choseUnsure: s.mcqs.filter((m) => m.choice === m.unsureLetter).length,
            invalid: s.mcqs.filter((m) => m.parse === 'invalid').length,
            fewerOptions: s.mcqs.filter((m) => m.options.length < MCQ_OPTIONS).length,
            distractorSource: s.distractors?.source ?? 'pool',
            toppedUp: s.distractors?.toppedUp ?? 0,
            mode: s.mode ?? mode,
            ...(s.mcqs.every((m) => m.callKey !== undefined)
              ? { callKeys: { ...(s.distractors?.callKey ? { distractors: s.distractors.callKey } : {}), mcqs: s.mcqs.map((m) => m.callKey!) } }
              : {}),
          },
        }
      : {}),
    diagnostics: pairDiagnostics(s),
  };
}

function pairDiagnostics(s: StageRecord): PairDiagnostics {
  const diag = s.distractors?.diagnostics;
  const mcqs = s.mcqs ?? [];
  return {
    noSeparator: diag?.noSeparator === true,
    overTwenty: diag !== undefined && diag.droppedBeyondWanted > 0,
    withTheResponse: diag !== undefined && diag.droppedEqualToResponse > 0,
    emptyReply: s.distractors?.reply !== undefined && s.distractors.reply.trim() === '',
    toppedUp: (s.distractors?.toppedUp ?? 0) > 0,
    mcqs: mcqs.length,
    invalid: mcqs.filter((m) => m.parse === 'invalid').length,
    optionsShortened: mcqs.filter((m) => m.options.some((o) => o.length >= MAX_OPTION_CHARS)).length,
    evaluatedTokens: s.evaluatedTokens ?? 0,
  };
}

function combineDiagnostics(pairs: Iterable<PairDiagnostics>): ConsistencyDiagnostics {
  const d: ConsistencyDiagnostics = {
    pairs: 0,
    distractorRepliesWithoutSeparator: 0,
    distractorRepliesOverTwenty: 0,
    distractorRepliesWithTheResponse: 0,
    distractorRepliesEmpty: 0,
    pairsToppedUpFromPool: 0,
    mcqs: 0,
    invalidAnswers: 0,
    optionsShortened: 0,
    tokensEvaluatedPerMcq: 0,
  };
  let tokens = 0;
  for (const p of pairs) {
    d.pairs++;
    if (p.noSeparator) d.distractorRepliesWithoutSeparator++;
    if (p.overTwenty) d.distractorRepliesOverTwenty++;
    if (p.withTheResponse) d.distractorRepliesWithTheResponse++;
    if (p.emptyReply) d.distractorRepliesEmpty++;
    if (p.toppedUp) d.pairsToppedUpFromPool++;
    d.mcqs += p.mcqs;
    d.invalidAnswers += p.invalid;
    d.optionsShortened += p.optionsShortened;
    tokens += p.evaluatedTokens;
  }
  d.tokensEvaluatedPerMcq = d.mcqs === 0 ? 0 : tokens / d.mcqs;
  return d;
}

export function diagnose(stored: readonly StageRecord[]): ConsistencyDiagnostics {
  return combineDiagnostics(stored.map(pairDiagnostics));
}

export { MODE_AGREEMENT_SAMPLE } from '../defaults.js';
export { modeAgreementLine, type ModeAgreement } from './mode-agreement.js';

/**
 * How often the two answer modes agree: a seeded sample of pairs, their stored MCQs answered
 * again in the other mode. Returns null when the provider supports only one mode.
 */
export async function compareAnswerModes(options: {
  run: Run;
  executor: ModelExecutor;
  records: readonly JudgedRecord[] | ((id: string) => JudgedRecord | undefined);
  shotsFor?: (r: JudgedRecord) => Shot[];
  sample: number;
  seed: number;
}): Promise<ModeAgreement | null> {
  if (!options.executor.model.nextTokenLogprobs || !options.executor.model.complete) return null;
  // The sampled pairs' MCQs only, read one pair at a time.
  const records = options.records;
  const byId = typeof records === 'function' ? { get: records } : new Map(records.map((r) => [r.id, r]));
  const ids = SeededRandom.stream(options.seed, 'compare-modes').sample(options.run.recordIds('consistency'), options.sample);
  let mcqs = 0;
  let agree = 0;
  let pairs = 0;
  let invalid = 0;
  for (const id of ids) {
    const s = options.run.record<StageRecord>('consistency', id)!;
    const record = byId.get(id);
    if (!record || !s.mcqs) continue;
    pairs++;
    const other: AnswerMode = s.mode === 'logprobs' ? 'generate' : 'logprobs';
    for (const m of s.mcqs) {
      const r = await answerMcq(options.executor, mcqPrompt(record.question, m, options.shotsFor?.(record) ?? []), m, other);
      mcqs++;
      if (m.parse === 'invalid') invalid++;
      if (r.answered.choice === m.choice) agree++;
    }
  }
  return { pairs, mcqs, agree, invalid, rate: mcqs === 0 ? 0 : agree / mcqs };
}
