/**
 * In-process GGUF models through node-llama-cpp 3.x.
 *
 * One context holds several sequences; concurrent calls each take a free sequence and
 * node-llama-cpp evaluates them in the same batch (the sequence pool: ./sequence-pool.ts, which
 * also reuses evaluated prompt prefixes). Loading and hashing the file: ./gguf-loading.ts.
 */
import type { LlamaContext, LlamaContextSequence, LlamaEmbeddingContext, LlamaModel as NativeModel, Token } from 'node-llama-cpp';
import { fileSha256, loadGgufModel } from './gguf-loading.js';
import { SequencePool } from './sequence-pool.js';
import {
  MODEL_SPECIFICATION_VERSION,
  candidateForToken,
  cutAtStop,
  logSumExp,
  type CallOptions,
  type ChatRequest,
  type CompletionRequest,
  type CompletionResult,
  type ContinuationLogLikelihoodRequest,
  type ContinuationLogLikelihoodResult,
  type EmbeddingRequest,
  type EmbeddingResult,
  type EmbeddingModel,
  type TextGenerationModel,
  type ModelRuntime,
  type NextTokenLogprobsRequest,
  type NextTokenLogprobsResult,
  type Sampling,
  type Usage,
} from '../language-model.js';
import type { ModelKind, ScoringModel, TokenScoresRequest, TokenScoresResult } from '../model-kinds.js';

export interface LlamaSettings {
  /** A local `.gguf` path, or an `hf:owner/repo:QUANT` / `hf:owner/repo/file.gguf` URI. */
  model: string;
  /** Where `hf:` downloads go. */
  modelsDir: string;
  /** CPU threads. node-llama-cpp's default (4) crawls on small machines; default here: cores - 1. */
  threads?: number;
  /**
   * Parallel sequences in the context (= concurrent calls batched together). Default 1: batched
   * evaluation changes the floating-point numerics, so two runs with several sequences can give
   * different responses; one sequence gives byte-identical runs. More is an opt-in that the
   * run's protocol block records as nondeterministic.
   */
  sequences?: number;
  /** Context size per sequence, in tokens. Default: the model's training size, at most 4096. */
  contextSize?: number;
  gpu?: boolean;
  /** Reuse evaluated prompt prefixes across calls (default true; false only to measure what reuse saves). */
  reusePrefix?: boolean;
}

/** One sequence: deterministic (see `LlamaSettings.sequences`). */
export const DEFAULT_SEQUENCES = 1;

export class LlamaModel implements TextGenerationModel, EmbeddingModel, ScoringModel {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = 'llama';
  /** Also a scoring model (`scoreTokens`): the same weights score continuations token by token. */
  readonly kinds: readonly ModelKind[] = ['text-generation', 'embedding', 'scoring'];
  readonly modelId: string;
  readonly cacheIdentity: string;
  readonly endpoints: readonly string[] = ['in-process'];
  readonly defaultConcurrency: number;
  runtime: ModelRuntime = { backend: 'cpu', sequences: 1 };

  readonly #model: NativeModel;
  readonly #context: LlamaContext;
  readonly #pool: SequencePool;
  #embedding: Promise<LlamaEmbeddingContext> | undefined;
  #embeddingQueue: Promise<unknown> = Promise.resolve();
  readonly #candidateTokens = new Map<string, Token[]>();
  #closed = false;

  private constructor(modelId: string, identity: string, model: NativeModel, context: LlamaContext, sequences: LlamaContextSequence[], reusePrefix: boolean) {
    this.modelId = modelId;
    this.cacheIdentity = identity;
    this.#model = model;
    this.#context = context;
    this.#pool = new SequencePool(sequences, context.contextSize, modelId, reusePrefix);
    this.defaultConcurrency = sequences.length;
  }

  static async load(settings: LlamaSettings): Promise<LlamaModel> {
    const { path, llama, model, threads } = await loadGgufModel(settings);
    const sequenceCount = settings.sequences ?? DEFAULT_SEQUENCES;
    const contextSize = settings.contextSize ?? Math.min(model.trainContextSize, 4096);
    const context = await model.createContext({ sequences: sequenceCount, contextSize, threads });
    const sequences: LlamaContextSequence[] = [];
    for (let i = 0; i < sequenceCount; i++) sequences.push(context.getSequence());
    const sha = await fileSha256(path);
    const provider = new LlamaModel(settings.model, `llama:sha256=${sha}`, model, context, sequences, settings.reusePrefix ?? true);
    provider.runtime = { backend: llama.gpu === false ? 'cpu' : llama.gpu, sequences: sequenceCount };
    return provider;
  }

  /** Highest number of sequences evaluating at the same moment (shows batching happened). */
  get maxActiveSequences(): number {
    return this.#pool.maxActiveSequences;
  }

