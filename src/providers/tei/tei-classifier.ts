/**
 * Hugging Face Text Embeddings Inference (TEI) as a classification model: a cross-encoder
 * reranker (e.g. cross-encoder/ms-marco-MiniLM-L-6-v2) for relevance through `/rerank`, a
 * sequence-pair classifier (e.g. cross-encoder/nli-deberta-v3-base) for NLI through `/predict`,
 * a two-logit relevance model (monoBERT) or a paragraph-coherence model (one text in, task
 * `coherence`) through `/predict`.
 *
 * Requests ask for raw scores (`raw_scores: true`) and llmkb applies the activation itself
 * (relevance = sigmoid(logit), NLI = softmax over the labels; src/providers/classification/labels.ts),
 * so the numbers do not depend on server defaults. TEI serves one model per server: the model id
 * in the spec names it, and is the cache identity (the URL is transport).
 */
import { z } from 'zod';
import { ModelSpecError } from '../../errors.js';
import type { CallOptions, Usage } from '../language-model.js';
import { teiServedIdentity } from '../served-identity.js';
import type { ClassificationRequest, ClassificationResult, ClassificationTask } from '../model-kinds.js';
import { ClassifierBase } from '../classification/classifier-base.js';
import { nliScores, positiveEntry, positiveScore, relevanceScore, type LabelMap } from '../classification/labels.js';
import { postJson, shapeError } from '../classification/post-json.js';

export interface TeiSettings {
  /** Server roots (scheme://host:port), one per replica. */
  baseURLs: string[];
  /** The model the server was started with (`--model-id`): the cache identity. */
  model: string;
  task: ClassificationTask;
  /**
   * `rerank` (one query, many passages, one logit) or `predict` (any pairs or texts). Default:
   * relevance -> rerank (predict when `labels` names a two-logit model's relevant output), nli and
   * coherence -> predict.
   */
  endpoint?: 'rerank' | 'predict';
  /** The model's label names -> NLI labels (`LABEL_0`, ...), or which output is "relevant" / "coherent". */
  labels?: LabelMap;
  /** Let the server cut inputs longer than the model's window (default false: such a pair is an error, not a silent cut). */
  truncate?: boolean;
  apiKey?: string;
  concurrency?: number;
}

const predictSchema = z.array(z.array(z.object({ label: z.string(), score: z.number() })).min(1));
const rerankSchema = z.array(z.object({ index: z.number().int().min(0), score: z.number(), text: z.string().optional() }));

export class TeiClassifier extends ClassifierBase {
  readonly provider = 'tei';
  readonly #settings: TeiSettings;
  readonly #endpoint: 'rerank' | 'predict';

  constructor(settings: TeiSettings) {
    const endpoint = settings.endpoint ?? (settings.task === 'relevance' && settings.labels === undefined ? 'rerank' : 'predict');
    if (settings.task !== 'relevance' && endpoint === 'rerank') {
      throw new ModelSpecError(
        `tei model ${settings.model}: /rerank gives one relevance score per pair, not ${settings.task === 'nli' ? 'NLI labels' : 'a coherence score'}`,
        { hint: `Use "endpoint": "predict" (the default) for task "${settings.task}".` },
      );
    }
    const labels = settings.labels ? `:labels=${JSON.stringify(Object.entries(settings.labels).sort())}` : '';
    super({
      modelId: settings.model,
      tasks: [settings.task],
      endpoints: settings.baseURLs.map((u) => u.replace(/\/+$/, '')),
      defaultConcurrency: settings.concurrency ?? 8,
      // Raw scores + llmkb's own activation: part of the identity, as it fixes what the numbers mean.
      cacheIdentity: `tei:${settings.model}:task=${settings.task}:endpoint=${endpoint}:scores=raw:truncate=${settings.truncate ?? false}${labels}`,
    });
    this.#settings = settings;
    this.#endpoint = endpoint;
  }

