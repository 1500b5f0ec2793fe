/**
 * The scorer interfaces over the model executor, so that every scoring and classification call
 * is cached by content and resumable. A scoring model (kind `scoring`) is asked through
 * `scoreTokens`; a text model that only offers a continuation's log-likelihood through
 * `continuationLogLikelihood`: both give the sum and count the metrics need.
 *
 * Both adapters check what the model can do when they are made, before a stage starts: a model of
 * the wrong kind, or a classifier that does not do the role's task, is refused there, not after
 * the first item.
 */
import { UnsupportedCapabilityError } from '../../../errors.js';
import type { ExecutableModel, ModelExecutor } from '../../../executor/model-executor.js';
import { providerModelName, type ClassificationTask } from '../../../providers/model-kinds.js';
import { UNDERFLOW_LOGPROB, type LogLikelihood, type PairClassifier, type TokenScorer } from './scorers.js';

/** `<provider>:<model id>`: the scorer id recorded with each score. */
export function scorerId(model: Pick<ExecutableModel, 'provider' | 'modelId'>): string {
  return providerModelName(model);
}

/** Per-token log-probabilities with every underflow (a log of 0, or a backend's huge negative stand-in) at the floor. */
export function floorLogprobs(tokenLogprobs: readonly number[]): { logLikelihood: number; floored: number } {
  let logLikelihood = 0;
  let floored = 0;
  for (const lp of tokenLogprobs) {
    if (lp < UNDERFLOW_LOGPROB || !Number.isFinite(lp)) {
      floored++;
      logLikelihood += UNDERFLOW_LOGPROB;
    } else logLikelihood += lp;
  }
  return { logLikelihood, floored };
}

export function executorTokenScorer(executor: ModelExecutor<ExecutableModel>, role = 'scorer'): TokenScorer {
  const model = executor.model;
  if (model.kinds?.includes('scoring')) {
    return {
      id: scorerId(model),
      identity: model.cacheIdentity,
      async logLikelihood(context, continuation): Promise<LogLikelihood> {
        const r = await executor.scoreTokens({ context, continuation });
        return { ...floorLogprobs(r.value.tokenLogprobs), tokens: r.value.tokenLogprobs.length, cached: r.cached };
      },
    };
  }
  if (typeof model.continuationLogLikelihood === 'function') {
    const text = executor as unknown as ModelExecutor;
    return {
      id: scorerId(model),
      identity: model.cacheIdentity,
      async logLikelihood(context, continuation): Promise<LogLikelihood> {
        // Only the sum comes back: an underflowed token cannot be told apart here.
        const r = await text.continuationLogLikelihood({ context, continuation });
        return { logLikelihood: r.value.logLikelihood, tokens: r.value.tokens, floored: 0, cached: r.cached };
      },
    };
  }
  throw new UnsupportedCapabilityError(
    `role "${role}": ${scorerId(model)} cannot score tokens (neither a scoring model nor a text model with log-likelihoods)`,
    {
      hint: `Give the "${role}" role a GGUF model or a server with prompt log-probabilities (docs/conner.md).`,
    },
  );
}

/** A classification model for a role, checked to do the role's task. */
export function executorClassifier(executor: ModelExecutor<ExecutableModel>, role: string, task: ClassificationTask): PairClassifier {
  const model = executor.model;
  if (!model.kinds?.includes('classification')) {
    throw new UnsupportedCapabilityError(
      `role "${role}" needs a classification model, but ${scorerId(model)} is not one (it provides ${model.kinds?.join(', ') || 'no kind'})`,
      {
        hint: `Configure a ${task} classifier for "${role}": ${task === 'coherence' ? 'onnx:, tei: or vllm-classify: with "task": "coherence"' : `onnx:, tei:, vllm-classify:${task === 'relevance' ? ', vllm-score:, gguf-rerank:' : ''} or llm-${task}:`} (docs/conner.md).`,
      },
    );
  }
  const tasks = (model as { tasks?: readonly string[] }).tasks;
  if (tasks !== undefined && !tasks.includes(task)) {
    throw new UnsupportedCapabilityError(`role "${role}" needs a model that does ${task}, but ${scorerId(model)} does ${tasks.join(', ')}`, {
      hint: `Set "task": "${task}" for this model in llmkb.config.json if it is a ${task} model, or give "${role}" one that is (docs/conner.md).`,
    });
  }
  return {
    id: scorerId(model),
    identity: model.cacheIdentity,
    async classify(t, pairs) {
      const r = await executor.classify({ task: t, pairs });
      return { scores: r.value.scores, cached: r.cached };
    },
  };
}
