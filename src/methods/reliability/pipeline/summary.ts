/**
 * A reliability run's output and summary: the output records are the judged records with their
 * Cons(q, r), in item order, read from the store one at a time; the summary keeps of each only
 * what the metrics, the breakdowns and the report's significance marks need (about 130 bytes a
 * question, repeated strings shared), and the report's few example records get their question,
 * first accepted answer and response back from the store.
 */
import { basename } from 'node:path';
import type { Run } from '../../../store/run-store.js';
import type { SummarizeContext, SummarizedRun } from '../../method.js';
import { exampleRecords } from '../across-runs/run-details.js';
import { consistencyRecordOf, type ConsistencyRecord } from '../consistency/consistency-stage.js';
import { JUDGE_REPLY_UNPARSEABLE, type JudgedRecord } from '../judging/judge-response.js';
import { LEXICAL_JUDGE_AGREEMENT, LEXICAL_JUDGE_ID } from '../judging/lexical-match.js';
import type { AnswerMode } from '../consistency/mcq.js';
import { summarizeRun, type ScoredRecord } from '../metrics/summarize-run.js';
import { buildProtocol, questionCounts } from '../protocol.js';
import type { ReliabilityContext } from './inputs.js';

/** The lexical fallback judge and its measured agreement with human labels (docs/reliability.md, "Judging"). */
const LEXICAL_JUDGE = {
  id: LEXICAL_JUDGE_ID,
  note: `labels agree with humans ${LEXICAL_JUDGE_AGREEMENT.agreement.toFixed(3)} on ${LEXICAL_JUDGE_AGREEMENT.dataset} (Cohen's kappa ${LEXICAL_JUDGE_AGREEMENT.kappa.toFixed(2)}, ${LEXICAL_JUDGE_AGREEMENT.responses} human-labelled answers)`,
};

/** The run's output records (judged records with their Cons(q, r)), in item order. */
export function* reliabilityOutputRecords(run: Run): Generator<ConsistencyRecord> {
  const mode = (run.spec.params?.mode as AnswerMode | undefined) ?? 'generate';
  for (const [, judged] of run.entries<JudgedRecord>('judge')) yield consistencyRecordOf(run, judged, mode);
}

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
    ...(r.consistencyDetail
      ? {
          consistencyDetail: {
            mcqs: r.consistencyDetail.mcqs,
            invalid: r.consistencyDetail.invalid,
            ...(r.consistencyDetail.fewerOptions === undefined ? {} : { fewerOptions: r.consistencyDetail.fewerOptions }),
          },
        }
      : {}),
    ...(r.approximate === undefined ? {} : { approximate: r.approximate }),
  };
}

/** The report's example records with their question, first accepted answer and response, read back from the store. */
function withExampleTexts(run: Run, scored: ScoredRecord[]): void {
  for (const r of exampleRecords(scored)) {
    const judged = run.record<JudgedRecord>('judge', r.id)!;
    Object.assign(r, { question: judged.question, answers: judged.answers.slice(0, 1), response: judged.response });
  }
}

export async function summarizeReliability(ctx: SummarizeContext): Promise<SummarizedRun> {
  const scored: ScoredRecord[] = [];
  const shared = new Map<string, string>();
  let lexicalFallbacks = 0;
  const mcqOptions = { mcqs: 0, fewer: 0 };
  for (const r of ctx.records as Iterable<ConsistencyRecord>) {
    if (r.judgedBy === JUDGE_REPLY_UNPARSEABLE) lexicalFallbacks++;
    mcqOptions.mcqs += r.consistencyDetail?.mcqs ?? 0;
    mcqOptions.fewer += r.consistencyDetail?.fewerOptions ?? 0;
    scored.push(summaryFields(r, shared));
  }
  withExampleTexts(ctx.run, scored);
  const prepared = ctx.prepared;
  const context = prepared?.context as ReliabilityContext | undefined;
  const protocol =
    prepared && context
      ? buildProtocol({
          setting: ctx.setting,
          ...(prepared.roles.judge ? { judge: prepared.roles.judge.model.cacheIdentity } : {}),
          lexicalJudge: LEXICAL_JUDGE,
          // From the records, not this process's judge calls: a resumed run reads them back from the store.
          lexicalFallbacks,
          ...(context.timeFilter ? { timeFilter: context.timeFilter } : {}),
          ...(prepared.roles.distractor ? { distractor: prepared.roles.distractor.model.cacheIdentity } : {}),
          ...(mcqOptions.fewer > 0 ? { fewerOptionMcqs: { fewer: mcqOptions.fewer, of: mcqOptions.mcqs } } : {}),
          shotSelector: prepared.roles.embedder ? `embedding:${prepared.roles.embedder.model.cacheIdentity}` : 'bm25-v1',
          mode: context.options.mode,
          ...(context.quick ? { quick: context.quick } : {}),
          ...(ctx.limit ? { limit: ctx.limit } : {}),
          questions: {
            seen: prepared.items.filter((i) => (i as { dataset?: string }).dataset === 'seen').length,
            unseen: prepared.items.filter((i) => (i as { dataset?: string }).dataset === 'unseen').length,
          },
          questionCounts: questionCounts(prepared.items as ReadonlyArray<{ dataset?: unknown; source?: unknown }>),
          ...(context.options.input === undefined ? {} : { input: basename(context.options.input) }),
          mcqs: context.mcqs,
          maxTokens: context.options.maxTokens,
          ...(prepared.roles.model?.model.runtime ? { sequences: prepared.roles.model.model.runtime.sequences } : {}),
          computeBackend: prepared.roles.model?.model.runtime?.backend ?? 'server',
          datasets: { questions: ctx.datasetChecksums.questions!, ...context.files },
          seed: ctx.seed,
        })
      : undefined;
  const summary = summarizeRun(scored, {
    model: ctx.model,
    modelIdentity: ctx.modelIdentity,
    setting: ctx.setting,
    datasetChecksums: ctx.datasetChecksums,
    seed: ctx.seed,
    runId: ctx.runId,
    ...(ctx.resamples === undefined ? {} : { resamples: ctx.resamples }),
    ...(protocol ? { protocol } : {}),
    ...(ctx.meta ? { meta: ctx.meta } : {}),
  });
  return { summary, reportRecords: scored };
}
