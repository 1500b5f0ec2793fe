/**
 * How far a judge's labels agree with human correctness labels (`llmkb judge check`). The paper
 * (section 3.3) trusts its judge LLM because it agreed with human annotators; this module lets
 * every run say the same of its own judge, the lexical fallback included (docs/reliability.md "Judging one
 * response", step 3: a run without a judge LLM is approximate, and this says how approximate).
 *
 * Human labels: EVOUNA (Wang et al. 2023, "Evaluating Open-QA Evaluation": human correctness
 * labels of answers by FiD, GPT-3.5, ChatGPT, GPT-4 and New Bing to NQ-open and TriviaQA
 * questions), or any JSONL with `question, answers, response, human_correct`.
 *
 * A judge label counts as "correct" or not; an `uninformative` label is "not correct" (a human
 * marked the response wrong or right; there is no third class on their side), and the share of
 * human-correct responses labelled uninformative is reported on its own because it is a failure
 * of the uninformative rules, not of the correct/wrong decision.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonl } from '../../../io/jsonl.js';
import { FileAccessError, InputFileError } from '../../../errors.js';
import type { Label, ResponseJudge, ResponseRecord } from './judge-response.js';

/** One response with a human's verdict on it. */
export interface HumanLabelledResponse {
  id: string;
  /** The data set it comes from (`NQ`, `TQ` for EVOUNA; the file's `dataset` field, or `-`). */
  dataset: string;
  /** The system that gave the response (`fid`, `chatgpt`...; the file's `system` field, or `-`). */
  system: string;
  /** Item `source` passed to the judge (`nq`, `triviaqa`, ...). */
  source: string;
  question: string;
  answers: string[];
  response: string;
  humanCorrect: boolean;
}

export const EVOUNA_SYSTEMS = ['fid', 'gpt35', 'chatgpt', 'gpt4', 'newbing'] as const;
const EVOUNA_FILES = [
  ['NQ', 'nq'],
  ['TQ', 'triviaqa'],
] as const;

const evounaRowSchema = z
  .object({
    question: z.string(),
    golden_answer: z.union([z.string(), z.array(z.string())]),
    improper: z.boolean().optional(),
  })
  .passthrough();

/**
 * EVOUNA's NQ.json and TQ.json, read as the project's acceptance check reads them: rows marked
 * `improper` (questions the annotators found ill-posed) are skipped; a gold answer is a list, or
 * a string of "/"-separated alternatives.
 */
