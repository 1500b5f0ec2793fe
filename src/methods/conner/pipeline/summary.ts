/**
 * A CONNER run's output records (its scored knowledge texts, in query order) and its summary: the
 * paper's metrics over the run's queries (../summary/conner-summary.ts) with the protocol of
 * what the run did, from the run's own parameters, so a run read back from the store is
 * summarised as the run that made it.
 */
import { LlmkbError } from '../../../errors.js';
import type { Run } from '../../../store/run-store.js';
import type { SummarizeContext, SummarizedRun } from '../../method.js';
import { EQUATIONS_CHOICES, type ScoringChoices } from '../conner-choices.js';
import type { ConnerRunFacts } from '../conner-run-facts.js';
import type { GeneratedKnowledge } from '../generation/generate-knowledge.js';
import type { ScoredKnowledge } from '../scoring/scored-knowledge.js';
import { connerRunSummaries } from '../summary/conner-summary.js';
import type { ConnerContext } from './inputs.js';
import type { ConnerRunParams } from './run-params.js';

export function connerOutputRecords(run: Run): Iterable<object> {
  return (function* () {
    for (const [, record] of run.entries<ScoredKnowledge>('score')) yield record;
  })();
}

/** The run's facts from its parameters (a run of `conner score` before the seam kept only its choices and evidence). */
function runFacts(params: Partial<ConnerRunParams> & Record<string, unknown>, limit: ConnerRunFacts['limit']): ConnerRunFacts {
  // In the choices' key order: a run read back from the store has its parameters' keys sorted. A
  // choice a run made before it existed was the equations profile's form of it.
  const given = (params.choices ?? params) as Record<string, unknown>;
  const choices = Object.fromEntries(Object.entries(EQUATIONS_CHOICES).map(([k, v]) => [k, given[k] ?? v])) as unknown as ScoringChoices;
  const facts = params.facts ?? { evidence: String(params.evidence ?? 'reference'), unscored: [] };
  return { ...facts, choices, ...(limit ? { limit } : {}) };
}

export async function summarizeConnerRun(ctx: SummarizeContext): Promise<SummarizedRun> {
  const records = [...ctx.records] as ScoredKnowledge[];
  const context = ctx.prepared?.context as ConnerContext | undefined;
  const sample = ctx.limit?.n ?? context?.quick?.n;
  const run = runFacts(
    ctx.run.spec.params as Partial<ConnerRunParams> & Record<string, unknown>,
    sample === undefined ? undefined : { n: sample, seed: ctx.seed },
  );
  const knowledge = [...ctx.run.records<GeneratedKnowledge>('generate').values()];
  const datasets = { questions: ctx.datasetChecksums.questions!, ...context?.files };
  const summaries = connerRunSummaries(records, { resamples: ctx.resamples ?? 1000, seed: ctx.seed, run, knowledge, datasets: () => datasets });
  if (summaries.length > 1) {
    throw new LlmkbError(`run ${ctx.runId} scored the knowledge of ${summaries.length} generators at once`, {
      hint: 'Read the summaries `llmkb conner score --out DIR` wrote for it (one per generator and setting).',
    });
  }
  const summary = summaries[0];
  if (!summary) throw new LlmkbError(`run ${ctx.runId} has no scored knowledge yet`, { hint: 'Run it first (llmkb eval --method conner).' });
  return {
    summary: {
      ...summary,
      model: ctx.model,
      modelIdentity: ctx.modelIdentity,
      setting: ctx.setting,
      runId: ctx.runId,
      ...(ctx.meta ? { meta: ctx.meta } : {}),
    },
    reportRecords: records,
  };
}
