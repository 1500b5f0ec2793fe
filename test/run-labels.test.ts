/**
 * What `llmkb runs`, the viewer and `sweep --plan` say about runs: two labels for one model file
 * are one run (the same results), shown under both labels; a run that stopped on an error is
 * "stopped", not "running", once no process works on it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';
import { llmkb } from './support/run-cli.js';

function folder(): { dir: string; qa: string; replies: string } {
  const dir = mkdtempSync(join(tmpdir(), 'llmkb-labels-'));
  const qa = join(dir, 'qa.jsonl');
  writeFileSync(qa, `${[0, 1, 2, 3].map((i) => JSON.stringify({ id: `q${i}`, dataset: 'seen', source: 'nq', question: `what is the capital number ${i}?`, answers: ['Paris'] })).join('\n')}\n`);
  const replies = join(dir, 'replies.jsonl');
  writeFileSync(replies, `${JSON.stringify({ default: true, reply: ' Paris\nQUESTION:' })}\n`);
  return { dir, qa, replies };
}

describe('runs as listed', () => {
  it('one model file under two labels: one run, listed with both labels by llmkb runs, the viewer and sweep --plan', async () => {
    const { dir, qa, replies } = folder();
    const store = join(dir, 's.sqlite');
    for (const name of ['tiny-a', 'tiny-b']) {
      const r = await llmkb(['--store', store, 'eval', '--model', `mock:${replies}`, '--name', name, '--input', qa, '--settings', 'zero-shot', '--mcqs', '1', '--out', 'res'], { cwd: dir });
      assert.equal(r.code, 0, r.stderr);
    }
    const runs = await llmkb(['--store', store, 'runs'], { cwd: dir });
    assert.equal(runs.code, 0, runs.stderr);
    const lines = runs.stdout.trim().split('\n');
    assert.equal(lines.length, 1, runs.stdout);
    assert.match(lines[0]!, /reliability {2}tiny-a = tiny-b {2}zero-shot {2}ask:done\(4\) judge:done\(4\) consistency:done\(4\)/);
    writeFileSync(join(dir, 'study.yaml'), `models:\n  - { label: tiny-a, spec: "mock:${replies}" }\n  - { label: tiny-b, spec: "mock:${replies}" }\nsettings: [zero-shot]\ninput: ${JSON.stringify(qa)}\nmcqs: 1\n`);
    const plan = await llmkb(['--store', store, 'sweep', 'study.yaml', '--plan'], { cwd: dir });
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /runs: 2 done \(cached\), 0 partly done, 0 new/, 'tiny-b is the same run as tiny-a: done');
  });

  it('a run that stopped on an error is "stopped" (running the same command resumes it), not "running"', async () => {
    const { dir, qa } = folder();
    const server = await startOpenAICompatibleServer({ complete: () => ' Paris\nQUESTION:', fault: (index) => (index >= 2 ? { kind: 'status', status: 400 } : undefined) });
    try {
      const r = await llmkb(['--store', join(dir, 's.sqlite'), 'eval', '--model', `vllm:${server.baseURL}/m`, '--input', qa, '--settings', 'zero-shot', '--mcqs', '1', '--out', 'res'], { cwd: dir });
      assert.notEqual(r.code, 0, 'the server refused a call');
      const runs = await llmkb(['--store', join(dir, 's.sqlite'), 'runs', '--json'], { cwd: dir });
      const listed = JSON.parse(runs.stdout) as Array<{ stages: Array<{ stage: string; status: string }> }>;
      assert.deepEqual(listed[0]!.stages.map((s) => `${s.stage}:${s.status}`), ['ask:stopped']);
    } finally {
      await server.close();
    }
  });
});
