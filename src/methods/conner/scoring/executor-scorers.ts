/**
 * The scorer interfaces over the model executor, so that every scoring and classification call
 * is cached by content and resumable. A scoring model (kind `scoring`) is asked through
 * `scoreTokens`; a text model that only offers a continuation's log-likelihood (the in-process
 * GGUF runtime) through `continuationLogLikelihood`: both give the sum and count the metrics need.
 */
import { UnsupportedCapabilityError } from '../../../errors.js';
import type { ExecutableModel, ModelExecutor } from '../../../executor/model-executor.js';
import type { LogLikelihood, PairClassifier, TokenScorer } from './scorers.js';

/** `<provider>:<model id>`: the scorer id recorded with each score. */
export function scorerId(model: Pick<ExecutableModel, 'provider' | 'modelId'>): string {
  return `${model.provider}:${model.modelId}`;
}

export function executorTokenScorer(executor: ModelExecutor<ExecutableModel>): TokenScorer {
  const model = executor.model;
  if (model.kinds?.includes('scoring')) {
    return {
      id: scorerId(model),
      identity: model.cacheIdentity,
      async logLikelihood(context, continuation): Promise<LogLikelihood> {
        const r = await executor.scoreTokens({ context, continuation });
        return { logLikelihood: r.value.logLikelihood, tokens: r.value.tokenLogprobs.length, cached: r.cached };
      },
    };
  }
  if (typeof model.continuationLogLikelihood === 'function') {
    const text = executor as unknown as ModelExecutor;
    return {
      id: scorerId(model),
      identity: model.cacheIdentity,
      async logLikelihood(context, continuation): Promise<LogLikelihood> {
        const r = await text.continuationLogLikelihood({ context, continuation });
        return { logLikelihood: r.value.logLikelihood, tokens: r.value.tokens, cached: r.cached };
      },
    };
  }
  throw new UnsupportedCapabilityError(`${scorerId(model)} cannot score tokens (neither a scoring model nor a text model with log-likelihoods)`, {
    hint: 'Give the "scorer" role a GGUF model or a server with prompt log-probabilities (README: CONNER).',
  });
}

export function executorClassifier(executor: ModelExecutor<ExecutableModel>, role: string): PairClassifier {
  const model = executor.model;
  if (!model.kinds?.includes('classification')) {
    throw new UnsupportedCapabilityError(`role "${role}" needs a classification model, but ${scorerId(model)} is not one`, {
      hint: `Configure an NLI / relevance scorer for "${role}" in llmkb.config.json (README: CONNER).`,
    });
  }
  return {
    id: scorerId(model),
    identity: model.cacheIdentity,
    async classify(task, pairs) {
      const r = await executor.classify({ task, pairs });
      return { scores: r.value.scores, cached: r.cached };
    },
  };
}
