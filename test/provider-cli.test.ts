/**
 * Issue 38's proof for providers, through the `llmkb` command as a user runs it: the fixture
 * provider of test/fixtures/toy-provider/, registered from its folder by the config's `providers`
 * list with an option of its own (`flavour`), answers `llmkb eval`, answers a sweep whose batchable
 * role (the grader of test/fixtures/graded-method/) goes through its own Batch API under `--batch`,
 * and `llmkb view` serves the runs it made. No file under src/ names it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'llmkb.js');
const SRC = join(import.meta.dirname, '..', 'src');
const PROVIDER = join(import.meta.dirname, 'fixtures', 'toy-provider', 'toy-provider.ts');
const METHOD = join(import.meta.dirname, 'fixtures', 'graded-method', 'graded-method.ts');
/** The fixtures are TypeScript: the CLI loads them through tsx, as a user's .ts modules would be. */
const TSX = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${import.meta.resolve('tsx')}`.trim() };

const QUESTIONS = [
  { id: 'q1', question: 'What is the capital of France?', answers: ['Paris'] },
  { id: 'q2', question: 'Who wrote Hamlet?', answers: ['Shakespeare'] },
  { id: 'q3', question: 'Which city is on the Seine?', answers: ['Paris'] },
];

/** Every .ts file under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** `llmkb view` in a process of its own, until `work` is done with its address. */
async function withView(args: string[], cwd: string, work: (url: string) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [BIN, ...args, '--port', '0'], { cwd, env: { ...process.env, CI: '1', ...TSX }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /llmkb view: (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`llmkb view ended (${code}) before it listened: ${stderr}`)));
    });
    await work(url);
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

describe('a fixture provider through the CLI: eval, sweep --batch and view', () => {
  it('registered by the config, with its own option, it answers eval, batches a sweep and its runs show in the viewer; no file under src/ names it', async () => {
    const dir = tempDir('llmkb-provider-cli-');
    const questions = join(dir, 'qa.jsonl');
    writeFileSync(questions, `${QUESTIONS.map((q) => JSON.stringify(q)).join('\n')}\n`);
    writeFileSync(join(dir, 'llmkb.config.json'), JSON.stringify({ providers: [PROVIDER], methods: [METHOD], model: { spec: 'toy:a', flavour: 'Paris' } }));

    // eval: the config's model, made by the toy with its own option.
    const evaluated = await llmkb(['eval', '--method', 'graded-exact-match', '--questions', questions, '--name', 'toy-eval', '--out', 'eval'], {
      cwd: dir,
      env: TSX,
    });
    assert.equal(evaluated.code, 0, evaluated.stderr);
    const evalSummary = JSON.parse(readFileSync(join(dir, 'eval', 'toy-eval.default.summary.json'), 'utf8')) as {
      metrics: { EM: number };
      modelIdentity: string;
    };
    assert.equal(evalSummary.metrics.EM, 2 / 3, 'every answer is "Paris": right for two questions of three');
    assert.equal(evalSummary.modelIdentity, 'toy:a:flavour=Paris');

    // sweep --batch: the models under test live, the grader (batchable) through the toy's Batch API.
    writeFileSync(
      join(dir, 'study.json'),
      JSON.stringify({
        name: 'toy-batch',
        models: [
          { label: 'toy-paris', spec: 'toy:a', flavour: 'Paris' },
          { label: 'toy-bard', spec: 'toy:b', flavour: 'Shakespeare' },
        ],
        methods: [{ id: 'graded-exact-match', options: { questions } }],
        grader: { spec: 'toy:grader', flavour: 'yes' },
      }),
    );
    const swept = await llmkb(['sweep', 'study.json', '--out', 'sweep', '--batch'], {
      cwd: dir,
      env: { ...TSX, LLMKB_BATCH_POLL_MS: '5', LLMKB_BATCH_GATHER_MS: '20' },
    });
    assert.equal(swept.code, 0, swept.stderr);
    const record = JSON.parse(readFileSync(join(dir, 'sweep', 'sweep.json'), 'utf8')) as {
      jobs: Array<{ label: string; status: string; summary: string }>;
      batches: Array<{ model: string; requests: number; status: string; failed: number }>;
      tokens: Record<string, { calls: number; requests: number }>;
    };
    assert.deepEqual(
      record.jobs.map((j) => [j.label, j.status]),
      [
        ['toy-paris', 'done'],
        ['toy-bard', 'done'],
      ],
    );
    assert.ok(record.batches.length > 0, 'the grader went through batches');
    assert.ok(
      record.batches.every((b) => b.model === 'grader' && b.status === 'completed' && b.failed === 0),
      JSON.stringify(record.batches),
    );
    assert.equal(
      record.batches.reduce((n, b) => n + b.requests, 0),
      2 * QUESTIONS.length,
      `every grading call of both runs, batched: ${JSON.stringify(record)}`,
    );
    assert.equal(record.tokens.grader!.calls, 2 * QUESTIONS.length);
    const bard = JSON.parse(readFileSync(join(dir, 'sweep', record.jobs[1]!.summary), 'utf8')) as { metrics: { EM: number; graded: number } };
    assert.deepEqual([bard.metrics.EM, bard.metrics.graded], [1 / 3, 1], 'the answers of the batch read back as live answers ("yes")');

    // view: the runs page and an item page of a sweep run, served on loopback.
    await withView(['view', 'sweep'], dir, async (url) => {
      const runsPage = await fetch(`${url}/runs`);
      assert.equal(runsPage.status, 200);
      const runsHtml = await runsPage.text();
      assert.match(runsHtml, /toy-bard/);
      assert.match(runsHtml, /toy-eval/, 'the eval run, from the store');
      const runs = (await (await fetch(`${url}/api/runs`)).json()) as Array<{ key: string; label: string; method: string; kind: string }>;
      const run = runs.find((r) => r.label === 'toy-bard' && r.method === 'graded-exact-match' && r.kind === 'store');
      assert.ok(run, JSON.stringify(runs));
      const item = await fetch(`${url}/runs/${run.key}/items/q2`);
      assert.equal(item.status, 200);
      const itemHtml = await item.text();
      assert.match(itemHtml, /toy-bard/);
      assert.match(itemHtml, /Who wrote Hamlet\?/);
    });

    // Nothing in llmkb's sources knows the provider: its id and scheme appear under src/ nowhere.
    const naming = sources(SRC).filter((f) => /['"`]toy[:'"`]/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(naming, []);
  });
});
