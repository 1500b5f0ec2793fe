/**
 * A text model prompted as a classifier.
 *
 *   llm-nli:gguf:./qwen2.5-1.5b-instruct-q4_k_m.gguf          NLI from Yes / No / Maybe
 *   llm-relevance:vllm:http://host:8000/v1/meta-llama/Llama-3-8B   relevance from Yes / No
 *
 * Everything after the first colon is the text model's own spec; the entry's other options
 * (threads, topLogprobs, apiKeyEnv, ...) go to that model, `prompt` and `labelWords` to the classifier.
 */
import type { ModelEntryOptions } from '../model-entry.js';
import type { CreateModelContext } from '../model-provider.js';
import { ModelSpecError } from '../../errors.js';
import { classifierOptions, type ClassifierOptions } from '../classification/classifier-options.js';
import type { LlmClassifier, LlmClassifierTask } from './llm-classifier.js';

export interface LlmClassifierSpec {
  provider: 'llm-classifier';
  task: LlmClassifierTask;
  /** The text model's spec. */
  model: string;
}

const EXAMPLES = ['llm-nli:gguf:./model.gguf', 'llm-relevance:vllm:http://localhost:8000/v1/meta-llama/Llama-3-8B'];

export function parseLlmClassifierSpec(spec: string, scheme: string, rest: string): LlmClassifierSpec {
  if (rest.trim() === '' || /^llm-(nli|relevance):/i.test(rest.trim())) {
    throw new ModelSpecError(`"${spec}" names no text model to prompt`, {
      hint: `Write e.g. ${EXAMPLES.join(' or ')}: the text model's own spec after the first colon.`,
    });
  }
  return { provider: 'llm-classifier', task: scheme === 'llm-relevance' ? 'relevance' : 'nli', model: rest.trim() };
}

type TextOptions = Omit<ModelEntryOptions, 'spec'>;

export async function createLlmClassifier(
  spec: LlmClassifierSpec,
  options: ClassifierOptions & TextOptions & { spec: string },
  context: CreateModelContext,
): Promise<LlmClassifier> {
  if (options.task !== undefined && options.task !== spec.task) {
    throw new ModelSpecError(`${options.spec} does ${spec.task}, but "task" says ${options.task}`, {
      hint: 'Use llm-nli: for NLI and llm-relevance: for relevance.',
    });
  }
  const {
    task: _task,
    labels: _labels,
    scores: _scores,
    endpoint: _endpoint,
    truncate: _truncate,
    pairTemplate: _pairTemplate,
    prompt,
    labelWords,
    ...textOptions
  } = options;
  if (!context.createTextModel) throw new Error('llm-classifier: the model factory gives no createTextModel');
  const { LlmClassifier } = await import('./llm-classifier.js');
  const model = await context.createTextModel({ ...(textOptions as TextOptions), spec: spec.model });
  try {
    return new LlmClassifier({
      model,
      task: spec.task,
      ...(prompt === undefined ? {} : { prompt }),
      ...(labelWords === undefined ? {} : { labelWords }),
      ownsModel: true,
    });
  } catch (error) {
    await model.close();
    throw error;
  }
}

/** The provider entry (schemes, options, parse, create) for the provider registry. */
export const llmClassifierProvider = {
  id: 'llm-classifier',
  schemes: ['llm-nli', 'llm-relevance'] as const,
  kinds: ['classification'] as const,
  optionsSchema: classifierOptions,
  examples: EXAMPLES,
  parseSpec: (spec: string, scheme: string, rest: string): LlmClassifierSpec => parseLlmClassifierSpec(spec, scheme, rest),
  create: (spec: LlmClassifierSpec, options: ClassifierOptions & TextOptions & { spec: string }, context: CreateModelContext): Promise<LlmClassifier> =>
    createLlmClassifier(spec, options, context),
};
