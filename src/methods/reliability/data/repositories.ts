/**
 * Few-shot repositories (paper Appendix D). R_seen: 280 question-answer pairs about seen
 * knowledge, disjoint from SeenQA: 200 from the sources' held-out pools (NQ and TriviaQA DPR dev
 * splits, PopQA rows SeenQA did not use) and 80 Table 1 template questions about real, well-known
 * people whose answers PopQA gives (occupation -> T20, place of birth -> T13, mother -> T8),
 * most popular subjects first. R_unseen comes from the UnseenQA builder.
 *
 * Pool questions pass the same factoid filter as SeenQA and the keyword time-sensitivity rule
 * (no LLM needed for 200 shots). The first answer of an R_seen item is the one shown in shots:
 * the canonical answer (`canonicalAnswer` in answer-text.ts: for TriviaQA's unordered alias sets
 * the most central alias, never an arbitrary redirect).
 */
import { normalizeAnswer } from '../../../text/normalize-answer.js';
import { withCanonicalFirst } from './answer-text.js';
import { factoidRejection } from './factoid-filter.js';
import { stableId, type QAItem } from './qa-item.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import { dedupeQuestions, toSeenItem } from './seenqa.js';
import { guessAnswerType, type SourceQuestion } from './source-readers.js';
import { isTimeSensitiveByKeywords } from './time-sensitive.js';
import { fillTemplate, UNSEEN_TEMPLATES } from './unseenqa.js';

const PERSON_TEMPLATES: Record<string, string> = { occupation: 'T20', 'place of birth': 'T13', mother: 'T8' };

export interface RSeenBuild {
  items: QAItem[];
  counts: Record<string, number>;
}

export function buildRSeen(
  pools: { nq: SourceQuestion[]; triviaqa: SourceQuestion[]; popqa: SourceQuestion[] },
  seenQA: readonly QAItem[],
  options: { seed: number; fromPools?: number; fromTemplates?: number },
): RSeenBuild {
  const fromPools = options.fromPools ?? 200;
  const fromTemplates = options.fromTemplates ?? 80;
  const usedQuestions = new Set(seenQA.map((i) => normalizeAnswer(i.question)));
  const usedSourceIds = new Set(seenQA.map((i) => i.sourceId).filter((s): s is string => s !== undefined));
  const usable = (q: SourceQuestion) => !usedQuestions.has(normalizeAnswer(q.question)) && !usedSourceIds.has(q.sourceId);

  const items: QAItem[] = [];
  const counts: Record<string, number> = {};
  const sources: Array<'nq' | 'triviaqa' | 'popqa'> = ['nq', 'triviaqa', 'popqa'];
  sources.forEach((source, s) => {
    const share = Math.floor(fromPools / sources.length) + (s < fromPools % sources.length ? 1 : 0);
    const candidates = dedupeQuestions(pools[source]).unique.filter((q) => usable(q) && !factoidRejection(q) && !isTimeSensitiveByKeywords(q.question));
    const picked = SeededRandom.stream(options.seed, 'r_seen', source).sample(candidates, share);
    for (const q of picked) {
      usedQuestions.add(normalizeAnswer(q.question));
      usedSourceIds.add(q.sourceId);
      items.push({ ...toSeenItem(q), id: stableId(`rseen-${source}`, q.question), answers: withCanonicalFirst(q.answers, source) });
    }
    counts[source] = picked.length;
  });

  // Template questions about real people, best known first (PopQA subject popularity).
  const people = pools.popqa
    .filter((q) => q.relation !== undefined && q.relation in PERSON_TEMPLATES && q.subject !== undefined && usable(q))
    .sort((a, b) => (b.popularity ?? 0) - (a.popularity ?? 0) || a.sourceId.localeCompare(b.sourceId));
  const perRelation = new Map<string, number>();
  const relations = [...new Set(people.map((q) => q.relation!))];
  const quota = Math.ceil(fromTemplates / Math.max(1, relations.length));
  let templated = 0;
  // First an even share per relation; then, if a relation is rare (PopQA has few "mother" rows), fill up from the others.
  for (const limit of [quota, Number.POSITIVE_INFINITY]) {
    for (const q of people) {
      if (templated >= fromTemplates) break;
      const n = perRelation.get(q.relation!) ?? 0;
      if (n >= limit) continue;
      const template = UNSEEN_TEMPLATES.find((t) => t.id === PERSON_TEMPLATES[q.relation!])!;
      const question = fillTemplate(template, q.subject!);
      if (usedQuestions.has(normalizeAnswer(question))) continue;
      usedQuestions.add(normalizeAnswer(question));
      perRelation.set(q.relation!, n + 1);
      templated += 1;
      items.push({
        id: stableId(`rseen-${template.id}`, question),
        dataset: 'seen',
        source: 'popqa',
        question,
        answers: withCanonicalFirst(q.answers, 'popqa'),
        answerType: guessAnswerType(q.question, q.relation),
        sourceId: q.sourceId,
        template: template.id,
      });
    }
  }
  counts.templates = templated;
  return { items, counts };
}
