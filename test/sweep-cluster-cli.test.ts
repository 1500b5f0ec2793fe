/**
 * The cluster commands of `llmkb sweep` without a cluster: `--slurm` against a stand-in `sbatch`
 * on PATH (what it is given, in which order, and the ids it prints), `--slurm` where no sbatch is,
 * `--merge-shards` over a partial set of shards (merges what finished, names what did not, exit
 * 3), `--k8s`, and flags given without the mode they belong to.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const dataDir = process.env.LLMKB_DATA_DIR;
const skip = dataDir ? false : 'LLMKB_DATA_DIR must be set (the reliability data sets)';

describe('sweep --slurm, --merge-shards, --k8s without a cluster', { skip }, () => {
  const work = tempDir('llmkb-cluster-cli-');
  after(() => rmSync(work, { recursive: true, force: true }));
  mkdirSync(join(work, 'study'));
  writeFileSync(join(work, 'study', 'a.jsonl'), '{"contains": "multi-choice", "reply": " A"}\n{"default": true, "reply": " Paris"}\n');
  writeFileSync(join(work, 'study', 'b.jsonl'), '{"contains": "multi-choice", "reply": " E"}\n{"default": true, "reply": " unsure"}\n');
  const studyFile = join(work, 'study', 'study.yaml');
  writeFileSync(
    studyFile,
    `name: two\nmodels:\n  - { label: a, spec: "mock:a.jsonl" }\n  - { label: b, spec: "mock:b.jsonl" }\nsettings: [zero-shot]\nmcqs: 2\nlimit: 4\ndataDir: ${JSON.stringify(dataDir)}\ndata: data\nout: results\ncluster:\n  slurm: { partition: debug, extra: ["#SBATCH --comment=kept"] }\n  kubernetes: { image: "reg/llmkb:1", claim: studies }\n`,
  );
  const results = join(work, 'study', 'results');

  it("--slurm submits the array, then the merge with --dependency=afterany on the array's id, and prints both ids", async () => {
    const bin = join(work, 'bin');
    mkdirSync(bin);
    const calls = join(work, 'sbatch-calls.txt');
    // A stand-in sbatch: records its arguments, answers as `sbatch --parsable` does (id;cluster).
    writeFileSync(
      join(bin, 'sbatch'),
      `#!/bin/sh\necho "$*" >> ${JSON.stringify(calls)}\nn=$(wc -l < ${JSON.stringify(calls)})\necho "$((40 + n));cluster1"\n`,
    );
    chmodSync(join(bin, 'sbatch'), 0o755);
    const r = await llmkb(['sweep', studyFile, '--slurm', '--gpus', '1', '--time', '30'], {
      cwd: work,
      env: { PATH: `${bin}${delimiter}${process.env.PATH}` },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /wrote study\/results\/slurm\/shards\.sbatch \(an array of 2 task\(s\), one per shard, split by run\)/);
    assert.match(r.stdout, /submitted: array job 41 \(tasks 0-1\), merge job 42 \(--dependency=afterany:41\)/);
    assert.deepEqual(readFileSync(calls, 'utf8').trim().split('\n'), [
      `--parsable ${join(results, 'slurm', 'shards.sbatch')}`,
      `--parsable --dependency=afterany:41 ${join(results, 'slurm', 'merge.sbatch')}`,
    ]);
    const script = readFileSync(join(results, 'slurm', 'shards.sbatch'), 'utf8');
    for (const line of ['#SBATCH --array=0-1', '#SBATCH --partition=debug', '#SBATCH --time=30', '#SBATCH --gres=gpu:1', '#SBATCH --comment=kept'])
      assert.ok(script.includes(`${line}\n`), line);
    assert.ok(existsSync(join(results, 'slurm', 'logs')), 'the log folder exists before any task writes there');
  });

  it('--slurm where no sbatch is: exit 2, saying to run it on a login node or with --dry-run', async () => {
    const empty = join(work, 'empty-bin');
    mkdirSync(empty);
    const r = await llmkb(['sweep', studyFile, '--slurm'], { cwd: work, env: { PATH: empty } });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /sbatch is not on PATH/);
    assert.match(r.stderr, /--dry-run/);
  });

  it('--merge-shards over one of two shards: merges it, names the missing one, exit 3; with both, exit 0', async () => {
    const shard = (i: number) => join(results, 'shards', `shard-${i}-of-2`);
    const one = await llmkb(['--store', join(shard(1), 'store.sqlite'), 'sweep', studyFile, '--shard', '1/2', '--out', shard(1)], { cwd: work });
    assert.equal(one.code, 0, one.stderr);
    const partial = await llmkb(['--store', join(results, 'store.sqlite'), 'sweep', studyFile, '--merge-shards'], { cwd: work });
    assert.equal(partial.code, 3, partial.stderr);
    assert.match(partial.stdout, /merged 1 runs from 1 of 2 shards/);
    assert.match(partial.stderr, /1 of 2 shard\(s\) missing, 0 run\(s\) failed: shard 2\/2 \(array task 1, completion index 1\): it left no results/);
    assert.ok(
      existsSync(join(results, 'a')) && readdirSync(join(results, 'a')).some((f) => /^a\.zero-shot\..*limit-4\.summary\.json$/.test(f)),
      'what finished is merged',
    );
    const two = await llmkb(['--store', join(shard(2), 'store.sqlite'), 'sweep', studyFile, '--shard', '2/2', '--out', shard(2)], { cwd: work });
    assert.equal(two.code, 0, two.stderr);
    const whole = await llmkb(['--store', join(results, 'store.sqlite'), 'sweep', studyFile, '--merge-shards'], { cwd: work });
    assert.equal(whole.code, 0, whole.stderr);
    assert.match(whole.stdout, /merged 2 runs from 2 of 2 shards/);
    assert.ok(existsSync(join(results, 'report.html')));
    const plan = await llmkb(['--store', join(results, 'store.sqlite'), 'sweep', studyFile, '--plan'], { cwd: work });
    assert.match(plan.stdout, /runs: 2 done/, 'the merged store holds every run');
  });

  it('--k8s writes the two manifests and applies nothing; flags without their mode are refused', async () => {
    const r = await llmkb(['sweep', studyFile, '--k8s'], { cwd: work, env: { PATH: join(work, 'empty-bin') } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /an Indexed Job of 2 shard\(s\), split by run\) and study\/results\/kubernetes\/merge-job\.yaml; nothing is applied/);
    assert.match(readFileSync(join(results, 'kubernetes', 'shards-job.yaml'), 'utf8'), /completionMode: Indexed\n/);
    for (const [args, message] of [
      [['--partition', 'gpu'], /--partition goes with --slurm or --k8s/],
      [['--slurm', '--image', 'x'], /--image goes with --k8s/],
      [['--dry-run'], /--dry-run goes with --slurm/],
      [['--slurm', '--k8s'], /--slurm and --k8s do not go together/],
      [['--slurm', '--shard', '1/2'], /--shard does not go with --slurm/],
      [['--shard-count', '2'], /--shard-count goes with --shard auto/],
      [['--slurm', '--mem', 'lots'], /--mem: a size such as 64G/],
    ] as const) {
      const bad = await llmkb(['sweep', studyFile, ...args], { cwd: work });
      assert.equal(bad.code, 2, `${args.join(' ')}: ${bad.stderr}`);
      assert.match(bad.stderr, message);
    }
  });
});
