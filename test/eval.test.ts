import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { resultFileStem } from '../src/io/result-file-stem.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const gguf = process.env.LLMKB_TEST_GGUF;
const dataDir = process.env.LLMKB_DATA_DIR;
const skip = gguf && dataDir ? false : 'LLMKB_TEST_GGUF and LLMKB_DATA_DIR must both be set';
if (skip) process.stderr.write(`SKIPPED: llmkb eval end to end: ${skip}\n`);

const BIN = join(import.meta.dirname, '..', 'bin', 'llmkb.js');
// Short answers and 3 MCQs keep the 1 MB model's run to about a minute per setting on 2 cores.
const QUICK = ['eval', '--quick', '--max-tokens', '12', '--mcqs', '3'];

// The default label is the model file's name; a --quick run's files say so (`.quick`).
const resultFile = (out: string, setting: string, kind: 'summary.json' | 'records.jsonl' | 'run.json') =>
  join(out, `${resultFileStem(basename(gguf ?? 'model.gguf', '.gguf'))}.${setting}.quick.${kind}`);
const reportOf = (out: string) => join(out, `${resultFileStem(basename(gguf ?? 'model.gguf', '.gguf'))}.quick.report.html`);
const summaryOf = (out: string, setting: string) => JSON.parse(readFileSync(resultFile(out, setting, 'summary.json'), 'utf8')) as Record<string, unknown>;

