/**
 * Names and outputs that tell runs apart (issues 35 and 40): default labels a person can read
 * (the model file's or served model's name, a hash only where two would collide); result files
 * and reports that say what makes a run differ (quick, question set, MCQs per response, limit),
 * so no run overwrites another's; `--json` on eval, runs, cache stats and complete, one document
 * with a schema on stdout; `llmkb runs` with a header, dates and the columns that tell two runs
 * of one label apart; the question set recorded as a departure when it is not the paper's; data
 * commands that never silently replace a data set built otherwise; a wrong --data-dir an error.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildProtocol, departures, questionCounts } from '../src/methods/reliability/protocol.js';
import { csvWithNotices, filesWithNotices, noticeText } from '../src/analysis/run-notices.js';
import { defaultRunLabel, readableModelName } from '../src/runs/run-labels.js';
import { runSuffix } from '../src/io/result-files.js';
import type { MethodSummary } from '../src/methods/method-summary.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const dataDir = process.env.LLMKB_DATA_DIR;
const temps: string[] = [];
function tmp(): string {
  const dir = tempDir('llmkb-names-');
  temps.push(dir);
  return dir;
}
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** Four questions of the user's own, and a scripted model that answers them (and every MCQ with A). */
function workFolder(): string {
  const dir = tmp();
  const qa = [0, 1, 2, 3].map((i) =>
    JSON.stringify({
      id: `q${i}`,
      dataset: i < 2 ? 'seen' : 'unseen',
      source: 'mine',
      question: `What is the capital number ${i}?`,
      answers: i < 2 ? ['Paris'] : [],
    }),
  );
  writeFileSync(join(dir, 'q.jsonl'), `${qa.join('\n')}\n`);
  writeFileSync(join(dir, 'm.jsonl'), `${JSON.stringify({ contains: 'multi-choice', reply: ' A' })}\n${JSON.stringify({ default: true, reply: ' Paris' })}\n`);
  return dir;
}

describe('default run labels', () => {
  it("are the model file's or served model's name", () => {
    assert.equal(readableModelName('gguf:/work/shared/models/stories260K.gguf'), 'stories260K');
    assert.equal(readableModelName('gguf:./model.gguf'), 'model');
    assert.equal(readableModelName('vllm:http://localhost:8000/v1/Qwen2.5-7B-Instruct'), 'Qwen2.5-7B-Instruct');
    assert.equal(readableModelName('ollama:llama3.1'), 'llama3.1');
    assert.equal(readableModelName('openai:gpt-4o'), 'gpt-4o');
    assert.equal(readableModelName('mock:replies.jsonl'), 'replies');
    assert.equal(readableModelName('ollama:llama3.1:8b'), 'llama3.1-8b');
    assert.equal(readableModelName('hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M'), 'Qwen2.5-0.5B-Instruct-GGUF-Q4_K_M');
  });

  it('get a short hash of the spec only where another model of that name has results in the folder', () => {
    const dir = tmp();
    assert.equal(defaultRunLabel('gguf:/a/stories260K.gguf', { outDir: join(dir, 'none-yet') }), 'stories260K', 'a folder that does not exist yet');
    writeFileSync(join(dir, 'stories260K.zero-shot.summary.json'), JSON.stringify({ model: 'stories260K', modelIdentity: 'llama:sha256=aa' }));
    writeFileSync(join(dir, 'stories260K.zero-shot.run.json'), JSON.stringify({ modelSpec: 'gguf:/a/stories260K.gguf' }));
    assert.equal(defaultRunLabel('gguf:/a/stories260K.gguf', { outDir: dir }), 'stories260K', 'the same model again: its own results');
    assert.match(defaultRunLabel('gguf:/b/stories260K.gguf', { outDir: dir }), /^stories260K-[0-9a-f]{8}$/, 'another file of the same name');
    assert.notEqual(defaultRunLabel('gguf:/b/stories260K.gguf', { outDir: dir }), defaultRunLabel('gguf:/c/stories260K.gguf', { outDir: dir }));
  });
});

