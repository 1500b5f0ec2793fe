/**
 * In-process ONNX classifiers (transformers.js) from a local model folder.
 *
 *   onnx:./models/nli-deberta-v3-base + "task": "nli"        NLI cross-encoder
 *   onnx:./models/ms-marco-MiniLM-L-6-v2                      relevance cross-encoder (default task)
 *
 * The folder holds config.json (id2label), tokenizer.json and onnx/model.onnx; see
 * ./onnx-classifier.ts. The files' content hash is the cache identity.
 */
import { resolve } from 'node:path';
import { ModelSpecError } from '../../errors.js';
import { classifierOptions, type ClassifierOptions } from '../classification/classifier-options.js';
import type { OnnxClassifier } from './onnx-classifier.js';

export interface OnnxSpec {
  provider: 'onnx';
  /** The model folder as written in the spec. */
  folder: string;
}

const EXAMPLE = 'onnx:./models/ms-marco-MiniLM-L-6-v2';

export function parseOnnxSpec(spec: string, rest: string): OnnxSpec {
  const folder = rest.trim();
  if (folder === '')
    throw new ModelSpecError(`"${spec}" names no model folder`, {
      hint: `Write onnx:FOLDER, e.g. ${EXAMPLE} (config.json, tokenizer.json and onnx/model.onnx inside).`,
    });
  return { provider: 'onnx', folder };
}

export async function createOnnxClassifier(spec: OnnxSpec, options: ClassifierOptions & { spec: string }): Promise<OnnxClassifier> {
  for (const key of ['endpoint', 'scores', 'pairTemplate', 'prompt', 'labelWords', 'apiKeyEnv'] as const) {
    if (options[key] !== undefined)
      throw new ModelSpecError(`"${key}" does not apply to onnx: models (${options.spec})`, {
        hint: 'onnx: reads "task", "labels" and "truncate"; the logits are always raw (softmax / sigmoid applied by llmkb).',
      });
  }
  const { OnnxClassifier } = await import('./onnx-classifier.js');
  return OnnxClassifier.load({
    folder: resolve(spec.folder),
    modelId: spec.folder,
    task: options.task ?? 'relevance',
    ...(options.labels === undefined ? {} : { labels: options.labels }),
    ...(options.truncate === undefined ? {} : { truncate: options.truncate }),
  });
}

/** The provider entry (scheme, options, parse, create) for the provider registry. */
export const onnxProvider = {
  id: 'onnx',
  schemes: ['onnx'] as const,
  localPathSchemes: ['onnx'],
  traits: () => ({ inProcess: true }),
  kinds: ['classification'] as const,
  optionsSchema: classifierOptions,
  examples: [EXAMPLE],
  parseSpec: (spec: string, _scheme: string, rest: string): OnnxSpec => parseOnnxSpec(spec, rest),
  create: (spec: OnnxSpec, options: ClassifierOptions & { spec: string }): Promise<OnnxClassifier> => createOnnxClassifier(spec, options),
};
