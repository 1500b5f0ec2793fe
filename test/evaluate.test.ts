/**
 * `evaluate` (src/evaluate.ts), the library call behind `llmkb eval`, called directly (no CLI):
 * what it returns and writes with a scripted mock model, that it prints nothing, that a missed
 * threshold comes back in `failures` rather than thrown, and that bad input is refused before
 * the workspace is opened.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { evaluate, EXIT_CODES, LlmkbError, Workspace } from '../src/index.js';
import { tempDir } from './support/temp-dir.js';

const QUESTIONS = [
  { id: 'q1', dataset: 'seen', source: 'mine', question: 'What is the capital of France?', answers: ['Paris'] },
  { id: 'q2', dataset: 'seen', source: 'mine', question: 'Who wrote Hamlet?', answers: ['William Shakespeare'] },
  { id: 'q3', dataset: 'unseen', source: 'mine', question: 'Who won the 2031 Tour de France?', answers: [] },
];
const REPLIES = [
  { contains: 'multi-choice', reply: ' A' },
  { contains: 'capital of France', reply: ' Paris' },
  { default: true, reply: ' Christopher Marlowe' },
];
const jsonl = (rows: readonly object[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

/** A folder with the QA set and the mock model's replies. */
function inputs(): { dir: string; input: string; model: string } {
  const dir = tempDir('llmkb-evaluate-');
  writeFileSync(join(dir, 'questions.jsonl'), jsonl(QUESTIONS));
  writeFileSync(join(dir, 'replies.jsonl'), jsonl(REPLIES));
  return { dir, input: join(dir, 'questions.jsonl'), model: `mock:${join(dir, 'replies.jsonl')}` };
}

/**
 * Runs `work` with the text written to process.stdout and process.stderr captured; returns that
 * text. The test runner's own messages (bytes, its serialized protocol) pass through.
 */
async function printedBy<T>(work: () => Promise<T>): Promise<{ value: T; printed: string }> {
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((s) => s.write.bind(s));
  let printed = '';
  streams.forEach((stream, i) => {
    stream.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      if (typeof chunk !== 'string') return writes[i]!(chunk, ...rest);
      printed += chunk;
      return true;
    }) as typeof stream.write;
  });
  try {
    return { value: await work(), printed };
  } finally {
    streams.forEach((stream, i) => {
      stream.write = writes[i]!;
    });
  }
}

describe('evaluate (the library call behind llmkb eval)', () => {
  it('runs every setting, writes the summaries and the report, returns them with the calls; prints nothing; a given workspace stays open', async () => {
    const { dir, input, model } = inputs();
    const ws = new Workspace({ store: join(dir, 'store.sqlite') });
    try {
      const lines: string[] = [];
      const out = join(dir, 'results');
      const { value: result, printed } = await printedBy(() =>
        evaluate({ model, name: 'mock', options: { input, mcqs: 2 }, settings: ['zero-shot'], out, workspace: ws, log: (l) => lines.push(l) }),
      );
      assert.equal(printed, '', 'nothing printed: the notes go to log, the progress lines nowhere by default');
      assert.equal(result.method, 'reliability');
      assert.equal(result.label, 'mock');
      assert.equal(result.modelSpec, model);
      assert.deepEqual(
        result.runs.map((r) => r.summary.setting),
        ['zero-shot'],
      );
      const run = result.runs[0]!;
      assert.equal(run.summary.counts.questions ?? run.summary.counts.items ?? QUESTIONS.length, QUESTIONS.length);
      assert.ok(run.files && existsSync(run.files.summary) && existsSync(run.files.records), 'the summary and records files are written');
      assert.deepEqual(
        JSON.parse(readFileSync(run.files.summary, 'utf8')).metrics,
        JSON.parse(JSON.stringify(run.summary.metrics)),
        'the summary file holds the returned metrics',
      );
      assert.ok(result.report.startsWith(out) && readFileSync(result.report, 'utf8').includes('<html'), 'the report is written in out');
      assert.ok(
        result.calls.requests > 0 && result.calls.requests + result.calls.cacheHits === result.calls.calls,
        `calls made or from the cache: ${JSON.stringify(result.calls)}`,
      );
      assert.deepEqual(result.failures, []);
      assert.equal(result.junit, undefined);
      assert.ok(
        lines.some((l) => /^evaluated 1 setting\(s\) in /.test(l)),
        `the notes go to log: ${lines.join(' | ')}`,
      );
      assert.ok(ws.db.open, 'a workspace the caller gave stays open');
      // Again in the same store: the finished run is found, no model call is made, the same metrics.
      const again = await evaluate({ model, name: 'mock', options: { input, mcqs: 2 }, settings: ['zero-shot'], out, workspace: ws });
      assert.deepEqual(again.calls, { calls: 0, requests: 0, cacheHits: 0 });
      assert.equal(again.runs[0]!.runId, run.runId, 'the same run, resumed');
      assert.deepEqual(again.runs[0]!.summary.metrics, run.summary.metrics);
    } finally {
      await ws.close();
    }
  });

  it('returns the thresholds a run misses (not thrown) and writes the JUnit file; a workspace it opens, it closes', async () => {
    const { dir, input, model } = inputs();
    let opened: Workspace | undefined;
    const junit = join(dir, 'junit.xml');
    const result = await evaluate({
      model,
      name: 'mock',
      options: { input, mcqs: 2 },
      settings: ['zero-shot'],
      out: join(dir, 'results'),
      junit,
      failUnder: [
        { metric: 'IUR', value: 0 },
        { metric: 'NCCR', value: 1 },
      ],
      workspace: () => (opened = new Workspace({ store: join(dir, 'store.sqlite') })),
    });
    assert.equal(result.failures.length, 1, `one threshold missed: ${result.failures.join('; ')}`);
    assert.match(result.failures[0]!, /^NCCR = (-?\d\.\d{4}|undefined) < 1 \(mock, zero-shot\)$/);
    assert.equal(result.junit, junit);
    const xml = readFileSync(junit, 'utf8');
    assert.match(xml, /<testsuites name="llmkb eval --fail-under" tests="2" failures="1" /);
    assert.ok(opened && !opened.db.open, 'the workspace evaluate opened is closed');
  });

  it('refuses bad input before opening the workspace', async () => {
    const { dir, input, model } = inputs();
    const never = () => assert.fail('the workspace is not opened when the input is refused');
    const refused = async (options: Parameters<typeof evaluate>[0], pattern: RegExp, exitCode: number = EXIT_CODES.usage) => {
      await assert.rejects(evaluate({ model, options: { input }, out: join(dir, 'results'), workspace: never, ...options }), (error: unknown) => {
        assert.ok(error instanceof LlmkbError, String(error));
        assert.match(error.message, pattern);
        assert.equal(error.exitCode, exitCode);
        return true;
      });
    };
    await refused({ settings: [] }, /names no setting/);
    await refused({ settings: ['no-such-setting'] }, /has no setting "no-such-setting"/);
    await refused({ failUnder: [{ metric: 'nccr', value: 0.2 }] }, /unknown metric "nccr" \(did you mean NCCR\?\)/);
    await refused({ junit: join(dir, 'j.xml') }, /--junit without --fail-under/);
    await refused({ options: { input: join(dir, 'missing.jsonl') } }, /missing\.jsonl/, EXIT_CODES.fileAccess);
    await refused({ method: 'no-such-method' }, /no-such-method/);
  });
});
