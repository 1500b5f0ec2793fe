import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputFileError, LlmkbError } from '../errors.js';
import { clusterShardCount } from './cluster-layout.js';
import { slurmScripts } from './slurm-scripts.js';
import { inShard, shardUnits, studyJobs } from './study-jobs.js';
import { studyFingerprint } from './sweep-record.js';
import { loadStudy } from './study.js';
import { tempDir } from '#test-support/temp-dir.js';

const dir = tempDir('llmkb-cluster-study-');
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function study(text: string) {
  const file = join(dir, `s${n++}.yaml`);
  writeFileSync(file, text);
  return loadStudy(file);
}
function failure(text: string): InputFileError {
  try {
    study(text);
  } catch (error) {
    assert.ok(error instanceof InputFileError, String(error));
    return error;
  }
  assert.fail('no error');
}

const MODELS =
  'models:\n  - { label: a, spec: "mock:a.jsonl" }\n  - { label: b, spec: "mock:b.jsonl" }\n  - { label: c, spec: "mock:c.jsonl" }\nsettings: [zero-shot, four-shot]\n';

describe("a study's cluster: section and serve: commands", () => {
  it('split: model deals out whole models; split: run (the default) every n-th run', () => {
    const byRun = study(MODELS);
    const byModel = study(`${MODELS}cluster: { split: model }\n`);
    assert.equal(shardUnits(byRun), 6);
    assert.equal(shardUnits(byModel), 3);
    const labels = (s: typeof byRun, i: number, count: number) =>
      studyJobs(s)
        .filter((j) => inShard(j, { index: i, count }))
        .map((j) => `${j.model.label}:${j.setting}`);
    assert.deepEqual(labels(byModel, 1, 2), ['a:zero-shot', 'a:four-shot', 'c:zero-shot', 'c:four-shot']);
    assert.deepEqual(labels(byModel, 2, 2), ['b:zero-shot', 'b:four-shot']);
    assert.deepEqual(labels(byRun, 1, 2), ['a:zero-shot', 'b:zero-shot', 'c:zero-shot']);
    assert.equal(studyFingerprint(byModel), studyFingerprint(byRun), 'where runs happen is not what the results depend on');
  });

  it('the shard count: flag, else cluster.shards, else one per unit; never more than the units, never against the file', () => {
    assert.equal(clusterShardCount(study(MODELS), undefined), 6);
    assert.equal(clusterShardCount(study(`${MODELS}cluster: { split: model }\n`), undefined), 3);
    assert.equal(clusterShardCount(study(`${MODELS}cluster: { shards: 2 }\n`), undefined), 2);
    assert.equal(clusterShardCount(study(MODELS), 4), 4);
    assert.throws(
      () => clusterShardCount(study(`${MODELS}cluster: { split: model }\n`), 5),
      (e: unknown) => e instanceof LlmkbError && /5 shards, but the study has 3 models: shards 4-5 would run nothing/.test(e.message),
    );
    assert.throws(() => clusterShardCount(study(`${MODELS}cluster: { shards: 2 }\n`), 3), /--shard-count 3, but the study's cluster.shards is 2/);
  });

  it('bad cluster and serve fields are named with file, line and field', () => {
    const mem = failure(`${MODELS}cluster:\n  mem: lots\n`);
    assert.equal(mem.field, 'cluster.mem');
    assert.equal(mem.line, 7);
    assert.match(mem.message, /a size such as 64G/);
    assert.equal(failure(`${MODELS}cluster: { slurm: { extra: ["--gres=gpu:1"] } }\n`).field, 'cluster.slurm.extra.0');
    assert.equal(failure(`${MODELS}cluster: { slurm: { partition: "gpu; rm -rf /" } }\n`).field, 'cluster.slurm.partition');
    assert.equal(failure(`${MODELS}cluster: { nodes: 3 }\n`).field, 'cluster.nodes');
    const noPort = failure('models:\n  - label: a\n    spec: "vllm:http://127.0.0.1:8000/v1/m"\n    serve: { command: "vllm serve m --port {port}" }\n');
    assert.equal(noPort.field, 'models.0.spec');
    assert.match(noPort.message, /must say where its server is, with \{port\}/);
    const commandNoPort = failure('models:\n  - label: a\n    spec: "vllm:http://127.0.0.1:{port}/v1/m"\n    serve: { command: "vllm serve m" }\n');
    assert.equal(commandNoPort.field, 'models.0.serve.command');
    const both = failure(
      'models:\n  - label: a\n    spec: "vllm:http://127.0.0.1:{port}/v1/m"\n    endpoints: ["http://h:1/v1"]\n    serve: { command: "x --port {port}" }\n',
    );
    assert.equal(both.field, 'models.0.endpoints');
    const ok = study(
      'models:\n  - label: a\n    spec: "vllm:http://127.0.0.1:{port}/v1/m"\n    serve: { command: "vllm serve m --port {port}", timeout: 60 }\n',
    );
    assert.deepEqual(ok.models[0]!.serve, { command: 'vllm serve m --port {port}', timeout: 60 });
    assert.equal(ok.models[0]!.entry.spec, 'vllm:http://127.0.0.1:{port}/v1/m', 'the port goes in when the server is up');
    assert.equal('serve' in ok.models[0]!.entry, false, "serve is the study's, not the model entry's");
  });

  it("the sbatch scripts: one array task per shard with its own folder and store, the user's #SBATCH lines as they are, a merge job without GPUs", () => {
    const s = slurmScripts(
      {
        name: 'my study',
        studyFile: '/data/my study/s.yaml',
        resultsDir: '/data/my study/results',
        count: 3,
        cwd: '/home/me',
        llmkb: '/usr/bin/node /opt/llmkb/bin/llmkb.js',
        globalArgs: ['--config', '/home/me/llmkb.config.json'],
        sweepArgs: ['--limit', '6'],
      },
      {
        partition: 'gpu',
        account: 'lab',
        gpus: 2,
        cpus: 16,
        mem: '64G',
        time: '12:00:00',
        extra: ['#SBATCH --constraint="a100|h100"'],
        mergeExtra: ['#SBATCH --time=0:30:00'],
        setup: ['module load cuda/12'],
      },
    );
    const lines = s.shards.split('\n');
    const sbatch = lines.filter((l) => l.startsWith('#SBATCH'));
    assert.deepEqual(sbatch, [
      '#SBATCH --job-name=llmkb-my-study',
      '#SBATCH --array=0-2',
      '#SBATCH --output=/data/my study/results/slurm/logs/shard-%a.out',
      '#SBATCH --open-mode=append',
      '#SBATCH --partition=gpu',
      '#SBATCH --account=lab',
      '#SBATCH --time=12:00:00',
      '#SBATCH --gres=gpu:2',
      '#SBATCH --cpus-per-task=16',
      '#SBATCH --mem=64G',
      '#SBATCH --constraint="a100|h100"',
    ]);
    const firstCommand = lines.findIndex((l) => l !== '' && !l.startsWith('#'));
    assert.ok(
      lines.slice(firstCommand).every((l) => !l.startsWith('#SBATCH')),
      'every #SBATCH line comes before the first command (sbatch reads no further)',
    );
    assert.match(s.shards, /\nmodule load cuda\/12\nshard=\$\(\(SLURM_ARRAY_TASK_ID \+ 1\)\)\ndir='\/data\/my study\/results\/shards'\/shard-\$shard-of-3\n/);
    assert.match(
      s.shards,
      /\nexec \/usr\/bin\/node \/opt\/llmkb\/bin\/llmkb\.js --config \/home\/me\/llmkb\.config\.json --store "\$dir\/store\.sqlite" sweep '\/data\/my study\/s\.yaml' --shard auto --shard-count 3 --out "\$dir" --limit 6\n$/,
    );
    const merge = s.merge.split('\n').filter((l) => l.startsWith('#SBATCH'));
    assert.deepEqual(merge, [
      '#SBATCH --job-name=llmkb-my-study-merge',
      '#SBATCH --output=/data/my study/results/slurm/logs/merge.out',
      '#SBATCH --open-mode=append',
      '#SBATCH --partition=gpu',
      '#SBATCH --account=lab',
      '#SBATCH --time=0:30:00',
    ]);
    assert.match(
      s.merge,
      /exec .* --store '\/data\/my study\/results\/store\.sqlite' sweep '\/data\/my study\/s\.yaml' --merge-shards --shard-count 3 --out '\/data\/my study\/results'\n$/,
    );
  });
});
