import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resultFileStem } from '../src/io/result-file-stem.js';
import { llmkb } from './support/run-cli.js';
import { startBatchServer } from './support/batch-server.js';
import { startScriptedModel } from './support/scripted-models.js';
import type { TestServer } from './support/openai-compatible-server.js';
import { tempDir } from './support/temp-dir.js';

const gguf = process.env.LLMKB_TEST_GGUF;
const dataDir = process.env.LLMKB_DATA_DIR;
const skip = gguf && dataDir ? false : 'LLMKB_TEST_GGUF and LLMKB_DATA_DIR must both be set';
if (skip) process.stderr.write(`SKIPPED: llmkb sweep end to end: ${skip}\n`);

const BIN = join(import.meta.dirname, '..', 'bin', 'llmkb.js');
const SETTINGS = ['zero-shot', 'four-shot', 'four-shot-2'];
// A small seeded sample, short answers and 3 MCQs: the whole study in well under a minute.
const RUN = { quick: true, limit: 8, maxTokens: 12, mcqs: 3 };

/** Every file under a folder, by relative path. */
function filesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

/** A report without the rows that say when and how a run ran (times, command line, calls made). */
function withoutExecution(html: string): string {
  return html.replace(/<tr><th scope="row">(command|ran|calls: [^<]*)<\/th>.*?<\/tr>/g, '');
}

