/**
 * A scripted model: replies chosen by rules (exact prompt, substring, regular expression, or a
 * default) or by a function, so that a whole pipeline runs offline and deterministically: the
 * same prompt always gets the same reply, whatever the concurrency. It implements text
 * generation (`complete`, `chat`) and, where a rule gives `logprobs`, next-token
 * log-probabilities (MCQ answers in logprobs mode).
 *
 * A sampled call (`sampling`, e.g. `llmkb conner best-of`) gets one of a rule's `samples`, picked
 * by the draw's seed, so draws differ as a sampled model's would and the same seed gives the same
 * text; without `samples` it gets `reply`, as a greedy call does.
 *
 * Tokens are white-space words (`/\s*\S+/`): `maxTokens` cuts a reply after that many, and usage
 * counts them, so a run's token accounting is stable too.
 */
import { createHash } from 'node:crypto';
import { ModelCallError } from '../../errors.js';
import {
  MODEL_SPECIFICATION_VERSION,
  cutAtStop,
  type CallOptions,
  type ChatMessage,
  type ChatRequest,
  type CompletionRequest,
  type CompletionResult,
  type NextTokenLogprobsRequest,
  type NextTokenLogprobsResult,
  type Sampling,
  type TextGenerationModel,
  type Usage,
} from '../language-model.js';
import type { ModelKind } from '../model-kinds.js';

/** One rule of a replies file (`mock:replies.jsonl`), tried in file order; the first that matches answers. */
export interface MockRule {
  /** The whole prompt, exactly. */
  prompt?: string;
  /** A substring of the prompt. */
  contains?: string;
  /** A regular expression (JavaScript syntax) tested against the prompt. */
  regex?: string;
  /** Flags for `regex`, e.g. `"i"`. */
  flags?: string;
  /** Answers every prompt no other rule matches (at most one per file). */
  default?: boolean;
  /** The generated text. */
  reply?: string;
  /** Texts for sampled calls (top-p draws): the draw's seed picks one. Greedy calls get `reply`. */
  samples?: string[];
  /** Next-token log-probabilities per candidate (natural log), for MCQ answers in logprobs mode. */
  logprobs?: Record<string, number>;
}

/** What a scripted call is about: the prompt as text (a chat's messages joined, one per line). */
export interface MockCall {
  kind: 'complete' | 'chat' | 'nextTokenLogprobs';
  prompt: string;
  messages?: ChatMessage[];
  candidates?: string[];
  /** A sampled generation call's settings (absent for greedy calls). */
  sampling?: Sampling;
}

export type MockResponder = (call: MockCall) => string | { reply?: string; logprobs?: Record<string, number> };

export interface MockSettings {
  /** Rules (as in a replies file) or a function of the call. */
  replies: readonly MockRule[] | MockResponder;
  /** Model id as shown (the spec, or a name). */
  modelId?: string;
  /**
   * Identity for the call cache. Default: a hash of the rules; a function has no content to hash,
   * so give one (and change it when the function changes) or the cache may return old replies.
   */
  identity?: string;
  concurrency?: number;
  /** A function answers next-token log-probability calls too (it returns `logprobs` for them). Rules: when any rule has `logprobs`. */
  logprobs?: boolean;
}

/** Which of n samples a draw gets: from its seed alone (SHA-256, so nearby seeds spread). */
function sampleIndex(sampling: Sampling, n: number): number {
  return createHash('sha256').update(String(sampling.seed)).digest().readUInt32BE(0) % n;
}

