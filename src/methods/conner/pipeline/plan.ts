/**
 * What a CONNER run still costs (`llmkb sweep --plan`), from its query file and its progress in
 * the run store. Per missing query: 1 knowledge call (model); 2 answer calls (the answerer, else
 * the model); per knowledge text with TYPICAL_SENTENCES sentences: one NLI call per sentence and
 * one for validity, 1 relevance call, 1 coherence call, and for the reference LM one call per
 * sentence, 1 for paragraph coherence without a coherence scorer, 1 for informativeness and
 * 1 + u for helpfulness. Tokens per call are typical sizes of the paper's prompts, not measured.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PlanContext, PlanEstimate } from '../../method.js';
import { QUICK_QUERIES } from '../defaults.js';
import { connerOptions } from './options.js';

/** Sentences of a typical knowledge text (128 tokens): the estimate's assumption. */
export const TYPICAL_SENTENCES = 4;

/** Typical tokens per call (prompt in, answer out) by kind of call. */
export const TYPICAL_TOKENS = {
  knowledgeZeroShot: { in: 40, out: 100 },
  knowledgeFewShotPerShot: 180,
  answer: { in: 700, out: 10 },
  sentence: { in: 30, out: 0 },
  paragraph: { in: 130, out: 0 },
  informativeness: { in: 160, out: 0 },
  helpfulness: { in: 170, out: 0 },
  nli: { in: 200, out: 0 },
  relevance: { in: 140, out: 0 },
} as const;

function queries(ctx: PlanContext): number | null {
  const input = resolve(ctx.baseDir, connerOptions(ctx.options).input);
  if (!existsSync(input)) return null;
  // One query a line, in a CONNER test file as in JSONL.
  const n = readFileSync(input, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '').length;
  return ctx.quick ? Math.min(QUICK_QUERIES, n) : n;
}

export function planConner(ctx: PlanContext): PlanEstimate {
  const how = `per missing query 1 knowledge call and 2 answer calls; per knowledge text of ${TYPICAL_SENTENCES} sentences (typical) one NLI call per sentence and 1 for validity, 1 relevance and 1 coherence call, and for the reference LM one call per sentence, 1 for informativeness, 1 for paragraph coherence without a coherence scorer and 1 + u for helpfulness; typical prompt sizes, not measured ones; calls another run already made come from the cache`;
  const total = queries(ctx);
  if (total === null) return { items: null, calls: null, how, warnings: [`${connerOptions(ctx.options).input}: no such query file; the run will stop there`] };
  const n = ctx.limit !== undefined ? Math.min(ctx.limit, total) : total;
  const options = connerOptions(ctx.options);
  const left = (stage: string) => {
    const s = ctx.stages?.get(stage);
    return s?.done ? 0 : Math.max(0, n - (s?.records ?? 0));
  };
  const generated = left('generate');
  const scored = left('score');
  const knowledgeIn =
    ctx.setting === 'few-shot'
      ? TYPICAL_TOKENS.knowledgeZeroShot.in + options.shots * TYPICAL_TOKENS.knowledgeFewShotPerShot
      : TYPICAL_TOKENS.knowledgeZeroShot.in;
  const knowledgeOut = Math.min(options.maxTokens, TYPICAL_TOKENS.knowledgeZeroShot.out);
  const answers = {
    calls: 2 * generated,
    in: 2 * generated * TYPICAL_TOKENS.answer.in,
    out: 2 * generated * Math.min(options.answerMaxTokens, TYPICAL_TOKENS.answer.out),
  };
  const hasAnswerer = ctx.roles.has('answerer');
  const calls: NonNullable<PlanEstimate['calls']> = {
    model: {
      calls: generated + (hasAnswerer ? 0 : answers.calls),
      in: generated * knowledgeIn + (hasAnswerer ? 0 : answers.in),
      out: generated * knowledgeOut + (hasAnswerer ? 0 : answers.out),
    },
  };
  // The shared baseline is one passage per query (its calls are the same for every generator: cached after the first);
  // the scripts' prompt puts 8 demonstrations before each answer.
  const u = options.choices.helpfulnessBaseline === 'shared' ? 1 : options.choices.negatives;
  const helpIn = TYPICAL_TOKENS.helpfulness.in * (options.choices.helpfulnessPrompt === 'released' ? 9 : 1);
  if (ctx.roles.has('scorer')) {
    const perText = TYPICAL_SENTENCES + 1 + (ctx.roles.has('coherence') ? 0 : 1) + (hasAnswerer ? 0 : 1 + u);
    const tokens =
      TYPICAL_SENTENCES * TYPICAL_TOKENS.sentence.in +
      TYPICAL_TOKENS.informativeness.in +
      (ctx.roles.has('coherence') ? 0 : TYPICAL_TOKENS.paragraph.in) +
      (hasAnswerer ? 0 : (1 + u) * helpIn);
    calls.scorer = { calls: scored * perText, in: scored * tokens, out: 0 };
  }
  if (hasAnswerer) {
    // The answerer writes the answers, and scores helpfulness's answer losses when it can score prompts (the paper's way).
    calls.answerer = { calls: answers.calls + scored * (1 + u), in: answers.in + scored * (1 + u) * helpIn, out: answers.out };
  }
  if (ctx.roles.has('nli')) calls.nli = { calls: scored * (TYPICAL_SENTENCES + 1), in: scored * (TYPICAL_SENTENCES + 1) * TYPICAL_TOKENS.nli.in, out: 0 };
  if (ctx.roles.has('relevance')) calls.relevance = { calls: scored, in: scored * TYPICAL_TOKENS.relevance.in, out: 0 };
  if (ctx.roles.has('coherence')) calls.coherence = { calls: scored, in: scored * TYPICAL_TOKENS.paragraph.in, out: 0 };
  return { items: n, calls, how };
}
