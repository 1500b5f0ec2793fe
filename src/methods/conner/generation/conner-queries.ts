/**
 * CONNER's queries: the released test files (4 tab-separated fields, no header) and llmkb's own
 * JSONL query format. NQ rows are (Wikipedia title, question, gold passage, short answer); WoW
 * rows are (topic, dialogue history with turns separated by " [SEP] ", gold knowledge sentence,
 * gold next response). For dialogue the query is the dialogue partner's last utterance, as the
 * paper's Table 11 caption defines `{utterance}`; the history is kept.
 */
import { basename } from 'node:path';
import { z } from 'zod';
import { InputFileError } from '../../../errors.js';
import { readJsonl } from '../../../io/jsonl.js';
import { readTextFile } from '../../../io/files.js';

/** Open-domain QA (span answers, NQ) or knowledge-grounded dialogue (open answers, WoW). */
export type ConnerTask = 'qa' | 'dialogue';

export interface ConnerQuery {
  /** Unique in its file: `<file stem>:<line>` for CONNER files, the record's own id for JSONL. */
  id: string;
  task: ConnerTask;
  topic: string;
  /** The question (QA) or the partner's last utterance (dialogue). */
  query: string;
  /** Dialogue turns before the last utterance (dialogue only). */
  history?: string[];
  /** The gold knowledge (the reference rows of the paper's tables; evidence with `--evidence reference`). */
  referenceKnowledge?: string;
  /** The gold answer a* (span) or gold next response (dialogue): helpfulness's `a`, validity's `a*`. */
  goldAnswer?: string;
}

export const connerQuerySchema = z
  .object({
    id: z.string().min(1),
    task: z.enum(['qa', 'dialogue']).default('qa'),
    topic: z.string().default(''),
    query: z.string().refine((q) => q.trim() !== '', 'the query is empty or only white space'),
    history: z.array(z.string()).optional(),
    referenceKnowledge: z.string().optional(),
    goldAnswer: z.string().optional(),
  })
  .strip();

/**
 * The task a CONNER file holds, from its name: `nq_*` is QA, WoW's `seen_*`/`unseen_*` (or a
 * name with `wow`) dialogue; undefined when the name says neither (the task must then be given).
 */
export function taskOfConnerFile(file: string): ConnerTask | undefined {
  const name = basename(file);
  if (/(^|[^a-z])nq/i.test(name)) return 'qa';
  return /(^|[^a-z])(un)?seen|wow/i.test(name) ? 'dialogue' : undefined;
}

/** A header line of a TSV query file: every field a column name (`topic`, `query`, `knowledge`, `answer`, ...). */
const HEADER_FIELD =
  /^(topic|title|query|question|history|dialogue|dialog|context|utterance|knowledge|passage|evidence|answer|response|target|gold[ _-]?(knowledge|passage|answer|response))$/i;

/** Where a notice about how a file was read goes (the task taken from a file name, a header skipped). */
export type QueryNotice = (line: string) => void;

/**
 * Parses one of CONNER's released test files. The task is `task` when given; else taken from the
 * file name (said through `notice`), and refused when the name says neither. A first line whose
 * every field is a column name is a header: skipped, said through `notice`.
 */
