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
import { corpusEvidence, goldAndRetrieved, referenceEvidence, type EvidenceSource } from './evidence/evidence-source.js';
import { evidenceTopOf } from './pipeline/options.js';
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
  /** Passages retrieved from the corpus (default: the choices' evidence list's). */
  evidenceTop?: number;
}

/**
 * The evidence source: each query's reference knowledge; with a corpus, BM25 (or a remote index)
 * over it, either after the reference premises in one list per item (`gold-and-retrieved`, the
 * scripts') or per sentence alone (`retrieved`). A missing corpus fails here, before any model call.
 */
export async function evidenceSource(
  db: Db,
  corpus: string | undefined,
  top: number,
  choices: Pick<ScoringChoices, 'premises' | 'evidenceList'>,
): Promise<EvidenceSource> {
  if (corpus === undefined) return referenceEvidence(choices.premises);
  const { Corpus } = await import('../../corpus/corpus.js');
  const { remoteCorpus } = await import('../../corpus/remote-corpora.js');
  if (remoteCorpus(db, corpus) === undefined) Corpus.open(db, corpus);
  const retrieved = corpusEvidence(db, corpus, top);
  return choices.evidenceList === 'gold-and-retrieved' ? goldAndRetrieved(referenceEvidence(choices.premises), retrieved) : retrieved;
}

/** The scorers and the evidence source of a scoring command, from its options and the config, probed. */
export async function scoringSetup(ws: MethodWorkspace, specs: ModelSpecs, choices: Pick<ScoringChoices, 'premises' | 'evidenceList'>): Promise<ScoringSetup> {
  const load = async (role: keyof ScoringExecutors, spec?: string): Promise<ModelExecutor | undefined> => {
    const entry = ws.entryFor(role, spec);
    return entry === undefined ? undefined : ((await ws.scorerExecutor(entry)) as unknown as ModelExecutor);
  };
  const executors: ScoringExecutors = {};
  for (const role of ['scorer', 'nli', 'relevance', 'coherence', 'answerer'] as const) {
    const e = await load(role, specs[role]);
    if (e) executors[role] = e;
  }
  const evidence = await evidenceSource(
    ws.db,
    specs.corpus,
    evidenceTopOf(specs.evidenceTop === undefined ? {} : { evidenceTop: specs.evidenceTop }, choices),
    choices,
  );
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
  return {
    generator,
    answerer,
    generatorAnswers: answererEntry === undefined || modelName(answerer) === modelName(generator),
    noAnswerer: answererEntry === undefined,
  };
}
