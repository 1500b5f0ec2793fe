/**
 * `llmkb sweep STUDY --slurm` on a real one-node Slurm cluster (test/support/slurm-cluster.ts):
 * a study of two models, each served by its task through a `serve:` command, submitted as an
 * array of two shards and a merge job; the merged results equal a one-machine sweep byte for
 * byte. Then one task is cancelled half-way (scancel): the merge names the missing shard and
 * fails; the task re-submitted resumes from its store, and the merge gives the same results.
 * Skipped, saying why, where no cluster can start (not root, Slurm not installed).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { llmkb } from './support/run-cli.js';
import { slurmUnavailable, startSlurm, type SlurmCluster } from './support/slurm-cluster.js';
import { tempDir } from './support/temp-dir.js';

const dataDir = process.env.LLMKB_DATA_DIR;
const skip = dataDir ? (slurmUnavailable() ?? false) : 'LLMKB_DATA_DIR must be set (the reliability data sets)';
if (skip) process.stderr.write(`SKIPPED: sweep --slurm on a one-node cluster: ${skip}\n`);
const SERVE = join(import.meta.dirname, 'support', 'serve-openai-compatible.ts');

/** Summaries and records under a results folder (not the shards' own copies). */
function resultFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) {
        if (!['shards', 'slurm', 'logs'].includes(name)) walk(p);
      } else if (/\.(summary\.json|records\.jsonl)$/.test(name)) out.push(relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

function calls(file: string): number {
  return existsSync(file) ? [...readFileSync(file, 'utf8').matchAll(/^call \d+/gm)].length : 0;
}

describe('sweep --slurm on a one-node cluster, each task serving its model', { skip }, () => {
  let cluster: SlurmCluster;
  const work = tempDir('llmkb-slurm-sweep-');
  const serve = (delayMs: number) => ({
    command: `${JSON.stringify(process.execPath)} --import ${JSON.stringify(import.meta.resolve('tsx'))} ${JSON.stringify(SERVE)} --port {port} --delay-ms ${delayMs}`,
    timeout: 60,
  });
  const studyFile = join(work, 'study.json');
  writeFileSync(
    studyFile,
    JSON.stringify({
      name: 'two-served',
      models: [
        { label: 'alpha', spec: 'vllm:http://127.0.0.1:{port}/v1/alpha', params: 1, tuning: 'base', serve: serve(150), concurrency: 1 },
        { label: 'beta', spec: 'vllm:http://127.0.0.1:{port}/v1/beta', params: 7, tuning: 'fine-tuned', serve: serve(0) },
      ],
      methods: [{ id: 'reliability', settings: ['zero-shot'], options: { mcqs: 2 } }],
      limit: 4,
      dataDir,
      data: 'data',
      out: 'results',
      cluster: { split: 'model', cpus: 1, time: '10:00' },
    }),
  );
  const env = () => cluster.env;

  before(async () => {
    cluster = await startSlurm();
    // The one-machine sweep the cluster's results must equal (it also builds the data sets the tasks read).
    const one = await llmkb(['--store', join(work, 'one.sqlite'), 'sweep', studyFile, '--out', join(work, 'one')], { cwd: work, timeoutMs: 120_000 });
    assert.equal(one.code, 0, one.stderr);
  });
  after(async () => {
    await cluster?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  const submit = async (out: string): Promise<{ arrayId: string; mergeId: string }> => {
    const r = await llmkb(['sweep', studyFile, '--slurm', '--out', out], { cwd: work, env: env(), timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    const m = /submitted: array job (\d+) \(tasks 0-1\), merge job (\d+) \(--dependency=afterany:\1\)/.exec(r.stdout);
    assert.ok(m, r.stdout);
    return { arrayId: m[1]!, mergeId: m[2]! };
  };

  const sameAsOneMachine = (out: string) => {
    const expected = resultFiles(join(work, 'one'));
    assert.equal(expected.length, 4, expected.join(', '));
    assert.deepEqual(resultFiles(out), expected);
    for (const f of expected) assert.equal(readFileSync(join(out, f), 'utf8'), readFileSync(join(work, 'one', f), 'utf8'), f);
    assert.ok(existsSync(join(out, 'report.html')));
  };

  it("submits an array of two shards and a merge job; the merged results are the one-machine sweep's, byte for byte", async () => {
    const out = join(work, 'results-a');
    const ids = await submit(out);
    assert.ok(await cluster.waitGone([ids.arrayId, ids.mergeId], 120_000), 'the jobs ended within 2 minutes');
    const mergeLog = readFileSync(join(out, 'slurm', 'logs', 'merge.out'), 'utf8');
    assert.match(mergeLog, /merged 2 runs from 2 of 2 shards/, mergeLog);
    sameAsOneMachine(out);
    // Each shard ran in its own folder with its own store, and served its model itself.
    for (const [i, label] of [
      [1, 'alpha'],
      [2, 'beta'],
    ] as const) {
      assert.ok(existsSync(join(out, 'shards', `shard-${i}-of-2`, 'store.sqlite')));
      assert.match(readFileSync(join(out, 'shards', `shard-${i}-of-2`, 'logs', `${label}.serve.log`), 'utf8'), /listening on http:\/\/127\.0\.0\.1:\d+/);
    }
  });

  it('a task cancelled half-way: the merge names the missing shard and fails; re-submitted, the task resumes from its store and the merge gives the same results', async () => {
    const out = join(work, 'results-b');
    const ids = await submit(out);
    const serveLog = join(out, 'shards', 'shard-1-of-2', 'logs', 'alpha.serve.log');
    const end = Date.now() + 90_000;
    while (calls(serveLog) < 4 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    assert.ok(calls(serveLog) >= 4, 'task 0 is half-way');
    const cancel = cluster.run('scancel', [`${ids.arrayId}_0`]);
    assert.equal(cancel.status, 0, cancel.stderr);
    assert.ok(await cluster.waitGone([ids.arrayId, ids.mergeId], 120_000));
    const before = calls(serveLog);
    const mergeLog = readFileSync(join(out, 'slurm', 'logs', 'merge.out'), 'utf8');
    assert.match(mergeLog, /1 of 2 shard\(s\) missing, 0 run\(s\) failed: shard 1\/2 \(array task 0/, mergeLog);
    assert.ok(!existsSync(join(out, 'shards', 'shard-1-of-2', 'sweep.shard-1-of-2.json')));
    // The task again, then the merge again, as the scripts' comments say.
    const again = cluster.run('sbatch', ['--parsable', '--array=0', join(out, 'slurm', 'shards.sbatch')]);
    assert.equal(again.status, 0, again.stderr);
    const taskId = again.stdout.trim().split(';')[0]!;
    const merge = cluster.run('sbatch', ['--parsable', `--dependency=afterany:${taskId}`, join(out, 'slurm', 'merge.sbatch')]);
    assert.equal(merge.status, 0, merge.stderr);
    assert.ok(await cluster.waitGone([taskId, merge.stdout.trim().split(';')[0]!], 120_000));
    assert.match(readFileSync(join(out, 'slurm', 'logs', 'merge.out'), 'utf8'), /merged 2 runs from 2 of 2 shards/);
    sameAsOneMachine(out);
    // Resumed: the calls answered before the cancel were not asked again (at most the one in flight).
    const full = calls(join(work, 'one', 'logs', 'alpha.serve.log'));
    const total = calls(serveLog);
    assert.ok(before >= 4 && total > before && total <= full + 1, `${before} calls before the cancel, ${total} in all, ${full} in one go`);
  });
});
