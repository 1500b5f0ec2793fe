/**
 * `llmkb data from-corpus`: a QA set in the item format (qa-item.ts) built from a corpus's
 * passages by a question-writer LLM, so that a model can be measured as a knowledge base of the
 * user's own documents.
 *
 * - Passages are sampled with a seeded shuffle (same seed, same corpus => same sample).
 * - The writer is asked for one factoid question per passage whose answer is a short span copied
 *   from the passage, asked so that it stands on its own (prompt: `QUESTION_WRITER_PROMPT`).
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
import { ANSWER_TYPES, stableId, type AnswerType, type QAItem } from '../methods/reliability/data/qa-item.js';
import { SeededRandom } from '../sampling/seeded-random.js';
import type { Executed } from '../executor/model-executor.js';
import type { ChatRequest, CompletionRequest, CompletionResult, Model } from '../providers/language-model.js';
import type { Corpus } from './corpus.js';

/** What the builder needs of an executor (ModelExecutor has it). */
export interface QuestionWriter {
  readonly model: Pick<Model, 'modelId' | 'complete' | 'chat'>;
  complete(request: CompletionRequest): Promise<Executed<CompletionResult>>;
  chat(request: ChatRequest): Promise<Executed<CompletionResult>>;
}

export const QUESTION_WRITER_PROMPT_VERSION = 'corpus-question-v1';

export function questionWriterPrompt(passage: string): string {
  return `INSTRUCTION: Write one factoid question about the facts in the passage below, and its answer.
- The answer must be a short span (at most five words) copied exactly from the passage: a name, a number, a date, a place or a term.
- The question must make sense on its own to someone who has never seen the passage: name the subject; never write "according to the text", "in the passage", "in this paper", "the authors" or "the study".
- Do not put the answer in the question.
Reply in exactly this form:
QUESTION: <the question>
ANSWER: <the span copied from the passage>
TYPE: <one of: person, location, time, number, other>

PASSAGE: ${passage.replace(/\s+/g, ' ').trim()}
`;
}

export type RejectionReason = 'unparseable' | 'not-a-question' | 'passage-dependent' | 'answer-too-long' | 'answer-not-in-passage' | 'answer-in-question' | 'duplicate' | 'empty-passage';

export const REJECTION_REASONS: readonly RejectionReason[] = ['unparseable', 'not-a-question', 'passage-dependent', 'answer-too-long', 'answer-not-in-passage', 'answer-in-question', 'duplicate', 'empty-passage'];

/** Phrases that make a question answerable only with the passage in view. */
export const PASSAGE_DEPENDENT = /\b(?:according to (?:the|this) (?:text|passage|article|paper|document|excerpt|study|author|authors|report|section)|(?:in|from|of|by) (?:the|this) (?:text|passage|excerpt|paper|article|document|study|section|chapter|report|table|figure)\b|the (?:above|following|given|preceding) (?:text|passage|excerpt|paragraph|sentence)|the authors?\b|this (?:paper|study|passage|article|text|excerpt)\b|mentioned (?:above|in the)|the passage\b|the text\b|the excerpt\b|the writer\b|the narrator\b)/i;

export interface NormalizedText {
  text: string;
  /** map[i]: offset in the original text of normalized character i. */
  map: number[];
}

/**
 * Text for span matching: NFKC, lower case, every run of characters that are not letters or
 * digits made one space, trimmed; with the original offset of each character kept.
 */
export function normalizeForMatch(text: string): NormalizedText {
  const out: string[] = [];
  const map: number[] = [];
  let space = true;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    const width = ch.length;
    const norm = ch.normalize('NFKC').toLowerCase();
    if (/^[\p{L}\p{N}]+$/u.test(norm) || /\p{M}/u.test(norm)) {
      for (const c of norm) {
        out.push(c);
        map.push(i);
      }
      space = false;
    } else if (!space) {
      out.push(' ');
      map.push(i);
      space = true;
    }
    i += width;
  }
  while (out.length > 0 && out[out.length - 1] === ' ') {
    out.pop();
    map.pop();
  }
  return { text: out.join(''), map };
}

