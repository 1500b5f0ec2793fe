/**
 * The models and evidence of a CONNER command, from its options and the config: the generator and
 * the answerer of `generate` and `best-of`; the scorers and evidence source of `score`,
 * `select-demos` and `best-of`. Everything a run could only find out mid-stage is checked here,
 * before any item: each scorer's kind and task, that it answers a first small call, that a
 * corpus exists. A mistake then fails at once, and never with "run the same command again to
 * resume", which could not help.
 */
import { LlmkbError } from '../../errors.js';
import type { ModelExecutor } from '../../executor/model-executor.js';
import type { MethodWorkspace } from '../method-cli.js';
import type { ScoringChoices } from './conner-choices.js';
import type { Db } from '../../store/database.js';
import { corpusEvidence, referenceEvidence, type EvidenceSource } from './evidence/evidence-source.js';
import { modelName } from './generation/generate-knowledge.js';
import { probeScorers, scorersOf, type ScoringExecutors, type ScoringSetup } from './scoring/scoring-setup.js';

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

/**
 * The evidence source: BM25 (or a remote index) over a corpus of the store, else each query's
 * reference knowledge. A missing corpus fails here, before any model call.
 */
export async function evidenceSource(db: Db, corpus: string | undefined, top: number, premises: ScoringChoices['premises']): Promise<EvidenceSource> {
  if (corpus === undefined) return referenceEvidence(premises);
  const { Corpus } = await import('../../corpus/corpus.js');
  const { remoteCorpus } = await import('../../corpus/remote-corpora.js');
  if (remoteCorpus(db, corpus) === undefined) Corpus.open(db, corpus);
  return corpusEvidence(db, corpus, top);
}

/** The scorers and the evidence source of a scoring command, from its options and the config, probed. */
export async function scoringSetup(ws: MethodWorkspace, specs: ModelSpecs, choices: Pick<ScoringChoices, 'premises'>): Promise<ScoringSetup> {
  const load = async (role: keyof ScoringExecutors, spec?: string): Promise<ModelExecutor | undefined> => {
    const entry = ws.entryFor(role, spec);
    return entry === undefined ? undefined : ((await ws.scorerExecutor(entry)) as unknown as ModelExecutor);
  };
  const executors: ScoringExecutors = {};
  for (const role of ['scorer', 'nli', 'relevance', 'coherence', 'answerer'] as const) {
    const e = await load(role, specs[role]);
    if (e) executors[role] = e;
  }
  const evidence = await evidenceSource(ws.db, specs.corpus, specs.evidenceTop, choices.premises);
  const setup = scorersOf(executors, evidence);
  await probeScorers(setup);
  return setup;
}

export interface GenerationModels {
  generator: ModelExecutor;
  answerer: ModelExecutor;
  /** The generator answers its own knowledge (no answerer, or the answerer is the generator's model): a departure, said on stderr and in the protocol. */
  generatorAnswers: boolean;
  /** No answerer was configured at all. */
  noAnswerer: boolean;
}

/** The knowledge generator and the answerer of `generate` and `best-of`, both text models. */
export async function generationModels(ws: MethodWorkspace, specs: { model?: string; answerer?: string }): Promise<GenerationModels> {
  const entry = ws.entryFor('model', specs.model);
  if (entry === undefined) throw new LlmkbError('no knowledge generator', { hint: 'Pass --model SPEC or set "model" in llmkb.config.json.' });
  const generator = await ws.executor(entry);
  const answererEntry = ws.entryFor('answerer', specs.answerer);
  const answerer = answererEntry === undefined ? generator : await ws.executor(answererEntry);
  return { generator, answerer, generatorAnswers: answererEntry === undefined || modelName(answerer) === modelName(generator), noAnswerer: answererEntry === undefined };
}
