/**
 * What makes a reliability run's results what they are besides model, questions, setting and
 * seed: part of its run id (a change starts another run, never mixes records).
 */
import type { ModelExecutor } from '../../../executor/model-executor.js';
import { ANSWER_POOL_ID, GENERATE_STOP_ID, LEXICAL_JUDGE_ID, QUICK } from '../defaults.js';
import type { ReliabilityOptions } from './options.js';

/** MCQs per response: as given, else the paper's 20 (QUICK.mcqs for a quick look). */
export function mcqsOf(options: ReliabilityOptions, quick: boolean): number {
  return options.mcqs ?? (quick ? QUICK.mcqs : 20);
}

export function reliabilityRunParams(options: ReliabilityOptions, roles: Readonly<Record<string, ModelExecutor>>, setting: string, quick: boolean): Record<string, unknown> {
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
