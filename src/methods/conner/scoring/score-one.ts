/**
 * Every metric of CONNER for one knowledge text, under the run's scorers and choices
 * (../conner-choices.ts). A metric whose text does not fit its scorer's context is left unscored
 * for the item, with a note; so are the metrics an empty knowledge text has nothing to score for.
 */
import { ContextOverflowError } from '../../../errors.js';
import type { ScoringChoices } from '../conner-choices.js';
import type { Evidence, EvidenceSource } from '../evidence/evidence-source.js';
import { splitSentences } from '../evidence/sentences.js';
import { settingLabel, type GeneratedKnowledge } from '../generation/generate-knowledge.js';
import { paragraphCoherence, sentenceCoherence } from './coherence.js';
import { scoreFactuality } from './factuality.js';
import { sampleNegatives, scoreHelpfulness } from './helpfulness.js';
import { releasedAnswerPrompt, sharedBaseline, type BaselineQuery } from './helpfulness-baseline.js';
import { scoreInformativeness } from './informativeness.js';
import { describeCuts } from './nli-window.js';
import { scoreRelevance } from './relevance.js';
import type { ConnerScores, ScoredKnowledge } from './scored-knowledge.js';
import { UNDERFLOW_LOGPROB, type PairClassifier, type TokenScorer } from './scorers.js';
import { openValidity, spanValidity } from './validity.js';

/** What scoring one item needs: the scorers (absent: their metrics are not scored), the evidence and the choices. */
export interface ItemScoring {
  /** The reference language model: sentence and paragraph perplexity, informativeness, and helpfulness unless `answerScorer`. */
  scorer?: TokenScorer;
  /** Helpfulness's answer losses (Eq. 6) by the answerer model, as the paper's LLaMA-65B both answers and scores; absent: `scorer`. */
  answerScorer?: TokenScorer;
  nli?: PairClassifier;
  relevance?: PairClassifier;
  /** Paragraph coherence (Eq. 4) by a discourse-coherence scorer; absent: the 1/PPL fallback with `scorer`. */
  coherence?: PairClassifier;
  evidence: EvidenceSource;
  choices: ScoringChoices;
  seed: number;
  /** The scorer id of each metric (score-knowledge.ts `scorerIds`). */
  scorerIds: Record<string, string>;
  /** The queries of the scored set by task, where the shared helpfulness baseline and the scripts' demonstrations come from. */
  baselinePools?: ReadonlyMap<string, readonly BaselineQuery[]>;
  /** The shared baseline's key per task (./helpfulness-baseline.ts `baselineKey`). */
  baselineKeys?: ReadonlyMap<string, string>;
}

/**
 * The language-model metrics see at most this many words of a knowledge text (and of each
 * sentence), as the authors' src/info.py cuts knowledge to 300 words: a text longer than the
 * scoring model's context cannot be scored at all.
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

function reference(item: GeneratedKnowledge): string[] {
  return item.referenceKnowledge === undefined ? [] : [item.referenceKnowledge];
}

/** The query relevance and informativeness read: a dialogue's last utterance, or its whole history (src/relevance.py). */
export function scoredQuery(item: Pick<GeneratedKnowledge, 'task' | 'query' | 'history'>, choices: Pick<ScoringChoices, 'dialogueQuery'>): string {
  if (item.task !== 'dialogue' || choices.dialogueQuery === 'utterance') return item.query;
  return [...(item.history ?? []), item.query].join(' [SEP] ');
}

function emptyScores(): ConnerScores {
  return {
    factuality: null,
    factualConsistent: null,
    nonVerified: null,
    factualInconsistent: null,
    factualityLabel: null,
    relevance: null,
    coherenceSentence: null,
    coherenceParagraph: null,
    informativeness: null,
    helpfulness: null,
    helpfulnessRaw: null,
    validity: null,
  };
}