export function readEvouna(dir: string): HumanLabelledResponse[] {
  const rows: HumanLabelledResponse[] = [];
  for (const [dataset, source] of EVOUNA_FILES) {
    const file = join(dir, `${dataset}.json`);
    if (!existsSync(file))
      throw new FileAccessError(file, `EVOUNA not found: ${file} is missing`, {
        code: 'ENOENT',
        hint: 'Pass --evouna DIR (the folder with NQ.json and TQ.json), or set LLMKB_DATA_DIR to a folder with an evouna/ subfolder.',
      });
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new InputFileError(
        file,
        undefined,
        undefined,
        `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
        'EVOUNA files are JSON arrays of objects.',
      );
    }
    if (!Array.isArray(json)) throw new InputFileError(file, undefined, undefined, 'not a JSON array', 'EVOUNA files are JSON arrays of objects.');
    json.forEach((raw: unknown, index) => {
      if (typeof raw === 'object' && raw !== null && (raw as { improper?: unknown }).improper === true) return;
      const parsed = evounaRowSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new InputFileError(file, undefined, `[${index}].${issue.path.join('.')}`, issue.message);
      }
      const x = parsed.data as Record<string, unknown> & z.infer<typeof evounaRowSchema>;
      const gold = Array.isArray(x.golden_answer)
        ? x.golden_answer
        : x.golden_answer
            .split('/')
            .map((a) => a.trim())
            .filter(Boolean);
      for (const system of EVOUNA_SYSTEMS) {
        const response = x[`answer_${system}`];
        if (response === undefined || response === null) continue;
        const judged = x[`judge_${system}`];
        if (typeof judged !== 'boolean') throw new InputFileError(file, undefined, `[${index}].judge_${system}`, 'expected a boolean human label');
        rows.push({
          id: `${dataset}-${index}-${system}`,
          dataset,
          system,
          source,
          question: x.question,
          answers: gold,
          response: String(response),
          humanCorrect: judged,
        });
      }
    });
  }
  return rows;
}

/** A line of a human-labelled JSONL file (`llmkb judge check -i FILE`). */
export const humanLabelledLineSchema = z
  .object({
    id: z.string().min(1).optional(),
    question: z.string().min(1),
    answers: z.array(z.string()).min(1, 'at least one accepted answer'),
    response: z.string(),
    human_correct: z.boolean(),
    system: z.string().min(1).optional(),
    dataset: z.string().min(1).optional(),
    source: z.string().min(1).optional(),
  })
  .passthrough();

/** Reads `question, answers, response, human_correct` records; errors name file, line and field. */
export function readHumanLabelled(file: string): HumanLabelledResponse[] {
  return readJsonl(file, humanLabelledLineSchema, 'human-labelled response (question, answers, response, human_correct)').map((x, i) => ({
    id: x.id ?? `record-${i + 1}`,
    dataset: x.dataset ?? '-',
    system: x.system ?? '-',
    source: x.source ?? x.dataset ?? 'user',
    question: x.question,
    answers: x.answers,
    response: x.response,
    humanCorrect: x.human_correct,
  }));
}

/** "Positive" is `correct`: tp = both say correct, fp = the judge alone, fn = the human alone. */
export interface Confusion {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

export interface AgreementStats {
  n: number;
  /** Share of responses where judge and human agree on correct / not correct. */
  agreement: number;
  /** Cohen's kappa; null when chance agreement is 1 (both sides gave one label throughout). */
  kappa: number | null;
  /** Of the responses the judge calls correct, the share humans call correct (null: none). */
  precision: number | null;
  /** Of the responses humans call correct, the share the judge calls correct (null: none). */
  recall: number | null;
  confusion: Confusion;
  /** Human-correct responses the judge labelled uninformative, and their share of human-correct. */
  humanCorrectUninformative: number;
  humanCorrectUninformativeShare: number | null;
}

export interface JudgedAgainstHuman {
  humanCorrect: boolean;
  label: Label;
}

export function agreementStats(rows: readonly JudgedAgainstHuman[]): AgreementStats {
  const c: Confusion = { tp: 0, fp: 0, fn: 0, tn: 0 };
  let uninformative = 0;
  for (const r of rows) {
    const judge = r.label === 'correct';
    if (r.humanCorrect && judge) c.tp++;
    else if (!r.humanCorrect && judge) c.fp++;
    else if (r.humanCorrect && !judge) c.fn++;
    else c.tn++;
    if (r.humanCorrect && r.label === 'uninformative') uninformative++;
  }
  const n = rows.length;
  const agreement = n === 0 ? Number.NaN : (c.tp + c.tn) / n;
  // Cohen (1960): chance agreement from the two raters' marginal label frequencies.
  const chance = n === 0 ? Number.NaN : ((c.tp + c.fp) * (c.tp + c.fn) + (c.fn + c.tn) * (c.fp + c.tn)) / (n * n);
  const humanCorrect = c.tp + c.fn;
  return {
    n,
    agreement,
    kappa: n === 0 || chance === 1 ? null : (agreement - chance) / (1 - chance),
    precision: c.tp + c.fp === 0 ? null : c.tp / (c.tp + c.fp),
    recall: humanCorrect === 0 ? null : c.tp / humanCorrect,
    confusion: c,
    humanCorrectUninformative: uninformative,
    humanCorrectUninformativeShare: humanCorrect === 0 ? null : uninformative / humanCorrect,
  };
}

export interface AgreementReport {
  overall: AgreementStats;
  bySystem: Record<string, AgreementStats>;
  byDataset: Record<string, AgreementStats>;
  /** `dataset/system`, e.g. `NQ/chatgpt`: the unit the acceptance targets are stated per. */
  byDatasetSystem: Record<string, AgreementStats>;
}

function groupStats<T extends JudgedAgainstHuman>(rows: readonly T[], key: (r: T) => string): Record<string, AgreementStats> {
  const groups = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  return Object.fromEntries([...groups.entries()].map(([k, g]) => [k, agreementStats(g)]));
}

export function agreementReport(rows: ReadonlyArray<JudgedAgainstHuman & { dataset: string; system: string }>): AgreementReport {
  return {
    overall: agreementStats(rows),
    bySystem: groupStats(rows, (r) => r.system),
    byDataset: groupStats(rows, (r) => r.dataset),
    byDatasetSystem: groupStats(rows, (r) => `${r.dataset}/${r.system}`),
  };
}

/** The record the judge sees: a seen question with the human-labelled response. */
export function toResponseRecord(row: HumanLabelledResponse): ResponseRecord {
  return { id: row.id, dataset: 'seen', source: row.source, question: row.question, answers: row.answers, response: row.response };
}

/**
 * Runs `judge` (rules first, then its judge LLM or the lexical rule) over every response, a few
 * at a time, and compares with the human labels. LLM calls go through the judge's executor, so
 * they are cached: measuring the same judge twice costs nothing the second time.
 */
export async function measureJudge(options: {
  rows: readonly HumanLabelledResponse[];
  judge: ResponseJudge;
  concurrency?: number;
  onJudged?: (done: number, total: number, cached: boolean) => void;
}): Promise<{ report: AgreementReport; labels: Array<HumanLabelledResponse & { label: Label; judgedBy: string }> }> {
  const { rows, judge } = options;
  const labels: Array<HumanLabelledResponse & { label: Label; judgedBy: string }> = new Array(rows.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < rows.length) {
      const i = next++;
      const row = rows[i]!;
      const { record, cached } = await judge.judge(toResponseRecord(row));
      labels[i] = { ...row, label: record.label, judgedBy: record.judgedBy };
      options.onJudged?.(++done, rows.length, cached);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 16, rows.length)) }, worker));
  return { report: agreementReport(labels), labels };
}
