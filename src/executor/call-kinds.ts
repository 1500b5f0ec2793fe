/**
 * The calls a ModelExecutor makes, the model kind each needs, and the check that a model can
 * make one, before any work: a clear error naming the model and what to configure instead.
 */
import { UnsupportedCapabilityError } from '../errors.js';
import type { Model } from '../providers/language-model.js';
import { hasKind, type ClassificationModel, type ModelKind } from '../providers/model-kinds.js';

export type CallKind = 'complete' | 'chat' | 'nextTokenLogprobs' | 'continuationLogLikelihood' | 'embed' | 'scoreTokens' | 'classify';

/** The model kind each call needs; the model must also have the method (optional ones may be absent). */
const KIND_OF: Record<CallKind, ModelKind> = {
  complete: 'text-generation',
  chat: 'text-generation',
  nextTokenLogprobs: 'text-generation',
  continuationLogLikelihood: 'text-generation',
  embed: 'embedding',
  scoreTokens: 'scoring',
  classify: 'classification',
};

/** Throws UnsupportedCapabilityError unless `model` can make `kind` calls (for `task`, a classification). */
export function assertCapable(model: Model, kind: CallKind, task?: string): void {
  const what = `${model.provider} model ${model.modelId}`;
  if (!hasKind(model, KIND_OF[kind]) || typeof model[kind] !== 'function') {
    if (kind === 'scoreTokens' || kind === 'classify') {
      throw new UnsupportedCapabilityError(
        `${what} is not a ${KIND_OF[kind]} model (it provides ${model.kinds.join(', ')}), so it cannot ${kind === 'scoreTokens' ? 'score tokens' : 'classify text pairs'}`,
        {
          hint: `Configure a ${KIND_OF[kind]} model for this role in llmkb.config.json (docs/models.md, "Scorers").`,
        },
      );
    }
    throw new UnsupportedCapabilityError(`${what} does not support ${kind}`);
  }
  const tasks = (model as Partial<ClassificationModel>).tasks;
  if (kind === 'classify' && task !== undefined && tasks && !tasks.includes(task as ClassificationModel['tasks'][number])) {
    throw new UnsupportedCapabilityError(`${what} does ${tasks.join(', ')}, not ${task}`, {
      hint: `Configure a classification model with task "${task}" for this role (docs/models.md, "Scorers").`,
    });
  }
}
