/** The files of a QA set built from a corpus: the items (JSONL) and their card (Markdown and JSON). */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Corpus } from '../../../corpus/index.js';
import { EXIT_CODES, LlmkbError } from '../../../errors.js';
import { sha256 } from '../../../io/checksum.js';
import { writeFileAtomic } from '../../../io/files.js';
import { toJsonl } from '../../../io/jsonl.js';
import { VERSION } from '../../../version.js';
import { ANSWER_TYPES } from './qa-item.js';
import { DATE_FIELDS, type CorpusDates } from './document-dates.js';
import { REJECTION_REASONS, type CorpusQuestionReport, type RejectionReason } from './corpus-questions.js';
import { QUESTION_WRITER_PROMPT_VERSION } from './question-writer.js';

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

/** Why the draw of passages stopped, in words. */
export function stopText(report: CorpusQuestionReport): string {
  switch (report.stop) {
    case 'count-met':
      return `the count was met after ${report.tried} passages`;
    case 'corpus-exhausted':
      return `every passage that can be sampled (${report.passagesInCorpus}, of at least 20 words) was tried`;
    case 'bound-reached':
      return `the bound of ${report.maxPassages} passages (--max-passages) was reached`;
  }
}

const quoted = (fields: readonly string[]): string => fields.map((f) => `\`${f}\``).join(', ');

/** What the corpus's documents say of their dates, as a sentence. */
function corpusDatesText(c: CorpusDates, field: string | undefined): string {
  if (c.dated > 0) return `${c.dated} of the corpus's ${c.documents} documents ${c.dated === 1 ? 'has' : 'have'} a date (from ${quoted(c.fields)})`;
  const source = field !== undefined ? `metadata field \`${field}\`` : `the first metadata field of ${quoted(DATE_FIELDS)} a document has`;
  return `no document of the corpus has a date (looked for ${source}; \`--date-field NAME\` names another)`;
}

function datesText(report: CorpusQuestionReport, field: string | undefined): string {
  const d = report.dates;
  const corpus = corpusDatesText(report.corpusDates, field);
  const split = "the items cannot be split into knowledge published before and after a model's cutoff";
  if (d.dated === 0 && d.unparsed === 0) {
    return report.corpusDates.dated === 0
      ? `${corpus[0]!.toUpperCase()}${corpus.slice(1)}. Without dates ${split}.`
      : `${report.items.length === 1 ? 'The kept item does not come' : `None of the ${report.items.length} kept items comes`} from a dated document, though ${corpus}: ${split}.`;
  }
  const years = Object.entries(d.byYear)
    .map(([y, n]) => `${y} ${n}`)
    .join(', ');
  return [
    `- ${d.dated} items with a dated document (from ${quoted(d.fields)}), ${d.undated} without a date${d.unparsed > 0 ? `, ${d.unparsed} whose date value could not be read` : ''}`,
    ...(d.earliest === undefined ? [] : [`- earliest ${d.earliest}, latest ${d.latest}; by year: ${years}`]),
    `- in the corpus: ${corpus}`,
    "- each item's `provenance.documentDate` holds it: split the set at a model's training cutoff to compare seen and unseen knowledge",
  ].join('\n');
}

/** One line on the kept items' document dates, for the terminal. */
export function datesLine(report: CorpusQuestionReport, field: string | undefined): string {
  const d = report.dates;
  if (d.dated > 0) return `document dates: ${d.dated} items dated (${d.fields.join(', ')}), ${d.earliest} to ${d.latest}; ${d.undated + d.unparsed} without`;
  const corpus = corpusDatesText(report.corpusDates, field).replace(/`/g, '');
  return `document dates: ${report.corpusDates.dated === 0 ? corpus : `none of the kept items' documents has one; ${corpus}`}`;
}

/**
 * The error when no question was kept (no file is written): how many passages were tried and
 * why the draw stopped, the rejections by reason with an example of the most common one, and
 * the reply format the writer must follow.
 */
export function noQuestionsError(report: CorpusQuestionReport, corpus: string, maxAnswerWords: number): LlmkbError {
  const reasons = REJECTION_REASONS.filter((r) => report.rejected[r] > 0).sort((a, b) => report.rejected[b] - report.rejected[a]);
  const top = reasons[0];
  const example =
    top === undefined ? '' : ` A reply rejected as ${top} (${REASON_TEXT[top]}): ${JSON.stringify(report.examples[top]![0]!.replace(/\s+/g, ' '))}.`;
  return new LlmkbError(
    `no question kept from corpus "${corpus}": ${report.tried} passages tried, rejected: ${reasons.map((r) => `${r} ${report.rejected[r]}`).join(', ') || 'none'}; the draw stopped because ${stopText(report)}`,
    {
      hint: `The question writer must reply with a line "QUESTION: <a question ending in ?>" and a line "ANSWER: <at most ${maxAnswerWords} words copied from the passage>" (\`llmkb data from-corpus --help\`).${example} Try a stronger writer model${report.stop === 'bound-reached' ? ' or a larger --max-passages' : ''}. No file was written.`,
      exitCode: EXIT_CODES.model,
    },
  );
}

/** Writes `<outDir>/<name>.jsonl` with its card (`.card.md`, `.card.json`), atomically. */
export function writeCorpusQuestions(
  report: CorpusQuestionReport,
  options: { outDir: string; corpus: Corpus; seed: number; count: number; maxAnswerWords: number; dateField?: string },
): WrittenCorpusQuestions {
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

- asked for: ${options.count} questions; passages tried: ${report.tried} (at most ${report.maxPassages}); the draw stopped because ${stopText(report)}
- kept: ${report.items.length} questions from ${documents} documents
- rejected: ${rejectedTotal}
${
  REJECTION_REASONS.filter((r) => report.rejected[r] > 0)
    .map((r) => `  - ${r}: ${report.rejected[r]} (${REASON_TEXT[r]})`)
    .join('\n') || '  - none'
}
- answer types: ${ANSWER_TYPES.map((t) => `${t} ${types[t]}`).join(', ')} (${byWriter} from the writer, ${report.items.length - byWriter} by rule: a date or year is a time, a number a number, otherwise the writer's type, else other)
${report.items.length < options.count ? `\nFewer questions than asked for: ${stopText(report)}${report.stop === 'bound-reached' ? '; a larger --max-passages draws more (the passages already tried are answered from the call cache)' : ''}.\n` : ''}
## Document dates

${datesText(report, options.dateField)}

## Rejected examples

${
  REJECTION_REASONS.filter((r) => (report.examples[r] ?? []).length > 0)
    .map((r) => `- ${r}: ${report.examples[r]!.map((e) => `\`${e.replace(/`/g, "'").replace(/\s+/g, ' ')}\``).join('; ')}`)
    .join('\n') || '- none'
}

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
    maxPassages: report.maxPassages,
    stop: report.stop,
    maxAnswerWords: options.maxAnswerWords,
    rejected: report.rejected,
    answerTypes: types,
    answerTypeFromWriter: byWriter,
    documents,
    documentDates: report.dates,
    corpusDocumentDates: report.corpusDates,
  };
  writeFileAtomic(cardJson, `${JSON.stringify(json, null, 2)}\n`);
  return { file, cardMarkdown, cardJson, sha256: checksum };
}
