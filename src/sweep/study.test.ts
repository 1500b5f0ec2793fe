import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InputFileError } from '../errors.js';
import { openDatabase } from '../store/database.js';
import { RunStore } from '../store/run-store.js';
import { inShard, parseShard, studyJobs } from './study-jobs.js';
import { batchRoles } from './study-cost.js';
import { formatPlan, planStudy } from './study-plan.js';
import { loadStudy } from './study.js';
import { llmkb } from '#test-support/run-cli.js';
import { tempDir } from '#test-support/temp-dir.js';

const dir = tempDir('llmkb-study-');
function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function failure(fn: () => unknown): InputFileError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof InputFileError, `expected InputFileError, got ${String(error)}`);
    return error;
  }
  assert.fail('no error');
}

describe('study files', () => {
  it('the smallest valid study (JSON) loads with the defaults filled in and paths read from its folder', () => {
    const file = write(
      'min.json',
      '{"models": [{"label": "a", "spec": "gguf:a.gguf"}, {"label": "b", "spec": "gguf:b.gguf"}], "settings": ["zero-shot"], "quick": true, "dataDir": "DIR"}',
    );
    const study = loadStudy(file);
    assert.deepEqual(
      study.models.map((m) => m.label),
      ['a', 'b'],
    );
    assert.deepEqual(
      study.methods.map((m) => [m.method.id, m.settings]),
      [['reliability', ['zero-shot']]],
      'the first registered method when none is named',
    );
    assert.equal(study.quick, true);
    assert.equal(study.methods[0]!.options.dataDir, join(dir, 'DIR'), "a method option at the top level applies to the method, read from the study's folder");
    assert.equal(study.dir, dir);
    assert.equal(study.seed, 42);
    assert.equal(study.name, 'min');
    assert.equal(studyJobs(study).length, 2);
  });

  it('names file, line and field: an unknown key, a wrong type, a bad spec, a duplicate label, broken YAML', () => {
    const unknown = failure(() => loadStudy(write('u.yaml', 'models:\n  - label: a\n    spec: gguf:a.gguf\n    parms: 7\n')));
    assert.equal(unknown.line, 4);
    assert.equal(unknown.field, 'models.0.parms');
    assert.match(unknown.message, /u\.yaml:4 \(field "models\.0\.parms"\)/);
    const type = failure(() => loadStudy(write('t.yaml', 'models:\n  - label: a\n    spec: gguf:a.gguf\n    params: big\nsettings: [zero-shot]\n')));
    assert.equal(type.line, 4);
    assert.equal(type.field, 'models.0.params');
    const setting = failure(() => loadStudy(write('s.json', '{\n  "models": [{"label": "a", "spec": "gguf:a.gguf"}],\n  "settings": ["one-shot"]\n}')));
    assert.equal(setting.line, 3);
    assert.equal(setting.field, 'settings.0');
    const spec = failure(() => loadStudy(write('p.yaml', 'models:\n  - label: a\n    spec: nonsense:x\n')));
    assert.equal(spec.line, 3);
    assert.equal(spec.field, 'models.0.spec');
    assert.match(spec.message, /unknown model spec/);
    const dup = failure(() => loadStudy(write('d.yaml', 'models:\n  - {label: a, spec: gguf:a.gguf}\n  - {label: a, spec: gguf:b.gguf}\n')));
    assert.equal(dup.line, 3);
    assert.match(dup.message, /used twice/);
    const broken = failure(() => loadStudy(write('b.yaml', 'models:\n  - label: a\n   spec: [\n')));
    assert.ok(broken.line !== undefined && broken.line >= 2, broken.message);
    const missing = failure(() => loadStudy(write('m.yaml', 'settings: [zero-shot]\n')));
    assert.equal(missing.field, 'models');
  });

  it('endpoints become the replicas of the model spec; only for models behind servers', () => {
    const study = loadStudy(
      write('e.yaml', 'models:\n  - label: a\n    spec: vllm:http://x:8000/v1/org/m\n    endpoints: [http://a:8000/v1, http://b:8000/v1]\n'),
    );
    assert.equal(study.models[0]!.entry.spec, 'vllm:http://a:8000/v1,http://b:8000/v1/org/m');
    assert.equal((study.models[0]!.entry as Record<string, unknown>).endpoints, undefined);
    assert.throws(() => loadStudy(write('e2.yaml', 'models:\n  - label: a\n    spec: gguf:a.gguf\n    endpoints: [http://a:8000/v1]\n')), /endpoints/);
  });

  it("examples/paper-study.yaml: the paper's 26 models with their metadata", () => {
    const study = loadStudy(join(import.meta.dirname, '..', '..', 'examples', 'paper-study.yaml'));
    assert.equal(study.models.length, 26);
    assert.deepEqual(study.methods[0]!.settings, ['zero-shot', 'four-shot', 'four-shot-2']);
    assert.equal(studyJobs(study).length, 78);
    const byLabel = new Map(study.models.map((m) => [m.label, m]));
    assert.equal(byLabel.get('Llama3-70B')!.params, 70);
    assert.equal(byLabel.get('Llama3-70B')!.tuning, 'base');
    assert.equal(byLabel.get('Llama2chat-13B')!.tuning, 'fine-tuned');
    assert.equal(byLabel.get('Flan-T5-0.08B')!.params, 0.08);
    assert.equal(byLabel.get('GPT-3.5-Turbo')!.params, null);
    assert.equal(study.models.filter((m) => m.tuning === 'base').length, 12);
    for (const m of study.models) assert.ok(m.family && m.tuning && m.backend, m.label);
    for (const role of ['judge', 'distractor', 'timeFilter', 'embedder'] as const) assert.ok(study.roles[role]?.price, role);
  });

  it('--shard i/n splits the runs deterministically: every run in exactly one shard', () => {
    const study = loadStudy(join(import.meta.dirname, '..', '..', 'examples', 'paper-study.yaml'));
    const jobs = studyJobs(study);
    const shards = [1, 2, 3].map((i) => jobs.filter((j) => inShard(j, parseShard(`${i}/3`))).map((j) => j.index));
    assert.deepEqual(
      shards.flat().sort((a, b) => a - b),
      jobs.map((j) => j.index),
    );
    assert.deepEqual(
      shards.map((s) => s.length),
      [26, 26, 26],
    );
    assert.throws(() => parseShard('4/3'), /i\/n/);
    assert.throws(() => parseShard('0/3'), /i\/n/);
  });

  it("llmkb sweep --limit N overrides the study's limit for every run (a quick look at a whole study)", async () => {
    write('a.gguf', 'not read by a plan');
    const file = write('limited.json', '{"models": [{"label": "a", "spec": "gguf:a.gguf"}], "settings": ["zero-shot"], "limit": 50}');
    const plan = await llmkb(['--store', join(dir, 'plan.sqlite'), 'sweep', file, '--plan', '--limit', '7'], { cwd: dir });
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /\(limit 7\)/);
    const zero = await llmkb(['sweep', file, '--plan', '--limit', '0'], { cwd: dir });
    assert.equal(zero.code, 2);
  });

  it('--plan: every run new in an empty store, calls per role, money from the prices', () => {
    const study = loadStudy(join(import.meta.dirname, '..', '..', 'examples', 'paper-study.yaml'));
    const db = openDatabase(':memory:');
    const quick = { ...study, quick: true, methods: study.methods.map((m) => ({ ...m, options: { ...m.options, data: join(dir, 'none') } })) };
    const plan = planStudy(quick, new RunStore(db));
    assert.equal(plan.runs.length, 78);
    assert.ok(plan.runs.every((r) => r.state === 'new'));
    assert.ok(
      plan.runs.every((r) => r.items === 40),
      'quick: 20 seen + 20 unseen questions, known before the data sets are built',
    );
    // 40 answers + 40 x 3 MCQs per run; the judge sees the seen half.
    assert.equal(plan.totals.model!.calls, 78 * 160);
    assert.equal(plan.totals.judge!.calls, 78 * 20);
    assert.ok(plan.totals.judge!.money !== null && plan.totals.judge!.money > 0);
    assert.ok(
      plan.totals.model!.money !== null && plan.totals.model!.money > 0,
      "ChatGPT's price is in the study; the vLLM models without a price are left out of the sum",
    );
    const text = formatPlan(quick, plan);
    assert.match(text, /78 runs/);
    assert.match(text, /calls still to pay for \(estimate\): model 12480, judge 1560/);
    assert.doesNotMatch(text, /warning/, 'every model of the paper knows nothing after 2024-04-13');
    const early = { ...quick, methods: quick.methods.map((m) => ({ ...m, options: { ...m.options, cutoff: '2023-01-01' } })) };
    assert.match(
      formatPlan(early, planStudy(early, new RunStore(db))),
      /warning: Llama3-8B's knowledge cutoff 2023-03 is after the data sets' cutoff 2023-01-01/,
    );
    const full = planStudy(study, new RunStore(db));
    assert.ok(
      full.runs.every((r) => r.items === 6000),
      'not quick and no data sets yet: the most a default build makes, 3000 seen + 3000 unseen',
    );
    const fullText = formatPlan(study, full);
    assert.match(fullText, /calls still to pay for \(estimate\): model \d+/);
    assert.match(fullText, /not counted: the runs of 25 models with no price/);
    assert.match(fullText, /warning: the data sets are not built yet: estimated with the 3000 seen \+ 3000 unseen questions/);
    db.close();
  });

  it('--batch: the roles each method marks batchable that the study gives a model, unless "batch: false"; only they at batch prices in the plan', () => {
    const examples = join(import.meta.dirname, '..', '..', 'examples');
    const paper = loadStudy(join(examples, 'paper-study.yaml'));
    assert.deepEqual(batchRoles(paper).sort(), ['distractor', 'judge', 'timeFilter']);
    const conner = loadStudy(join(examples, 'conner-study.yaml'));
    assert.deepEqual(batchRoles(conner), ['answerer']);
    const live = loadStudy(
      write(
        'live.yaml',
        'models:\n  - {label: a, spec: "vllm:http://x:1/v1/a"}\nmethods:\n  - {id: conner, options: {input: q.txt}}\nanswerer: {spec: "vllm:http://x:1/v1/a", batch: false}\n',
      ),
    );
    assert.deepEqual(batchRoles(live), []);
    assert.equal(
      failure(() =>
        loadStudy(
          write(
            'batch-true.yaml',
            'models:\n  - {label: a, spec: "vllm:http://x:1/v1/a"}\nmethods: [conner]\nanswerer: {spec: "vllm:http://x:1/v1/a", batch: true}\n',
          ),
        ),
      ).exitCode,
      2,
    );
    // Two queries, a priced answerer and scorer: the scorer's calls are not batched, so at its list price.
    writeFileSync(
      join(dir, 'q2.jsonl'),
      ['a', 'b']
        .map((id) => JSON.stringify({ id, task: 'qa', topic: 'T', query: `query ${id}`, referenceKnowledge: 'Some knowledge.', goldAnswer: 'x' }))
        .join('\n') + '\n',
    );
    const priced = loadStudy(
      write(
        'priced.yaml',
        'models:\n  - {label: a, spec: "vllm:http://x:1/v1/a"}\nmethods:\n  - {id: conner, settings: [zero-shot], options: {input: q2.jsonl}}\nanswerer: {spec: "vllm:http://x:1/v1/b", price: {input: 2, output: 8}}\nscorer: {spec: "vllm:http://x:1/v1/c", price: {input: 1, output: 1}}\n',
      ),
    );
    const db = openDatabase(':memory:');
    const [listed, batched] = [planStudy(priced, new RunStore(db)), planStudy(priced, new RunStore(db), undefined, true)];
    assert.ok(listed.totals.answerer!.money! > 0 && listed.totals.scorer!.money! > 0);
    assert.equal(batched.totals.answerer!.money, listed.totals.answerer!.money! / 2);
    assert.equal(batched.totals.scorer!.money, listed.totals.scorer!.money, 'the scorer is not batched: its list price');
    db.close();
  });
});