describe('llmkb eval --quick on $LLMKB_TEST_GGUF with $LLMKB_DATA_DIR', { skip }, () => {
  const work = tempDir('llmkb-eval-');
  const data = join(work, 'data');
  const spec = `gguf:${gguf}`;

  it('builds the data sets, runs every stage, writes summaries and a report; a second run makes no model call', async () => {
    const out = join(work, 'out-a');
    const args = [
      ...QUICK,
      '--model',
      spec,
      '--settings',
      'zero-shot,four-shot-2',
      '--data',
      data,
      '--data-dir',
      dataDir!,
      '--out',
      out,
      '--store',
      join(work, 'a.sqlite'),
    ];
    const first = await llmkb(args, { cwd: work });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /ask: 40\/40/, 'quick: 20 seen + 20 unseen questions');
    assert.match(first.stderr, /\|  eval setting 2 of 2, ETA \d+:\d\d/, 'one ETA for the whole evaluation');
    assert.match(first.stderr, /consistency: /);
    assert.match(
      first.stderr,
      /zero-shot: answer-mode check \(a check, not part of the metrics\): the \d+ MCQs of \d+ seeded sampled pair\(s\), asked again in logprobs mode, got the option the run.s generate mode chose in \d+\/\d+ .*Read: /,
    );
    assert.match(first.stdout, /zero-shot .*\n.*four-shot-2/);
    assert.match(first.stdout, /APPROXIMATE/);
    assert.ok(existsSync(reportOf(out)));
    const summary = summaryOf(out, 'zero-shot');
    assert.deepEqual(Object.keys(summary.metrics as object), [
      'CR',
      'WR',
      'NCR',
      'UR',
      'C_correct',
      'C_wrong_seen',
      'C_wrong_unseen',
      'C_wrong',
      'CCR',
      'CWR',
      'NCCR',
      'IUR',
    ]);
    assert.equal((summary.counts as { seen: number }).seen, 20);
    assert.equal((summary.counts as { unseen: number }).unseen, 20);
    // The 1 MB model never answers an MCQ in the format: every answer invalid, counted and warned about.
    const counts = summary.counts as { mcqAnswers: number; invalidMcqAnswers: number };
    assert.ok(counts.mcqAnswers > 0 && counts.invalidMcqAnswers > 0.1 * counts.mcqAnswers, JSON.stringify(counts));
    assert.deepEqual((summary.warnings as Array<{ metrics: string[] }>)[0]!.metrics, [
      'C_correct',
      'C_wrong_seen',
      'C_wrong_unseen',
      'C_wrong',
      'CCR',
      'CWR',
      'NCCR',
      'IUR',
    ]);
    assert.match(first.stdout, /WARNING zero-shot: \d+ of \d+ MCQ answers \(\d+\.\d%\) were invalid/);
    assert.match(first.stdout, /IUR.*\n.*zero-shot .*†/);
    // The protocol block: the paper's MCQ answer mode and one sequence by default; every departure named.
    const protocol = summary.protocol as { entries: Record<string, { choice: string; status: string }>; computeBackend: string };
    assert.deepEqual(protocol.entries.mcqAnswerMode, {
      choice: 'generate',
      status: 'paper',
      note: 'greedy generation, the letter parsed; stopped at the end of the answer line (answer-line-v1: a reply that begins with a line break runs on to the next question), where the choice is read',
    });
    assert.equal(protocol.entries.batching!.status, 'paper');
    assert.equal(protocol.entries.judge!.status, 'approximation');
    assert.equal(protocol.entries.distractors!.choice, 'answer-pool');
    assert.equal(protocol.entries.questions!.status, 'approximation');
    assert.equal(protocol.entries.timeFilter!.status, 'approximation', 'built without an LLM: the keyword rule');
    assert.equal(protocol.entries.timeFilter!.choice, 'keyword-rule-v2', 'read from the data set card');
    assert.equal(protocol.computeBackend, 'cpu');
    assert.match(first.stdout, /departures from the paper's protocol: .*judge/);
    const execution = JSON.parse(readFileSync(resultFile(out, 'zero-shot', 'run.json'), 'utf8')) as {
      runId: string;
      command: string;
      calls: { model: { requests: number } };
    };
    assert.equal(execution.runId, summary.runId);
    assert.match(execution.command, /^llmkb eval --quick/);
    assert.ok(execution.calls.model.requests > 100);
    const report = readFileSync(reportOf(out), 'utf8');
    assert.match(report, /Departures from the paper's protocol/);
    assert.match(report, /Read with care/);
    assert.match(report, /MCQ answers \d+, invalid \d+/);
    const again = await llmkb(args, { cwd: work });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /model calls: \d+ \(0 made/);
    // the same run, scored straight from the store
    const fromStore = await llmkb(['metrics', '--run', String(summary.runId), '--format', 'json', '--store', join(work, 'a.sqlite')], { cwd: work });
    assert.equal(fromStore.code, 0, fromStore.stderr);
    assert.deepEqual(JSON.parse(fromStore.stdout).metrics, summary.metrics);
  });

  it('killed during consistency and run again, ends with the same summary as the uninterrupted run', async () => {
    const out = join(work, 'out-b');
    const args = [BIN, ...QUICK, '--model', spec, '--settings', 'zero-shot', '--data', data, '--out', out, '--store', join(work, 'b.sqlite')];
    const child = spawn(process.execPath, args, { cwd: work, env: { ...process.env, CI: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/judge: /.test(stderr)) setTimeout(() => child.kill('SIGKILL'), 3000);
      });
      child.on('exit', () => resolve());
    });
    assert.match(stderr, /judge: /);
    assert.doesNotMatch(stderr, /consistency: \d+\/\d+ in/, 'killed before consistency finished');
    const resumed = await llmkb(args.slice(1), { cwd: work });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(summaryOf(out, 'zero-shot'), summaryOf(join(work, 'out-a'), 'zero-shot'));
    // Determinism with the default configuration: a second fresh store gives byte-identical records and summary.
    for (const kind of ['records.jsonl', 'summary.json'] as const) {
      assert.equal(
        readFileSync(resultFile(out, 'zero-shot', kind), 'utf8'),
        readFileSync(resultFile(join(work, 'out-a'), 'zero-shot', kind), 'utf8'),
        `${kind} differs between two fresh runs`,
      );
    }
  });

  it('--fail-under makes it a CI gate: exit code 4 naming the metric', async () => {
    const r = await llmkb(
      [
        ...QUICK,
        '--model',
        spec,
        '--settings',
        'zero-shot',
        '--data',
        data,
        '--out',
        join(work, 'out-a'),
        '--store',
        join(work, 'a.sqlite'),
        '--fail-under',
        'NCCR=0.5',
      ],
      { cwd: work },
    );
    assert.equal(r.code, 4);
    assert.match(r.stderr, /--fail-under: NCCR = .* < 0\.5/);
  });
});

