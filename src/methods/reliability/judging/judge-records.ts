import { checksumOfLines } from '../../../io/checksum.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import type { ProgressOptions } from '../../../progress/progress.js';
import { runStage } from '../../../store/run-stage.js';
import type { Run, RunStore } from '../../../store/run-store.js';
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

/** Labels every record (resumably, in the run store) and summarises how the labels were decided. */
export async function judgeRecords(options: {
  records: readonly ResponseRecord[];
  judge: ResponseJudge;
  judgeIdentity: string;
  runs: RunStore;
  /** Judge inside an existing evaluation run (stage `judge`); otherwise a run of its own. */
  run?: Run;
  progress?: ProgressOptions;
  /** Records judged at once; default: 4x the judge LLM's concurrency (`judgeExecutor`), else 16. */
  concurrency?: number;
  /** The judge LLM's executor, whose configured concurrency the stage runs at. */
  judgeExecutor?: ModelExecutor;
}): Promise<{ run: Run; records: JudgedRecord[]; summary: JudgeRunSummary }> {
  const run = options.run ?? options.runs.open({ model: options.judgeIdentity, dataset: checksum(options.records), setting: 'judge', seed: 0, label: `judge ${options.judgeIdentity}` });
  const judged = await runStage<ResponseRecord, JudgedRecord>({
    run,
    stage: 'judge',
    items: options.records,
    idOf: (r) => r.id,
    // Most records are decided by rules, with no call: more records than the judge takes calls are
    // in flight, so rule-decided ones go on while others wait for the judge; the judge's executor
    // still sends at most its configured concurrency of calls at once.
    concurrency: options.concurrency ?? (options.judgeExecutor ? options.judgeExecutor.concurrency * RECORDS_PER_JUDGE_CALL : RULES_ONLY_CONCURRENCY),
    ...(options.progress ? { progress: options.progress } : {}),
    work: async (record) => options.judge.judge(record),
    info: (done) => summarize([...done.values()], options.judge.stats),
  });
  const records = [...judged.values()];
  return { run, records, summary: summarize(records, options.judge.stats) };
}

export function summarize(records: readonly JudgedRecord[], stats: JudgeStats): JudgeRunSummary {
  const labels: Record<string, number> = {};
  const judgedBy: Record<string, number> = {};
  for (const r of records) {
    const key = r.label === 'uninformative' ? `uninformative:${r.uninformativeType}` : r.label;
    labels[key] = (labels[key] ?? 0) + 1;
    const by = r.judgedBy.startsWith('llm:') ? 'llm' : r.judgedBy;
    judgedBy[by] = (judgedBy[by] ?? 0) + 1;
  }
  return { records: records.length, labels, judgedBy, approximate: records.some((r) => r.approximate === true), stats: { ...stats } };
}
