/**
 * What a reliability run still costs (`llmkb sweep --plan`), from its data sets and its progress
 * in the run store. Per missing item: 1 answer (model), `mcqs` MCQ answers (model) per answer
 * counting every answer as correct or wrong (an upper bound: uninformative answers get no MCQs),
 * 1 judge call per seen question when a judge LLM is set, 1 distractor call per answer when a
 * distractor LLM is set. Tokens per call are typical sizes of the paper's prompts, not measured.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PlanContext, PlanEstimate } from '../../method.js';
import { BUILT_QUESTIONS, DATASET_FILES, QUICK } from '../defaults.js';
import { reliabilityOptions } from './options.js';
import { mcqsOf } from './run-params.js';

/** Typical tokens per call (prompt in, answer out) by kind of call: the estimate's assumption. */
export const TYPICAL_TOKENS = {
  answerZeroShot: { in: 40, out: 12 },
  answerFewShot: { in: 220, out: 12 },
  mcq: { in: 160, out: 2 },
  judge: { in: 220, out: 2 },
  distractor: { in: 120, out: 60 },
} as const;

function lines(file: string): number {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '').length;
}

/** Seen and unseen questions a run asks, when its data sets exist. */
function questions(ctx: PlanContext): { seen: number; unseen: number; built?: false } | null {
  const options = reliabilityOptions(ctx.options);
  if (options.input !== undefined) {
    if (!existsSync(options.input)) return null;
    const items = readFileSync(options.input, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const seen = items.filter((l) => /"dataset"\s*:\s*"seen"/.test(l)).length;
    return { seen, unseen: items.length - seen };
  }
  const data = resolve(ctx.baseDir, options.data);
  // Before the data sets are built: a quick look's sizes (each set holds far more), else what a default build makes at most.
  if (![DATASET_FILES.seenqa, DATASET_FILES.unseenqa].every((f) => existsSync(join(data, f))))
    return ctx.quick ? { seen: QUICK.seen, unseen: QUICK.unseen } : { ...BUILT_QUESTIONS, built: false };
  let seen = lines(join(data, DATASET_FILES.seenqa));
  let unseen = lines(join(data, DATASET_FILES.unseenqa));
  if (ctx.quick) [seen, unseen] = [Math.min(QUICK.seen, seen), Math.min(QUICK.unseen, unseen)];
  return { seen, unseen };
}

export function planReliability(ctx: PlanContext): PlanEstimate {
  const how =
    'per missing item 1 answer, mcqs MCQ answers (every answer counted as correct or wrong: an upper bound), 1 judge call per seen question and 1 distractor call per answer when those LLMs are set; typical prompt sizes, not measured ones; calls another run already made come from the cache and cost less than this says';
  // UnseenQA asks about events after the data sets' cutoff: a model that knows later events is not asked about unseen knowledge.
  const cutoff = reliabilityOptions(ctx.options).cutoff;
  const warnings =
    ctx.knowledgeCutoff && ctx.knowledgeCutoff > cutoff
      ? [`${ctx.label}'s knowledge cutoff ${ctx.knowledgeCutoff} is after the data sets' cutoff ${cutoff}: UnseenQA may hold events it has seen`]
      : [];
  const q = questions(ctx);
  if (q === null) return { items: null, calls: null, how, warnings };
  if (q.built === false)
    warnings.push(
      `the data sets are not built yet: estimated with the ${BUILT_QUESTIONS.seen} seen + ${BUILT_QUESTIONS.unseen} unseen questions a default build makes at most`,
    );
  const total = q.seen + q.unseen;
  const n = ctx.limit !== undefined ? Math.min(ctx.limit, total) : total;
  const seenShare = total === 0 ? 0.5 : q.seen / total;
  const options = reliabilityOptions(ctx.options);
  const mcqs = mcqsOf(options, ctx.quick);
  const left = (stage: string) => {
    const s = ctx.stages?.get(stage);
    return s?.done ? 0 : Math.max(0, n - (s?.records ?? 0));
  };
  const asks = left('ask');
  const judged = ctx.roles.has('judge') ? Math.round(left('judge') * seenShare) : 0;
  const pairs = left('consistency');
  const distractors = ctx.roles.has('distractor') ? pairs : 0;
  const answer = ctx.setting === 'zero-shot' ? TYPICAL_TOKENS.answerZeroShot : TYPICAL_TOKENS.answerFewShot;
  return {
    items: n,
    calls: {
      model: {
        calls: asks + pairs * mcqs,
        in: asks * answer.in + pairs * mcqs * TYPICAL_TOKENS.mcq.in,
        out: asks * Math.min(options.maxTokens, answer.out) + pairs * mcqs * TYPICAL_TOKENS.mcq.out,
      },
      judge: { calls: judged, in: judged * TYPICAL_TOKENS.judge.in, out: judged * TYPICAL_TOKENS.judge.out },
      distractor: { calls: distractors, in: distractors * TYPICAL_TOKENS.distractor.in, out: distractors * TYPICAL_TOKENS.distractor.out },
    },
    how,
    warnings,
  };
}
