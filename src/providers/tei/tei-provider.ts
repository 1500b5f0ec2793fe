/**
 * Text Embeddings Inference servers as classification models.
 *
 *   tei:http://host:8080/cross-encoder/ms-marco-MiniLM-L-6-v2         relevance (/rerank)
 *   tei:http://host:8081/cross-encoder/nli-deberta-v3-base  + "task": "nli"   NLI (/predict)
 *
 * The URL is the server's root; what follows it is the model the server was started with
 * (`--model-id`), which is the cache identity.
 */
import { ModelSpecError } from '../../errors.js';
import { apiKeyFrom, classifierOptions, splitRootsAndModel, type ClassifierOptions } from '../classification/classifier-options.js';
import type { TeiClassifier } from './tei-classifier.js';

export interface TeiSpec {
  provider: 'tei';
  baseURLs: string[];
  model: string;
}

const EXAMPLE = 'tei:http://localhost:8080/cross-encoder/ms-marco-MiniLM-L-6-v2';

export function parseTeiSpec(spec: string, rest: string): TeiSpec {
  return { provider: 'tei', ...splitRootsAndModel(spec, rest, EXAMPLE) };
}

export async function createTeiClassifier(
  spec: TeiSpec,
  options: ClassifierOptions & { spec: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<TeiClassifier> {
  const { TeiClassifier } = await import('./tei-classifier.js');
  const endpoint = options.endpoint;
  if (endpoint !== undefined && endpoint !== 'rerank' && endpoint !== 'predict') {
    throw new ModelSpecError(`TEI has no /${endpoint} endpoint for ${options.spec}`, {
      hint: 'TEI endpoints: "rerank" (relevance) or "predict" (nli or relevance).',
    });
  }
  const apiKey = apiKeyFrom(options, env);
  return new TeiClassifier({
    baseURLs: spec.baseURLs,
    model: spec.model,
    task: options.task ?? 'relevance',
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(options.labels === undefined ? {} : { labels: options.labels }),
    ...(options.truncate === undefined ? {} : { truncate: options.truncate }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  });
}

/** The provider entry (scheme, options, parse, create) for the provider registry. */
export const teiProvider = {
  id: 'tei',
  schemes: ['tei'] as const,
  kinds: ['classification'] as const,
  optionsSchema: classifierOptions,
  examples: [EXAMPLE],
  parseSpec: (spec: string, _scheme: string, rest: string): TeiSpec => parseTeiSpec(spec, rest),
  create: (spec: TeiSpec, options: ClassifierOptions & { spec: string }, context: { env?: NodeJS.ProcessEnv }): Promise<TeiClassifier> =>
    createTeiClassifier(spec, options, context.env ?? process.env),
};
