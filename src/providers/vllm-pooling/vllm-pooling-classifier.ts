/**
 * vLLM's pooling endpoints as a classification model: `/score` and `/rerank` (a cross-encoder
 * such as cross-encoder/ms-marco-MiniLM-L-6-v2 served with `vllm serve MODEL`: relevance), and
 * `/classify` (a sequence classifier: NLI).
 *
 * vLLM applies the model's activation by default (sigmoid for a one-logit cross-encoder, softmax
 * for a classifier), so the default here is `scores: "probability"`, checked to be probabilities;
 * `scores: "logit"` sends `use_activation: false` (vLLM versions that have it) and llmkb applies
 * sigmoid / softmax itself (src/providers/classification/labels.ts).
 *
 * `/classify` takes single texts, not pairs: a pair is joined with `pairTemplate` as the model's
 * tokenizer would join it (RoBERTa: "{text}</s></s>{textPair}"), and the class probabilities are
 * read by index through `labels` (the model card's id2label). It serves NLI (the default), a
 * relevance model with two outputs (monoBERT, `labels` naming the "relevant" index) and a
 * paragraph-coherence model (task `coherence`: the paragraph alone, no template).
 */
import { z } from 'zod';
import { ModelSpecError } from '../../errors.js';
import type { CallOptions } from '../language-model.js';
import type { ClassificationRequest, ClassificationResult, ClassificationTask } from '../model-kinds.js';
import { ClassifierBase } from '../classification/classifier-base.js';
import { nliScores, positiveEntry, positiveIndex, positiveScore, relevanceScore, type LabelMap, type ScoreScale } from '../classification/labels.js';
import { postJson, shapeError } from '../classification/post-json.js';
import { openAIServedIdentity } from '../served-identity.js';

export type VllmPoolingEndpoint = 'score' | 'rerank' | 'v1/rerank' | 'classify';

export interface VllmPoolingSettings {
  /** Base URLs ending in /v1, as for vllm: specs; the pooling endpoints are found from them. */
  baseURLs: string[];
  model: string;
  endpoint: VllmPoolingEndpoint;
  /** `/classify` only: nli (default), relevance or coherence; the other endpoints do relevance. */
  task?: ClassificationTask;
  scores?: ScoreScale;
  /** `/classify`: class index ("0", "1", ...) -> NLI label, or which index is "relevant" / "coherent". */
  labels?: LabelMap;
  /** `/classify`: how a pair becomes one input text (not for coherence, whose input is one text). */
  pairTemplate?: string;
  apiKey?: string;
  concurrency?: number;
}

const usageSchema = z.object({ prompt_tokens: z.number().optional(), total_tokens: z.number().optional() }).nullish();
const scoreSchema = z.object({ data: z.array(z.object({ index: z.number().int().min(0), score: z.number() })), usage: usageSchema });
const rerankSchema = z.object({ results: z.array(z.object({ index: z.number().int().min(0), relevance_score: z.number() })), usage: usageSchema });
const classifySchema = z.object({ data: z.array(z.object({ index: z.number().int().min(0), probs: z.array(z.number()).min(1) })), usage: usageSchema });

export class VllmPoolingClassifier extends ClassifierBase {
  readonly provider = 'vllm-pooling';
  readonly #settings: VllmPoolingSettings;
  readonly #scale: ScoreScale;

  constructor(settings: VllmPoolingSettings) {
    const scale = settings.scores ?? 'probability';
    const task = settings.endpoint === 'classify' ? (settings.task ?? 'nli') : 'relevance';
    if (settings.endpoint === 'classify') {
      const indices = Object.keys(settings.labels ?? {});
      if (indices.length === 0 || indices.some((k) => !/^\d+$/.test(k)) || (task !== 'coherence' && settings.pairTemplate === undefined)) {
        throw new ModelSpecError(`vllm-classify model ${settings.model} needs "labels" by class index${task === 'coherence' ? '' : ' and a "pairTemplate"'}`, {
          hint:
            task === 'nli'
              ? 'E.g. "labels": {"0": "contradiction", "1": "entailment", "2": "neutral"} (the model card\'s id2label) and "pairTemplate": "{text}</s></s>{textPair}" (RoBERTa) in llmkb.config.json.'
              : `E.g. "labels": {"1": "${task === 'relevance' ? 'relevant' : 'coherent'}"} (the model card's id2label)${task === 'relevance' ? ' and "pairTemplate": "{text} [SEP] {textPair}" (BERT)' : ''} in llmkb.config.json.`,
        });
      }
      if (task !== 'nli') positiveIndex(indices, task, settings.labels, `vllm-classify model ${settings.model}`);
    }
    const extra =
      settings.endpoint === 'classify'
        ? `:task=${task}:labels=${JSON.stringify(Object.entries(settings.labels ?? {}).sort())}:pair=${JSON.stringify(settings.pairTemplate ?? null)}`
        : '';
    super({
      modelId: settings.model,
      tasks: [task],
      // The pooling endpoints hang off the server root, not /v1 (vLLM also serves /v1/score and /v1/rerank).
      endpoints: settings.baseURLs.map((u) => u.replace(/\/+$/, '').replace(/\/v1$/, '')),
      defaultConcurrency: settings.concurrency ?? 16,
      cacheIdentity: `vllm-pooling:${settings.model}:endpoint=${settings.endpoint}:scores=${scale}${extra}`,
    });
    this.#settings = settings;
    this.#scale = scale;
  }

