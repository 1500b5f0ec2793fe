/**
 * A method's token budget against a model's context window, checked before the first call: a
 * budget that cannot fit would otherwise fail (or hang) on the first item.
 */
import type { ModelExecutor } from '../executor/model-executor.js';
import { LlmkbError } from '../errors.js';

/** The model's context window in tokens, when it has a fixed one (an in-process model). */
export function contextWindow(model: object): number | undefined {
  const contextSize = (model as { contextSize?: unknown }).contextSize;
  return typeof contextSize === 'number' ? contextSize : undefined;
}

/** Refuses a maximum of new tokens that leaves no room for the prompt in the model's context window. */
export function checkMaxTokens(
  executor: ModelExecutor | { model: object } | undefined,
  maxTokens: number,
  option = '--max-tokens (maxTokens in a study)',
  defaultTokens = 100,
): void {
  if (!executor) return;
  const window = contextWindow(executor.model);
  if (window !== undefined && maxTokens >= window) {
    throw new LlmkbError(`${option} ${maxTokens} does not fit the model's context window of ${window} tokens (prompt included)`, {
      hint: `Use ${option.split(' ')[0]} below ${window} (the default is ${defaultTokens}), or a larger "contextSize" for this model in llmkb.config.json or the study.`,
    });
  }
}
