/**
 * The scoring step: every metric of CONNER for each generated knowledge text (./score-one.ts),
 * one resumable stage over the run store. Helpfulness's negatives come from the other items of
 * the same generator.
 */
import { canonicalJson } from '../../../store/call-key.js';
import { checksumOfLines } from '../../../io/checksum.js';
import type { ProgressOptions } from '../../../progress/progress.js';
import { runStoredStage } from '../../../store/run-stage.js';
import type { Run, RunStore } from '../../../store/run-store.js';
import type { GeneratedKnowledge } from '../generation/generate-knowledge.js';
import { PARAGRAPH_COHERENCE_FALLBACK } from './coherence.js';
import { scoreOne, type ItemScoring } from './score-one.js';
import type { ScoredKnowledge } from './scored-knowledge.js';

export type { ConnerScores, ScoredKnowledge } from './scored-knowledge.js';
export { SCORER_MAX_WORDS, truncateWords } from './score-one.js';

export interface ScoreOptions extends Omit<ItemScoring, 'scorerIds'> {
  items: readonly GeneratedKnowledge[];
  runs: RunStore;
  concurrency?: number;
  progress?: ProgressOptions;
  label?: string;
}

export function scorerIds(options: Pick<ScoreOptions, 'scorer' | 'answerScorer' | 'nli' | 'relevance' | 'coherence' | 'evidence' | 'choices'>): Record<string, string> {
  const ids: Record<string, string> = {};
  const { choices } = options;
  if (options.nli) ids.factuality = `nli ${options.nli.id}; evidence ${options.evidence.id}; ${choices.aggregation} over sentences${choices.factualityRule === 'labels' ? ' (sentence labels)' : ''}`;
  if (options.relevance) ids.relevance = options.relevance.id;
  if (options.coherence) ids.coherence_paragraph = `coherence ${options.coherence.id}`;
  if (options.scorer) {
    ids.coherence_sentence = `${choices.sentenceCoherence === 'mean-inverse' ? 'mean of 1/PPL' : '1/mean(min(PPL, 200))'} ${options.scorer.id}`;
    if (!options.coherence) ids.coherence_paragraph = `${PARAGRAPH_COHERENCE_FALLBACK}: ${options.scorer.id}`;
    ids.informativeness = options.scorer.id;
  }
  const helpfulness = options.answerScorer ?? options.scorer;
  if (helpfulness) ids.helpfulness = `${helpfulness.id}; u = ${choices.negatives}`;
  if (options.nli) ids.validity = `nli ${options.nli.id}; span: Eq. 7, open: evidence ${options.evidence.id}${choices.dialogueValidity === 'response-and-evidence' ? ' and the gold response' : ''}`;
  return ids;
}

export function scoreRunSpec(options: ScoreOptions) {
  return {
    model: canonicalJson({ scorer: options.scorer?.identity ?? null, answerScorer: options.answerScorer?.identity ?? null, nli: options.nli?.identity ?? null, relevance: options.relevance?.identity ?? null, coherence: options.coherence?.identity ?? null }),
    dataset: checksumOfLines(options.items, (k) => canonicalJson(k)),
    setting: 'conner-score',
    seed: options.seed,
    params: { ...options.choices, evidence: options.evidence.id },
    ...(options.label === undefined ? {} : { label: options.label }),
  };
}

export async function scoreKnowledge(options: ScoreOptions): Promise<ScoredKnowledge[]> {
  const run = options.runs.open(scoreRunSpec(options));
  await runScoreStage(run, options);
  const records = run.records<ScoredKnowledge>('score');
  return options.items.map((k) => records.get(k.id)!);
}

/**
 * The `score` stage of a run over knowledge texts, resumably. Helpfulness's negatives come from
 * the other items of the same generator: the baseline is "another query's knowledge from this
 * generator", never knowledge of another model.
 */
export async function runScoreStage(run: Run, options: Omit<ScoreOptions, 'runs' | 'label'>): Promise<void> {
  const byId = new Map(options.items.map((k) => [k.id, k]));
  const poolByGenerator = new Map<string, string[]>();
  for (const k of options.items) {
    const pool = poolByGenerator.get(k.generator) ?? [];
    pool.push(k.id);
    poolByGenerator.set(k.generator, pool);
  }
  const ids = scorerIds(options);
  await runStoredStage<GeneratedKnowledge, ScoredKnowledge>({
    run,
    stage: 'score',
    items: options.items,
    idOf: (k) => k.id,
    concurrency: options.concurrency ?? 1,
    ...(options.progress === undefined ? {} : { progress: options.progress }),
    work: (item) => scoreOne(item, { ...options, scorerIds: ids }, byId, poolByGenerator.get(item.generator)!),
    info: () => ({ scorers: ids }),
  });
}