  /** TEI's `/info` model id and revision, for the call cache's key (../served-identity.ts). */
  servedIdentity(): Promise<string | undefined> {
    return teiServedIdentity(this.endpoints, this.#settings.model);
  }

  async classify(request: ClassificationRequest, options: CallOptions = {}): Promise<ClassificationResult> {
    const base = options.endpoint ?? this.endpoints[0]!;
    if (this.#endpoint === 'predict') return this.#predict(base, request, options);
    return this.#rerank(base, request, options);
  }

  /**
   * One `/predict` request for the whole batch: `inputs: [[text, textPair], ...]`, or `[[text], ...]`
   * for coherence (one paragraph each). TEI sorts each answer's labels by score; they are read by name.
   */
  async #predict(base: string, request: ClassificationRequest, options: CallOptions): Promise<ClassificationResult> {
    const inputs = request.pairs.map((p) => (request.task === 'coherence' ? [p.text] : [p.text, p.textPair]));
    const body = { inputs, raw_scores: true, truncate: this.#settings.truncate ?? false };
    const { json, headers } = await postJson(base, '/predict', body, predictSchema, options, this.#post());
    if (json.length !== request.pairs.length) throw shapeError(`${base}/predict`, `${json.length} predictions for ${request.pairs.length} pairs`);
    const where = `${base}/predict (${this.modelId})`;
    const task = request.task;
    const scores = json.map((labelScores) =>
      task === 'nli'
        ? nliScores(labelScores, 'logit', this.#settings.labels, where)
        : positiveEntry(task, positiveScore(labelScores, task, 'logit', this.#settings.labels, where)),
    );
    return { scores, usage: usageFrom(headers, request) };
  }

  /** `/rerank` takes one query and many texts: one request per distinct query, answers put back in pair order. */
  async #rerank(base: string, request: ClassificationRequest, options: CallOptions): Promise<ClassificationResult> {
    const byQuery = new Map<string, number[]>();
    request.pairs.forEach((p, i) => byQuery.set(p.text, [...(byQuery.get(p.text) ?? []), i]));
    const scores: Array<Record<string, number>> = new Array(request.pairs.length);
    let promptTokens = 0;
    for (const [query, indices] of byQuery) {
      const body = {
        query,
        texts: indices.map((i) => request.pairs[i]!.textPair),
        raw_scores: true,
        return_text: false,
        truncate: this.#settings.truncate ?? false,
      };
      const { json, headers } = await postJson(base, '/rerank', body, rerankSchema, options, this.#post());
      const seen = new Set(json.map((r) => r.index));
      if (json.length !== indices.length || seen.size !== indices.length || json.some((r) => r.index >= indices.length)) {
        throw shapeError(`${base}/rerank`, `ranks for indices ${[...seen].join(', ')} for ${indices.length} texts`);
      }
      // TEI sorts by score, highest first; `index` is the text's place in the request.
      for (const r of json) scores[indices[r.index]!] = { relevant: relevanceScore(r.score, 'logit', `${base}/rerank (${this.modelId})`) };
      promptTokens += computeTokens(headers) ?? 0;
    }
    return { scores, usage: { promptTokens, completionTokens: 0, evaluatedTokens: promptTokens } };
  }

  #post(): { apiKey?: string; notFoundHint: string } {
    return {
      ...(this.#settings.apiKey ? { apiKey: this.#settings.apiKey } : {}),
      notFoundHint: `The spec's URL must be the TEI server's root (tei:http://host:8080/MODEL), and the server must serve a ${this.#endpoint === 'rerank' ? 'reranker' : 'sequence classifier'}.`,
    };
  }
}

/** TEI reports the tokens it computed in the `x-compute-tokens` header. */
function computeTokens(headers: Headers): number | undefined {
  const v = Number(headers.get('x-compute-tokens'));
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

function usageFrom(headers: Headers, _request: ClassificationRequest): Usage {
  const promptTokens = computeTokens(headers) ?? 0;
  return { promptTokens, completionTokens: 0, evaluatedTokens: promptTokens };
}