function words(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

function usageOf(prompt: string, completion: number): Usage {
  const promptTokens = words(prompt).length;
  return { promptTokens, completionTokens: completion, evaluatedTokens: promptTokens + completion };
}

export class MockModel implements TextGenerationModel {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = 'mock';
  readonly modelId: string;
  readonly cacheIdentity: string;
  readonly kinds: readonly ModelKind[] = ['text-generation'];
  readonly endpoints: readonly string[] = ['in-process'];
  readonly defaultConcurrency: number;
  readonly samplingDeterminism = { deterministic: true, why: 'the mock provider ignores sampling: every draw is its scripted reply' };
  /** Every call answered, in the order they came (for tests that check what was asked). */
  readonly calls: MockCall[] = [];
  readonly #respond: MockResponder;
  /** Present only when the script gives log-probabilities (a run then compares the MCQ answer modes). */
  readonly nextTokenLogprobs?: (request: NextTokenLogprobsRequest, options?: CallOptions) => Promise<NextTokenLogprobsResult>;

  constructor(settings: MockSettings) {
    this.modelId = settings.modelId ?? 'mock';
    this.defaultConcurrency = settings.concurrency ?? 8;
    if (typeof settings.replies === 'function') {
      this.#respond = settings.replies;
      this.cacheIdentity = `mock:${settings.identity ?? this.modelId}`;
    } else {
      const rules = settings.replies.map((r) => ({ ...r, re: r.regex === undefined ? undefined : new RegExp(r.regex, r.flags) }));
      this.#respond = (call) => {
        const rule =
          rules.find(
            (r) =>
              !r.default &&
              (r.prompt === undefined || r.prompt === call.prompt) &&
              (r.contains === undefined || call.prompt.includes(r.contains)) &&
              (r.re === undefined || r.re.test(call.prompt)),
          ) ?? rules.find((r) => r.default);
        if (!rule) {
          throw new ModelCallError(
            `${this.modelId}: no scripted reply matches the prompt ${JSON.stringify(call.prompt.length > 120 ? `${call.prompt.slice(0, 120)}…` : call.prompt)}`,
            {
              retryable: false,
              hint: 'Add a rule that matches it, or a {"default": true, "reply": "..."} line, to the replies file.',
            },
          );
        }
        const reply = call.sampling && rule.samples?.length ? rule.samples[sampleIndex(call.sampling, rule.samples.length)] : rule.reply;
        return { ...(reply === undefined ? {} : { reply }), ...(rule.logprobs === undefined ? {} : { logprobs: rule.logprobs }) };
      };
      this.cacheIdentity = settings.identity ?? `mock:sha256=${createHash('sha256').update(JSON.stringify(settings.replies)).digest('hex')}`;
    }
    const logprobs = typeof settings.replies === 'function' ? settings.logprobs === true : settings.replies.some((r) => r.logprobs !== undefined);
    if (logprobs) this.nextTokenLogprobs = (request, options) => this.#nextTokenLogprobs(request, options);
  }

  #answer(call: MockCall): { reply?: string; logprobs?: Record<string, number> } {
    this.calls.push(call);
    const answer = this.#respond(call);
    return typeof answer === 'string' ? { reply: answer } : answer;
  }

  #generate(call: MockCall, maxTokens: number, stop: string[] | undefined, options: CallOptions): CompletionResult {
    options.signal?.throwIfAborted();
    const { reply } = this.#answer(call);
    if (reply === undefined)
      throw new ModelCallError(
        `${this.modelId}: the matching rule has no "reply" (only ${call.sampling ? '"logprobs", and no "samples" for this sampled call' : '"logprobs"'})`,
        { retryable: false, hint: call.sampling ? 'Give the rule "samples" (or a "reply").' : 'Give the rule a "reply".' },
      );
    const tokens = words(reply);
    const kept = tokens.slice(0, maxTokens).join('');
    const cut = cutAtStop(kept, stop);
    const finishReason = cut.stopped || tokens.length <= maxTokens ? 'stop' : 'length';
    return { text: cut.text, finishReason, usage: usageOf(call.prompt, words(cut.text).length) };
  }

  async complete(request: CompletionRequest, options: CallOptions = {}): Promise<CompletionResult> {
    return this.#generate(
      { kind: 'complete', prompt: request.prompt, ...(request.sampling ? { sampling: request.sampling } : {}) },
      request.maxTokens,
      request.stop,
      options,
    );
  }

  async chat(request: ChatRequest, options: CallOptions = {}): Promise<CompletionResult> {
    return this.#generate(
      {
        kind: 'chat',
        prompt: request.messages.map((m) => m.content).join('\n'),
        messages: request.messages,
        ...(request.sampling ? { sampling: request.sampling } : {}),
      },
      request.maxTokens,
      request.stop,
      options,
    );
  }

  async #nextTokenLogprobs(request: NextTokenLogprobsRequest, options: CallOptions = {}): Promise<NextTokenLogprobsResult> {
    options.signal?.throwIfAborted();
    const { logprobs } = this.#answer({ kind: 'nextTokenLogprobs', prompt: request.prompt, candidates: request.candidates });
    if (logprobs === undefined) {
      throw new ModelCallError(`${this.modelId}: the matching rule has no "logprobs" for a next-token log-probability call`, {
        retryable: false,
        hint: 'Give the rule "logprobs": {"A": -0.1, ...}, or answer MCQs with --mode generate.',
      });
    }
    return { logprobs: Object.fromEntries(request.candidates.map((c) => [c, logprobs[c] ?? null])), usage: usageOf(request.prompt, 0) };
  }

  async close(): Promise<void> {}
}
