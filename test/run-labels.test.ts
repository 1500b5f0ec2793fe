/**
 * What `llmkb runs`, the viewer, `sweep --plan` and a run's execution record say about runs: two
 * labels for one model file are one run (the same results), shown under both labels; a run that
 * stopped on an error is "stopped", not "running", once no process works on it; a run resumed
 * after a kill counts every call paid for, the killed process's too, in run.json and in a
 * sweep's sweep.json.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';
import { CLI_V8_FLAGS, llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

function folder(): { dir: string; qa: string; replies: string } {
  const dir = tempDir('llmkb-labels-');
  const qa = join(dir, 'qa.jsonl');
  writeFileSync(
    qa,
    `${[0, 1, 2, 3].map((i) => JSON.stringify({ id: `q${i}`, dataset: 'seen', source: 'nq', question: `what is the capital number ${i}?`, answers: ['Paris'] })).join('\n')}\n`,
  );
  const replies = join(dir, 'replies.jsonl');
  writeFileSync(replies, `${JSON.stringify({ default: true, reply: ' Paris\nQUESTION:' })}\n`);
  return { dir, qa, replies };
}

/**
 * Runs `args` (the CLI and its arguments) in a child process, kills it with SIGKILL once the
 * server has answered 30 requests and one save of the counts (every 2 s) has passed, then runs
 * the same command to the end: the requests before the kill and in all.
 */
