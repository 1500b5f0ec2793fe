/**
 * A text-generation model prompted as a classifier: NLI (does the premise entail the hypothesis?
 * Yes / No / Maybe) or relevance (is the passage relevant to the query? Yes / No). The label
 * probabilities come from the model's next-token log-probabilities of the label words
 * (`nextTokenLogprobs`, through an executor: retried, bounded, optionally cached), not from
 * parsing generated text:
 *
 *   p(label) = sum over the label's words w of P(w | prompt)        (spellings such as "Yes"/"yes")
 *   score(label) = p(label) / sum over labels l of p(l)             (renormalised over the labels)
 *
 * so the scores sum to 1 over the labels even though the model puts some mass on other tokens.
 * A label none of whose words is among the returned tokens (a server returns only its top-k) gets
 * 0; when no label word is found at all the call fails, as a classification would be made up.
 */
import { createHash } from 'node:crypto';
import { ModelCallError } from '../../errors.js';
import { ModelExecutor } from '../../executor/model-executor.js';
import { logSumExp, type CallOptions, type Model } from '../language-model.js';
import type { ClassificationRequest, ClassificationResult, ClassificationTask, TextPair } from '../model-kinds.js';
import { ClassifierBase } from '../classification/classifier-base.js';

/** The tasks a prompted text model does: a pair each (coherence of one paragraph is not one of them). */
export type LlmClassifierTask = Exclude<ClassificationTask, 'coherence'>;

/** The default prompts: raw completion text ending where the answer word comes. */
export const LLM_CLASSIFIER_PROMPTS: Record<LlmClassifierTask, string> = {
  nli: 'Premise: {text}\nHypothesis: {textPair}\nQuestion: Does the premise entail the hypothesis? Answer Yes, No or Maybe.\nAnswer:',
  relevance: 'Query: {text}\nPassage: {textPair}\nQuestion: Is the passage relevant to the query? Answer Yes or No.\nAnswer:',
};

/** Label -> the words that stand for it (each should be one token of the model's vocabulary). */
export const LLM_CLASSIFIER_LABEL_WORDS: Record<LlmClassifierTask, Record<string, string[]>> = {
  nli: { entailment: ['Yes', 'yes'], contradiction: ['No', 'no'], neutral: ['Maybe', 'maybe'] },
  relevance: { relevant: ['Yes', 'yes'], irrelevant: ['No', 'no'] },
};

export interface LlmClassifierSettings {
  /** The text model, or an executor over it (then its cache and accounting are used). */
  model: Model | ModelExecutor<Model>;
  task: LlmClassifierTask;
  /** With {text} and {textPair}; default LLM_CLASSIFIER_PROMPTS[task]. */
  prompt?: string;
  /** Default LLM_CLASSIFIER_LABEL_WORDS[task]; NLI needs entailment, neutral and contradiction, relevance needs relevant (and its alternatives). */
  labelWords?: Record<string, string[]>;
  /** Ask through the chat endpoint (instruction models on hosted APIs). */
  asChat?: boolean;
  /** Close the text model with this classifier (it was created for it). */
  ownsModel?: boolean;
}

export class LlmClassifier extends ClassifierBase {
  readonly provider = 'llm-classifier';
  readonly #executor: ModelExecutor<Model>;
  readonly #prompt: string;
  readonly #labelWords: Record<string, string[]>;
  readonly #candidates: string[];
  readonly #task: LlmClassifierTask;
  readonly #asChat: boolean;
  readonly #ownsModel: boolean;

