/**
 * The reliability method's options: on `llmkb eval` as flags, in a study's `methods:` entry by
 * key. Each default is the paper's where the paper gives one.
 */
import { isoDateOf } from '../../../text/iso-date.js';
import type { MethodOption } from '../../method.js';
import { ANSWER_MAX_TOKENS, PAPER_CUTOFF, QUICK } from '../defaults.js';

export interface ReliabilityOptions {
  /** The built data sets (SeenQA, UnseenQA, R_seen, R_unseen): read, or built here when missing. */
  data: string;
  /** Local copies of the data sets' source files (default: $LLMKB_DATA_DIR; else downloaded). */
  dataDir?: string;
  /** The user's own QA file instead of SeenQA + UnseenQA. */
  input?: string;
  cutoff: string;
  maxTokens: number;
  /** MCQs per response; undefined: 20, or QUICK.mcqs with quick. */
  mcqs?: number;
  mode: 'generate' | 'logprobs';
}

/** A date written YYYY-MM-DD that exists. */
function isoDate(value: string): string {
  const date = isoDateOf(value);
  if (date === undefined) throw new Error('must be a date written YYYY-MM-DD, e.g. 2024-04-13');
  return date;
}

export const RELIABILITY_OPTIONS: readonly MethodOption[] = [
  {
    key: 'input',
    flags: '--input <file>',
    type: 'string',
    path: 'input-file',
    description:
      'your own QA set (JSONL in the item format: id, dataset seen|unseen, source, question, answers, answerType?) instead of SeenQA + UnseenQA; e.g. the output of `llmkb data from-corpus`',
  },
  {
    key: 'data',
    flags: '--data <dir>',
    type: 'string',
    path: 'output-folder',
    defaultValue: 'llmkb-data',
    description: 'data set folder: SeenQA, UnseenQA and the few-shot repositories, built there when missing (default llmkb-data)',
  },
  {
    key: 'dataDir',
    flags: '--data-dir <dir>',
    type: 'string',
    path: 'input-folder',
    description: 'local copies of the source files for building the data sets (default: $LLMKB_DATA_DIR; else they are downloaded)',
  },
  {
    key: 'cutoff',
    flags: '--cutoff <date>',
    type: 'string',
    parse: isoDate,
    defaultValue: PAPER_CUTOFF,
    description: `the data sets' knowledge cutoff, for building UnseenQA (YYYY-MM-DD; default ${PAPER_CUTOFF}, the paper's)`,
  },
  {
    key: 'maxTokens',
    flags: '--max-tokens <n>',
    type: 'integer',
    min: 1,
    defaultValue: ANSWER_MAX_TOKENS,
    description: `maximum new tokens per answer (default ${ANSWER_MAX_TOKENS}, the paper's)`,
  },
  {
    key: 'mcqs',
    flags: '--mcqs <n>',
    type: 'integer',
    min: 1,
    defaultValue: 20,
    description: `MCQs per response (default 20, the paper's; ${QUICK.mcqs} with --quick)`,
  },
  {
    key: 'mode',
    flags: '--mode <mode>',
    type: 'string',
    choices: ['generate', 'logprobs'],
    defaultValue: 'generate',
    description: "MCQ answer mode: generate (the paper's) or logprobs (faster; recorded as a departure)",
  },
];

/** The options with their defaults. */
export function reliabilityOptions(raw: Readonly<Record<string, unknown>>): ReliabilityOptions {
  const dataDir = (raw.dataDir as string | undefined) ?? (process.env.LLMKB_DATA_DIR || undefined);
  return {
    data: (raw.data as string | undefined) ?? 'llmkb-data',
    ...(dataDir ? { dataDir } : {}),
    ...(raw.input === undefined ? {} : { input: raw.input as string }),
    cutoff: (raw.cutoff as string | undefined) ?? PAPER_CUTOFF,
    maxTokens: (raw.maxTokens as number | undefined) ?? ANSWER_MAX_TOKENS,
    ...(raw.mcqs === undefined ? {} : { mcqs: raw.mcqs as number }),
    mode: (raw.mode as 'generate' | 'logprobs' | undefined) ?? 'generate',
  };
}
