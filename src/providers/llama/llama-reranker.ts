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
 *
 * A head with several outputs (`<arch>.classifier.output_labels`, e.g. a two-logit monoBERT) is
 * read whole: `rank` returns only the first output, so the input is evaluated as `rank` does and
 * every output is read from the context (node-llama-cpp's internals, pinned with its version);
 * the relevant one is the label the config's `labels` map or its own name says (positiveIndex).
 */
import type { LlamaModel as NativeModel, LlamaRankingContext, Token } from 'node-llama-cpp';
import { ContextOverflowError, ModelCallError, ModelFileError } from '../../errors.js';
import { InProcessClassifier } from '../classification/classifier-base.js';
import { positiveIndex, relevanceScore, softmax, type LabelMap } from '../classification/labels.js';
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
  /** Which output of a several-output head is "relevant" (e.g. {"LABEL_1": "relevant"}). */
  labels?: LabelMap;
}

/** The parts of LlamaRankingContext that `rank` uses and that read every output of the head. */
interface RankingInternals {
  _getEvaluationInput(query: Token[], document: Token[]): Token[];
  _sequence: {
    nextTokenIndex: number;
    eraseContextTokenRanges(ranges: Array<{ start: number; end: number }>): Promise<void>;
    evaluate(tokens: Token[], options: { _noSampling: true }): AsyncIterable<Token>;
  };
  _llamaContext: { _ctx: { getEmbedding(inputTokens: number, maxVectorSize?: number): Float64Array } };
}

function hasInternals(context: LlamaRankingContext): boolean {
  const c = context as unknown as Partial<RankingInternals>;
  return (
    typeof c._getEvaluationInput === 'function' && typeof c._sequence?.evaluate === 'function' && typeof c._llamaContext?._ctx?.getEmbedding === 'function'
  );
}

/** A head with several outputs: its labels, which one is relevant, and whether llama.cpp already softmaxes them (qwen3). */
interface MultiOutputHead {
  labels: string[];
  relevant: number;
  normalized: boolean;
}

/** The ranking context has one sequence: pairs are evaluated one after another. */
export class LlamaReranker extends InProcessClassifier {
  readonly provider = 'llama-rerank';
  readonly #model: NativeModel;
  readonly #context: LlamaRankingContext;
  readonly #head: MultiOutputHead | undefined;

  private constructor(modelId: string, identity: string, model: NativeModel, context: LlamaRankingContext, head: MultiOutputHead | undefined) {
    super({ modelId, cacheIdentity: identity, tasks: ['relevance'] });
    this.#model = model;
    this.#context = context;
    this.#head = head;
  }

  static async load(settings: LlamaRerankerSettings): Promise<LlamaReranker> {
    const { path, llama, model, threads } = await loadGgufModel(settings);
    if (!model.fileInsights.supportsRanking) {
      await model.dispose();
      throw new ModelFileError(`${path} is not a reranker: it has no classification head (cls.output.weight) that llama.cpp can rank with`, {
        hint: 'Use a reranker converted to GGUF (e.g. hf:gpustack/bge-reranker-v2-m3-GGUF:Q8_0); a text model scores relevance with llm-relevance:<spec> instead.',
      });
    }
    const arch = String(model.fileInfo.metadata?.general?.architecture ?? '');
    const outputLabels = (model.fileInfo.metadata as unknown as Record<string, { classifier?: { output_labels?: unknown } } | undefined>)[arch]?.classifier
      ?.output_labels;
    const labels = Array.isArray(outputLabels) ? outputLabels.map(String) : [];
    let head: MultiOutputHead | undefined;
    if (labels.length > 1) {
      try {
        head = {
          labels,
          relevant: positiveIndex(labels, 'relevance', settings.labels, `GGUF reranker ${settings.model}`),
          normalized: arch === 'qwen3' || arch === 'qwen3vl',
        };
      } catch (error) {
        await model.dispose();
        throw error;
      }
    }
    const contextSize = settings.contextSize ?? Math.min(model.trainContextSize, 4096);
    const context = await model.createRankingContext({ contextSize, threads });
    if (head && !hasInternals(context)) {
      await context.dispose();
      await model.dispose();
      throw new ModelFileError(`${path} has ${labels.length} outputs, and this node-llama-cpp cannot read more than the first`, {
        hint: 'Use the node-llama-cpp version llmkb pins, or serve the model with TEI (tei:) or vLLM (vllm-classify:).',
      });
    }
    const sha = await fileSha256(path);
    // Which output is read is part of what the scores mean.
    const identity = `llama-rerank:sha256=${sha}${head ? `:relevant=${JSON.stringify(labels[head.relevant])}` : ''}`;
    const reranker = new LlamaReranker(settings.model, identity, model, context, head);
    reranker.runtime = { backend: llama.gpu === false ? 'cpu' : llama.gpu, sequences: 1 };
    return reranker;
  }

  get contextSize(): number {
    return this.#context.contextSize;
  }

  async classify(request: ClassificationRequest, options: CallOptions = {}): Promise<ClassificationResult> {
    if (request.task !== 'relevance') {
      throw new ModelCallError(`GGUF reranker ${this.modelId} scores relevance, not ${request.task}`, {
        retryable: false,
        hint: 'For NLI use an NLI cross-encoder (onnx:, tei:, vllm-classify:) or llm-nli:<text model spec>.',
      });
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
      if (length >= this.#context.contextSize)
        throw new ContextOverflowError(
          `pair ${i} is ${length} tokens, over the ${this.#context.contextSize}-token context of ${where} (raise "contextSize" for this model)`,
        );
      tokens += length;
      const p = this.#head ? await this.#headProbability(pair.text, pair.textPair, this.#head) : await this.#context.rank(pair.text, pair.textPair);
      scores.push({ relevant: relevanceScore(p, 'probability', where) });
    }
    return { scores, usage: { promptTokens: tokens, completionTokens: 0, evaluatedTokens: tokens } };
  }

  /** A several-output head: evaluated as `rank` evaluates a pair, every output read, the relevant one's probability. */
  async #headProbability(query: string, document: string, head: MultiOutputHead): Promise<number> {
    const internals = this.#context as unknown as RankingInternals;
    const tokenize = (text: string): Token[] => this.#model.tokenize(text, false, 'trimLeadingSpace');
    const input = internals._getEvaluationInput(tokenize(query), tokenize(document));
    const sequence = internals._sequence;
    await sequence.eraseContextTokenRanges([{ start: 0, end: sequence.nextTokenIndex }]);
    for await (const _token of sequence.evaluate(input, { _noSampling: true })) break;
    const values = [...internals._llamaContext._ctx.getEmbedding(input.length, 0)];
    if (values.length !== head.labels.length)
      throw new ModelCallError(`GGUF reranker ${this.modelId} gave ${values.length} outputs for its ${head.labels.length} labels`, { retryable: false });
    return (head.normalized ? values : softmax(values))[head.relevant]!;
  }

  protected async dispose(): Promise<void> {
    await this.#context.dispose();
    await this.#model.dispose();
  }
}
