/**
 * Paper scale: every stage of an evaluation — ask (four-shot, BM25 shots), judge
 * (with a judge LLM), consistency (a distractor LLM and 20 generated MCQs per pair) — through
 * llmkb against a loopback OpenAI-compatible server (20 ms per answer, child process), each
 * compared with a bare `fetch` loop replaying exactly the requests llmkb made, at the same
 * concurrency, in the same sitting. Then the whole `eval` again with every call cached: once on
 * the same store (stages done) and once with the run store emptied (every call a cache hit).
 * Prints ratios, calls/s, the store's size, bytes written (/proc/self/io), peak RSS. Figures only,
 * not a test.
 *
 *   npm run bench:paper-scale -- [--questions 1000] [--concurrency 64] [--delay 20] [--mcqs 20] [--commit-interval ms]
 *     [--stages ask,judge] (a judge-only series: no consistency, no whole eval)
 *     [--repeats N] (the judge stage N times, each on a run of its own with a judge LLM of its own
 *     name so no call is cached, each against its bare replay: the median ratio; at 6,000
 *     questions the stage takes about half a second, and one sitting's ratio varies by +-0.1)
 *
 * Targets: every stage >= 0.85x the bare client; store <= 100 MB and bytes written <= 3x the
 * store (at 6,000 questions); RSS independent of the number of questions; cached re-run < 5 s.
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { datasetChecksum, runAskStage, shotsFromIds, type AskedRecord } from '../src/methods/reliability/asking/ask-questions.js';
import { runConsistencyStage } from '../src/methods/reliability/consistency/consistency-stage.js';
import { evaluateReliability } from './support/evaluate-reliability.js';
import { PAPER_CUTOFF } from '../src/methods/reliability/defaults.js';
import { reliabilityRunParams } from '../src/methods/reliability/pipeline/run-params.js';
import { ModelExecutor } from '../src/executor/model-executor.js';
import { runJudgeStage } from '../src/methods/reliability/judging/judge-records.js';
import { ResponseJudge, type JudgedRecord } from '../src/methods/reliability/judging/judge-response.js';
import { Bm25ShotSelector } from '../src/methods/reliability/prompts/shot-selector.js';
import { OpenAICompatibleModel } from '../src/providers/openai-compatible/openai-compatible-model.js';
import { CallCache } from '../src/store/call-cache.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { paperScaleQuestions, startPaperScaleServer, writeDataDir } from './support/paper-scale-data.js';

const { values: args } = parseArgs({
  options: {
    questions: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '64' },
    delay: { type: 'string', default: '20' },
    mcqs: { type: 'string', default: '20' },
    repository: { type: 'string', default: '300' },
    'keep-store': { type: 'boolean', default: false },
    /** `ask,judge` for a judge-only series (e.g. at --questions 30000: more judge calls, a steadier ratio); the whole eval re-runs only with every stage. */
    stages: { type: 'string', default: 'ask,judge,consistency' },
    /** Records the judge stage has in flight (default: the stage's own, from the judge's concurrency). */
    'judge-records': { type: 'string' },
    repeats: { type: 'string', default: '1' },
    /** The call cache's group-commit interval (default: the library's). */
    'commit-interval': { type: 'string' },
  },
});
const questions = Number(args.questions);
const concurrency = Number(args.concurrency);
const delayMs = Number(args.delay);
const mcqs = Number(args.mcqs);
const seed = 42;
const setting = 'four-shot' as const;
const stages = new Set(args.stages.split(','));
const allStages = stages.has('consistency');

// --- the question set: half seen (answers accepted), half unseen; words from a fixed vocabulary
const { seen, unseen, rSeen, rUnseen, items } = paperScaleQuestions(questions, Number(args.repository), seed);

// --- the server
const dir = mkdtempSync(join(tmpdir(), 'llmkb-paper-scale-'));
const logDir = mkdtempSync(join(dir, 'requests-'));
const { server, port, baseURL } = await startPaperScaleServer(delayMs, logDir);
const control = (path: string, body: unknown) => fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', body: JSON.stringify(body) }).then((r) => r.text());

