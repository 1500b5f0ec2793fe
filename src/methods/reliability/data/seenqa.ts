/**
 * SeenQA (paper section 3.2): per source, (1) factoid extraction, (2) time-sensitive question
 * removal, (3) seeded random sampling.
 *
 * Steps 2 and 3 are done together, which gives the same result as filtering everything first and
 * sampling after, at a fraction of the LLM calls: the factoid pool is shuffled with the seed and
 * walked in order, the time-sensitive check runs on chunks of it, and the first `perSource`
 * questions that pass are kept. The card reports how many were examined and removed.
 */
import { normalizeAnswer } from '../../../text/normalize-answer.js';
import { withCanonicalFirst } from './answer-text.js';
import { factoidRejection, type FactoidRejection } from './factoid-filter.js';
import { stableId, type QAItem } from './qa-item.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import { guessAnswerType, type SeenSource, type SourceQuestion } from './source-readers.js';
import type { TimeSensitiveResult } from './time-sensitive.js';

/** The paper's three sources, in build order (`popqa-longtail` is added on request: `llmkb data seenqa --popqa-longtail`). */
export const SEEN_SOURCES: readonly SeenSource[] = ['nq', 'triviaqa', 'popqa'];

/** PopQA's long tail: subject popularity (monthly page views) below this (Mallen et al.; the Self-RAG subset). */
export const LONG_TAIL_POPULARITY = 100;

export interface SeenSourceStats {
  pool: number;
  duplicates: number;
  removed: Record<FactoidRejection, number>;
  factoid: number;
  /** Factoid questions the time-sensitive check looked at (the shuffled pool's prefix). */
  examined: number;
  timeSensitive: number;
  kept: number;
  /** Kept questions with a known subject popularity, and how many of them are long-tail (< 100). */
  popularity?: { known: number; longTail: number };
}

/** `source` names the pool the questions come from (for progress lines). */
export type TimeSensitiveCheck = (questions: readonly string[], source: string) => Promise<TimeSensitiveResult>;

export function toSeenItem(q: SourceQuestion): QAItem {
  return {
    id: stableId(q.source, q.question),
    dataset: 'seen',
    source: q.source,
    question: q.question,
    // The canonical answer first: readers show answers[0] (few-shot examples, the distractor pool).
    answers: withCanonicalFirst(q.answers, q.source),
    answerType: guessAnswerType(q.question, q.relation),
    sourceId: q.sourceId,
    ...(q.relation === undefined ? {} : { relation: q.relation }),
  };
}

/** Drops repeated questions (same normalised text), keeping the first. */
export function dedupeQuestions(questions: readonly SourceQuestion[]): { unique: SourceQuestion[]; duplicates: number } {
  const seen = new Set<string>();
  const unique: SourceQuestion[] = [];
  for (const q of questions) {
    const key = normalizeAnswer(q.question);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(q);
  }
  return { unique, duplicates: questions.length - unique.length };
}

export async function buildSeenQA(
  pools: Partial<Record<SeenSource, SourceQuestion[]>>,
  options: { seed: number; perSource: number; timeSensitive: TimeSensitiveCheck; sources?: readonly SeenSource[] },
): Promise<{ items: QAItem[]; stats: Partial<Record<SeenSource, SeenSourceStats>>; timeSensitiveCalls: number; unparsedBatches: number }> {
  const items: QAItem[] = [];
  const stats: Partial<Record<SeenSource, SeenSourceStats>> = {};
  let timeSensitiveCalls = 0;
  let unparsedBatches = 0;
  for (const source of options.sources ?? SEEN_SOURCES) {
    const pool = pools[source];
    if (pool === undefined) throw new Error(`no question pool for source ${source}`);
    const { unique, duplicates } = dedupeQuestions(pool);
    const removed: Record<FactoidRejection, number> = { 'why-question': 0, 'multiple-answers': 0, 'long-answer': 0 };
    const factoid: SourceQuestion[] = [];
    for (const q of unique) {
      const why = factoidRejection(q);
      if (why) removed[why] += 1;
      else factoid.push(q);
    }
    const shuffled = SeededRandom.stream(options.seed, 'seenqa', source).shuffle(factoid);
    const kept: SourceQuestion[] = [];
    let examined = 0;
    let timeSensitive = 0;
    while (kept.length < options.perSource && examined < shuffled.length) {
      const missing = options.perSource - kept.length;
      const chunk = shuffled.slice(examined, examined + Math.ceil(missing * 1.25) + 20);
      const result = await options.timeSensitive(
        chunk.map((q) => q.question),
        source,
      );
      timeSensitiveCalls += result.calls;
      unparsedBatches += result.unparsedBatches;
      chunk.forEach((q, i) => {
        if (result.flagged.has(i)) {
          if (kept.length < options.perSource) timeSensitive += 1;
          return;
        }
        if (kept.length < options.perSource) kept.push(q);
      });
      examined += chunk.length;
    }
    // Every question looked at before the quota filled was either kept or removed as time-sensitive.
    const rated = kept.filter((q) => q.popularity !== undefined);
    stats[source] = {
      pool: pool.length,
      duplicates,
      removed,
      factoid: factoid.length,
      examined: kept.length + timeSensitive,
      timeSensitive,
      kept: kept.length,
      ...(rated.length > 0 ? { popularity: { known: rated.length, longTail: rated.filter((q) => q.popularity! < LONG_TAIL_POPULARITY).length } } : {}),
    };
    items.push(...kept.map(toSeenItem));
  }
  return { items, stats, timeSensitiveCalls, unparsedBatches };
}
