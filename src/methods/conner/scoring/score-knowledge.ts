/**
 * The scoring step: every metric of CONNER for each generated knowledge text, one resumable
 * stage over the run store. A record keeps every score, the evidence chosen for each sentence
 * and for the answer, and the id of the scorer behind each metric.
 */
import { ContextOverflowError } from '../../../errors.js';
import { canonicalJson } from '../../../store/call-key.js';
import { checksumOfLines } from '../../../io/checksum.js';
import type { ProgressOptions } from '../../../progress/progress.js';
import { runStage } from '../../../store/run-stage.js';
import type { RunStore } from '../../../store/run-store.js';
import type { Evidence, EvidenceSource } from '../evidence/evidence-source.js';
import { splitSentences } from '../evidence/sentences.js';
import { BEST_ZERO_SHOT_PROMPT } from '../generation/conner-prompts.js';
import type { GeneratedKnowledge } from '../generation/generate-knowledge.js';
import { PARAGRAPH_COHERENCE_FALLBACK, paragraphCoherence, sentenceCoherence } from './coherence.js';
import { scoreFactuality, type FactualityAggregation, type FactualityLabel, type SentenceFactuality } from './factuality.js';
import { sampleNegatives, scoreHelpfulness } from './helpfulness.js';
import { scoreInformativeness } from './informativeness.js';
import { scoreRelevance } from './relevance.js';
import type { PairClassifier, TokenScorer } from './scorers.js';
import { openValidity, spanValidity } from './validity.js';

/** The per-item scores; null where a metric could not be computed (no sentence, no gold answer, no scorer). */
export interface ConnerScores {
  /** S_fact's factual-consistent dimension (Eq. 1). */
  factuality: number | null;
  factualConsistent: number | null;
  nonVerified: number | null;
  factualInconsistent: number | null;
  factualityLabel: FactualityLabel | null;
  relevance: number | null;
  coherence_sentence: number | null;
  coherence_paragraph: number | null;
  informativeness: number | null;
  helpfulness: number | null;
  /** Eq. 6 without max(0, .), as in the paper's Table 16. */
  helpfulnessRaw: number | null;
  validity: number | null;
}

export interface ScoredKnowledge {
  id: string;
  generator: string;
  setting: string;
  task: GeneratedKnowledge['task'];
  topic: string;
  query: string;
  knowledge: string;
  goldAnswer: string | null;
  answer: string | null;
  /** The downstream answer with an empty passage (shown beside `answer`; not scored). */
  answerWithoutKnowledge?: string | null;
  scores: ConnerScores;
  /** Per sentence: the evidence with the highest entailment and its NLI vector. */
  sentences: SentenceFactuality[];
  /** Per-sentence 1/PPL(s_i) (Eq. 3). */
  sentenceInversePerplexity: Array<number | null>;
  helpfulness: { loss: number; baselineLosses: number[]; negatives: string[] } | null;
  validityEvidence: Evidence | null;
  /** Scorer per metric. */
  scorers: Record<string, string>;
  /** Metrics left unscored for this item, and why. */
  notes: string[];
}

export interface ScoreOptions {
  items: readonly GeneratedKnowledge[];
  runs: RunStore;
  /** Language model for PPL, informativeness and helpfulness; absent: those metrics are not scored. */
  scorer?: TokenScorer;
  nli?: PairClassifier;
  relevance?: PairClassifier;
  evidence: EvidenceSource;
  aggregation: FactualityAggregation;
  /** u in Eq. 6. */
  negatives: number;
  seed: number;
  concurrency?: number;
  progress?: ProgressOptions;
  label?: string;
}

export const DEFAULT_NEGATIVES = 5;

/**
 * The language-model metrics see at most this many words of a knowledge text (and of each
 * sentence), as the authors' code cuts knowledge to 300 words for informativeness: a text longer
 * than the scoring model's context cannot be scored at all.
 */
export const SCORER_MAX_WORDS = 300;

export function truncateWords(text: string, max = SCORER_MAX_WORDS): string {
  const words = text.trim().split(/\s+/);
  return words.length <= max ? text.trim() : words.slice(0, max).join(' ');
}

