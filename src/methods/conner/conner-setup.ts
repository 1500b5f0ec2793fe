/**
 * The models and evidence of a CONNER command, from its options and the config: the generator and
 * the answerer of `generate` and `best-of`; the scorers and evidence source of `score`,
 * `select-demos` and `best-of`. Everything a run could only find out mid-stage is checked here,
 * before any item: each scorer's kind and task, that it answers a first small call, that a
 * corpus exists. A mistake then fails at once, and never with "run the same command again to
 * resume", which could not help.
 */
import { LlmkbError, UnsupportedCapabilityError } from '../../errors.js';
import type { ExecutableModel, ModelExecutor } from '../../executor/model-executor.js';
import type { Workspace } from '../../workspace.js';
import type { ScoringChoices } from './conner-choices.js';
import { corpusEvidence, referenceEvidence } from './evidence/evidence-source.js';
import { modelName } from './generation/generate-knowledge.js';
import { executorClassifier, executorTokenScorer } from './scoring/executor-scorers.js';
import type { ItemScoring } from './scoring/score-one.js';
import type { TokenScorer } from './scoring/scorers.js';

export interface ModelSpecs {
  scorer?: string;
  /** The answerer, when it scores helpfulness's answer losses too (the paper's LLaMA-65B). */
  answerer?: string;
  nli?: string;
  relevance?: string;
  coherence?: string;
  corpus?: string;
  evidenceTop: number;
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

/** The scorers and the evidence source of a scoring command. */
export async function scoringSetup(ws: Workspace, specs: ModelSpecs, choices: Pick<ScoringChoices, 'premises'>): Promise<ScoringSetup> {
  type AnyExecutor = ModelExecutor<ExecutableModel>;
  const load = async (role: 'scorer' | 'answerer' | 'nli' | 'relevance' | 'coherence', spec?: string): Promise<AnyExecutor | undefined> => {
    const entry = ws.entryFor(role, spec);
    return entry === undefined ? undefined : ((await ws.scorerExecutor(entry)) as unknown as AnyExecutor);
  };
  const scorerEx = await load('scorer', specs.scorer);
  const nliEx = await load('nli', specs.nli);
  const relevanceEx = await load('relevance', specs.relevance);
  const coherenceEx = await load('coherence', specs.coherence);
  const answerEx = await load('answerer', specs.answerer);
  if (specs.corpus !== undefined) {
    const { Corpus } = await import('../../corpus/corpus.js');
    const { remoteCorpus } = await import('../../corpus/remote-corpora.js');
    if (remoteCorpus(ws.db, specs.corpus) === undefined) Corpus.open(ws.db, specs.corpus); // a missing corpus fails here, before any model call
  }
  // Kinds and tasks are checked as each adapter is made, then each scorer answers one small
  // call (cached like any): a server of another kind, or a label it cannot map, fails here.
  const scorer = scorerEx ? executorTokenScorer(scorerEx) : undefined;
  // An answerer that cannot score prompts (a hosted chat API) leaves helpfulness to the scorer, said.
  let answerScorer: TokenScorer | undefined;
  let answererUnscoring: string | undefined;
  if (answerEx) {
    try {
      answerScorer = executorTokenScorer(answerEx, 'answerer');
    } catch (error) {
      if (!(error instanceof UnsupportedCapabilityError)) throw error;
      answererUnscoring = modelName(answerEx as unknown as ModelExecutor);
    }
  }
  const nli = nliEx ? executorClassifier(nliEx, 'nli', 'nli') : undefined;
  const relevance = relevanceEx ? executorClassifier(relevanceEx, 'relevance', 'relevance') : undefined;
  const coherence = coherenceEx ? executorClassifier(coherenceEx, 'coherence', 'coherence') : undefined;
  if (!scorer && !answerScorer && !nli && !relevance && !coherence) {
    throw new LlmkbError('no scorer configured: nothing to score', { hint: 'Pass --scorer, --nli, --relevance and/or --coherence model specs, or set "scorer", "nli", "relevance", "coherence" in llmkb.config.json (docs/conner.md).' });
  }
  for (const [role, s] of [['scorer', scorer], ['answerer', answerScorer]] as const) {
    if (s) await probe(role, s.id, () => s.logLikelihood('Topic: cats\nQuery: what do cats do\nAnswer:', ' they sleep'));
  }
  if (nli) await probe('nli', nli.id, () => nli.classify('nli', [{ text: 'Cats sleep a lot.', textPair: 'Cats sleep.' }]));
  if (relevance) await probe('relevance', relevance.id, () => relevance.classify('relevance', [{ text: 'what do cats do', textPair: 'Cats sleep a lot.' }]));
  if (coherence) await probe('coherence', coherence.id, () => coherence.classify('coherence', [{ text: 'Cats sleep a lot. They sleep in the sun.', textPair: '' }]));
  const evidence = specs.corpus === undefined ? referenceEvidence(choices.premises) : corpusEvidence(ws.db, specs.corpus, specs.evidenceTop);
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
    concurrency: Math.min(...[scorerEx, answerScorer ? answerEx : undefined, nliEx, relevanceEx, coherenceEx].filter((e) => e !== undefined).map((e) => e.concurrency)),
  };
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

export interface GenerationModels {
  generator: ModelExecutor;
  answerer: ModelExecutor;
  /** The generator answers its own knowledge (no answerer configured): a departure, said on stderr and in the protocol. */
  generatorAnswers: boolean;
}

/** The knowledge generator and the answerer of `generate` and `best-of`, both text models. */
export async function generationModels(ws: Workspace, specs: { model?: string; answerer?: string }): Promise<GenerationModels> {
  const entry = ws.entryFor('model', specs.model);
  if (entry === undefined) throw new LlmkbError('no knowledge generator', { hint: 'Pass --model SPEC or set "model" in llmkb.config.json.' });
  const generator = await ws.executor(entry);
  const answererEntry = ws.entryFor('answerer', specs.answerer);
  const answerer = answererEntry === undefined ? generator : await ws.executor(answererEntry);
  return { generator, answerer, generatorAnswers: answererEntry === undefined || modelName(answerer) === modelName(generator) };
}