  /** vLLM's `/v1/models` entry (its `root`: the checkpoint), for the call cache's key (../served-identity.ts). */
  servedIdentity(): Promise<string | undefined> {
    return openAIServedIdentity(
      this.endpoints.map((e) => `${e}/v1`),
      this.#settings.model,
      'vllm',
      undefined,
    );
  }

  async classify(request: ClassificationRequest, options: CallOptions = {}): Promise<ClassificationResult> {
    const root = options.endpoint ?? this.endpoints[0]!;
    switch (this.#settings.endpoint) {
      case 'score':
        return this.#score(root, request, options);
      case 'classify':
        return this.#classify(root, request, options);
      default:
        return this.#rerank(root, request, options);
    }
  }

  /** `/score` with `text_1` and `text_2` as lists of the same length: one score per pair, one request. */
  async #score(root: string, request: ClassificationRequest, options: CallOptions): Promise<ClassificationResult> {
    const body = { model: this.modelId, text_1: request.pairs.map((p) => p.text), text_2: request.pairs.map((p) => p.textPair), ...this.#activation() };
    const { json } = await postJson(root, '/score', body, scoreSchema, options, this.#post('/score'));
    const scores = placeByIndex(
      json.data.map((d) => [d.index, d.score]),
      request.pairs.length,
      `${root}/score`,
    );
    return { scores: scores.map((s) => ({ relevant: relevanceScore(s, this.#scale, `${root}/score (${this.modelId})`) })), usage: usageOf(json.usage) };
  }

  /** `/rerank` takes one query and many documents: one request per distinct query. */
  async #rerank(root: string, request: ClassificationRequest, options: CallOptions): Promise<ClassificationResult> {
    const path = this.#settings.endpoint === 'v1/rerank' ? '/v1/rerank' : '/rerank';
    const byQuery = new Map<string, number[]>();
    request.pairs.forEach((p, i) => byQuery.set(p.text, [...(byQuery.get(p.text) ?? []), i]));
    const scores: Array<Record<string, number>> = new Array(request.pairs.length);
    let promptTokens = 0;
    for (const [query, indices] of byQuery) {
      const body = { model: this.modelId, query, documents: indices.map((i) => request.pairs[i]!.textPair), top_n: indices.length, ...this.#activation() };
      const { json } = await postJson(root, path, body, rerankSchema, options, this.#post(path));
      const placed = placeByIndex(
        json.results.map((r) => [r.index, r.relevance_score]),
        indices.length,
        `${root}${path}`,
      );
      placed.forEach((s, j) => (scores[indices[j]!] = { relevant: relevanceScore(s, this.#scale, `${root}${path} (${this.modelId})`) }));
      promptTokens += usageOf(json.usage).promptTokens;
    }
    return { scores, usage: { promptTokens, completionTokens: 0, evaluatedTokens: promptTokens } };
  }

  async #classify(root: string, request: ClassificationRequest, options: CallOptions): Promise<ClassificationResult> {
    const template = this.#settings.pairTemplate;
    const task = request.task;
    const input = request.pairs.map((p) => (task === 'coherence' ? p.text : template!.replace('{text}', () => p.text).replace('{textPair}', () => p.textPair)));
    const body = { model: this.modelId, input, ...this.#activation() };
    const { json } = await postJson(root, '/classify', body, classifySchema, options, this.#post('/classify'));
    const probs = placeByIndex(
      json.data.map((d) => [d.index, d.probs]),
      request.pairs.length,
      `${root}/classify`,
    );
    const labels = this.#settings.labels!;
    const where = `${root}/classify (${this.modelId})`;
    const scores = probs.map((p) => {
      const byIndex = p.map((score, i) => ({ label: String(i), score }));
      if (task !== 'nli') return positiveEntry(task, positiveScore(byIndex, task, this.#scale, labels, where));
      if (p.length !== Object.keys(labels).length)
        throw shapeError(`${root}/classify`, `${p.length} classes, but "labels" names ${Object.keys(labels).length}`);
      return nliScores(byIndex, this.#scale, labels, where);
    });
    return { scores, usage: usageOf(json.usage) };
  }

  #activation(): { use_activation?: false } {
    return this.#scale === 'logit' ? { use_activation: false } : {};
  }

  #post(path: string): { apiKey?: string; notFoundHint: string } {
    return {
      ...(this.#settings.apiKey ? { apiKey: this.#settings.apiKey } : {}),
      notFoundHint: `Does this vLLM serve ${path} for ${this.modelId}? /score and /rerank need a cross-encoder with one label, /classify a classification model; the spec's URL ends in /v1.`,
    };
  }
}

/** Answers carry the input's index (vLLM sorts rerank results by score): back into input order, each exactly once. */
function placeByIndex<T>(entries: Array<[number, T]>, count: number, url: string): T[] {
  const out: T[] = new Array(count);
  const seen = new Set<number>();
  for (const [i, v] of entries) {
    if (i >= count || seen.has(i)) throw shapeError(url, `index ${i} out of range or repeated for ${count} inputs`);
    seen.add(i);
    out[i] = v;
  }
  if (seen.size !== count) throw shapeError(url, `${seen.size} answers for ${count} inputs`);
  return out;
}

function usageOf(usage: z.infer<typeof usageSchema>): { promptTokens: number; completionTokens: number; evaluatedTokens: number } {
  const promptTokens = usage?.prompt_tokens ?? usage?.total_tokens ?? 0;
  return { promptTokens, completionTokens: 0, evaluatedTokens: promptTokens };
}