function writtenBytes(): number {
  const m = /write_bytes: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'));
  return m ? Number(m[1]) : 0;
}
function storeBytes(path: string): number {
  let n = 0;
  for (const f of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      n += statSync(f).size;
    } catch {
      // absent
    }
  }
  return n;
}
const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;

/**
 * Replays the request bodies the server logged for a stage, `concurrency` at a time, reading the
 * log as it goes (the bench's own memory stays flat too, so peak RSS is llmkb's).
 */
async function bare(stage: string): Promise<{ seconds: number; calls: number }> {
  const lines = createInterface({ input: createReadStream(join(logDir, `${stage}.jsonl`), 'utf8'), crlfDelay: Infinity })[Symbol.asyncIterator]();
  let calls = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const next = await lines.next();
        if (next.done) return;
        if (!next.value) continue;
        calls++;
        const res = await fetch(`${baseURL}/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: next.value });
        const json = (await res.json()) as { choices: Array<{ text: string }> };
        void json.choices[0]!.text;
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, calls };
}

const provider = (model: string) =>
  new OpenAICompatibleModel({ baseURLs: [baseURL], model, api: 'completions', echo: false, topLogprobs: 5, flavor: 'vllm', concurrency });
const dbPath = join(dir, 'store.sqlite');
const db = openDatabase(dbPath);
const cache = new CallCache(db, args['commit-interval'] === undefined ? {} : { commitIntervalMs: Number(args['commit-interval']) });
const runs = new RunStore(db);
const model = new ModelExecutor(provider('bench-model'), { cache, concurrency });
const judgeLLM = new ModelExecutor(provider('bench-judge'), { cache, concurrency });
const distractorLLM = new ModelExecutor(provider('bench-distractor'), { cache, concurrency });
const selector = new Bm25ShotSelector(rSeen, rUnseen);
const quiet = { quiet: true };

console.log(
  `${questions} questions (${seen.length} seen, ${unseen.length} unseen), ${setting}, ${mcqs} MCQs per pair, concurrency ${concurrency}, server delay ${delayMs} ms`,
);
// Warm up connections for both clients.
await Promise.all(
  Array.from({ length: concurrency }, () =>
    fetch(`${baseURL}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'warm', prompt: 'warm-up', max_tokens: 4 }),
    }).then((r) => r.text()),
  ),
);

// llmkb's peak RSS, sampled while llmkb works (the bare client's replays are left out).
let llmkbPeak = 0;
let sampling = false;
setInterval(() => {
  if (sampling) llmkbPeak = Math.max(llmkbPeak, process.memoryUsage().rss);
}, 20).unref();
const measured = async <T>(work: () => Promise<T>): Promise<T> => {
  sampling = true;
  try {
    return await work();
  } finally {
    llmkbPeak = Math.max(llmkbPeak, process.memoryUsage().rss);
    sampling = false;
  }
};