describe('llmkb sweep: a study of 3 scripted server models and one GGUF x 3 settings', { skip }, () => {
  const work = tempDir('llmkb-sweep-');
  const data = join(work, 'data');
  let servers: TestServer[] = [];
  const models = () => [
    { label: 'oracle', spec: `vllm:${servers[0]!.baseURL}/oracle`, params: 70, tuning: 'fine-tuned', family: 'scripted', concurrency: 4 },
    { label: 'guesser', spec: `vllm:${servers[1]!.baseURL}/guesser`, params: 7, concurrency: 4 },
    { label: 'hedger', spec: `vllm:${servers[2]!.baseURL}/hedger`, params: 13, tuning: 'fine-tuned', concurrency: 4 },
  ];
  const studyFile = (name: string, withGguf: boolean) => {
    const file = join(work, `${name}.json`);
    const all = [...models(), ...(withGguf ? [{ label: 'stories', spec: `gguf:${gguf}`, params: 0.00026 }] : [])];
    writeFileSync(file, JSON.stringify({ name, models: all, settings: SETTINGS, ...RUN, dataDir, data, concurrency: 12 }, null, 2));
    return file;
  };

  before(async () => {
    servers = await Promise.all((['oracle', 'guesser', 'hedger'] as const).map((b) => startScriptedModel(b, data)));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('runs from one command, survives a kill, and its report equals the one from separate `llmkb eval` runs', async () => {
    const study = studyFile('four', true);
    const out = join(work, 'sweep-out');
    const args = ['--store', join(work, 'sweep.sqlite'), 'sweep', study, '--out', out];
    // Killed mid-run (after the first run finished its consistency stage), then run again.
    const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env: { ...process.env, CI: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/consistency: /.test(stderr)) child.kill('SIGKILL');
      });
      child.on('exit', () => resolve());
    });
    assert.match(stderr, /consistency: /);
    assert.doesNotMatch(stderr, /sweep four: 12\/12/, 'killed before the study finished');
    const resumed = await llmkb(args, { cwd: work });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /## Table 9: factuality/);
    assert.match(resumed.stdout, /12 of 12 runs done here/);
    // The three server models ran side by side (one budget of 12 = 3 x 4).
    assert.match(resumed.stderr, /sweep four/);
    // Once more: nothing is paid for twice.
    const again = await llmkb(args, { cwd: work });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /model: \d+ calls now \(0 made/);
    const plan = await llmkb([...args, '--plan'], { cwd: work });
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /runs: 12 done \(cached\), 0 partly done, 0 new/);
    assert.match(plan.stdout, /calls still to pay for \(estimate\): model 0, judge 0, distractor 0/);

    // The same study as 4 separate `llmkb eval` runs into a fresh store, then `llmkb report`.
    const evalOut = join(work, 'eval-out');
    const evalStore = join(work, 'eval.sqlite');
    const summaries: string[] = [];
    const evalModels = [...models(), { label: 'stories', spec: `gguf:${gguf}`, params: 0.00026 } as ReturnType<typeof models>[number]];
    for (const m of evalModels) {
      const stem = resultFileStem(m.label);
      const r = await llmkb(
        [
          '--store',
          evalStore,
          'eval',
          '--model',
          m.spec,
          '--name',
          m.label,
          '--settings',
          SETTINGS.join(','),
          '--quick',
          '--limit',
          String(RUN.limit),
          '--max-tokens',
          String(RUN.maxTokens),
          '--mcqs',
          String(RUN.mcqs),
          '--data',
          data,
          '--out',
          join(evalOut, stem),
          '--params',
          String(m.params),
          ...(m.tuning === 'fine-tuned' ? ['--fine-tuned'] : []),
        ],
        { cwd: work },
      );
      assert.equal(r.code, 0, r.stderr);
      for (const s of SETTINGS) summaries.push(join(evalOut, stem, `${stem}.${s}.quick.limit-${RUN.limit}.summary.json`));
    }
    const report = await llmkb(['report', ...summaries, '--title', 'llmkb study: four', '-o', join(evalOut, 'report.html')], { cwd: work });
    assert.equal(report.code, 0, report.stderr);
    for (const file of summaries) {
      const rel = relative(evalOut, file);
      // family is metadata `eval` has no option for: the study gives it, so only that differs.
      const fromSweep = JSON.parse(readFileSync(join(out, rel), 'utf8')) as { meta?: { family?: string } };
      if (fromSweep.meta?.family) delete fromSweep.meta.family;
      assert.deepEqual(fromSweep, JSON.parse(readFileSync(file, 'utf8')), rel);
      const records = rel.replace(/\.summary\.json$/, '.records.jsonl');
      assert.equal(readFileSync(join(out, records), 'utf8'), readFileSync(join(evalOut, records), 'utf8'), records);
    }
    const sweepReport = withoutExecution(readFileSync(join(out, 'report.html'), 'utf8')).replace(/, family scripted|"family":"scripted",?/g, '');
    assert.ok(existsSync(join(out, 'table9.md')) && existsSync(join(out, 'analysis.json')));
    const sweepRecord = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as {
      jobs: Array<{ status: string }>;
      tokens: Record<string, { requests: number }>;
    };
    assert.equal(sweepRecord.jobs.filter((j) => j.status === 'done').length, 12);
    assert.equal(sweepReport.length > 1000, true);
    assert.equal(sweepReport, withoutExecution(readFileSync(join(evalOut, 'report.html'), 'utf8')));
  });

  it('run as three shards and merged, gives byte for byte the results of one machine; merge refuses a differing protocol', async () => {
    const study = studyFile('three', false);
    const single = join(work, 'single');
    const r = await llmkb(['--store', join(work, 'single.sqlite'), 'sweep', study, '--out', single], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    for (const i of [1, 2, 3]) {
      const shard = await llmkb(['--store', join(work, `shard${i}.sqlite`), 'sweep', study, '--shard', `${i}/3`, '--out', join(work, `shard${i}`)], {
        cwd: work,
      });
      assert.equal(shard.code, 0, shard.stderr);
      assert.match(shard.stdout, /3 of 9 runs done here \(shard \d\/3; 6 on other shards\)/);
    }
    const merged = join(work, 'merged');
    const m = await llmkb(
      [
        '--store',
        join(work, 'merged.sqlite'),
        'merge',
        ...[1, 2, 3].map((i) => join(work, `shard${i}`)),
        '--out',
        merged,
        ...[1, 2, 3].flatMap((i) => ['--from-store', join(work, `shard${i}.sqlite`)]),
      ],
      { cwd: work },
    );
    assert.equal(m.code, 0, m.stderr);
    assert.match(m.stdout, /merged 9 runs from 3 folders/);
    const results = filesUnder(single).filter((f) => !/^sweep.*\.json$/.test(f) && !f.endsWith('.run.json'));
    assert.deepEqual(
      filesUnder(merged).filter((f) => !f.endsWith('.run.json')),
      results,
    );
    for (const f of results) {
      const a = readFileSync(join(single, f), 'utf8');
      const b = readFileSync(join(merged, f), 'utf8');
      if (f.endsWith('.html')) assert.equal(withoutExecution(b), withoutExecution(a), f);
      else assert.equal(b, a, f);
    }
    // The merged store holds every run, finished: the study is done there.
    const plan = await llmkb(['--store', join(work, 'merged.sqlite'), 'sweep', study, '--plan'], { cwd: work });
    assert.match(plan.stdout, /runs: 9 done \(cached\), 0 partly done, 0 new/);

    // A shard whose runs were judged differently is refused, naming the choice.
    const odd = join(work, 'shard2-odd');
    cpSync(join(work, 'shard2'), odd, { recursive: true });
    const summaryFile = join(odd, 'guesser', 'guesser.zero-shot.quick.limit-8.summary.json');
    const tampered = JSON.parse(
      readFileSync(existsSync(summaryFile) ? summaryFile : join(odd, 'oracle', 'oracle.four-shot.quick.limit-8.summary.json'), 'utf8'),
    ) as { protocol: { entries: { judge: { choice: string } } } };
    tampered.protocol.entries.judge.choice = 'openai-compatible:openai:gpt-4o';
    const target = existsSync(summaryFile) ? summaryFile : join(odd, 'oracle', 'oracle.four-shot.quick.limit-8.summary.json');
    writeFileSync(target, JSON.stringify(tampered));
    const refused = await llmkb(['merge', join(work, 'shard1'), odd, join(work, 'shard3'), '--out', join(work, 'merged-odd')], { cwd: work });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /the runs differ in protocol \(reliability: judge\)/);
  });

  it('--batch: the judge answers through the Batch API; a rerun without --batch finds every judge answer in the cache', async () => {
    const judge = await startBatchServer({ reply: (body) => (/prediction: unsure/i.test(JSON.stringify(body)) ? 'no' : 'yes') });
    try {
      const file = join(work, 'batch.json');
      // Data sets of its own: SeenQA's time filter is the judge LLM too, batched as well.
      writeFileSync(
        file,
        JSON.stringify({
          name: 'batch',
          models: models().slice(1, 2),
          settings: ['zero-shot'],
          ...RUN,
          dataDir,
          data: join(work, 'batch-data'),
          judge: { spec: `openai-compatible:${judge.baseURL}/gpt-judge`, api: 'chat', price: { input: 2, output: 8 } },
        }),
      );
      const args = ['--store', join(work, 'batch.sqlite'), 'sweep', file, '--out', join(work, 'batch-out')];
      const env = { LLMKB_BATCH_POLL_MS: '5', LLMKB_BATCH_GATHER_MS: '50' };
      const batched = await llmkb([...args, '--batch'], { cwd: work, env });
      assert.equal(batched.code, 0, batched.stderr);
      // The time filter's batch (SeenQA), then the judge's.
      assert.match(batched.stdout, /batch batch_0 \(gpt-judge\): \d+ requests, completed/);
      assert.match(batched.stdout, /batch batch_1 \(gpt-judge\): \d+ requests, completed/);
      const card = JSON.parse(readFileSync(join(work, 'batch-data', 'seenqa.card.json'), 'utf8')) as { timeFilter: { method: string; model?: string } };
      assert.equal(card.timeFilter.method, 'llm');
      const record = JSON.parse(readFileSync(join(work, 'batch-out', 'sweep.json'), 'utf8')) as {
        tokens: { judge: { requests: number; promptTokens: number } };
        cost: { judge: { money: number } };
      };
      assert.ok(record.tokens.judge.requests > 0);
      // Batch prices: half of the list price unless the study says otherwise.
      assert.equal(
        record.cost.judge.money,
        (record.tokens.judge.promptTokens * 1 + (record.tokens as unknown as { judge: { completionTokens: number } }).judge.completionTokens * 4) / 1e6,
      );
      const plain = await llmkb(args, { cwd: work });
      assert.equal(plain.code, 0, plain.stderr);
      assert.match(plain.stdout, /judge: \d+ calls now \(0 made/);
    } finally {
      await judge.close();
    }
  });

  it('a model on three replicas, one failing mid-run: the run completes, run.json and sweep.json say which replica served what', async () => {
    const replicas = await Promise.all([
      startScriptedModel('oracle', data),
      startScriptedModel('oracle', data),
      // Answers 3 requests, then fails every one.
      startScriptedModel('oracle', data, { fault: (i) => (i >= 3 ? { kind: 'status', status: 500 } : undefined) }),
    ]);
    try {
      const file = join(work, 'replicas.json');
      const model = { label: 'oracle', spec: `vllm:${servers[0]!.baseURL}/oracle`, endpoints: replicas.map((r) => r.baseURL), concurrency: 1 };
      writeFileSync(file, JSON.stringify({ name: 'replicas', models: [model], settings: ['zero-shot'], ...RUN, dataDir, data }));
      const out = join(work, 'replicas-out');
      const r = await llmkb(['--store', join(work, 'replicas.sqlite'), 'sweep', file, '--out', out], { cwd: work });
      assert.equal(r.code, 0, r.stderr);
      const run = JSON.parse(readFileSync(join(out, 'oracle', 'oracle.zero-shot.quick.limit-8.run.json'), 'utf8')) as {
        calls: { model: { calls: number; cacheHits: number } };
        replicas: { model: Array<{ url: string; served: number; failed: number; trips: number }> };
      };
      const reps = run.replicas.model;
      assert.deepEqual(
        reps.map((x) => x.url),
        replicas.map((x) => x.baseURL),
      );
      assert.equal(
        reps.reduce((n, x) => n + x.served, 0),
        run.calls.model.calls - run.calls.model.cacheHits,
        'every call made was answered by one replica',
      );
      assert.equal(
        reps[2]!.served,
        3,
        `${JSON.stringify(reps)} ${replicas.map(
          (x) =>
            x.requests.length +
            ':' +
            x.requests
              .slice(0, 12)
              .map((q) => q.path)
              .join(','),
        )}`,
      );
      assert.ok(reps[2]!.failed >= 3 && reps[2]!.trips >= 1, JSON.stringify(reps));
      assert.ok(reps[0]!.served > 0 && reps[1]!.served > 0);
      assert.match(r.stdout, /oracle: .* 3 calls \(\d+ failed, taken out \d+x\)/);
      const sweep = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as { replicas: Record<string, unknown> };
      assert.deepEqual(sweep.replicas.oracle, reps);
      // The same results as from one healthy server (the replicas are one model).
      const single = join(work, 'replicas-single');
      writeFileSync(
        file,
        JSON.stringify({
          name: 'replicas',
          models: [{ label: 'oracle', spec: `vllm:${replicas[0]!.baseURL}/oracle` }],
          settings: ['zero-shot'],
          ...RUN,
          dataDir,
          data,
        }),
      );
      const one = await llmkb(['--store', join(work, 'replicas-single.sqlite'), 'sweep', file, '--out', single], { cwd: work });
      assert.equal(one.code, 0, one.stderr);
      for (const kind of ['records.jsonl', 'summary.json'])
        assert.equal(
          readFileSync(join(out, 'oracle', `oracle.zero-shot.quick.limit-8.${kind}`), 'utf8'),
          readFileSync(join(single, 'oracle', `oracle.zero-shot.quick.limit-8.${kind}`), 'utf8'),
          kind,
        );
    } finally {
      await Promise.all(replicas.map((x) => x.close()));
    }
  });
});
