/**
 * Demonstrations that fit the model's context. CONNER's demonstrations carry gold passages (NQ's
 * run to ~6.8k characters), so four of them overflow a 2,048-token context on many queries: the
 * prompt is tried with all of them, and on a context overflow again without the last one, until it
 * fits (as `ask --reduce-shots` does for the reliability method). How many were dropped is kept
 * in the item's record and counted in the run's protocol. Only a prompt that does not fit with
 * none fails, with a hint.
 */
import { ContextOverflowError, LlmkbError } from '../../../errors.js';
import type { Executed, ModelExecutor } from '../../../executor/model-executor.js';
import type { CompletionRequest, CompletionResult } from '../../../providers/language-model.js';
import type { Demonstration } from './conner-prompts.js';

export interface FittedCompletion {
  result: Executed<CompletionResult>;
  /** The demonstrations in the prompt that fitted. */
  demos: Demonstration[];
  /** How many of the drawn demonstrations were left out. */
  dropped: number;
}

export async function completeWithFittingShots(
  executor: ModelExecutor,
  demos: readonly Demonstration[],
  request: (demos: readonly Demonstration[]) => CompletionRequest,
  what: string,
): Promise<FittedCompletion> {
  for (let k = demos.length; k >= 0; k--) {
    const used = demos.slice(0, k);
    try {
      return { result: await executor.complete(request(used)), demos: used, dropped: demos.length - k };
    } catch (error) {
      if (!(error instanceof ContextOverflowError)) throw error;
      if (k === 0) {
        throw new LlmkbError(`${what}: ${error.message}, even without demonstrations`, {
          hint: "Use a model with a longer context, or fewer --max-tokens; CONNER's gold passages are long.",
          cause: error,
        });
      }
    }
  }
  throw new Error('unreachable');
}