export function parseConnerTestFile(text: string, file: string, task?: ConnerTask, notice: QueryNotice = () => undefined): ConnerQuery[] {
  const stem = basename(file).replace(/\.[^.]*$/, '');
  const rows: Array<{ line: number; fields: [string, string, string, string] }> = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const fields = line.split('\t');
    if (fields.length !== 4) {
      throw new InputFileError(
        file,
        i + 1,
        undefined,
        `expected 4 tab-separated fields (topic, query, knowledge, answer), found ${fields.length}`,
        "CONNER's test files have 4 fields per line; for other inputs use the JSONL query format (docs/conner.md, Inputs).",
      );
    }
    const trimmed = fields.map((f) => f.trim()) as [string, string, string, string];
    if (rows.length === 0 && trimmed.every((f) => HEADER_FIELD.test(f))) {
      notice(`note: ${file}:${i + 1} is a header line (${trimmed.join(', ')}): skipped, not read as a query`);
      continue;
    }
    if (trimmed[1] === '')
      throw new InputFileError(
        file,
        i + 1,
        'query',
        'the query field is empty',
        'The second of the four tab-separated fields is the question (NQ) or the dialogue history (WoW).',
      );
    rows.push({ line: i + 1, fields: trimmed });
  }
  if (rows.length === 0) {
    throw new InputFileError(
      file,
      undefined,
      undefined,
      'no queries (the file is empty)',
      "Give one of CONNER's test files (nq_test_random_testset.txt, seen_random_testset.txt, unseen_random_testset.txt: topic, query, knowledge, answer, tab-separated, one query a line) or a JSONL query file (docs/conner.md).",
    );
  }
  const taskOf = task ?? taskOfConnerFile(file);
  if (taskOf === undefined) {
    throw new InputFileError(
      file,
      undefined,
      undefined,
      'the task (qa or dialogue) is not given, and the file name does not say it (nq_* is QA; seen_*, unseen_* are WoW dialogue)',
      "Pass --task qa or --task dialogue (it changes the prompts and the validity equation, Eq. 7 or 8); or name the file as CONNER's test files are named.",
    );
  }
  if (task === undefined)
    notice(
      `note: ${file}: the task is ${taskOf === 'qa' ? 'qa (open-domain QA)' : 'dialogue (knowledge-grounded dialogue)'}, taken from the file name; pass --task to set it (recorded in every query's "task")`,
    );
  return rows.map(({ line, fields: [topic, query, knowledge, answer] }) => {
    const base: ConnerQuery = { id: `${stem}:${line}`, task: taskOf, topic, query, referenceKnowledge: knowledge, goldAnswer: answer };
    if (taskOf === 'dialogue') {
      const turns = query.split(' [SEP] ').map((t) => t.trim());
      base.query = turns[turns.length - 1]!;
      base.history = turns.slice(0, -1);
    }
    return base;
  });
}

/** What a JSONL query line looks like, for the hint of a line that is not one. */
export const QUERY_LINE_HINT =
  'One JSON object a line, every text a string: {"id": "nq:1", "task": "qa", "topic": "...", "query": "...", "referenceKnowledge": "...", "goldAnswer": "..."} (id and query required; docs/conner.md).';

/** Reads a JSONL file with a CONNER schema, its line errors with `hint` (what a line looks like). */
export function readConnerJsonl<T>(file: string, schema: z.ZodType<T>, what: string, hint: string): T[] {
  try {
    return readJsonl(file, schema, what, { uniqueIds: true });
  } catch (error) {
    if (!(error instanceof InputFileError) || error.line === undefined || error.field === 'id') throw error;
    const where = `${error.file}:${error.line}${error.field === undefined ? '' : ` (field "${error.field}")`}: `;
    throw new InputFileError(error.file, error.line, error.field, error.message.slice(where.length), hint);
  }
}

/** A JSONL query line: `task` may be left out (then --task, else qa, said through a notice). */
const queryLineSchema = connerQuerySchema.extend({ task: z.enum(['qa', 'dialogue']).optional() });

/** Reads queries: `.jsonl` in llmkb's query format, anything else as a CONNER test file. */
export function readConnerQueries(file: string, task?: ConnerTask, notice: QueryNotice = () => undefined): ConnerQuery[] {
  if (!/\.jsonl$/i.test(file)) return parseConnerTestFile(readTextFile(file), file, task, notice);
  const lines = readConnerJsonl(file, queryLineSchema, 'query', QUERY_LINE_HINT);
  const untold = lines.filter((q) => q.task === undefined).length;
  if (untold > 0 && task === undefined)
    notice(`note: ${file}: ${untold} of ${lines.length} queries have no "task" field: taken as qa; give each a "task" or pass --task dialogue`);
  return lines.map((q) => ({ ...q, task: q.task ?? task ?? 'qa' }) as ConnerQuery);
}