/** Scripted replies for every prompt of the method (mock: provider): judge, distractors, MCQs, and QA answers. */
const REPLIES = [
  { regex: '^INSTRUCTION: You need to check', reply: ' no' },
  { regex: '^INSTRUCTION: For the given question-answer pair', reply: ` ${Array.from({ length: 20 }, (_, i) => `option ${i + 1}`).join(' [SEP] ')}` },
  { regex: '^INSTRUCTION: Please answer knowledge-related multi-choice', reply: ' A' },
  { regex: 'QUESTION: (Who|Which)[^\\n]*\\nANSWER:$', reply: ' John Smith\nQUESTION: and then' },
  { regex: 'QUESTION: (When|In which year)[^\\n]*\\nANSWER:$', reply: ' 1999' },
  { default: true, reply: ' unsure' },
];

describe('llmkb eval --quick with scripted mock: models (no model file needed)', { skip: dataDir ? false : 'LLMKB_DATA_DIR must be set' }, () => {
  it('runs every stage with a judge and a distractor LLM, offline, and two fresh stores give byte-identical results', async () => {
    const work = tempDir('llmkb-eval-mock-');
    writeFileSync(join(work, 'replies.jsonl'), REPLIES.map((r) => JSON.stringify(r)).join('\n'));
    const run = (name: string) =>
      llmkb(
        [
          'eval',
          '--quick',
          '--mcqs',
          '3',
          '--model',
          'mock:replies.jsonl',
          '--judge',
          'mock:replies.jsonl',
          '--distractor',
          'mock:replies.jsonl',
          '--settings',
          'zero-shot',
          '--data',
          join(work, 'data'),
          '--data-dir',
          dataDir!,
          '--out',
          join(work, name),
          '--store',
          join(work, `${name}.sqlite`),
        ],
        { cwd: work },
      );
    const first = await run('a');
    assert.equal(first.code, 0, first.stderr);
    assert.doesNotMatch(first.stdout, /APPROXIMATE/, 'judged by the (scripted) judge LLM');
    const stem = 'replies.zero-shot.quick';
    const summary = JSON.parse(readFileSync(join(work, 'a', `${stem}.summary.json`), 'utf8')) as {
      schema: string;
      method: { id: string };
      metricDefs: Array<{ id: string }>;
      counts: Record<string, number>;
      metrics: Record<string, number | null>;
    };
    assert.equal(summary.schema, 'llmkb-summary-v2');
    assert.equal(summary.method.id, 'reliability');
    assert.deepEqual(
      summary.metricDefs.map((d) => d.id),
      Object.keys(summary.metrics),
    );
    assert.ok(summary.counts.seenWrong! > 0 && summary.counts.unseenUninformative! > 0, JSON.stringify(summary.counts));
    assert.notEqual(summary.metrics.C_wrong, null, 'wrong responses were re-asked as MCQs');
    // Every number can be traced to its exchanges: the cache keys of the question, judge and MCQ calls.
    const records = readFileSync(join(work, 'a', `${stem}.records.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            callKey?: string;
            label: string;
            decision: { callKeys?: string[] };
            consistencyDetail?: { mcqs: number; callKeys?: { distractors?: string; mcqs: string[] } };
          },
      );
    assert.ok(records.every((r) => /^[0-9a-f]{64}$/.test(r.callKey ?? '')));
    const mcqd = records.filter((r) => r.consistencyDetail);
    assert.ok(
      mcqd.length > 0 &&
        mcqd.every(
          (r) =>
            r.consistencyDetail!.callKeys!.mcqs.length === r.consistencyDetail!.mcqs && /^[0-9a-f]{64}$/.test(r.consistencyDetail!.callKeys!.distractors ?? ''),
        ),
    );
    assert.ok(
      records.some((r) => r.decision.callKeys?.length),
      'LLM-judged records keep the judge call keys',
    );
    const second = await run('b');
    assert.equal(second.code, 0, second.stderr);
    for (const kind of ['records.jsonl', 'summary.json'] as const)
      assert.equal(readFileSync(join(work, 'b', `${stem}.${kind}`), 'utf8'), readFileSync(join(work, 'a', `${stem}.${kind}`), 'utf8'), kind);
  });
});