export async function scoreOne(
  item: GeneratedKnowledge,
  options: ItemScoring,
  byId: ReadonlyMap<string, GeneratedKnowledge>,
  pool: readonly string[],
): Promise<{ record: ScoredKnowledge; cached: boolean }> {
  const { choices } = options;
  let cached = true;
  const scores = emptyScores();
  const record: ScoredKnowledge = {
    id: item.id,
    generator: item.generator,
    setting: settingLabel(item),
    task: item.task,
    topic: item.topic,
    query: item.query,
    knowledge: item.knowledge,
    goldAnswer: item.goldAnswer ?? null,
    answer: item.answerWithKnowledge ?? null,
    answerer: item.answerer ?? null,
    answerWithoutKnowledge: item.answerWithoutKnowledge ?? null,
    scores,
    sentences: [],
    sentenceInversePerplexity: [],
    helpfulness: null,
    validityEvidence: null,
    scorers: options.scorerIds,
    premiseCuts: 0,
    flooredTokens: 0,
    notes: [],
  };
  // Table 10's reference-reliant baselines (knowledge F1) read it from the record.
  if (item.referenceKnowledge !== undefined) record.referenceKnowledge = item.referenceKnowledge;
  const notes = record.notes;
  const hasKnowledge = item.knowledge.trim() !== '';
  if (!hasKnowledge) notes.push('knowledge is empty: factuality, relevance, coherence and informativeness are not scored for it');
  const floors: Record<string, number> = {};
  const floored = (metric: string, n: number): void => {
    if (n > 0) floors[metric] = (floors[metric] ?? 0) + n;
  };
  const sentences = splitSentences(item.knowledge);

  if (options.nli) {
    const nli = options.nli;
    const f = await scoreFactuality(
      sentences,
      (s) => options.evidence.retrieve(s, reference(item), item.knowledge),
      nli,
      choices.aggregation,
      choices.factualityRule,
    );
    if (f) {
      cached &&= f.cached;
      record.sentences = f.factuality.sentences;
      [scores.factualConsistent, scores.nonVerified, scores.factualInconsistent] = f.factuality.score;
      scores.factuality = scores.factualConsistent;
      scores.factualityLabel = f.factuality.label;
      if (f.factuality.sentences.every((x) => x.candidates === 0))
        notes.push(`factuality: no evidence for any sentence from ${options.evidence.id} (all non-verified)`);
      const cuts = f.factuality.sentences.flatMap((x) => x.premiseCuts ?? []);
      record.premiseCuts += cuts.length;
      const cut = describeCuts('factuality', cuts);
      if (cut) notes.push(cut);
    }
    const answer = item.answerWithKnowledge;
    if (answer !== undefined && answer.trim() !== '') {
      let v: Awaited<ReturnType<typeof openValidity>> | undefined;
      if (item.task === 'qa') {
        if (item.goldAnswer !== undefined && item.goldAnswer.trim() !== '') v = await spanValidity(item.query, item.goldAnswer, answer, nli);
      } else {
        const evidence: Evidence[] = await options.evidence.retrieve(answer, reference(item));
        const gold = item.goldAnswer?.trim() ? [{ source: 'gold response', text: item.goldAnswer }] : [];
        v = await openValidity(answer, choices.dialogueValidity === 'response-and-evidence' ? [...gold, ...evidence] : evidence, nli);
      }
      if (v) {
        cached &&= v.cached;
        if (v.validity) {
          scores.validity = v.validity.value;
          record.validityEvidence = v.validity.evidence ?? null;
          const cuts = v.validity.premiseCuts ?? [];
          record.premiseCuts += cuts.length;
          const cut = describeCuts('validity', cuts);
          if (cut) notes.push(cut);
        }
      }
    } else if (answer !== undefined) {
      // An empty answer is entailed by nothing.
      scores.validity = 0;
    }
  }
  if (options.relevance && hasKnowledge) {
    const r = await scoreRelevance(scoredQuery(item, choices), item.knowledge, options.relevance);
    cached &&= r.cached;
    scores.relevance = r.relevance ?? null;
    if (r.cuts[0]) record.relevanceCut = r.cuts[0];
    const cut = describeCuts('relevance', r.cuts);
    if (cut) notes.push(cut);
  }
  if (options.coherence && hasKnowledge) {
    const cp = await unlessOverflow('coherence_paragraph', notes, () => paragraphCoherence(item.knowledge, { coherence: options.coherence! }));
    if (cp) {
      cached &&= cp.cached;
      scores.coherenceParagraph = cp.value ?? null;
    }
  }
  if (options.scorer && hasKnowledge) {
    const scorer = options.scorer;
    const knowledge = truncateWords(item.knowledge);
    const cs = await unlessOverflow('coherence_sentence', notes, () =>
      sentenceCoherence(
        sentences.map((s) => truncateWords(s)),
        scorer,
        choices.sentenceCoherence,
        choices.pplCap,
      ),
    );
    if (cs) {
      cached &&= cs.cached;
      floored('coherence_sentence', cs.floored);
      scores.coherenceSentence = cs.value ?? null;
      record.sentenceInversePerplexity = cs.perSentence;
    }
    if (!options.coherence) {
      const cp = await unlessOverflow('coherence_paragraph', notes, () => paragraphCoherence(knowledge, { fallback: scorer }));
      if (cp) {
        cached &&= cp.cached;
        floored('coherence_paragraph', cp.floored);
        scores.coherenceParagraph = cp.value ?? null;
      }
    }
    const info = await unlessOverflow('informativeness', notes, () =>
      scoreInformativeness({ ...item, query: scoredQuery(item, choices) }, knowledge, scorer, choices.informativenessPrefix),
    );
    if (info) {
      cached &&= info.cached;
      floored('informativeness', info.floored);
      scores.informativeness = info.value ?? null;
    }
  }
  const helpfulnessScorer = options.answerScorer ?? options.scorer;
  if (helpfulnessScorer && item.goldAnswer !== undefined && item.goldAnswer.trim() !== '') {
    const h = await unlessOverflow('helpfulness', notes, () => itemHelpfulness(item, options, byId, pool, helpfulnessScorer, notes));
    if (h) {
      cached &&= h.cached;
      floored('helpfulness', h.floored);
      if (h.helpfulness) {
        scores.helpfulness = h.helpfulness.value;
        scores.helpfulnessRaw = h.helpfulness.raw;
        const key = options.baselineKeys?.get(item.task);
        record.helpfulness = {
          loss: h.helpfulness.loss,
          baselineLosses: h.helpfulness.baselineLosses,
          negatives: h.helpfulness.negatives,
          ...(h.demos ? { demos: h.demos } : {}),
          ...(choices.helpfulnessBaseline === 'shared' && key ? { baseline: key } : {}),
        };
      }
    }
  }
  for (const [metric, n] of Object.entries(floors)) {
    record.flooredTokens += n;
    notes.push(
      `${metric}: ${n} token${n === 1 ? '' : 's'} had probability 0 under the scorer (below float precision), scored at the floor ln(2^-149) = ${UNDERFLOW_LOGPROB.toFixed(2)}`,
    );
  }
  return { record, cached };
}

