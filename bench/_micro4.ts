import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { ResponseJudge, judgeByRules } from '../src/methods/reliability/judging/judge-response.js';
import { runJudgeStage } from '../src/methods/reliability/judging/judge-records.js';
const db = openDatabase('/tmp/h/copy.sqlite');
const runs = new RunStore(db);
const run = runs.get(runs.list()[0]!.id)!;
const ids = run.recordIds('ask');
for (let rep = 0; rep < 4; rep++) {
  run.resetStage('judge');
  const t = performance.now();
  const elu0 = performance.eventLoopUtilization();
  await runJudgeStage({ records: { ids, load: (id) => run.record<any>('ask', id)! }, judge: new ResponseJudge({}), judgeIdentity: 'lexical', runs, run, progress: { quiet: true }, concurrency: 256 });
  console.log(`judge stage, rules + lexical, 6000 records: ${(performance.now() - t).toFixed(0)} ms, busy ${(100 * performance.eventLoopUtilization(elu0).utilization).toFixed(0)}%`);
}
