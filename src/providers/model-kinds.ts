/**
 * Model kinds: small interfaces by capability (version `llmkb-model-v1`). A provider implements
 * the kinds its backend has and lists them in `kinds`; a method's role asks for one kind
 * (`RoleDef.kind`), and `requireKind` turns a missing kind into a clear error at start-up rather
 * than in the middle of a run.
 *
 * - text-generation: raw completion and chat, optionally next-token log-probabilities (MCQs);
 * - embedding: text vectors (dense retrieval, dynamic few-shot);
 * - scoring: the log-probability of each token of a continuation given a prefix (teacher
 *   forcing): CONNER's sentence perplexity, informativeness and helpfulness;
 * - classification: label probabilities for a text pair (NLI: entailment / neutral /
 *   contradiction; relevance: a query-passage relevance score).
 */
import { UnsupportedCapabilityError } from '../errors.js';
import type { CallOptions, ModelRuntime, Usage } from './call-types.js';

export type ModelKind = 'text-generation' | 'embedding' | 'scoring' | 'classification';

export const MODEL_KINDS: readonly ModelKind[] = ['text-generation', 'embedding', 'scoring', 'classification'];

/**
 * `<provider>:<model id>`: how messages and records name a model. A model id that already starts
 * with its provider's prefix (a `mock:` model's id is its whole spec, `mock:replies.jsonl`) is not
 * prefixed again.
 */
export function providerModelName(model: Pick<ModelBase, 'provider' | 'modelId'>): string {
  return model.modelId.startsWith(`${model.provider}:`) ? model.modelId : `${model.provider}:${model.modelId}`;
}

/** What every model of any kind has: identity for the cache, transport, and clean-up. */
export interface ModelBase {
  readonly specificationVersion: 'llmkb-model-v1';
  /** Provider name, e.g. `openai-compatible`, `llama`, `mock`, `tei`. */
  readonly provider: string;
  /** Model id as the user named it. */
  readonly modelId: string;
  /** Everything about the model that can change its output (the call cache's key prefix). */
  readonly cacheIdentity: string;
  /**
   * What the server reports about the model it serves (a checkpoint path, a digest, a revision),
   * asked once; undefined when it reports nothing or cannot be asked. The executor puts it in the
   * call cache's key, so two servers with different checkpoints under one name never share answers.
   */
  servedIdentity?(): Promise<string | undefined>;
  /** The kinds this model implements. */
  readonly kinds: readonly ModelKind[];
  /** Endpoints the executor may spread calls over (several replicas of one deployment). */
  readonly endpoints: readonly string[];
  /** Calls one endpoint can usefully serve at once. */
  readonly defaultConcurrency: number;
  readonly runtime?: ModelRuntime;
  /** Whether the same seed draws the same texts, when the model itself knows (a scripted model does); else the caller judges from `runtime`. */
  readonly samplingDeterminism?: { deterministic: boolean; why: string };
  /** Free native resources / sockets. Safe to call twice. */
  close(): Promise<void>;
}

export interface TokenScoresRequest {
  /** The prefix the continuation is conditioned on (may be empty: then the model's BOS). */
  context: string;
  continuation: string;
}

export interface TokenScoresResult {
  /** The continuation's tokens as the model split them (text of each token). */
  tokens: string[];
  /** Natural-log probability of each continuation token given everything before it. */
  tokenLogprobs: number[];
  /** Sum of `tokenLogprobs`. */
  logLikelihood: number;
  usage: Usage;
}

export interface ScoringModel extends ModelBase {
  scoreTokens(request: TokenScoresRequest, options?: CallOptions): Promise<TokenScoresResult>;
}

/**
 * The labels a classification model reports: NLI's three, `relevant` for a relevance scorer,
 * `coherent` for a paragraph-coherence scorer (one text, not a pair).
 */
export type ClassificationTask = 'nli' | 'relevance' | 'coherence';

export interface TextPair {
  /** NLI: the premise (evidence); relevance: the query; coherence: the paragraph. */
  text: string;
  /** NLI: the hypothesis (the claim checked); relevance: the passage; coherence: unused (''). */
  textPair: string;
}

export interface ClassificationRequest {
  task: ClassificationTask;
  pairs: TextPair[];
}

export interface ClassificationResult {
  /**
   * One entry per pair, in order. NLI: probabilities of `entailment`, `neutral`, `contradiction`
   * (summing to 1). Relevance: `relevant`, a score in [0, 1] (sigmoid of a one-logit
   * cross-encoder, or the softmax probability of a two-logit model's relevant label). Coherence:
   * `coherent`, likewise.
   */
  scores: Array<Record<string, number>>;
  usage: Usage;
}

export interface ClassificationModel extends ModelBase {
  /** Tasks this model can do (an NLI cross-encoder does `nli`, a reranker `relevance`). */
  readonly tasks: readonly ClassificationTask[];
  classify(request: ClassificationRequest, options?: CallOptions): Promise<ClassificationResult>;
}

export const NLI_LABELS = ['entailment', 'neutral', 'contradiction'] as const;
export type NliLabel = (typeof NLI_LABELS)[number];

export function hasKind(model: { kinds: readonly ModelKind[] }, kind: ModelKind): boolean {
  return model.kinds.includes(kind);
}

/**
 * The model for a role, checked for the kind the role needs. Called when a run starts, so a
 * reranker configured as the subject model is refused before any call is made.
 */
export function requireKind<M extends ModelBase>(model: M, kind: ModelKind, role: string): M {
  if (!hasKind(model, kind)) {
    throw new UnsupportedCapabilityError(
      `role "${role}" needs a ${kind} model, but ${model.provider} model ${model.modelId} provides ${model.kinds.join(', ') || 'no kind'}`,
      {
        hint: `Configure a ${kind} model for "${role}" in llmkb.config.json (see \`llmkb methods\` for what each role needs).`,
      },
    );
  }
  return model;
}
