/**
 * The reliability method's three stages (paper section 3): ask every question under the run's
 * prompt setting (Table 6), judge each response (section 3.3, Table 7), and re-ask each correct or
 * wrong response as MCQs for Cons(q, r) (Eq. 4, Table 8). Each stage reads the previous stage's
 * records from the run store by id, one batch at a time, and saves its own as they finish, so a
 * run resumes where it stopped and memory does not grow with the number of questions.
 */
import { runAskStage, shotsFromIds, type AskedRecord, type PromptSetting } from '../asking/ask-questions.js';
import { compareAnswerModes, MODE_AGREEMENT_SAMPLE, modeAgreementLine, runConsistencyStage } from '../consistency/consistency-stage.js';
import { runJudgeStage } from '../judging/judge-records.js';
import { ResponseJudge, type JudgedRecord } from '../judging/judge-response.js';
import { LEXICAL_JUDGE_ID } from '../judging/lexical-match.js';
import type { QAItem } from '../data/qa-item.js';
import type { StageContext } from '../../method.js';
import { shotSelector, type ReliabilityContext } from './inputs.js';

const contextOf = (ctx: StageContext): ReliabilityContext => ctx.context as ReliabilityContext;

export async function askStage(ctx: StageContext): Promise<void> {
  const context = contextOf(ctx);
  const model = ctx.roles.model!;
  await runAskStage({
    items: ctx.items as readonly QAItem[],
    executor: model,
    setting: ctx.setting as PromptSetting,
    seed: ctx.seed,
    selector: shotSelector(context, ctx.roles.embedder),
    maxTokens: context.options.maxTokens,
    run: ctx.run,
    label: ctx.run.spec.label ?? model.model.modelId,
    ...(ctx.progress ? { progress: ctx.progress } : {}),
  });
}

export async function judgeStage(ctx: StageContext): Promise<void> {
  const judgeExecutor = ctx.roles.judge;
  const run = ctx.run;
  await runJudgeStage({
    records: {
      ids: ctx.items.map((i) => i.id),
      load: (id) => run.record<AskedRecord>('ask', id)!,
      loadMany: (ids) => run.recordsByIds<AskedRecord>('ask', ids),
    },
    judge: new ResponseJudge(judgeExecutor ? { judge: judgeExecutor } : {}),
    judgeIdentity: judgeExecutor?.model.cacheIdentity ?? LEXICAL_JUDGE_ID,
    ...(judgeExecutor ? { judgeExecutor } : {}),
    run,
    ...(ctx.progress ? { progress: ctx.progress } : {}),
  });
}

export async function consistencyStage(ctx: StageContext): Promise<void> {
  const context = contextOf(ctx);
  const run = ctx.run;
  const model = ctx.roles.model!;
  // A judged record carries its asked record's fields, the ids of its shots among them.
  const shotsFor = (r: JudgedRecord) => shotsFromIds((r as JudgedRecord & Pick<AskedRecord, 'shots'>).shots, context.rSeen, context.rUnseen);
  await runConsistencyStage({
    judged: (function* () {
      for (const [, r] of run.entries<JudgedRecord>('judge')) yield r;
    })(),
    load: (id) => run.record<JudgedRecord>('judge', id)!,
    loadMany: (ids) => run.recordsByIds<JudgedRecord>('judge', ids),
    executor: model,
    ...(ctx.roles.distractor ? { distractor: ctx.roles.distractor } : {}),
    mode: context.options.mode,
    mcqs: context.mcqs,
    seed: ctx.seed,
    shotsFor,
    run,
    ...(ctx.progress ? { progress: ctx.progress } : {}),
  });
  const agreement = await compareAnswerModes({
    run,
    executor: model,
    records: (id) => run.record<JudgedRecord>('judge', id),
    shotsFor,
    sample: MODE_AGREEMENT_SAMPLE,
    seed: ctx.seed,
  });
  const line = agreement && modeAgreementLine(ctx.setting, context.options.mode, agreement);
  if (line) ctx.log(line);
}