/**
 * Where `span` occurs in `text`, normalized on both sides and on word boundaries: the original
 * offsets [start, end) of its first occurrence, or undefined.
 */
export function findSpan(text: string, span: string): { start: number; end: number } | undefined {
  const needle = normalizeForMatch(span).text;
  if (needle.length === 0) return undefined;
  const hay = normalizeForMatch(text);
  for (let from = 0; ; ) {
    const i = hay.text.indexOf(needle, from);
    if (i < 0) return undefined;
    const j = i + needle.length;
    const before = i === 0 || hay.text[i - 1] === ' ';
    const after = j === hay.text.length || hay.text[j] === ' ';
    if (before && after) {
      const start = hay.map[i]!;
      const lastChar = hay.map[j - 1]!;
      const end = lastChar + String.fromCodePoint(text.codePointAt(lastChar)!).length;
      return { start, end };
    }
    from = i + 1;
  }
}

const MONTHS = /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b/i;

/** The answer type the rules can tell: a date or year is a time, a number is a number; otherwise undefined. */
export function ruleAnswerType(answer: string): AnswerType | undefined {
  const a = answer.trim();
  if (/^(?:1[0-9]{3}|20[0-9]{2})s?$/.test(a) || /\b\d{1,2}(?:st|nd|rd|th)? (?:of )?[A-Z][a-z]+,? \d{4}\b/.test(a) || (MONTHS.test(a) && /\d/.test(a)) || /^\d{4}-\d{2}(?:-\d{2})?$/.test(a) || /\b(?:century|centuries)\b/i.test(a)) return 'time';
  if (/^[-+]?[\d,.]*\d[\d,.]*\s*(?:%|percent|per cent|[a-zA-Z]{1,3})?$/.test(a) || /^(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion)(?:[\s-]\w+)?$/i.test(a)) return 'number';
  return undefined;
}

export interface ParsedQuestion {
  question: string;
  answer: string;
  type: string | undefined;
}

