/**
 * `llmkb data from-corpus`: a QA set in the item format (qa-item.ts) built from a corpus's
 * passages by a question-writer LLM, so that a model can be measured as a knowledge base of the
 * user's own documents.
 *
 * - Passages are drawn in a seeded shuffle (same seed, same corpus => same order) until `count`
 *   questions are kept, every passage was tried, or `maxPassages` were tried. The order does not
 *   depend on the bound, so a larger bound tries the same passages first (their replies come
 *   from the call cache) and then more.
 * - The writer is asked for one factoid question per passage whose answer is a short span copied
 *   from the passage, asked so that it stands on its own (prompt and reply format:
 *   question-writer.ts).
 * - Nothing the writer returns is trusted: the answer must occur in the passage (a normalized
 *   span search: case, punctuation and spacing ignored, on word boundaries), be at most
 *   `maxAnswerWords` words, and not be given away by the question; the question must be a
 *   question, must not need the passage in view ("according to the text", "in this paper",
 *   "the authors", ...), and must not repeat one kept earlier (normalized). Every rejection is
 *   counted by reason in the card.
 * - The answer kept is the passage's own text of the span, with its offsets in the document:
 *   provenance (document, source file, page, passage and answer offsets) goes with each item.
 * - The answer type is the writer's when it names one of ANSWER_TYPES and the rules do not
 *   contradict it (a span of digits is a number, a date or a year is a time), else the rules'
 *   (`other` when they cannot tell).
 * Every call goes through the executor (cached by content: a rerun is free and resumable).
 */
import { LlmkbError } from '../../../errors.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import type { Corpus } from '../../../corpus/index.js';
import { findSpan, normalizeForMatch, ruleAnswerType } from './answer-span.js';
import { corpusDates, countDocumentDate, documentDate, noDocumentDates, type CorpusDates, type DocumentDates } from './document-dates.js';
import { ANSWER_TYPES, stableId, type AnswerType, type QAItem } from './qa-item.js';
import { parseWriterReply, questionWriterPrompt, type QuestionWriter } from './question-writer.js';

export type RejectionReason =
  | 'unparseable'
  | 'not-a-question'
  | 'passage-dependent'
  | 'answer-too-long'
  | 'answer-not-in-passage'
  | 'answer-in-question'
  | 'duplicate'
  | 'empty-passage';

export const REJECTION_REASONS: readonly RejectionReason[] = [
  'unparseable',
  'not-a-question',
  'passage-dependent',
  'answer-too-long',
  'answer-not-in-passage',
  'answer-in-question',
  'duplicate',
  'empty-passage',
];

/** Phrases that make a question answerable only with the passage in view. */
export const PASSAGE_DEPENDENT =
  /\b(?:according to (?:the|this) (?:text|passage|article|paper|document|excerpt|study|author|authors|report|section)|(?:in|from|of|by) (?:the|this) (?:text|passage|excerpt|paper|article|document|study|section|chapter|report|table|figure)\b|the (?:above|following|given|preceding) (?:text|passage|excerpt|paragraph|sentence)|the authors?\b|this (?:paper|study|passage|article|text|excerpt)\b|mentioned (?:above|in the)|the passage\b|the text\b|the excerpt\b|the writer\b|the narrator\b)/i;

export interface CorpusQuestionOptions {
  /** Questions wanted. */
  count: number;
  seed: number;
  /** Longest answer kept, in words (default 5). */
  maxAnswerWords?: number;
  /** Passages tried at most (default: every passage of at least `minPassageWords` words). */
  maxPassages?: number;
  /** Passages shorter than this many words are not sampled (default 20). */
  minPassageWords?: number;
  /** Writer calls in flight (default 8). */
  concurrency?: number;
  /** Document metadata field with the document's date (default: the first of DATE_FIELDS a document has). */
  dateField?: string;
  onProgress?: (p: { tried: number; kept: number; maxPassages: number }) => void;
}

export interface CorpusQuestionProvenance {
  corpus: string;
  document: string;
  file: string;
  page: number;
  pageEnd: number;
  passage: number;
  passageStart: number;
  passageEnd: number;
  /** The answer span's offsets in the document text. */
  answerStart: number;
  answerEnd: number;
  /** The document's date (`YYYY[-MM[-DD]]`) from its metadata, when it has one (see `documentDate`). */
  documentDate?: string;
  passageText: string;
}

export type CorpusQAItem = QAItem & { provenance: CorpusQuestionProvenance; answerTypeBy: 'writer' | 'rule' };

export interface CorpusQuestionReport {
  items: CorpusQAItem[];
  /** The bound on the passages tried: `maxPassages`, or every passage that can be sampled. */
  maxPassages: number;
  /** Why the draw stopped: the count was met, every passage was tried, or the bound was reached. */
  stop: 'count-met' | 'corpus-exhausted' | 'bound-reached';
  /** Passages whose question was checked. */
  tried: number;
  rejected: Record<RejectionReason, number>;
  /** A few rejected examples per reason, for the card. */
  examples: Partial<Record<RejectionReason, string[]>>;
  writer: string;
  /** Passages of at least `minPassageWords` words: those that can be sampled. */
  passagesInCorpus: number;
  /** The dates of the kept items' documents. */
  dates: DocumentDates;
  /** How many documents of the corpus have a date at all. */
  corpusDates: CorpusDates;
}