/**
 * Eq. 6 for one item: against the shared per-data-set baseline (the scripts') or u negatives of
 * the same generator, after the scripts' 8-shot prompt or Table 13's template.
 */
async function itemHelpfulness(
  item: GeneratedKnowledge,
  options: ItemScoring,
  byId: ReadonlyMap<string, GeneratedKnowledge>,
  pool: readonly string[],
  scorer: TokenScorer,
  notes: string[],
) {
  const { choices } = options;
  const shared = sharedBaseline(item.id, options.baselinePools?.get(item.task) ?? [], options.seed);
  // The scripts' prompt with all its demonstrations, then with fewer, last dropped first, until one fits the scorer's context.
  const demos = shared?.demos ?? [];
  const promptOf =
    choices.helpfulnessPrompt === 'released'
      ? (k: string) => Array.from({ length: demos.length + 1 }, (_, n) => releasedAnswerPrompt(item, k, demos.slice(0, demos.length - n)))
      : undefined;
  let negatives: Array<{ id: string; knowledge: string }>;
  if (choices.helpfulnessBaseline === 'shared') {
    if (!shared) notes.push('helpfulness: not scored, no other query of the set has a gold passage and answer for the shared baseline');
    negatives = shared ? [{ id: shared.from, knowledge: truncateWords(shared.passage) }] : [];
  } else {
    negatives = sampleNegatives(item.id, pool, choices.negatives, options.seed).map((id) => ({ id, knowledge: truncateWords(byId.get(id)!.knowledge) }));
  }
  const r = await scoreHelpfulness(item, truncateWords(item.knowledge), item.goldAnswer!, negatives, scorer, promptOf);
  return { ...r, ...(promptOf ? { demos: (shared?.demos ?? []).map((d) => d.id) } : {}) };
}
