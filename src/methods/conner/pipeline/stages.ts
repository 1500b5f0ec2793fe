/**
 * CONNER's two stages over the run store: `generate` writes each query's knowledge (Tables 11-12)
 * and the answerer's answers with and without it (Table 13); `score` reads those records by id and
 * scores each knowledge text on the six perspectives (Eq. 1-8). Both resume where they stopped;
 * every call goes through the executors' cache.
 */
import { runStoredStage } from '../../../store/run-stage.js';
import type { StageContext } from '../../method.js';
import { scorersOf, scoringExecutors } from '../scoring/scoring-setup.js';
import type { ConnerQuery } from '../generation/conner-queries.js';
import type { KnowledgeSetting } from '../defaults.js';
import { generateOne, type GeneratedKnowledge } from '../generation/generate-knowledge.js';
import { runScoreStage } from '../scoring/score-knowledge.js';
import type { ConnerContext } from './inputs.js';

const contextOf = (ctx: StageContext): ConnerContext => ctx.context as ConnerContext;

export async function generateStage(ctx: StageContext): Promise<void> {
  const { options, demoPool, fixedDemos } = contextOf(ctx);
  const generator = ctx.roles.model!;
  // Without an answerer the generator answers its own knowledge: a departure the protocol records.
  const answerer = ctx.roles.answerer ?? generator;
  await runStoredStage<ConnerQuery, GeneratedKnowledge>({
    run: ctx.run,
    stage: 'generate',
    items: ctx.items as readonly ConnerQuery[],
    idOf: (q) => q.id,
    // As many queries at once as the busier of the two takes calls; each executor keeps its own
    // calls within its limit. With the smaller of the two, a batched answerer (the Batch API,
    // hours to answer) would hold the generator to a handful of queries per batch.
    concurrency: Math.max(generator.concurrency, answerer.concurrency),
    ...(ctx.progress ? { progress: ctx.progress } : {}),
    work: (q) =>
      generateOne(q, {
        generator,
        answerer,
        setting: ctx.setting as KnowledgeSetting,
        prompt: options.prompt,
        shots: options.shots,
        answerShots: options.answerShots,
        demoPool,
        ...(fixedDemos ? { fixedDemos } : {}),
        seed: ctx.seed,
        maxTokens: options.maxTokens,
        answerMaxTokens: options.answerMaxTokens,
      }),
  });
}

export async function scoreStage(ctx: StageContext): Promise<void> {
  const { options, evidence } = contextOf(ctx);
  const setup = scorersOf(scoringExecutors(ctx.roles), evidence);
  const generated = ctx.run.records<GeneratedKnowledge>('generate');
  await runScoreStage(ctx.run, {
    ...setup,
    items: ctx.items.map((q) => generated.get(q.id)!),
    choices: options.choices,
    seed: ctx.seed,
    concurrency: setup.concurrency,
    ...(ctx.progress ? { progress: ctx.progress } : {}),
  });
}