  constructor(settings: LlmClassifierSettings) {
    // Without an executor of its own: retries and concurrency, no cache (the classifier's own
    // executor caches each pair's scores).
    const executor = settings.model instanceof ModelExecutor ? settings.model : new ModelExecutor(settings.model, { cache: null });
    const text = executor.model;
    const prompt = settings.prompt ?? LLM_CLASSIFIER_PROMPTS[settings.task];
    const labelWords = settings.labelWords ?? LLM_CLASSIFIER_LABEL_WORDS[settings.task];
    const required = settings.task === 'nli' ? ['entailment', 'neutral', 'contradiction'] : ['relevant'];
    const missing = required.filter((l) => !labelWords[l]?.length);
    if (missing.length > 0 || Object.keys(labelWords).length < 2) {
      throw new ModelCallError(
        `llm classifier for ${settings.task}: label words must name ${required.join(', ')}${settings.task === 'relevance' ? ' and at least one alternative' : ''} (missing ${missing.join(', ') || 'an alternative'})`,
        { retryable: false, hint: 'Fix "labelWords" for this model in llmkb.config.json.' },
      );
    }
    const asChat = settings.asChat ?? false;
    const recipe = createHash('sha256')
      .update(JSON.stringify([prompt, Object.entries(labelWords).sort(), asChat]))
      .digest('hex')
      .slice(0, 16);
    super({
      modelId: text.modelId,
      tasks: [settings.task],
      // The text model's executor balances its own endpoints; this model is one logical endpoint.
      endpoints: ['llm'],
      defaultConcurrency: executor.concurrency,
      cacheIdentity: `llm-classifier:${settings.task}:${recipe}:${text.cacheIdentity}`,
    });
    this.#executor = executor;
    this.#task = settings.task;
    this.#prompt = prompt;
    this.#labelWords = labelWords;
    this.#candidates = [...new Set(Object.values(labelWords).flat())];
    this.#asChat = asChat;
    this.#ownsModel = settings.ownsModel ?? false;
  }

  /** The prompt for one pair (exported for tests and for reports that show the prompt). */
  promptFor(pair: TextPair): string {
    return this.#prompt.replace('{text}', () => pair.text).replace('{textPair}', () => pair.textPair);
  }

  async classify(request: ClassificationRequest, options: CallOptions = {}): Promise<ClassificationResult> {
    options.signal?.throwIfAborted();
    const results = await Promise.all(
      request.pairs.map((pair) => this.#executor.nextTokenLogprobs({ prompt: this.promptFor(pair), candidates: this.#candidates, asChat: this.#asChat })),
    );
    const usage = { promptTokens: 0, completionTokens: 0, evaluatedTokens: 0 };
    const scores = results.map((r, i) => {
      if (!r.cached) {
        usage.promptTokens += r.value.usage.promptTokens;
        usage.completionTokens += r.value.usage.completionTokens;
        usage.evaluatedTokens += r.value.usage.evaluatedTokens;
      }
      return this.#normalise(r.value.logprobs, request.pairs[i]!);
    });
    return { scores, usage };
  }

  /** Label probabilities from the label words' next-token log-probabilities, renormalised over the labels. */
  #normalise(logprobs: Record<string, number | null>, pair: TextPair): Record<string, number> {
    const perLabel: Array<[string, number]> = Object.entries(this.#labelWords).map(([label, words]) => {
      const found = words.map((w) => logprobs[w]).filter((v): v is number => v !== null && v !== undefined);
      return [label, found.length === 0 ? Number.NEGATIVE_INFINITY : logSumExp(found)];
    });
    const total = logSumExp(perLabel.map(([, lp]) => lp));
    if (total === Number.NEGATIVE_INFINITY) {
      throw new ModelCallError(
        `${this.modelId} gave none of the label words ${this.#candidates.join(', ')} as a next token after the ${this.#task} prompt for ${JSON.stringify(pair.textPair.slice(0, 60))}`,
        {
          retryable: false,
          hint: `Give this model's config entry words it has as single tokens, per label: "labelWords": ${JSON.stringify(Object.fromEntries(Object.keys(this.#labelWords).map((l) => [l, ['...']])))} (docs/models.md); or a prompt that ends where the answer word comes, or a larger "topLogprobs" for a server model.`,
        },
      );
    }
    const out: Record<string, number> = {};
    for (const [label, lp] of perLabel) out[label] = Math.exp(lp - total);
    return out;
  }

  override async close(): Promise<void> {
    if (this.#ownsModel) await this.#executor.model.close();
  }
}