  set maxActiveSequences(value: number) {
    this.#pool.maxActiveSequences = value;
  }

  /** Tokens one sequence can hold: prompts beyond this cannot be evaluated. */
  get contextSize(): number {
    return this.#context.contextSize;
  }

  /** Tokenises like the model will (BOS included where the model wants it). */
  tokenize(text: string): Token[] {
    const tokens = this.#model.tokenize(text, false);
    const bos = this.#model.tokens.bos;
    return this.#model.tokens.shouldPrependBosToken && bos !== null ? [bos, ...tokens] : tokens;
  }

  async complete(request: CompletionRequest, options: CallOptions = {}): Promise<CompletionResult> {
    return this.#generate(this.tokenize(request.prompt), request.maxTokens, request.stop, options, request.sampling);
  }

  async chat(request: ChatRequest, options: CallOptions = {}): Promise<CompletionResult> {
    const { resolveChatWrapper } = await import('node-llama-cpp');
    const wrapper = resolveChatWrapper(this.#model);
    const history = request.messages.map((m) =>
      m.role === 'assistant'
        ? { type: 'model' as const, response: [m.content] }
        : m.role === 'system'
          ? { type: 'system' as const, text: m.content }
          : { type: 'user' as const, text: m.content },
    );
    history.push({ type: 'model', response: [] });
    const state = wrapper.generateContextState({ chatHistory: history });
    const tokens = state.contextText.tokenize(this.#model.tokenizer);
    const triggers = state.stopGenerationTriggers.map((t) => t.toString()).filter((s) => s.length > 0);
    return this.#generate(tokens, request.maxTokens, [...(request.stop ?? []), ...triggers], options, request.sampling);
  }

  async nextTokenLogprobs(request: NextTokenLogprobsRequest, options: CallOptions = {}): Promise<NextTokenLogprobsResult> {
    const tokens = this.tokenize(request.prompt);
    return this.#pool.withSequence(tokens, options, async (sequence, reused) => {
      const rest = tokens.slice(reused);
      let probabilities: Map<Token, number> | undefined;
      for await (const output of sequence.evaluateWithMetadata(rest, { probabilities: true }, { temperature: 0 })) {
        probabilities = output.probabilities;
        break;
      }
      if (!probabilities) throw new Error('node-llama-cpp returned no next-token probabilities');
      const logprobs: Record<string, number | null> = {};
      for (const candidate of request.candidates) {
        const ps = this.#tokensFor(candidate)
          .map((t) => probabilities!.get(t) ?? 0)
          .filter((p) => p > 0)
          .map((p) => Math.log(p));
        logprobs[candidate] = ps.length === 0 ? null : logSumExp(ps);
      }
      return { logprobs, usage: { promptTokens: tokens.length, completionTokens: 0, evaluatedTokens: rest.length } };
    });
  }

  async continuationLogLikelihood(request: ContinuationLogLikelihoodRequest, options: CallOptions = {}): Promise<ContinuationLogLikelihoodResult> {
    const r = await this.scoreTokens(request, options);
    return { logLikelihood: r.logLikelihood, tokens: r.tokens.length, usage: r.usage };
  }

  /**
   * Teacher forcing: the natural-log probability of each continuation token given everything
   * before it, in one evaluation. The sequence keeps what it evaluated, so the next call with the
   * same context (helpfulness scores one query+knowledge prefix with several continuations; a
   * paragraph's sentences share their prefix) evaluates only the tokens after the shared prefix.
   */
  async scoreTokens(request: TokenScoresRequest, options: CallOptions = {}): Promise<TokenScoresResult> {
    // Tokenise context and continuation together, then split where they stop agreeing: tokenising
    // the continuation alone adds spurious word-start tokens and gives a wrong likelihood.
    const all = this.tokenize(request.context + request.continuation);
    const contextTokens = this.tokenize(request.context);
    let boundary = 0;
    while (boundary < contextTokens.length && boundary < all.length && contextTokens[boundary] === all[boundary]) boundary++;
    // An empty context (no BOS either): the first token has no prediction, so scoring starts at the second.
    boundary = Math.max(1, boundary);
    if (boundary >= all.length) {
      return { tokens: [], tokenLogprobs: [], logLikelihood: 0, usage: { promptTokens: all.length, completionTokens: 0, evaluatedTokens: 0 } };
    }
    // Logits for position boundary-1 onwards are needed, so at most boundary-1 tokens may be reused.
    return this.#pool.withSequence(
      all,
      options,
      async (sequence, reused) => {
        const input = all.slice(reused).map((token, j) => {
          const i = reused + j;
          return i >= boundary - 1 && i < all.length - 1
            ? ([token, { generateNext: { probabilities: true } }] as [Token, { generateNext: { probabilities: true } }])
            : token;
        });
        const results = await sequence.controlledEvaluate(input);
        const tokenLogprobs: number[] = [];
        const tokens: string[] = [];
        for (let i = boundary - 1; i < all.length - 1; i++) {
          const p = results[i - reused]?.next?.probabilities?.get(all[i + 1]!) ?? 0;
          // A token the model gives no probability (below float precision): a finite floor, so sums stay numbers.
          tokenLogprobs.push(p > 0 ? Math.log(p) : -1e9);
          tokens.push(this.#tokenText(all, i + 1));
        }
        const logLikelihood = tokenLogprobs.reduce((a, b) => a + b, 0);
        return { tokens, tokenLogprobs, logLikelihood, usage: { promptTokens: all.length, completionTokens: 0, evaluatedTokens: input.length } };
      },
      boundary - 1,
    );
  }

