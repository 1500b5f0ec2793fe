/**
 * Readers for the source formats (see shared/data/PROVENANCE.md): NQ-open JSONL, DPR-format TSV
 * (question TAB Python-literal answer list, CSV quoting), the PopQA JSON of model_collaboration,
 * the PopQA long-tail JSONL, and the Olympic CSVs. Every malformed row is an error naming the
 * file and line; no row is silently skipped.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { CsvError, parse } from 'csv-parse/sync';
import { z } from 'zod';
import { InputFileError } from '../../../errors.js';
import { cleanSourceText } from './decode-source-text.js';
import { parsePythonStringList, PythonLiteralError } from './python-literal.js';
import type { AnswerType } from './qa-item.js';
import { readJsonl } from '../../../io/jsonl.js';

/**
 * `popqa` is PopQA's random sample (as the paper samples PopQA); `popqa-longtail` is the Self-RAG
 * long-tail subset (subject popularity < 100), a separate source that users opt into.
 */
export type SeenSource = 'nq' | 'triviaqa' | 'popqa' | 'popqa-longtail';

/** One question as a source gives it, before filtering. */
export interface SourceQuestion {
  source: SeenSource;
  question: string;
  answers: string[];
  /** The source's own id, or `file:line` where it has none. */
  sourceId: string;
  /** PopQA relation (`occupation`, `place of birth`, ...). */
  relation?: string;
  /** PopQA subject entity. */
  subject?: string;
  /** PopQA subject popularity (monthly Wikipedia page views). */
  popularity?: number;
}

export function readNqOpenJsonl(path: string): SourceQuestion[] {
  const rows = readJsonl(path, z.object({ question: z.string().min(1), answer: z.array(z.string()).min(1) }), 'NQ-open row');
  const name = basename(path);
  return rows.map((r, i) => ({
    source: 'nq',
    question: cleanSourceText(r.question, 'nq'),
    answers: r.answer.map((a) => cleanSourceText(a, 'nq')),
    sourceId: `${name}:${i + 1}`,
  }));
}

/** DPR-format TSV: question TAB Python list of answers, no header, CSV double-quote quoting. */
export function readDprTsv(path: string, source: SeenSource): SourceQuestion[] {
  const text = readFileSync(path, 'utf8');
  let records: string[][];
  try {
    records = parse(text, { delimiter: '\t', quote: '"', relax_quotes: true, relax_column_count: false, skip_empty_lines: true, info: false }) as string[][];
  } catch (error) {
    const line = error instanceof CsvError ? (error as CsvError & { lines?: number }).lines : undefined;
    throw new InputFileError(
      path,
      line,
      undefined,
      `not a two-column TSV: ${error instanceof Error ? error.message : String(error)}`,
      "Expected: question<TAB>['answer', ...] per line (the DPR QA format).",
    );
  }
  const name = basename(path);
  return records.map((record, i) => {
    if (record.length !== 2) throw new InputFileError(path, i + 1, undefined, `expected 2 tab-separated columns, found ${record.length}`);
    const [question, literal] = record as [string, string];
    let answers: string[];
    try {
      answers = parsePythonStringList(literal);
    } catch (error) {
      if (error instanceof PythonLiteralError)
        throw new InputFileError(path, i + 1, 'answers', error.message, "The second column must be a Python list of strings, e.g. ['Paris'].");
      throw error;
    }
    if (question.trim() === '') throw new InputFileError(path, i + 1, 'question', 'empty question');
    if (answers.length === 0) throw new InputFileError(path, i + 1, 'answers', 'empty answer list');
    return {
      source,
      question: cleanSourceText(question.trim(), source),
      answers: answers.map((a) => cleanSourceText(a, source)),
      sourceId: `${name}:${i + 1}`,
    };
  });
}