/** A metric whose text does not fit the scorer's context is left unscored for that item, and said so. */
async function unlessOverflow<T>(metric: string, notes: string[], work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ContextOverflowError)) throw error;
    notes.push(`${metric}: not scored, the text does not fit the scorer's context (${error.message})`);
    return undefined;
  }
}
export const DEFAULT_EVIDENCE_TOP = 5;

export function scorerIds(options: Pick<ScoreOptions, 'scorer' | 'nli' | 'relevance' | 'evidence' | 'aggregation' | 'negatives'>): Record<string, string> {
  const ids: Record<string, string> = {};
  if (options.nli) ids.factuality = `nli ${options.nli.id}; evidence ${options.evidence.id}; ${options.aggregation} over sentences`;
  if (options.relevance) ids.relevance = options.relevance.id;
  if (options.scorer) {
    ids.coherence_sentence = `1/PPL ${options.scorer.id}`;
    ids.coherence_paragraph = `${PARAGRAPH_COHERENCE_FALLBACK}: ${options.scorer.id}`;
    ids.informativeness = options.scorer.id;
    ids.helpfulness = `${options.scorer.id}; u = ${options.negatives}`;
  }
  if (options.nli) ids.validity = `nli ${options.nli.id}; span: Eq. 7, open: evidence ${options.evidence.id}`;
  return ids;
}

export function scoreRunSpec(options: ScoreOptions) {
  return {
    model: canonicalJson({ scorer: options.scorer?.identity ?? null, nli: options.nli?.identity ?? null, relevance: options.relevance?.identity ?? null }),
    dataset: checksumOfLines(options.items, (k) => canonicalJson(k)),
    setting: 'conner-score',
    seed: options.seed,
    params: { aggregation: options.aggregation, negatives: options.negatives, evidence: options.evidence.id },
    ...(options.label === undefined ? {} : { label: options.label }),
  };
}

/** The setting as summaries group it: Table 11 prompts other than the default are told apart. */
export function settingLabel(item: Pick<GeneratedKnowledge, 'setting' | 'prompt'>): string {
  return item.setting === 'zero-shot' && item.prompt !== undefined && item.prompt !== BEST_ZERO_SHOT_PROMPT ? `zero-shot (Table 11 prompt ${item.prompt})` : item.setting;
}

function reference(item: GeneratedKnowledge): string[] {
  return item.referenceKnowledge === undefined ? [] : [item.referenceKnowledge];
}