describe('result file names say what makes a run differ', () => {
  it("quick, the method's words and the limit, in that order; nothing for the default run", () => {
    assert.equal(runSuffix({}), '');
    assert.equal(runSuffix({ quick: true }), '.quick');
    assert.equal(runSuffix({ quick: true, tags: ['mcqs-2'], limit: 6 }), '.quick.mcqs-2.limit-6');
    assert.equal(runSuffix({ tags: ['input-my file.v2'] }), '.input-my-file-v2', 'a tag is made safe for a file name, without dots');
  });

  it('two runs of one label with different --mcqs keep their own files and reports; --json prints one parseable document', async () => {
    const dir = workFolder();
    const run = (mcqs: string, extra: string[] = []) =>
      llmkb(
        [
          '--store',
          join(dir, 's.sqlite'),
          'eval',
          '--model',
          'mock:m.jsonl',
          '--input',
          'q.jsonl',
          '--settings',
          'zero-shot',
          '--mcqs',
          mcqs,
          '--out',
          'res',
          ...extra,
        ],
        { cwd: dir },
      );
    const two = await run('2', ['--json']);
    assert.equal(two.code, 0, two.stderr);
    const doc = JSON.parse(two.stdout) as {
      schema: string;
      label: string;
      report: string;
      runs: Array<{
        setting: string;
        files: { summary: string };
        notices: { departures: Array<{ choice: string }> };
        summary: { protocol: { entries: Record<string, { status: string; choice: string }> } };
      }>;
    };
    assert.equal(doc.schema, 'llmkb-eval-result-v1');
    assert.equal(doc.label, 'm', "the default label: the model file's name");
    assert.match(doc.runs[0]!.files.summary, /m\.zero-shot\.input-q\.mcqs-2\.summary\.json$/);
    assert.ok(
      doc.runs[0]!.notices.departures.some((d) => d.choice === 'questions'),
      'the own question set is a departure',
    );
    assert.equal(doc.runs[0]!.summary.protocol.entries.questions!.status, 'approximation');
    const three = await run('3');
    assert.equal(three.code, 0, three.stderr);
    assert.match(three.stdout, /departures from the paper's protocol: .*questions your own/);
    const files = readdirSync(join(dir, 'res')).sort();
    assert.deepEqual(files, [
      'm.input-q.mcqs-2.report.html',
      'm.input-q.mcqs-3.report.html',
      'm.zero-shot.input-q.mcqs-2.records.jsonl',
      'm.zero-shot.input-q.mcqs-2.run.json',
      'm.zero-shot.input-q.mcqs-2.summary.json',
      'm.zero-shot.input-q.mcqs-3.records.jsonl',
      'm.zero-shot.input-q.mcqs-3.run.json',
      'm.zero-shot.input-q.mcqs-3.summary.json',
    ]);
    const execution = JSON.parse(readFileSync(join(dir, 'res', 'm.zero-shot.input-q.mcqs-2.run.json'), 'utf8')) as { modelSpec: string };
    assert.equal(execution.modelSpec, 'mock:m.jsonl', 'the run records the spec its label stands for');

    // llmkb runs: a header, dates, and the columns that tell the two runs apart.
    const listed = await llmkb(['--store', join(dir, 's.sqlite'), 'runs'], { cwd: dir });
    assert.equal(listed.code, 0, listed.stderr);
    const lines = listed.stdout.trim().split('\n');
    assert.match(lines[0]!, /^RUN +CREATED +UPDATED \(UTC\) +METHOD +LABEL +SETTING +QUICK +LIMIT +MCQS +QUESTIONS +STAGES$/);
    assert.deepEqual(
      lines
        .slice(1)
        .map((l) => / m +zero-shot +- +- +(\d) +input-q [0-9a-f]{8} /.exec(l)?.[1])
        .sort(),
      ['2', '3'],
    );
    assert.ok(
      lines.slice(1).every((l) => /^[0-9a-f]{16} +\d{4}-\d\d-\d\d \d\d:\d\d +\d{4}-\d\d-\d\d \d\d:\d\d /.test(l)),
      listed.stdout,
    );
    const json = await llmkb(['--store', join(dir, 's.sqlite'), 'runs', '--json'], { cwd: dir });
    const runs = JSON.parse(json.stdout) as { schema: string; runs: Array<{ mcqs: number; quick: boolean; variant: string[] }> };
    assert.equal(runs.schema, 'llmkb-runs-v1');
    assert.deepEqual(runs.runs.map((r) => r.mcqs).sort(), [2, 3]);
    assert.deepEqual(runs.runs.map((r) => r.variant.join('.')).sort(), ['input-q.mcqs-2', 'input-q.mcqs-3']);

    const stats = await llmkb(['--store', join(dir, 's.sqlite'), 'cache', 'stats', '--json'], { cwd: dir });
    assert.equal(stats.code, 0, stats.stderr);
    const parsed = JSON.parse(stats.stdout) as { schema: string; entries: number; byModel: unknown[] };
    assert.equal(parsed.schema, 'llmkb-cache-stats-v1');
    assert.ok(parsed.entries > 0 && parsed.byModel.length > 0);
    const completion = await llmkb(['--store', join(dir, 's.sqlite'), 'complete', '--model', 'mock:m.jsonl', '--json', 'Who?'], { cwd: dir });
    assert.equal(completion.code, 0, completion.stderr);
    assert.deepEqual((({ schema, text }) => ({ schema, text }))(JSON.parse(completion.stdout) as { schema: string; text: string }), {
      schema: 'llmkb-completion-v1',
      text: ' Paris',
    });

    // Another run under the same names (a judge LLM this time): the replacement is said, with how to keep both.
    const judged = await run('2', ['--judge', 'mock:m.jsonl']);
    assert.equal(judged.code, 0, judged.stderr);
    assert.match(
      judged.stderr,
      /note: \S+m\.zero-shot\.input-q\.mcqs-2\.summary\.json held run [0-9a-f]{16}; it is replaced by run [0-9a-f]{16} .*give --name or --out to keep both/,
    );
  });

  it('a --quick run says so in its file names', { skip: dataDir ? false : 'LLMKB_DATA_DIR is not set' }, async () => {
    const dir = workFolder();
    const r = await llmkb(
      [
        '--store',
        join(dir, 's.sqlite'),
        'eval',
        '--quick',
        '--model',
        'mock:m.jsonl',
        '--name',
        'tiny',
        '--settings',
        'zero-shot',
        '--limit',
        '4',
        '--data',
        'data',
        '--data-dir',
        dataDir!,
        '--out',
        'res',
      ],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readdirSync(join(dir, 'res')).sort(), [
      'tiny.quick.limit-4.report.html',
      'tiny.zero-shot.quick.limit-4.records.jsonl',
      'tiny.zero-shot.quick.limit-4.run.json',
      'tiny.zero-shot.quick.limit-4.summary.json',
    ]);
  });
});

describe('the question set in the protocol', () => {
  const base = {
    setting: 'zero-shot',
    lexicalJudge: { id: 'lexical-v2', note: 'n' },
    shotSelector: 'bm25-v1',
    mode: 'generate' as const,
    mcqs: 20,
    maxTokens: 100,
    computeBackend: 'server',
    datasets: {},
    seed: 42,
  };
  const items = (perSource: number, templates: number, perTemplate: number) => [
    ...['nq', 'triviaqa', 'popqa'].flatMap((source) => Array.from({ length: perSource }, () => ({ dataset: 'seen', source }))),
    ...Array.from({ length: templates }, (_, t) => Array.from({ length: perTemplate }, () => ({ dataset: 'unseen', source: `T${t + 1}` }))).flat(),
  ];

  it("is the paper's only with 1000 per source and 150 per template of its 20 templates", () => {
    const paper = buildProtocol({ ...base, questions: { seen: 3000, unseen: 3000 }, questionCounts: questionCounts(items(1000, 20, 150)) });
    assert.deepEqual(paper.entries.questions, { choice: '3000 seen + 3000 unseen', status: 'paper' });
    const reduced = buildProtocol({ ...base, questions: { seen: 60, unseen: 60 }, questionCounts: questionCounts(items(20, 20, 3)) });
    assert.equal(reduced.entries.questions.status, 'approximation');
    assert.equal(reduced.entries.questions.choice, 'reduced: 60 seen + 60 unseen');
    assert.match(reduced.entries.questions.note!, /20 per source \(paper 1000 per source\); 3 per template \(paper 150 per template\)/);
    assert.ok(
      departures(reduced).some((d) => d.choice === 'questions'),
      'on the departures line',
    );
    const fewer = buildProtocol({ ...base, questions: { seen: 3000, unseen: 1500 }, questionCounts: questionCounts(items(1000, 10, 150)) });
    assert.match(fewer.entries.questions.note!, /10 unseen templates \(paper 20\)/);
  });

  it("the user's own file is never the paper's set, whatever its sizes", () => {
    const own = buildProtocol({ ...base, questions: { seen: 3000, unseen: 3000 }, questionCounts: questionCounts(items(1000, 20, 150)), input: 'mine.jsonl' });
    assert.equal(own.entries.questions.status, 'approximation');
    assert.match(own.entries.questions.choice, /^your own: 3000 seen \+ 3000 unseen from mine\.jsonl$/);
  });
});

describe('data sets are never replaced silently; a wrong --data-dir is an error', { skip: dataDir ? false : 'LLMKB_DATA_DIR is not set' }, () => {
  it('unseenqa refuses to replace a set built with another --per-template unless --force; the same build again is fine', async () => {
    const dir = tmp();
    const build = (perTemplate: string, extra: string[] = []) =>
      llmkb(['data', 'unseenqa', '--data-dir', dataDir!, '--per-template', perTemplate, '--out', 'd', ...extra], { cwd: dir });
    assert.equal((await build('2')).code, 0);
    const before = readFileSync(join(dir, 'd', 'unseenqa.jsonl'), 'utf8');
    assert.equal((await build('2')).code, 0, 'the same parameters: the same set');
    const refused = await build('3');
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /unseenqa\.jsonl exists and it was built with other parameters: perTemplate 2 -> 3/);
    assert.match(refused.stderr, /hint: Write the new set elsewhere with --out DIR .* or add --force/);
    assert.equal(readFileSync(join(dir, 'd', 'unseenqa.jsonl'), 'utf8'), before, 'untouched');
    const forced = await build('3', ['--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.notEqual(readFileSync(join(dir, 'd', 'unseenqa.jsonl'), 'utf8'), before);
  });

  it('eval with a --data-dir that lacks the source files fails, though the data sets are built already', async () => {
    const dir = workFolder();
    mkdirSync(join(dir, 'empty'));
    // Data sets already in --data (nothing to build), so a source folder nobody reads would go unnoticed.
    mkdirSync(join(dir, 'data'));
    const [seen, unseen] = [0, 1].map(
      (half) =>
        readFileSync(join(dir, 'q.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .slice(2 * half, 2 * half + 2)
          .join('\n') + '\n',
    );
    for (const [file, text] of [
      ['seenqa.jsonl', seen],
      ['r_seen.jsonl', seen],
      ['unseenqa.jsonl', unseen],
      ['r_unseen.jsonl', unseen],
    ] as const)
      writeFileSync(join(dir, 'data', file), text!);
    const r = await llmkb(
      ['--store', join(dir, 's.sqlite'), 'eval', '--model', 'mock:m.jsonl', '--settings', 'zero-shot', '--data', 'data', '--data-dir', 'empty', '--out', 'res'],
      { cwd: dir },
    );
    assert.equal(r.code, 6, r.stderr);
    assert.match(r.stderr, /empty\/\S+ not found \(data directory given, so nothing is downloaded\)/);
    assert.ok(!existsSync(join(dir, 'res')), 'nothing written');
  });
});

describe('notices in every table of several runs', () => {
  const summary = (model: string, approximate: boolean): MethodSummary => ({
    schema: 'llmkb-summary-v2',
    method: { id: 'reliability', version: '2' },
    llmkbVersion: 'x',
    model,
    setting: 'zero-shot',
    approximate,
    datasetChecksums: {},
    counts: {},
    metricDefs: [],
    metrics: {},
    intervals: {},
    ...(approximate
      ? {
          protocol: {
            schema: 'llmkb-protocol-v1',
            entries: { judge: { choice: 'lexical-v2', status: 'approximation', note: 'n' } },
            datasets: {},
            seed: 1,
            computeBackend: 'cpu',
          },
        }
      : {}),
  });
  const runs = [summary('a, "quoted"', true), summary('b', false)];

  it('a notices column in CSV (quoted cells kept) and a Notices section in Markdown; nothing added when no run has one', () => {
    assert.match(noticeText(runs[0]!), /^APPROXIMATE; departures: judge \(correct vs wrong\) lexical-v2$/);
    const csv = csvWithNotices('Model,x\n"a, ""quoted""",1\nb,2\n', runs);
    assert.equal(csv, 'Model,x,notices\n"a, ""quoted""",1,zero-shot: APPROXIMATE; departures: judge (correct vs wrong) lexical-v2\nb,2,\n');
    const files = filesWithNotices({ 't.md': '| Model |\n', 't.csv': 'Model\nb\n', 'x.json': '{}' }, runs);
    assert.match(files['t.md']!, /^\| Model \|\n\n## Notices\n\n.*\n\n- a, "quoted" \(zero-shot\): APPROXIMATE; departures: judge/);
    assert.equal(files['x.json'], '{}');
    assert.deepEqual(filesWithNotices({ 't.md': 'x\n', 't.csv': 'Model\nb\n' }, [runs[1]!]), { 't.md': 'x\n', 't.csv': 'Model\nb\n' });
  });
});
