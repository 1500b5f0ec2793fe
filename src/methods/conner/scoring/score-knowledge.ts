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
import { CONNER_METHOD } from '../metric-defs.js';
import { openMethodRun } from '../../open-run.js';
import type { GeneratedKnowledge } from '../generation/generate-knowledge.js';
import { PARAGRAPH_COHERENCE_FALLBACK } from './coherence.js';
import { baselineKey, poolsByTask } from './helpfulness-baseline.js';
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

export function scorerIds(
  options: Pick<ScoreOptions, 'scorer' | 'answerScorer' | 'nli' | 'relevance' | 'coherence' | 'evidence' | 'choices'>,
): Record<string, string> {
  const ids: Record<string, string> = {};
  const { choices } = options;
  if (options.nli)
    ids.factuality = `nli ${options.nli.id}; evidence ${options.evidence.id}; ${choices.aggregation} over sentences${choices.factualityRule === 'labels' ? ' (sentence labels)' : ''}`;
  if (options.relevance) ids.relevance = options.relevance.id;
  if (options.coherence) ids.coherence_paragraph = `coherence ${options.coherence.id}`;
  if (options.scorer) {
    ids.coherence_sentence = `${choices.sentenceCoherence === 'mean-inverse' ? 'mean of 1/PPL' : `1/mean(min(PPL, ${choices.pplCap}))`} ${options.scorer.id}`;
    if (!options.coherence) ids.coherence_paragraph = `${PARAGRAPH_COHERENCE_FALLBACK}: ${options.scorer.id}`;
    ids.informativeness = options.scorer.id;
  }
  const helpfulness = options.answerScorer ?? options.scorer;
  if (helpfulness) {
    const prompt = choices.helpfulnessPrompt === 'released' ? "the scripts' 8-shot prompt" : 'Table 13, no demonstrations';
    ids.helpfulness = `${helpfulness.id}; ${prompt}; ${choices.helpfulnessBaseline === 'shared' ? 'one shared baseline per data set' : `u = ${choices.negatives}`}`;
  }
  if (options.nli)
    ids.validity = `nli ${options.nli.id}; span: Eq. 7, open: evidence ${options.evidence.id}${choices.dialogueValidity === 'response-and-evidence' ? ' and the gold response' : ''}`;
  return ids;
}

export function scoreRunSpec(options: ScoreOptions) {
  return {
    model: canonicalJson({
      scorer: options.scorer?.identity ?? null,
      answerScorer: options.answerScorer?.identity ?? null,
      nli: options.nli?.identity ?? null,
      relevance: options.relevance?.identity ?? null,
      coherence: options.coherence?.identity ?? null,
    }),
    dataset: checksumOfLines(options.items, (k) => canonicalJson(k)),
    setting: 'conner-score',
    seed: options.seed,
    params: { ...options.choices, evidence: options.evidence.id },
    ...(options.label === undefined ? {} : { label: options.label }),
  };
}

export async function scoreKnowledge(options: ScoreOptions): Promise<ScoredKnowledge[]> {
  const run = openMethodRun(options.runs, CONNER_METHOD, scoreRunSpec(options), 'conner score');
  await runScoreStage(run, options);
  const records = run.records<ScoredKnowledge>('score');
  return options.items.map((k) => records.get(k.id)!);
}

/**
 * The `score` stage of a run over knowledge texts, resumably. Helpfulness's baseline is the
 * shared one of the scored queries' data set (the scripts'; the same for every generator), or
 * with `negatives` the other items of the same generator, never knowledge of another model.
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
  // The shared helpfulness baseline: per task, from the scored queries, keyed by the loss model and every pool query.
  const baselinePools = poolsByTask(options.items);
  const lossModel = options.answerScorer ?? options.scorer;
  const baselineKeys = new Map(
    [...baselinePools].map(([task, pool]) => [task, baselineKey(lossModel?.identity ?? '', options.choices.helpfulnessPrompt, options.seed, pool)]),
  );
  await runStoredStage<GeneratedKnowledge, ScoredKnowledge>({
    run,
    stage: 'score',
    items: options.items,
    idOf: (k) => k.id,
    concurrency: options.concurrency ?? 1,
    ...(options.progress === undefined ? {} : { progress: options.progress }),
    work: (item) => scoreOne(item, { ...options, scorerIds: ids, baselinePools, baselineKeys }, byId, poolByGenerator.get(item.generator)!),
    info: () => ({ scorers: ids }),
  });
}