export async function scoreOne(item: GeneratedKnowledge, options: ScoreOptions, byId: ReadonlyMap<string, GeneratedKnowledge>, pool: readonly string[]): Promise<{ record: ScoredKnowledge; cached: boolean }> {
  let cached = true;
  const sentences = splitSentences(item.knowledge);
  const scores: ConnerScores = {
    factuality: null, factualConsistent: null, nonVerified: null, factualInconsistent: null, factualityLabel: null,
    relevance: null, coherence_sentence: null, coherence_paragraph: null, informativeness: null, helpfulness: null, helpfulnessRaw: null, validity: null,
  };
  const record: ScoredKnowledge = {
    id: item.id, generator: item.generator, setting: settingLabel(item), task: item.task, topic: item.topic, query: item.query, knowledge: item.knowledge,
    goldAnswer: item.goldAnswer ?? null, answer: item.answerWithKnowledge ?? null, answerWithoutKnowledge: item.answerWithoutKnowledge ?? null,
    scores, sentences: [], sentenceInversePerplexity: [], helpfulness: null, validityEvidence: null, scorers: scorerIds(options), notes: [],
  };
  if (options.nli) {
    const f = await scoreFactuality(sentences, (s) => options.evidence.retrieve(s, reference(item)), options.nli, options.aggregation);
    if (f) {
      cached &&= f.cached;
      record.sentences = f.factuality.sentences;
      [scores.factualConsistent, scores.nonVerified, scores.factualInconsistent] = f.factuality.score;
      scores.factuality = scores.factualConsistent;
      scores.factualityLabel = f.factuality.label;
      if (f.factuality.sentences.every((x) => x.candidates === 0)) {
        record.notes.push(`factuality: no evidence for any sentence from ${options.evidence.id} (all non-verified)`);
      }
    }
    const answer = item.answerWithKnowledge;
    if (answer !== undefined && answer.trim() !== '') {
      if (item.task === 'qa') {
        if (item.goldAnswer !== undefined && item.goldAnswer.trim() !== '') {
          const v = await spanValidity(item.query, item.goldAnswer, answer, options.nli);
          cached &&= v.cached;
          scores.validity = v.validity.value;
        }
      } else {
        const v = await openValidity(answer, await options.evidence.retrieve(answer, reference(item)), options.nli);
        cached &&= v.cached;
        if (v.validity) {
          scores.validity = v.validity.value;
          record.validityEvidence = v.validity.evidence ?? null;
        }
      }
    } else if (answer !== undefined) {
      // An empty answer is entailed by nothing.
      scores.validity = 0;
    }
  }
  if (options.relevance && item.knowledge.trim() !== '') {
    const r = await scoreRelevance(item.query, item.knowledge, options.relevance);
    cached &&= r.cached;
    scores.relevance = r.relevance;
  }
  if (options.scorer && item.knowledge.trim() !== '') {
    const scorer = options.scorer;
    const knowledge = truncateWords(item.knowledge);
    const cs = await unlessOverflow('coherence_sentence', record.notes, () => sentenceCoherence(sentences.map((s) => truncateWords(s)), scorer));
    if (cs) {
      cached &&= cs.cached;
      scores.coherence_sentence = cs.value ?? null;
      record.sentenceInversePerplexity = cs.perSentence;
    }
    const cp = await unlessOverflow('coherence_paragraph', record.notes, () => paragraphCoherence(knowledge, scorer));
    if (cp) {
      cached &&= cp.cached;
      scores.coherence_paragraph = cp.value ?? null;
    }
    const info = await unlessOverflow('informativeness', record.notes, () => scoreInformativeness(item, knowledge, scorer));
    if (info) {
      cached &&= info.cached;
      scores.informativeness = info.value ?? null;
    }
  }
  if (options.scorer && item.goldAnswer !== undefined && item.goldAnswer.trim() !== '') {
    const scorer = options.scorer;
    const negatives = sampleNegatives(item.id, pool, options.negatives, options.seed).map((id) => ({ id, knowledge: truncateWords(byId.get(id)!.knowledge) }));
    const h = await unlessOverflow('helpfulness', record.notes, () => scoreHelpfulness(item, truncateWords(item.knowledge), item.goldAnswer!, negatives, scorer));
    if (h) {
      cached &&= h.cached;
      if (h.helpfulness) {
        scores.helpfulness = h.helpfulness.value;
        scores.helpfulnessRaw = h.helpfulness.raw;
        record.helpfulness = { loss: h.helpfulness.loss, baselineLosses: h.helpfulness.baselineLosses, negatives: h.helpfulness.negatives };
      }
    }
  }
  return { record, cached };
}

export async function scoreKnowledge(options: ScoreOptions): Promise<ScoredKnowledge[]> {
  const byId = new Map(options.items.map((k) => [k.id, k]));
  // Negatives come from the other items of the same generator: the baseline is "another query's
  // knowledge from this generator", never knowledge of another model.
  const poolByGenerator = new Map<string, string[]>();
  for (const k of options.items) {
    const key = k.generator;
    if (!poolByGenerator.has(key)) poolByGenerator.set(key, []);
    poolByGenerator.get(key)!.push(k.id);
  }
  const run = options.runs.open(scoreRunSpec(options));
  const records = await runStage<GeneratedKnowledge, ScoredKnowledge>({
    run,
    stage: 'score',
    items: options.items,
    idOf: (k) => k.id,
    concurrency: options.concurrency ?? 1,
    ...(options.progress === undefined ? {} : { progress: options.progress }),
    work: (item) => scoreOne(item, options, byId, poolByGenerator.get(item.generator)!),
    info: () => ({ scorers: scorerIds(options) }),
  });
  return options.items.map((k) => records.get(k.id)!);
}
