/**
 * The scorers of a CONNER run over its roles' executors: each checked to be of the kind and task
 * its role needs when it is made, then probed with one small call, so a mistake fails before any
 * item and never with "run the same command again to resume", which could not help.
 */
import { LlmkbError, UnsupportedCapabilityError } from '../../../errors.js';
import type { ExecutableModel, ModelExecutor } from '../../../executor/model-executor.js';
import type { EvidenceSource } from '../evidence/evidence-source.js';
import { executorClassifier, executorTokenScorer, scorerId } from './executor-scorers.js';
import type { ItemScoring } from './score-one.js';
import type { TokenScorer } from './scorers.js';

/** The scoring roles' executors (absent: that role has no model). */
export interface ScoringExecutors {
  scorer?: ModelExecutor;
  /** The answerer, when it scores helpfulness's answer losses too (the paper's LLaMA-65B). */
  answerer?: ModelExecutor;
  nli?: ModelExecutor;
  relevance?: ModelExecutor;
  coherence?: ModelExecutor;
}

/** The scorers and evidence of a scoring run (as `scoreKnowledge` takes them), and what setting them up found. */
export interface ScoringSetup extends Pick<ItemScoring, 'scorer' | 'answerScorer' | 'nli' | 'relevance' | 'coherence' | 'evidence'> {
  /** Metrics no scorer was given for. */
  unscored: string[];
  /** The answerer, when it cannot score helpfulness's answer losses (they are the scorer's then). */
  answererUnscoring?: string;
  /** The smallest concurrency of the scorers. */
  concurrency: number;
}

/** The scoring roles of a run, as the scorers take them (the answerer scores helpfulness's answer losses). */
export function scoringExecutors(roles: Readonly<Record<string, ModelExecutor>>): ScoringExecutors {
  const out: ScoringExecutors = {};
  for (const role of ['scorer', 'answerer', 'nli', 'relevance', 'coherence'] as const) if (roles[role]) out[role] = roles[role];
  return out;
}

/**
 * The scorers over the roles' executors, each checked to be of the kind and task its role needs
 * (a wrong one is refused here, not after the first item), and the metrics no scorer was given for.
 */
export function scorersOf(executors: ScoringExecutors, evidence: EvidenceSource): ScoringSetup {
  type AnyExecutor = ModelExecutor<ExecutableModel>;
  const as = (e: ModelExecutor | undefined) => e as unknown as AnyExecutor | undefined;
  const scorerEx = as(executors.scorer);
  const nliEx = as(executors.nli);
  const relevanceEx = as(executors.relevance);
  const coherenceEx = as(executors.coherence);
  const answerEx = as(executors.answerer);
  const scorer = scorerEx ? executorTokenScorer(scorerEx) : undefined;
  // An answerer that cannot score prompts (a hosted chat API) leaves helpfulness to the scorer, said.
  let answerScorer: TokenScorer | undefined;
  let answererUnscoring: string | undefined;
  if (answerEx) {
    try {
      answerScorer = executorTokenScorer(answerEx, 'answerer');
    } catch (error) {
      if (!(error instanceof UnsupportedCapabilityError)) throw error;
      answererUnscoring = scorerId(answerEx.model);
    }
  }
  const nli = nliEx ? executorClassifier(nliEx, 'nli', 'nli') : undefined;
  const relevance = relevanceEx ? executorClassifier(relevanceEx, 'relevance', 'relevance') : undefined;
  const coherence = coherenceEx ? executorClassifier(coherenceEx, 'coherence', 'coherence') : undefined;
  if (!scorer && !answerScorer && !nli && !relevance && !coherence) {
    throw new LlmkbError('no scorer configured: nothing to score', {
      hint: 'Give the scorer, nli, relevance and/or coherence roles a model (--scorer, --nli, --relevance, --coherence, or "scorer", "nli", "relevance", "coherence" in llmkb.config.json; docs/conner.md).',
    });
  }
  const unscored = [
    ...(nli ? [] : ['factuality', 'validity']),
    ...(relevance ? [] : ['relevance']),
    ...(scorer ? [] : ['coherence_sentence', 'informativeness']),
    ...(scorer || answerScorer ? [] : ['helpfulness']),
    ...(scorer || coherence ? [] : ['coherence_paragraph']),
  ];
  return {
    ...(scorer ? { scorer } : {}),
    ...(answerScorer ? { answerScorer } : {}),
    ...(nli ? { nli } : {}),
    ...(relevance ? { relevance } : {}),
    ...(coherence ? { coherence } : {}),
    evidence,
    unscored,
    ...(answererUnscoring ? { answererUnscoring } : {}),
    concurrency: Math.min(
      ...[scorerEx, answerScorer ? answerEx : undefined, nliEx, relevanceEx, coherenceEx].filter((e) => e !== undefined).map((e) => e.concurrency),
    ),
  };
}

/** One small first call per scorer (cached like any): a server of another kind, or a label it cannot map, fails here, before any item. */
export async function probeScorers(setup: ScoringSetup): Promise<void> {
  const { scorer, answerScorer, nli, relevance, coherence } = setup;
  for (const [role, s] of [
    ['scorer', scorer],
    ['answerer', answerScorer],
  ] as const) {
    if (s) await probe(role, s.id, () => s.logLikelihood('Topic: cats\nQuery: what do cats do\nAnswer:', ' they sleep'));
  }
  if (nli) await probe('nli', nli.id, () => nli.classify('nli', [{ text: 'Cats sleep a lot.', textPair: 'Cats sleep.' }]));
  if (relevance) await probe('relevance', relevance.id, () => relevance.classify('relevance', [{ text: 'what do cats do', textPair: 'Cats sleep a lot.' }]));
  if (coherence)
    await probe('coherence', coherence.id, () => coherence.classify('coherence', [{ text: 'Cats sleep a lot. They sleep in the sun.', textPair: '' }]));
}

/** A first call to a scorer before any item, its failure said as the role's. */
async function probe(role: string, id: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (!(error instanceof LlmkbError)) throw error;
    throw new LlmkbError(`role "${role}" (${id}) failed its first call, before any item: ${error.message}`, {
      hint: error.hint ?? `Check that ${id} is the kind of model "${role}" needs (docs/conner.md lists the backends and their options).`,
      exitCode: error.exitCode,
      cause: error,
    });
  }
}