export function parseWriterReply(text: string): ParsedQuestion | undefined {
  const q = /QUESTION:\s*(.+)/i.exec(text);
  const a = /ANSWER:\s*(.+)/i.exec(text);
  if (q === null || a === null) return undefined;
  const t = /TYPE:\s*([A-Za-z]+)/i.exec(text);
  const clean = (s: string): string => s.trim().replace(/^["'“”]+|["'“”]+$/g, '').trim();
  const answer = clean(clean(a[1]!).replace(/[.;,]+$/, ''));
  const question = clean(q[1]!);
  if (question.length === 0 || answer.length === 0) return undefined;
  return { question, answer, type: t?.[1]?.toLowerCase() };
}

export interface CorpusQuestionOptions {
  /** Questions wanted. */
  count: number;
  seed: number;
  /** Longest answer kept, in words (default 5). */
  maxAnswerWords?: number;
  /** Passages tried at most, as a multiple of `count` (default 3). */
  maxAttemptsFactor?: number;
  /** Passages shorter than this many words are not sampled (default 20). */
  minPassageWords?: number;
  /** Writer calls in flight (default 8). */
  concurrency?: number;
  /** Document metadata field with the document's date (default: the first of DATE_FIELDS a document has). */
  dateField?: string;
  onProgress?: (p: { tried: number; kept: number }) => void;
}

/**
 * Metadata fields read as a document's date when none is named (case-insensitive), e.g. a CSV
 * column `published`: with dates on the items, a study can split the questions into knowledge
 * published before and after a model's training cutoff (seen and unseen).
 */
export const DATE_FIELDS: readonly string[] = ['date', 'published', 'publication_date', 'published_date', 'publish_date', 'pub_date', 'year', 'created'];

/**
 * The date of a document from its metadata: the named field, or the first of DATE_FIELDS it has.
 * `date` is `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (as precise as the value is) when the value is a
 * year, starts with an ISO date, or is a date JavaScript parses (e.g. "March 3, 2024");
 * otherwise undefined, and the raw value is kept.
 */
export function documentDate(metadata: Record<string, unknown>, field?: string): { field: string; raw: string; date: string | undefined } | undefined {
  const keys = Object.keys(metadata);
  const key = field !== undefined ? keys.find((k) => k === field) ?? keys.find((k) => k.toLowerCase() === field.toLowerCase()) : DATE_FIELDS.map((f) => keys.find((k) => k.toLowerCase() === f)).find((k) => k !== undefined);
  if (key === undefined) return undefined;
  const value = metadata[key];
  if (value === null || value === undefined || (typeof value !== 'string' && typeof value !== 'number')) return undefined;
  const raw = String(value).trim();
  if (raw === '') return undefined;
  const iso = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:$|[T ])/.exec(raw);
  if (iso !== null) return { field: key, raw, date: [iso[1], iso[2], iso[3]].filter((x) => x !== undefined).join('-') };
  const parsed = /\d{4}/.test(raw) ? new Date(raw) : undefined;
  if (parsed !== undefined && !Number.isNaN(parsed.getTime())) {
    const pad = (n: number): string => String(n).padStart(2, '0');
    return { field: key, raw, date: `${parsed.getFullYear()}-${pad(parsed.getMonth() + 1)}-${pad(parsed.getDate())}` };
  }
  return { field: key, raw, date: undefined };
}

/** What the card says about the kept items' document dates. */
export interface DocumentDates {
  /** Metadata fields the dates came from. */
  fields: string[];
  dated: number;
  /** Items whose document has the field but a value that is not a date. */
  unparsed: number;
  undated: number;
  earliest?: string;
  latest?: string;
  byYear: Record<string, number>;
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
  sampled: number;
  tried: number;
  rejected: Record<RejectionReason, number>;
  /** A few rejected examples per reason, for the card. */
  examples: Partial<Record<RejectionReason, string[]>>;
  writer: string;
  passagesInCorpus: number;
  dates: DocumentDates;
}

interface PassageRow {
  id: number;
  seq: number;
  page: number;
  page_end: number;
  start: number;
  end: number;
  words: number;
  text: string;
  doc_id: string;
  path: string;
  metadata: string;
}

/** Builds the QA items (see the module comment). */
export async function buildCorpusQuestions(corpus: Corpus, writer: QuestionWriter, options: CorpusQuestionOptions): Promise<CorpusQuestionReport> {
  const maxWords = options.maxAnswerWords ?? 5;
  const minWords = options.minPassageWords ?? 20;
  const db = corpus.db;
  const ids = (db.prepare('SELECT p.id FROM corpus_passages p JOIN corpus_documents d ON d.id = p.document_id WHERE d.corpus_id = ? AND p.words >= ? ORDER BY p.id').raw(true).all(corpus.id, minWords) as [number][]).map((r) => r[0]);
  const order = SeededRandom.stream(options.seed, 'corpus-questions', corpus.name).shuffle(ids);
  const limit = Math.min(order.length, Math.ceil(options.count * (options.maxAttemptsFactor ?? 3)));
  const getPassage = db.prepare('SELECT p.id, p.seq, p.page, p.page_end, p.start, p.end, p.words, p.text, d.doc_id, s.path, d.metadata FROM corpus_passages p JOIN corpus_documents d ON d.id = p.document_id JOIN corpus_sources s ON s.id = d.source_id WHERE p.id = ?');
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
    const r = useChat ? await writer.chat({ messages: [{ role: 'user', content: prompt }], maxTokens: 120 }) : await writer.complete({ prompt, maxTokens: 120, stop: ['\nPASSAGE:', '\nINSTRUCTION:'] });
    return r.value.text;
  };
  const items: CorpusQAItem[] = [];
  const dates: DocumentDates = { fields: [], dated: 0, unparsed: 0, undated: 0, byYear: {} };
  const seen = new Set<string>();
  let tried = 0;
  const concurrency = options.concurrency ?? 8;
  for (let at = 0; at < limit && items.length < options.count; at += concurrency) {
    const rows = order.slice(at, Math.min(limit, at + concurrency)).map((id) => getPassage.get(id) as PassageRow);
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
      const spanText = row.text.slice(span.start, span.end);
      const ruled = ruleAnswerType(spanText);
      const written = (ANSWER_TYPES as readonly string[]).includes(parsed.type ?? '') ? (parsed.type as AnswerType) : undefined;
      // The rules win only where they are sure and the writer disagrees.
      const answerType = ruled ?? written ?? 'other';
      let date: ReturnType<typeof documentDate>;
      try {
        date = documentDate(JSON.parse(row.metadata) as Record<string, unknown>, options.dateField);
      } catch {
        date = undefined;
      }
      if (date?.date !== undefined) {
        dates.dated += 1;
        if (!dates.fields.includes(date.field)) dates.fields.push(date.field);
        const year = date.date.slice(0, 4);
        dates.byYear[year] = (dates.byYear[year] ?? 0) + 1;
        if (dates.earliest === undefined || date.date < dates.earliest) dates.earliest = date.date;
        if (dates.latest === undefined || date.date > dates.latest) dates.latest = date.date;
      } else if (date !== undefined) dates.unparsed += 1;
      else dates.undated += 1;
      items.push({
        id: stableId('corpus', corpus.name, row.doc_id, String(row.start + span.start), question),
        dataset: 'seen',
        source: `corpus:${corpus.name}`,
        question,
        answers: [spanText],
        answerType,
        answerTypeBy: ruled === undefined && written !== undefined ? 'writer' : 'rule',
        sourceId: `${row.doc_id}#p${row.page}:${row.start + span.start}-${row.start + span.end}`,
        provenance: {
          corpus: corpus.name,
          document: row.doc_id,
          file: row.path,
          page: row.page,
          pageEnd: row.page_end,
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
    options.onProgress?.({ tried, kept: items.length });
  }
  dates.byYear = Object.fromEntries(Object.entries(dates.byYear).sort(([a], [b]) => a.localeCompare(b)));
  return { items, sampled: limit, tried, rejected, examples, writer: writer.model.modelId, passagesInCorpus: ids.length, dates };
}

export interface WrittenCorpusQuestions {
  file: string;
  cardMarkdown: string;
  cardJson: string;
  sha256: string;
}

const REASON_TEXT: Record<RejectionReason, string> = {
  unparseable: 'the reply had no QUESTION:/ANSWER: lines',
  'not-a-question': 'not a question (no "?" or under four words)',
  'passage-dependent': 'answerable only with the passage in view ("according to the text", "the authors", ...)',
  'answer-too-long': 'answer longer than the limit in words',
  'answer-not-in-passage': 'answer not found in the passage (normalized span search)',
  'answer-in-question': 'the question gives the answer away',
  duplicate: 'same question (normalized) as one kept earlier',
  'empty-passage': 'passage without text',
};

function datesText(d: DocumentDates, field: string | undefined): string {
  const source = field !== undefined ? `metadata field \`${field}\`` : `the first metadata field of ${DATE_FIELDS.map((f) => `\`${f}\``).join(', ')} a document has`;
  if (d.dated === 0 && d.unparsed === 0) return `No document has a date (looked for ${source}; \`--date-field NAME\` names another). Without dates the items cannot be split into knowledge published before and after a model's cutoff.`;
  const years = Object.entries(d.byYear).map(([y, n]) => `${y} ${n}`).join(', ');
  return [
    `- ${d.dated} items with a dated document (from ${d.fields.map((f) => `\`${f}\``).join(', ') || source}), ${d.undated} without a date${d.unparsed > 0 ? `, ${d.unparsed} whose date value could not be read` : ''}`,
    ...(d.earliest === undefined ? [] : [`- earliest ${d.earliest}, latest ${d.latest}; by year: ${years}`]),
    "- each item's \`provenance.documentDate\` holds it: split the set at a model's training cutoff to compare seen and unseen knowledge",
  ].join('\n');
}

/** Writes `<outDir>/<name>.jsonl` with its card (`.card.md`, `.card.json`), atomically. */
export async function writeCorpusQuestions(report: CorpusQuestionReport, options: { outDir: string; corpus: Corpus; seed: number; count: number; maxAnswerWords: number; dateField?: string }): Promise<WrittenCorpusQuestions> {
  const { mkdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { sha256 } = await import('../io/checksum.js');
  const { toJsonl } = await import('../io/jsonl.js');
  const { writeFileAtomic } = await import('../io/files.js');
  const { VERSION } = await import('../version.js');
  mkdirSync(options.outDir, { recursive: true });
  const name = `corpus-${options.corpus.name}.jsonl`;
  const file = join(options.outDir, name);
  const content = toJsonl(report.items);
  const checksum = sha256(content);
  writeFileAtomic(file, content);
  const rejectedTotal = Object.values(report.rejected).reduce((a, b) => a + b, 0);
  const types = Object.fromEntries(ANSWER_TYPES.map((t) => [t, report.items.filter((i) => i.answerType === t).length]));
  const byWriter = report.items.filter((i) => i.answerTypeBy === 'writer').length;
  const documents = new Set(report.items.map((i) => i.provenance.document)).size;
  const settings = options.corpus.settings;
  const md = `# QA set from corpus "${options.corpus.name}"

Factoid questions written by a question-writer LLM (${report.writer}) from passages of the corpus
(${report.passagesInCorpus} passages of at least 20 words; passages of about ${settings.passageWords} words, overlap ${settings.overlapWords}).
Prompt \`${QUESTION_WRITER_PROMPT_VERSION}\`; passages sampled with a seeded shuffle (seed ${options.seed}).
Every answer is verified, not trusted: it is a span of the passage (normalized span search: case,
punctuation and spacing ignored, on word boundaries) of at most ${options.maxAnswerWords} words, kept as the passage's own
text with its offsets in the document. Items are \`dataset: "seen"\` in the item format: they have a
verified answer; whether a model could have seen the documents is for the study to say (e.g.
papers published after the model's training cutoff).

## Counts

- asked for: ${options.count} questions; passages tried: ${report.tried} (at most ${report.sampled})
- kept: ${report.items.length} questions from ${documents} documents
- rejected: ${rejectedTotal}
${REJECTION_REASONS.filter((r) => report.rejected[r] > 0).map((r) => `  - ${r}: ${report.rejected[r]} (${REASON_TEXT[r]})`).join('\n') || '  - none'}
- answer types: ${ANSWER_TYPES.map((t) => `${t} ${types[t]}`).join(', ')} (${byWriter} from the writer, ${report.items.length - byWriter} by rule: a date or year is a time, a number a number, otherwise the writer's type, else other)
${report.items.length < options.count ? `\nFewer questions than asked for: the writer's questions were rejected too often within ${report.sampled} passages.\n` : ''}
## Document dates

${datesText(report.dates, options.dateField)}

## Rejected examples

${REJECTION_REASONS.filter((r) => (report.examples[r] ?? []).length > 0).map((r) => `- ${r}: ${report.examples[r]!.map((e) => `\`${e.replace(/`/g, "'").replace(/\s+/g, ' ')}\``).join('; ')}`).join('\n') || '- none'}

## Output

- \`${name}\`: ${report.items.length} items, sha256 \`${checksum}\`
- built by llmkb ${VERSION}
`;
  const cardMarkdown = file.replace(/\.jsonl$/, '.card.md');
  const cardJson = file.replace(/\.jsonl$/, '.card.json');
  writeFileAtomic(cardMarkdown, md);
  const json = {
    schema: 'llmkb-dataset-card-v1',
    file: name,
    items: report.items.length,
    sha256: checksum,
    llmkbVersion: VERSION,
    builtFrom: { corpus: options.corpus.name, passages: report.passagesInCorpus, passageWords: settings.passageWords, overlapWords: settings.overlapWords },
    questionWriter: { model: report.writer, prompt: QUESTION_WRITER_PROMPT_VERSION },
    seed: options.seed,
    requested: options.count,
    tried: report.tried,
    maxAnswerWords: options.maxAnswerWords,
    rejected: report.rejected,
    answerTypes: types,
    answerTypeFromWriter: byWriter,
    documents,
    documentDates: report.dates,
  };
  writeFileAtomic(cardJson, `${JSON.stringify(json, null, 2)}\n`);
  return { file, cardMarkdown, cardJson, sha256: checksum };
}