async function startProfile(): Promise<(name: string) => Promise<void>> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  return async (name) => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(`${name}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  };
}

/**
 * A full collection. Both clients start every stage from one (llmkb's work, then the bare
 * replay): a stage of half a second otherwise pays for the garbage the previous one left, and
 * the ratio measured the heap's state rather than the client. Without it llmkb's first judge
 * stage, run right after the bare ask replay (6,000 fetch calls), measured 0.62-0.81x and the
 * same stage repeated 0.70-1.02x; with it, 0.93-1.02x and 1.0-1.2x.
 */
const collectGarbage =
  (globalThis as { gc?: () => void }).gc ??
  (() => {
    throw new Error("bench:paper-scale needs V8's gc function: run it with node --expose-gc (npm run bench:paper-scale does)");
  });

const written0 = writtenBytes();
const rows: Array<{ stage: string; llmkb: number; bare: number; calls: number; written: number; journal: number }> = [];
async function stage<T>(name: string, work: () => Promise<T>): Promise<T> {
  await control('/bench/stage', { stage: name });
  collectGarbage();
  const started = performance.now();
  const elu0 = performance.eventLoopUtilization();
  const writtenBefore = writtenBytes();
  const journalBefore = cache.writes.journalBytes;
  // LLMKB_BENCH_PROFILE=<stage>: a CPU profile of that stage alone (llmkb's side), as <stage>.cpuprofile in the current folder.
  const profiling = process.env.LLMKB_BENCH_PROFILE === name ? await startProfile() : undefined;
  const result = await measured(work);
  if (profiling) await profiling(name);
  const seconds = (performance.now() - started) / 1000;
  const elu = performance.eventLoopUtilization(elu0).utilization;
  const written = writtenBytes() - writtenBefore;
  const journal = cache.writes.journalBytes - journalBefore;
  const memory = process.memoryUsage();
  const rss = memory.rss;
  // What is live after a full collection (the rest of the heap is slack); the bare replay starts from it.
  collectGarbage();
  const live = ` live ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB after GC`;
  await control('/bench/flush', {});
  const bareElu0 = performance.eventLoopUtilization();
  const b = await bare(name);
  const bareElu = performance.eventLoopUtilization(bareElu0).utilization;
  rows.push({ stage: name, llmkb: seconds, bare: b.seconds, calls: b.calls, written, journal });
  console.log(
    `${name.padEnd(12)} llmkb ${seconds.toFixed(2).padStart(7)} s   bare ${b.seconds.toFixed(2).padStart(7)} s   ${String(b.calls).padStart(7)} calls   ${(b.calls / seconds).toFixed(0).padStart(6)} calls/s   ratio ${(b.seconds / seconds).toFixed(2)}x   main thread busy ${(100 * elu).toFixed(0)}% (bare ${(100 * bareElu).toFixed(0)}%)   RSS ${(rss / 1e6).toFixed(0)} MB (heap ${(memory.heapUsed / 1e6).toFixed(0)}/${(memory.heapTotal / 1e6).toFixed(0)} MB${live}, external ${(memory.external / 1e6).toFixed(0)} MB)   written ${mb(written)} (call journal ${mb(journal)})`,
  );
  return result;
}

// The run `llmkb eval` opens for these options (the method's run params), so the re-run below finds it.
const dataDir = join(dir, 'data');
const run = runs.open({
  model: model.model.cacheIdentity,
  dataset: datasetChecksum(items),
  setting,
  seed,
  params: reliabilityRunParams(
    { data: dataDir, cutoff: PAPER_CUTOFF, maxTokens: 100, mcqs, mode: 'generate' },
    { judge: judgeLLM, distractor: distractorLLM },
    setting,
    false,
  ),
  label: 'bench',
});
// The stages as the reliability method runs them: records go to the store and are read back one at a time.
await stage('ask', () => runAskStage({ items, executor: model, setting, seed, selector, maxTokens: 100, runs, run, label: 'bench', progress: quiet }));
const judgeStage = (judge: ModelExecutor, into: typeof run) =>
  runJudgeStage({
    records: { ids: items.map((i) => i.id), load: (id) => run.record<AskedRecord>('ask', id)!, loadMany: (ids) => run.recordsByIds<AskedRecord>('ask', ids) },
    judge: new ResponseJudge({ judge }),
    judgeIdentity: judge.model.cacheIdentity,
    judgeExecutor: judge,
    run: into,
    progress: quiet,
    ...(args['judge-records'] ? { concurrency: Number(args['judge-records']) } : {}),
  });
await stage('judge', () => judgeStage(judgeLLM, run));
// Repeats: the same stage over the same asked records, on runs of their own, with judges of other names (no cache hits).
for (let k = 2; k <= Number(args.repeats); k++) {
  const judge = new ModelExecutor(provider(`bench-judge-${k}`), { cache, concurrency });
  await stage(`judge#${k}`, () =>
    judgeStage(judge, runs.open({ model: judge.model.cacheIdentity, dataset: run.id, setting: 'judge', seed: k, label: `bench judge #${k}` })),
  );
}
const shotsFor = (r: JudgedRecord) => shotsFromIds((r as JudgedRecord & Pick<AskedRecord, 'shots'>).shots, rSeen, rUnseen);
const judged = function* () {
  for (const [, r] of run.entries<JudgedRecord>('judge')) yield r;
};
if (allStages)
  await stage('consistency', () =>
    runConsistencyStage({
      judged: judged(),
      load: (id) => run.record<JudgedRecord>('judge', id)!,
      loadMany: (ids) => run.recordsByIds<JudgedRecord>('judge', ids),
      executor: model,
      distractor: distractorLLM,
      mode: 'generate',
      mcqs,
      seed,
      shotsFor,
      run,
      progress: quiet,
    }),
  );
