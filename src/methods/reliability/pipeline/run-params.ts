/**
 * What makes a reliability run's results what they are besides model, questions, setting and
 * seed: part of its run id (a change starts another run, never mixes records).
 */
import { basename } from 'node:path';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import { questionCounts, questionSetDepartures } from '../protocol.js';
import { ANSWER_POOL_ID, GENERATE_STOP_ID, LEXICAL_JUDGE_ID, QUICK } from '../defaults.js';
import type { ReliabilityOptions } from './options.js';

/** The paper's MCQs per response. */
const PAPER_MCQS = 20;

/** MCQs per response: as given, else the paper's 20 (QUICK.mcqs for a quick look). */
export function mcqsOf(options: ReliabilityOptions, quick: boolean): number {
  return options.mcqs ?? (quick ? QUICK.mcqs : PAPER_MCQS);
}

export function reliabilityRunParams(
  options: ReliabilityOptions,
  roles: Readonly<Record<string, ModelExecutor>>,
  setting: string,
  quick: boolean,
): Record<string, unknown> {
  return {
    kind: 'eval',
    maxTokens: options.maxTokens,
    shots: setting === 'zero-shot' ? 'none' : roles.embedder ? `embedding:${roles.embedder.model.cacheIdentity}` : 'bm25-v1',
    judge: roles.judge?.model.cacheIdentity ?? LEXICAL_JUDGE_ID,
    distractor: roles.distractor?.model.cacheIdentity ?? 'pool',
    // The pool draws distractors (or tops up an LLM's): a change of its rules is another run.
    pool: ANSWER_POOL_ID,
    mcqs: mcqsOf(options, quick),
    mode: options.mode,
    // Where a generated MCQ answer stops: a change is another run.
    ...(options.mode === 'logprobs' ? {} : { mcqStop: GENERATE_STOP_ID }),
  };
}

/**
 * The words a reliability run's result files carry besides quick and limit: `mcqs-N` when MCQs
 * per response are not the default (the paper's 20, or the quick look's), and the question set
 * when it is not the paper's: `input-<file>` for the user's own QA file, `seen-N-unseen-M` for a
 * data folder of other sizes.
 */
export function reliabilityResultTags(options: ReliabilityOptions, items: ReadonlyArray<{ dataset?: unknown; source?: unknown }>, quick: boolean): string[] {
  const tags: string[] = [];
  if (options.input !== undefined) tags.push(`input-${basename(options.input).replace(/\.jsonl?$/i, '')}`);
  else if (!quick && questionSetDepartures(questionCounts(items)).length > 0) {
    const seen = items.filter((i) => i.dataset === 'seen').length;
    tags.push(`seen-${seen}-unseen-${items.length - seen}`);
  }
  if (options.mcqs !== undefined && options.mcqs !== (quick ? QUICK.mcqs : PAPER_MCQS)) tags.push(`mcqs-${options.mcqs}`);
  return tags;
}