async function killedAndResumed(args: string[], dir: string, server: { requests: unknown[] }): Promise<{ killed: number; paid: number }> {
  // The command's own process (given the launcher's flags, no launcher runs): the kill ends it at once.
  const child = spawn(process.execPath, [...CLI_V8_FLAGS, ...args], { cwd: dir, stdio: 'ignore' });
  const exited = new Promise((r) => child.on('exit', r));
  for (let waited = 0; server.requests.length < 30; waited += 50) {
    assert.ok(waited < 60_000, `only ${server.requests.length} requests in 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 2500));
  assert.equal(child.exitCode, null, 'still running when killed');
  child.kill('SIGKILL');
  await exited;
  // A request sent just before the kill may reach the server (in this process) after the exit is seen.
  for (let last = -1; last !== server.requests.length; ) {
    last = server.requests.length;
    await new Promise((r) => setTimeout(r, 300));
  }
  const killed = server.requests.length;
  const resumed = await llmkb(args.slice(1), { cwd: dir });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.ok(killed > 30, `${killed} requests before the kill`);
  return { killed, paid: server.requests.length };
}

describe('runs as listed', () => {
  it('one model file under two labels: one run, listed with both labels by llmkb runs, the viewer and sweep --plan', async () => {
    const { dir, qa, replies } = folder();
    const store = join(dir, 's.sqlite');
    for (const name of ['tiny-a', 'tiny-b']) {
      const r = await llmkb(
        ['--store', store, 'eval', '--model', `mock:${replies}`, '--name', name, '--input', qa, '--settings', 'zero-shot', '--mcqs', '1', '--out', 'res'],
        { cwd: dir },
      );
      assert.equal(r.code, 0, r.stderr);
    }
    const runs = await llmkb(['--store', store, 'runs'], { cwd: dir });
    assert.equal(runs.code, 0, runs.stderr);
    const lines = runs.stdout.trim().split('\n');
    assert.equal(lines.length, 2, runs.stdout);
    assert.match(lines[0]!, /^RUN +CREATED +UPDATED \(UTC\) +METHOD +LABEL +SETTING +QUICK +LIMIT +MCQS +QUESTIONS +STAGES$/);
    assert.match(lines[1]!, /reliability +tiny-a = tiny-b +zero-shot +- +- +1 +input-qa [0-9a-f]{8} +ask:done\(4\) judge:done\(4\) consistency:done\(4\)/);
    writeFileSync(
      join(dir, 'study.yaml'),
      `models:\n  - { label: tiny-a, spec: "mock:${replies}" }\n  - { label: tiny-b, spec: "mock:${replies}" }\nsettings: [zero-shot]\ninput: ${JSON.stringify(qa)}\nmcqs: 1\n`,
    );
    const plan = await llmkb(['--store', store, 'sweep', 'study.yaml', '--plan'], { cwd: dir });
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /runs: 2 done \(cached\), 0 partly done, 0 new/, 'tiny-b is the same run as tiny-a: done');
    const summaries = readdirSync(join(dir, 'res'))
      .filter((f) => f.endsWith('.summary.json'))
      .map((f) => join(dir, 'res', f));
    assert.equal(summaries.length, 2, 'a summary under each label');
    const compared = await llmkb(['compare', ...summaries, '--resamples', '20'], { cwd: dir });
    assert.equal(compared.code, 0, compared.stderr);
    assert.match(compared.stdout + compared.stderr, /tiny-a and tiny-b \(zero-shot\) are one run \([0-9a-f]{12}\): the same model file and inputs/);
  });

  it('a run that stopped on an error is "stopped" (running the same command resumes it), not "running"', async () => {
    const { dir, qa } = folder();
    const server = await startOpenAICompatibleServer({
      complete: () => ' Paris\nQUESTION:',
      fault: (index) => (index >= 2 ? { kind: 'status', status: 400 } : undefined),
    });
    try {
      const r = await llmkb(
        [
          '--store',
          join(dir, 's.sqlite'),
          'eval',
          '--model',
          `vllm:${server.baseURL}/m`,
          '--input',
          qa,
          '--settings',
          'zero-shot',
          '--mcqs',
          '1',
          '--out',
          'res',
        ],
        { cwd: dir },
      );
      assert.notEqual(r.code, 0, 'the server refused a call');
      const runs = await llmkb(['--store', join(dir, 's.sqlite'), 'runs', '--json'], { cwd: dir });
      const listed = (JSON.parse(runs.stdout) as { schema: string; runs: Array<{ stages: Array<{ stage: string; status: string }> }> }).runs;
      assert.deepEqual(
        listed[0]!.stages.map((s) => `${s.stage}:${s.status}`),
        ['ask:stopped'],
      );
    } finally {
      await server.close();
    }
  });

  it("a run resumed after kill -9 counts in run.json every request the server got, the killed process's too", async () => {
    const { dir } = folder();
    const qa = join(dir, 'qa40.jsonl');
    writeFileSync(
      qa,
      `${Array.from({ length: 100 }, (_, i) => JSON.stringify({ id: `q${i}`, dataset: 'seen', source: 'nq', question: `what is the capital number ${i}?`, answers: ['Paris'] })).join('\n')}\n`,
    );
    const server = await startOpenAICompatibleServer({ complete: () => ' Paris\nQUESTION:', nextToken: () => ({ ' A': 0.6, ' B': 0.4 }), delayMs: 100 });
    try {
      // Two calls at a time: the asking takes about 5 s, long enough to kill it half-way.
      writeFileSync(join(dir, 'llmkb.config.json'), JSON.stringify({ model: { spec: `vllm:${server.baseURL}/m`, concurrency: 2 } }));
      const args = [
        join(import.meta.dirname, '..', 'bin', 'llmkb.js'),
        '--store',
        join(dir, 's.sqlite'),
        'eval',
        '--model',
        `vllm:${server.baseURL}/m`,
        '--input',
        qa,
        '--settings',
        'zero-shot',
        '--mcqs',
        '1',
        '--out',
        'res',
      ];
      const { killed, paid } = await killedAndResumed(args, dir, server);
      const runJson = readdirSync(join(dir, 'res')).find((f) => f.endsWith('.run.json'))!;
      const execution = JSON.parse(readFileSync(join(dir, 'res', runJson), 'utf8')) as {
        calls: { model: { requests: number } };
        callsHere: { model: { requests: number } };
      };
      assert.equal(execution.callsHere.model.requests, paid - killed, "callsHere: the resumed process's requests");
      // The last moment before the kill may be unsaved (at most one save interval of requests).
      assert.ok(
        execution.calls.model.requests >= paid - 45 && execution.calls.model.requests <= paid,
        `all processes: ${execution.calls.model.requests} of ${paid} requests`,
      );
      assert.ok(execution.calls.model.requests > execution.callsHere.model.requests, "the killed process's requests are counted too");
    } finally {
      await server.close();
    }
  });

  it("a sweep resumed after kill -9 counts in sweep.json every request the server got, the killed process's too", async () => {
    const { dir } = folder();
    const qa = join(dir, 'qa100.jsonl');
    writeFileSync(
      qa,
      `${Array.from({ length: 100 }, (_, i) => JSON.stringify({ id: `q${i}`, dataset: 'seen', source: 'nq', question: `what is the capital number ${i}?`, answers: ['Paris'] })).join('\n')}\n`,
    );
    const server = await startOpenAICompatibleServer({ complete: () => ' Paris\nQUESTION:', nextToken: () => ({ ' A': 0.6, ' B': 0.4 }), delayMs: 100 });
    try {
      // One model, two calls at a time: the asking takes about 5 s, long enough to kill it half-way.
      writeFileSync(
        join(dir, 'study.yaml'),
        `models:\n  - { label: slow, spec: "vllm:${server.baseURL}/m", concurrency: 2 }\nsettings: [zero-shot]\ninput: ${JSON.stringify(qa)}\nmcqs: 1\n`,
      );
      const args = [join(import.meta.dirname, '..', 'bin', 'llmkb.js'), '--store', join(dir, 's.sqlite'), 'sweep', 'study.yaml', '--out', 'res'];
      const { killed, paid } = await killedAndResumed(args, dir, server);
      const sweep = JSON.parse(readFileSync(join(dir, 'res', 'sweep.json'), 'utf8')) as {
        tokens: { model: { requests: number } };
        tokensHere: { model: { requests: number } };
      };
      assert.equal(sweep.tokensHere.model.requests, paid - killed, "tokensHere: the resumed process's requests");
      // The last moment before the kill may be unsaved (at most one save interval of requests).
      assert.ok(
        sweep.tokens.model.requests >= paid - 45 && sweep.tokens.model.requests <= paid,
        `all processes: ${sweep.tokens.model.requests} of ${paid} requests`,
      );
      assert.ok(sweep.tokens.model.requests > sweep.tokensHere.model.requests, "the killed process's requests are counted too");
    } finally {
      await server.close();
    }
  });
});
