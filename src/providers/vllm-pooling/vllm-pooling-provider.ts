/**
 * vLLM pooling endpoints as classification models.
 *
 *   vllm-score:http://host:8000/v1/cross-encoder/ms-marco-MiniLM-L-6-v2    relevance (/score)
 *   vllm-rerank:http://host:8000/v1/BAAI/bge-reranker-v2-m3               relevance (/rerank)
 *   vllm-classify:http://host:8000/v1/roberta-large-mnli  + "labels", "pairTemplate"   NLI (/classify)
 *   vllm-classify:...  + "task": "relevance" (two outputs) or "coherence", "labels"  (/classify)
 *
 * The URL is the server's OpenAI base (ending in /v1, as for vllm: specs), then the served model.
 */
import { ModelSpecError } from '../../errors.js';
import { apiKeyFrom, classifierOptions, type ClassifierOptions } from '../classification/classifier-options.js';
import type { VllmPoolingClassifier, VllmPoolingEndpoint } from './vllm-pooling-classifier.js';

export interface VllmPoolingSpec {
  provider: 'vllm-pooling';
  baseURLs: string[];
  model: string;
  endpoint: VllmPoolingEndpoint;
}

const EXAMPLES = [
  'vllm-score:http://localhost:8000/v1/cross-encoder/ms-marco-MiniLM-L-6-v2',
  'vllm-rerank:http://localhost:8000/v1/BAAI/bge-reranker-v2-m3',
  'vllm-classify:http://localhost:8000/v1/roberta-large-mnli',
];

export function parseVllmPoolingSpec(spec: string, scheme: string, rest: string): VllmPoolingSpec {
  const endpoint: VllmPoolingEndpoint = scheme === 'vllm-rerank' ? 'rerank' : scheme === 'vllm-classify' ? 'classify' : 'score';
  const at = rest.lastIndexOf('/v1/');
  const model = at === -1 ? '' : rest.slice(at + 4);
  const baseURLs =
    at === -1
      ? []
      : rest
          .slice(0, at + 3)
          .split(',')
          .map((u) => u.trim());
  if (model === '' || baseURLs.some((u) => !/^https?:\/\/[^/\s]+(\/.*)?\/v1$/.test(u))) {
    throw new ModelSpecError(`"${spec}" must be base URLs ending in /v1 followed by the model name`, { hint: `Write e.g. ${EXAMPLES[0]}` });
  }
  return { provider: 'vllm-pooling', baseURLs, model, endpoint };
}

export async function createVllmPoolingClassifier(
  spec: VllmPoolingSpec,
  options: ClassifierOptions & { spec: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<VllmPoolingClassifier> {
  const { VllmPoolingClassifier } = await import('./vllm-pooling-classifier.js');
  let endpoint = spec.endpoint;
  if (options.endpoint !== undefined) {
    if (options.endpoint === 'predict')
      throw new ModelSpecError(`vLLM has no /predict endpoint (${options.spec})`, { hint: 'vLLM endpoints: "score", "rerank", "v1/rerank", "classify".' });
    endpoint = options.endpoint;
  }
  if (endpoint !== 'classify' && options.task !== undefined && options.task !== 'relevance') {
    throw new ModelSpecError(`${options.spec}: vLLM's /${endpoint} does relevance, not ${options.task}`, {
      hint: 'Relevance: vllm-score: or vllm-rerank: (one logit), or vllm-classify: with "labels" naming the relevant class; NLI and coherence: vllm-classify: with "labels" (and "pairTemplate" for pairs).',
    });
  }
  const apiKey = apiKeyFrom(options, env);
  return new VllmPoolingClassifier({
    baseURLs: spec.baseURLs,
    model: spec.model,
    endpoint,
    ...(endpoint === 'classify' && options.task !== undefined ? { task: options.task } : {}),
    ...(options.scores === undefined ? {} : { scores: options.scores }),
    ...(options.labels === undefined ? {} : { labels: options.labels }),
    ...(options.pairTemplate === undefined ? {} : { pairTemplate: options.pairTemplate }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  });
}

/** The provider entry (schemes, options, parse, create) for the provider registry. */
export const vllmPoolingProvider = {
  id: 'vllm-pooling',
  schemes: ['vllm-score', 'vllm-rerank', 'vllm-classify'] as const,
  kinds: ['classification'] as const,
  optionsSchema: classifierOptions,
  examples: EXAMPLES,
  parseSpec: (spec: string, scheme: string, rest: string): VllmPoolingSpec => parseVllmPoolingSpec(spec, scheme, rest),
  create: (spec: VllmPoolingSpec, options: ClassifierOptions & { spec: string }, context: { env?: NodeJS.ProcessEnv }): Promise<VllmPoolingClassifier> =>
    createVllmPoolingClassifier(spec, options, context.env ?? process.env),
};
