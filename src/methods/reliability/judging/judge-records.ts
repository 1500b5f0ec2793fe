import { checksumOfLines } from '../../../io/checksum.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import type { ProgressOptions } from '../../../progress/progress.js';
import { runStoredStage, type StageItems } from '../../../store/run-stage.js';
import type { Run, RunStore } from '../../../store/run-store.js';
import { RELIABILITY_METHOD } from '../metrics/metric-defs.js';
import { openMethodRun } from '../../open-run.js';
import type { JudgedRecord, JudgeStats, ResponseJudge, ResponseRecord } from './judge-response.js';

export interface JudgeRunSummary {
  records: number;
  labels: Record<string, number>;
  judgedBy: Record<string, number>;
  /** Labels of seen responses came from the lexical rule, not a judge LLM. */
  approximate: boolean;
  stats: JudgeStats;
}

/** Records judged at once when no judge LLM is named (rules and the lexical match are synchronous). */
const RULES_ONLY_CONCURRENCY = 16;

/** Records in flight per call the judge LLM takes at once (see judgeRecords). */
const RECORDS_PER_JUDGE_CALL = 4;

function checksum(records: readonly ResponseRecord[]): string {
  return checksumOfLines(records, (r) => `${r.id}\u0000${r.question}\u0000${JSON.stringify(r.answers)}\u0000${r.response}`);
}

interface JudgeOptions {
  judge: ResponseJudge;
  judgeIdentity: string;
  runs: RunStore;
  progress?: ProgressOptions;
  /** Records judged at once; default: 4x the judge LLM's concurrency (`judgeExecutor`), else 16. */
  concurrency?: number;
  /** The judge LLM's executor, whose configured concurrency the stage runs at. */
  judgeExecutor?: ModelExecutor;
}

/** Labels every record (resumably, in the run store) and summarises how the labels were decided. */
export async function judgeRecords(
  options: JudgeOptions & {
    records: readonly ResponseRecord[];
    /** Judge inside an existing evaluation run (stage `judge`); otherwise a run of its own. */
    run?: Run;
  },
): Promise<{ run: Run; records: JudgedRecord[]; summary: JudgeRunSummary }> {
  const run =
    options.run ??
    openMethodRun(
      options.runs,
      RELIABILITY_METHOD,
      { model: options.judgeIdentity, dataset: checksum(options.records), setting: 'judge', seed: 0, label: `judge ${options.judgeIdentity}` },
      'judge',
    );
  await runJudgeStage({ ...options, run, records: options.records });
  const records = [...run.entries<JudgedRecord>('judge')].map(([, r]) => r);
  return { run, records, summary: summarize(records, options.judge.stats) };
}

/**
 * Labels every record into the run's `judge` stage, resumably; the records stay in the store.
 * `records` may be loaded one at a time by id (e.g. the run's `ask` records), so memory does
 * not grow with the number of questions.
 */
export async function runJudgeStage(
  options: Omit<JudgeOptions, 'runs'> & { run: Run; records: readonly ResponseRecord[] | StageItems<ResponseRecord> },
): Promise<void> {
  await runStoredStage<ResponseRecord, JudgedRecord, LabelOf>({
    run: options.run,
    stage: 'judge',
    items: options.records,
    idOf: (r) => r.id,
    // Most records are decided by rules, with no call: more records than the judge takes calls are
    // in flight, so rule-decided ones go on while others wait for the judge; the judge's executor
    // still sends at most its configured concurrency of calls at once.
    concurrency: options.concurrency ?? (options.judgeExecutor ? options.judgeExecutor.concurrency * RECORDS_PER_JUDGE_CALL : RULES_ONLY_CONCURRENCY),
    ...(options.progress ? { progress: options.progress } : {}),
    // The judge's promise itself (an async wrapper returning it would add a promise and two ticks a record).
    work: (record) => options.judge.judge(record),
    // What the stage's info (summarize) reads of a record.
    project: (r) => ({
      label: r.label,
      uninformativeType: r.uninformativeType,
      judgedBy: r.judgedBy,
      ...(r.approximate === undefined ? {} : { approximate: r.approximate }),
    }),
    info: (done) =>
      summarize(
        (function* () {
          for (const [, r] of done) yield r;
        })(),
        options.judge.stats,
      ),
  });
}

/** What `summarize` reads of a judged record. */
type LabelOf = Pick<JudgedRecord, 'label' | 'uninformativeType' | 'judgedBy' | 'approximate'>;

/** One pass over the records (an array, or records read one at a time). */
export function summarize(records: Iterable<LabelOf>, stats: JudgeStats): JudgeRunSummary {
  const labels: Record<string, number> = {};
  const judgedBy: Record<string, number> = {};
  let count = 0;
  let approximate = false;
  for (const r of records) {
    count++;
    if (r.approximate === true) approximate = true;
    const key = r.label === 'uninformative' ? `uninformative:${r.uninformativeType}` : r.label;
    labels[key] = (labels[key] ?? 0) + 1;
    const by = r.judgedBy.startsWith('llm:') ? 'llm' : r.judgedBy;
    judgedBy[by] = (judgedBy[by] ?? 0) + 1;
  }
  return { records: count, labels, judgedBy, approximate, stats: { ...stats } };
}