  /** Text of token `i` of `tokens` as it reads in place (with its leading space, which `detokenize([t])` drops). */
  #tokenText(tokens: Token[], i: number): string {
    const before = this.#model.detokenize(tokens.slice(Math.max(0, i - 1), i));
    const both = this.#model.detokenize(tokens.slice(Math.max(0, i - 1), i + 1));
    return both.startsWith(before) ? both.slice(before.length) : this.#model.detokenize([tokens[i]!]);
  }

  async embed(request: EmbeddingRequest): Promise<EmbeddingResult> {
    // One embedding context, used by one call at a time.
    const run = this.#embeddingQueue.then(async () => {
      this.#embedding ??= this.#model.createEmbeddingContext({ contextSize: Math.min(this.#model.trainContextSize, 2048) });
      const context = await this.#embedding;
      const embeddings: number[][] = [];
      let promptTokens = 0;
      for (const text of request.texts) {
        embeddings.push([...(await context.getEmbeddingFor(text)).vector]);
        promptTokens += this.#model.tokenize(text).length;
      }
      return { embeddings, usage: { promptTokens, completionTokens: 0, evaluatedTokens: promptTokens } };
    });
    this.#embeddingQueue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#embedding) await (await this.#embedding).dispose();
    await this.#context.dispose();
    await this.#model.dispose();
  }

  async #generate(tokens: Token[], maxTokens: number, stop: string[] | undefined, options: CallOptions, sampling?: Sampling): Promise<CompletionResult> {
    // Sampling: node-llama-cpp's chain is top-k, top-p, min-p, temperature, then a draw seeded
    // with `seed` (a fresh sampler per call, so one seed gives one text). topK 0 turns the top-k
    // cut off (its default is 40), leaving pure nucleus sampling.
    const how = sampling === undefined ? { temperature: 0 } : { temperature: sampling.temperature, topP: sampling.topP, topK: 0, minP: 0, seed: sampling.seed };
    return this.#pool.withSequence(tokens, options, async (sequence, reused) => {
      const rest = tokens.slice(reused);
      const generated: Token[] = [];
      let text = '';
      let finishReason: CompletionResult['finishReason'] = 'length';
      if (maxTokens > 0) {
        for await (const token of sequence.evaluate(rest, how)) {
          if (options.signal?.aborted) throw options.signal.reason;
          if (this.#model.isEogToken(token)) {
            finishReason = 'stop';
            break;
          }
          generated.push(token);
          const cut = cutAtStop(this.#model.detokenize(generated), stop);
          text = cut.text;
          if (cut.stopped) {
            finishReason = 'stop';
            break;
          }
          if (generated.length >= maxTokens) break;
        }
      }
      const usage: Usage = {
        promptTokens: tokens.length,
        completionTokens: generated.length,
        evaluatedTokens: rest.length + Math.max(0, generated.length - 1),
      };
      return { text, finishReason, usage };
    });
  }

  /** The vocabulary tokens that spell `candidate` as the next token, with and without a leading space. */
  #tokensFor(candidate: string): Token[] {
    let tokens = this.#candidateTokens.get(candidate);
    if (tokens) return tokens;
    const found = new Set<Token>();
    const base = this.#model.tokenize('ANSWER:', false);
    for (const sep of ['', ' ', '\n']) {
      const full = this.#model.tokenize(`ANSWER:${sep}${candidate}`, false);
      const sharesBase = base.every((t, i) => full[i] === t);
      const rest = sharesBase ? full.slice(base.length) : [];
      const last = rest[rest.length - 1];
      if (last !== undefined && candidateForToken(this.#model.detokenize([last]), [candidate]) !== undefined) found.add(last);
    }
    tokens = [...found];
    this.#candidateTokens.set(candidate, tokens);
    return tokens;
  }
}