// Every call into the store (the journal moves there every MERGE_ENTRIES calls and on close).
const beforeMerge = writtenBytes();
cache.checkpoint();
const written = writtenBytes() - written0;
const mergeAtEnd = writtenBytes() - beforeMerge;
const dbSize = storeBytes(dbPath);
db.pragma('wal_checkpoint(TRUNCATE)');
const dbSizeCheckpointed = storeBytes(dbPath);

// --- the whole eval again, every call cached
const outDir = join(dir, 'out');
writeDataDir(dataDir, { seen, unseen, rSeen, rUnseen, items });
const evalOnce = async (): Promise<number> => {
  const started = performance.now();
  await measured(() =>
    evaluateReliability({
      model,
      judge: judgeLLM,
      distractor: distractorLLM,
      settings: [setting],
      runs,
      dataDir,
      outDir,
      cacheDir: join(dir, 'cache'),
      seed,
      mcqs,
    }),
  );
  return (performance.now() - started) / 1000;
};
// The mode-agreement sample (5 pairs in the other mode) is the only part not cached yet.
const requestsBefore = model.accounting.requests + judgeLLM.accounting.requests + distractorLLM.accounting.requests;
let firstEval = Number.NaN;
let rerunDone = Number.NaN;
let rerunCached = Number.NaN;
if (allStages) {
  firstEval = await evalOnce();
  rerunDone = await evalOnce();
  db.exec('DELETE FROM run_records; DELETE FROM run_stages; DELETE FROM run_leases; DELETE FROM runs;');
  rerunCached = await evalOnce();
}
const requestsAfter = model.accounting.requests + judgeLLM.accounting.requests + distractorLLM.accounting.requests;
console.log('');
for (const r of rows) console.log(`${`${r.stage} / bare`.padEnd(24)} ${r.bare > 0 ? (r.bare / r.llmkb).toFixed(2) : '-'}x   (target >= 0.85x)`);
const judgeRatios = rows
  .filter((r) => r.stage.startsWith('judge'))
  .map((r) => r.bare / r.llmkb)
  .sort((a, b) => a - b);
if (judgeRatios.length > 1)
  console.log(
    `${'judge / bare, median'.padEnd(24)} ${judgeRatios[Math.floor(judgeRatios.length / 2)]!.toFixed(2)}x of ${judgeRatios.length} (${judgeRatios.map((x) => x.toFixed(2)).join(', ')})   (target >= 0.85x)`,
  );
console.log(`store after the stages    ${mb(dbSize)} (checkpointed: ${mb(dbSizeCheckpointed)})   (target <= 100 MB at 6,000 questions)`);
console.log(`bytes written by stages   ${mb(written)} = ${(written / dbSizeCheckpointed).toFixed(2)}x the store   (target <= 3x)`);
console.log(
  `  of which                 ${rows.map((r) => `${r.stage} ${mb(r.written)}`).join(', ')}, last journal move ${mb(mergeAtEnd)}; call journal ${mb(cache.writes.journalBytes)} (${cache.writes.merged} calls moved)`,
);
if (allStages) {
  console.log(`whole eval, first         ${firstEval.toFixed(2)} s (stages done; mode-agreement sample and files)`);
  console.log(`whole eval, re-run        ${rerunDone.toFixed(2)} s (stages done)   (target < 5 s)`);
  console.log(`whole eval, cache only    ${rerunCached.toFixed(2)} s (run store emptied, every call from the cache)   (target < 5 s)`);
}
console.log(`requests during the evals ${requestsAfter - requestsBefore}`);
console.log(
  `peak RSS, llmkb            ${(llmkbPeak / 1e6).toFixed(0)} MB (sampled while llmkb works; RSS independent of the number of questions is the target)`,
);
console.log(`peak RSS, process         ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (with the bare client's replays)`);
cache.close();
db.close();
server.kill();
if (args['keep-store']) console.log(`kept ${dir}`);
else rmSync(dir, { recursive: true, force: true });
