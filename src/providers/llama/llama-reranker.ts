/**
 * In-process GGUF rerankers through node-llama-cpp's ranking context
 * (`model.createRankingContext()`, `LlamaRankingContext.rank`): a cross-encoder converted to GGUF
 * with a classification head (`cls.output.weight`) and pooling "rank", e.g. bge-reranker-v2-m3,
 * jina-reranker-v1-tiny-en or Qwen3-Reranker, as a relevance classifier.
 *
 * node-llama-cpp evaluates `[BOS] query [EOS] [SEP] document [EOS]` (or the model's own
 * `tokenizer.chat_template.rerank`) and reads the head's output: sigmoid(logit) for a one-logit
 * cross-encoder, or P("yes") for Qwen3-Reranker (whose head llama.cpp ends with a softmax). Either
 * is a probability in [0, 1], reported as `relevant` like every relevance backend
 * (src/providers/classification/labels.ts).
 */
import type { LlamaModel as NativeModel, LlamaRankingContext } from 'node-llama-cpp';
import { ContextOverflowError, ModelCallError, ModelFileError } from '../../errors.js';
import { InProcessClassifier } from '../classification/classifier-base.js';
import { relevanceScore } from '../classification/labels.js';
import type { CallOptions } from '../language-model.js';
import type { ClassificationRequest, ClassificationResult } from '../model-kinds.js';
import { fileSha256, loadGgufModel } from './gguf-loading.js';

export interface LlamaRerankerSettings {
  /** A local `.gguf` path, or an `hf:owner/repo:QUANT` / `hf:owner/repo/file.gguf` URI. */
  model: string;
  /** Where `hf:` downloads go. */
  modelsDir: string;
  /** CPU threads; default cores - 1, as for gguf: text models. */
  threads?: number;
  /** Tokens per (query, document) input. Default: the model's training size, at most 4096. */
  contextSize?: number;
  gpu?: boolean;
}

/** The ranking context has one sequence: pairs are evaluated one after another. */
export class LlamaReranker extends InProcessClassifier {
  readonly provider = 'llama-rerank';
  readonly #model: NativeModel;
  readonly #context: LlamaRankingContext;

  private constructor(modelId: string, identity: string, model: NativeModel, context: LlamaRankingContext) {
    super({ modelId, cacheIdentity: identity, tasks: ['relevance'] });
    this.#model = model;
    this.#context = context;
  }

  static async load(settings: LlamaRerankerSettings): Promise<LlamaReranker> {
    const { path, llama, model, threads } = await loadGgufModel(settings);
    if (!model.fileInsights.supportsRanking) {
      await model.dispose();
      throw new ModelFileError(`${path} is not a reranker: it has no classification head (cls.output.weight) that llama.cpp can rank with`, {
        hint: 'Use a reranker converted to GGUF (e.g. hf:gpustack/bge-reranker-v2-m3-GGUF:Q8_0); a text model scores relevance with llm-relevance:<spec> instead.',
      });
    }
    const contextSize = settings.contextSize ?? Math.min(model.trainContextSize, 4096);
    const context = await model.createRankingContext({ contextSize, threads });
    const sha = await fileSha256(path);
    const reranker = new LlamaReranker(settings.model, `llama-rerank:sha256=${sha}`, model, context);
    reranker.runtime = { backend: llama.gpu === false ? 'cpu' : llama.gpu, sequences: 1 };
    return reranker;
  }

  get contextSize(): number {
    return this.#context.contextSize;
  }

  async classify(request: ClassificationRequest, options: CallOptions = {}): Promise<ClassificationResult> {
    if (request.task !== 'relevance') {
      throw new ModelCallError(`GGUF reranker ${this.modelId} scores relevance, not ${request.task}`, { retryable: false, hint: 'For NLI use an NLI cross-encoder (onnx:, tei:, vllm-classify:) or llm-nli:<text model spec>.' });
    }
    return this.serially(() => this.#rank(request, options));
  }

  async #rank(request: ClassificationRequest, options: CallOptions): Promise<ClassificationResult> {
    const where = `GGUF reranker ${this.modelId}`;
    const scores: Array<Record<string, number>> = [];
    let tokens = 0;
    for (const [i, pair] of request.pairs.entries()) {
      options.signal?.throwIfAborted();
      const length = this.#context.calculateInputLength(pair.text, pair.textPair);
      // No silent cut: node-llama-cpp's "maxChunk" would score the best window instead of the passage.
      if (length >= this.#context.contextSize) throw new ContextOverflowError(`pair ${i} is ${length} tokens, over the ${this.#context.contextSize}-token context of ${where} (raise "contextSize" for this model)`);
      tokens += length;
      scores.push({ relevant: relevanceScore(await this.#context.rank(pair.text, pair.textPair), 'probability', where) });
    }
    return { scores, usage: { promptTokens: tokens, completionTokens: 0, evaluatedTokens: tokens } };
  }

  protected async dispose(): Promise<void> {
    await this.#context.dispose();
    await this.#model.dispose();
  }
}