/** Builds the QA items (see the module comment). */
export async function buildCorpusQuestions(corpus: Corpus, writer: QuestionWriter, options: CorpusQuestionOptions): Promise<CorpusQuestionReport> {
  const maxWords = options.maxAnswerWords ?? 5;
  const minWords = options.minPassageWords ?? 20;
  const ids = corpus.passageIds(minWords);
  if (ids.length === 0) {
    throw new LlmkbError(`corpus "${corpus.name}" has no passage of at least ${minWords} words to write a question about`, {
      hint: 'Add documents with running text to the corpus (`llmkb corpus add`); `llmkb corpus stats` shows its passages.',
    });
  }
  if (options.maxPassages !== undefined && (!Number.isInteger(options.maxPassages) || options.maxPassages < 1)) {
    throw new LlmkbError(`the most passages to try must be a positive integer, not ${options.maxPassages}`, {
      hint: 'Give --max-passages 1 or more, or leave it out to draw until the count is met or every passage was tried.',
    });
  }
  const order = SeededRandom.stream(options.seed, 'corpus-questions', corpus.name).shuffle(ids);
  const limit = Math.min(order.length, options.maxPassages ?? order.length);
  const rejected = Object.fromEntries(REJECTION_REASONS.map((r) => [r, 0])) as Record<RejectionReason, number>;
  const examples: Partial<Record<RejectionReason, string[]>> = {};
  const reject = (reason: RejectionReason, example: string): void => {
    rejected[reason] += 1;
    const list = (examples[reason] ??= []);
    if (list.length < 3) list.push(example);
  };
  const useChat = typeof writer.model.complete !== 'function' && typeof writer.model.chat === 'function';
  const ask = async (passage: string): Promise<string> => {
    const prompt = questionWriterPrompt(passage);
    const r = useChat
      ? await writer.chat({ messages: [{ role: 'user', content: prompt }], maxTokens: 120 })
      : await writer.complete({ prompt, maxTokens: 120, stop: ['\nPASSAGE:', '\nINSTRUCTION:'] });
    return r.value.text;
  };
  const items: CorpusQAItem[] = [];
  const dates = noDocumentDates();
  const seen = new Set<string>();
  let tried = 0;
  const concurrency = options.concurrency ?? 8;
  for (let at = 0; at < limit && items.length < options.count; at += concurrency) {
    const rows = order.slice(at, Math.min(limit, at + concurrency)).map((id) => corpus.passage(id)!);
    const replies = await Promise.all(rows.map((r) => ask(r.text)));
    // Accepted in sample order, whatever order the calls finished in: the set does not depend on timing.
    for (let i = 0; i < rows.length && items.length < options.count; i += 1) {
      tried += 1;
      const row = rows[i]!;
      const reply = replies[i]!;
      const parsed = parseWriterReply(reply);
      if (parsed === undefined) {
        reject('unparseable', reply.slice(0, 160));
        continue;
      }
      const { question, answer } = parsed;
      const label = `${question} -> ${answer}`;
      if (!question.endsWith('?') || question.split(/\s+/).length < 4) {
        reject('not-a-question', label);
        continue;
      }
      if (PASSAGE_DEPENDENT.test(question)) {
        reject('passage-dependent', label);
        continue;
      }
      if (answer.split(/\s+/).length > maxWords) {
        reject('answer-too-long', label);
        continue;
      }
      const span = findSpan(row.text, answer);
      if (span === undefined) {
        reject('answer-not-in-passage', label);
        continue;
      }
      const normalizedAnswer = normalizeForMatch(answer).text;
      if (` ${normalizeForMatch(question).text} `.includes(` ${normalizedAnswer} `)) {
        reject('answer-in-question', label);
        continue;
      }
      const key = normalizeForMatch(question).text;
      if (seen.has(key)) {
        reject('duplicate', label);
        continue;
      }
      seen.add(key);
      // The passage's own text of the span, on one line: a line break of the document (a PDF's
      // wrapped line) is a space in an answer that is shown, matched and written to JSONL.
      const spanText = row.text.slice(span.start, span.end).replace(/\s+/g, ' ');
      const ruled = ruleAnswerType(spanText);
      const written = (ANSWER_TYPES as readonly string[]).includes(parsed.type ?? '') ? (parsed.type as AnswerType) : undefined;
      // The rules win only where they are sure and the writer disagrees.
      const answerType = ruled ?? written ?? 'other';
      const date = documentDate(row.metadata, options.dateField);
      countDocumentDate(dates, date);
      items.push({
        id: stableId('corpus', corpus.name, row.docId, String(row.start + span.start), question),
        dataset: 'seen',
        source: `corpus:${corpus.name}`,
        question,
        answers: [spanText],
        answerType,
        answerTypeBy: ruled === undefined && written !== undefined ? 'writer' : 'rule',
        sourceId: `${row.docId}#p${row.page}:${row.start + span.start}-${row.start + span.end}`,
        provenance: {
          corpus: corpus.name,
          document: row.docId,
          file: row.source,
          page: row.page,
          pageEnd: row.pageEnd,
          passage: row.seq,
          passageStart: row.start,
          passageEnd: row.end,
          answerStart: row.start + span.start,
          answerEnd: row.start + span.end,
          passageText: row.text,
          ...(date?.date === undefined ? {} : { documentDate: date.date }),
        },
      });
    }
    options.onProgress?.({ tried, kept: items.length, maxPassages: limit });
  }
  const stop = items.length >= options.count ? 'count-met' : limit === order.length ? 'corpus-exhausted' : 'bound-reached';
  return {
    items,
    maxPassages: limit,
    stop,
    tried,
    rejected,
    examples,
    writer: writer.model.modelId,
    passagesInCorpus: ids.length,
    dates,
    corpusDates: corpusDates(corpus.documentMetadata(), options.dateField),
  };
}