/** PopQA question templates (Mallen et al. 2023), to recover relation and subject. */
const POPQA_TEMPLATES: Array<[string, RegExp]> = [
  ['occupation', /^What is (.+)'s occupation\?$/],
  ['place of birth', /^In what city was (.+) born\?$/],
  ['genre', /^What genre is (.+)\?$/],
  ['father', /^Who is the father of (.+)\?$/],
  ['country', /^In what country is (.+)\?$/],
  ['producer', /^Who was the producer of (.+)\?$/],
  ['director', /^Who was the director of (.+)\?$/],
  ['capital of', /^What is (.+) the capital of\?$/],
  ['screenwriter', /^Who was the screenwriter for (.+)\?$/],
  ['composer', /^Who was the composer of (.+)\?$/],
  ['color', /^What color is (.+)\?$/],
  ['religion', /^What is the religion of (.+)\?$/],
  ['sport', /^What sport does (.+) play\?$/],
  ['author', /^Who is the author of (.+)\?$/],
  ['mother', /^Who is the mother of (.+)\?$/],
  ['capital', /^What is the capital of (.+)\?$/],
];

export const POPQA_ANSWER_TYPES: Record<string, AnswerType> = {
  occupation: 'other',
  'place of birth': 'location',
  genre: 'other',
  father: 'person',
  country: 'location',
  producer: 'person',
  director: 'person',
  'capital of': 'location',
  screenwriter: 'person',
  composer: 'person',
  color: 'other',
  religion: 'other',
  sport: 'other',
  author: 'person',
  mother: 'person',
  capital: 'location',
};

export function popqaRelation(question: string): { relation: string; subject: string } | undefined {
  for (const [relation, re] of POPQA_TEMPLATES) {
    const m = re.exec(question);
    if (m) return { relation, subject: m[1]! };
  }
  return undefined;
}

const popqaCollabItem = z.object({ input: z.string().min(1), output: z.string(), id: z.number().int(), s_pop: z.number().optional() });

/** model_collaboration's popqa.json: {dev: [...], test: [...]}, answers as a JSON-encoded list. */
export function readPopqaCollabJson(path: string): SourceQuestion[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InputFileError(path, undefined, undefined, `not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const top = z.object({ dev: z.array(z.unknown()), test: z.array(z.unknown()) }).safeParse(json);
  if (!top.success)
    throw new InputFileError(
      path,
      undefined,
      top.error.issues[0]!.path.join('.'),
      top.error.issues[0]!.message,
      'Expected model_collaboration\'s popqa.json with "dev" and "test" lists.',
    );
  const out: SourceQuestion[] = [];
  for (const split of ['test', 'dev'] as const) {
    top.data[split].forEach((raw, i) => {
      const where = `${split}[${i}]`;
      const item = popqaCollabItem.safeParse(raw);
      if (!item.success) throw new InputFileError(path, undefined, `${where}.${item.error.issues[0]!.path.join('.')}`, item.error.issues[0]!.message);
      let answers: unknown;
      try {
        answers = JSON.parse(item.data.output);
      } catch {
        throw new InputFileError(path, undefined, `${where}.output`, 'not a JSON-encoded list of answers');
      }
      const parsed = z.array(z.string()).min(1).safeParse(answers);
      if (!parsed.success) throw new InputFileError(path, undefined, `${where}.output`, 'not a non-empty list of strings');
      const rel = popqaRelation(item.data.input);
      out.push({
        source: 'popqa',
        question: cleanSourceText(item.data.input, 'popqa'),
        answers: parsed.data.map((a) => cleanSourceText(a, 'popqa')),
        sourceId: `popqa:${item.data.id}`,
        ...(rel ? { relation: rel.relation, subject: rel.subject } : {}),
        ...(item.data.s_pop === undefined ? {} : { popularity: item.data.s_pop }),
      });
    });
  }
  return out;
}

/** The long-tail subset, as source `popqa-longtail`; `sourceId` keeps PopQA's id (`popqa:<id>`) so both PopQA sources share one id space. */
export function readPopqaLongtailJsonl(path: string): SourceQuestion[] {
  const rows = readJsonl(
    path,
    z.object({ question: z.string().min(1), answers: z.array(z.string()).min(1), prop: z.string(), id: z.number().int(), pop: z.number().optional() }),
    'PopQA row',
  );
  return rows.map((r) => {
    const rel = popqaRelation(r.question);
    return {
      source: 'popqa-longtail',
      question: cleanSourceText(r.question, 'popqa'),
      answers: r.answers.map((a) => cleanSourceText(a, 'popqa')),
      sourceId: `popqa:${r.id}`,
      relation: r.prop,
      ...(rel ? { subject: rel.subject } : {}),
      ...(r.pop === undefined ? {} : { popularity: r.pop }),
    };
  });
}

/** CSV with a header; checks the named columns exist and are non-empty. */
export function readCsvColumns<K extends string>(path: string, columns: readonly K[]): Array<Record<K, string>> {
  let rows: Array<Record<string, string>>;
  try {
    rows = parse(readFileSync(path, 'utf8'), { columns: true, skip_empty_lines: true }) as Array<Record<string, string>>;
  } catch (error) {
    const line = error instanceof CsvError ? (error as CsvError & { lines?: number }).lines : undefined;
    throw new InputFileError(path, line, undefined, `not a valid CSV: ${error instanceof Error ? error.message : String(error)}`);
  }
  rows.forEach((row, i) => {
    for (const c of columns) {
      if (typeof row[c] !== 'string' || row[c] === '')
        throw new InputFileError(path, i + 2, c, 'missing or empty', `The CSV needs the columns ${columns.join(', ')}.`);
    }
  });
  return rows as Array<Record<K, string>>;
}

/** Answer type of a seen question from its wording (where it is clear), for breakdowns and distractor pools. */
export function guessAnswerType(question: string, relation?: string): AnswerType | null {
  if (relation !== undefined && relation in POPQA_ANSWER_TYPES) return POPQA_ANSWER_TYPES[relation]!;
  const q = question.toLowerCase();
  if (/^(how many|how much|how old|how long|how far|how tall|how high|what number|what percentage)\b/.test(q)) return 'number';
  if (/^(when|what year|in what year|which year|what date|on what date|what day|what century|in which year)\b/.test(q)) return 'time';
  if (/^(where|in what country|in which country|what country|which country|what city|which city|in what city|in which city)\b/.test(q)) return 'location';
  if (/^(who|whom|whose)\b/.test(q)) return 'person';
  return null;
}
