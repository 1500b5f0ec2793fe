/**
 * Studies, sweeps and merges given something wrong: each case a clear error with its documented
 * exit code, before any work where it can be known then, and nothing left half-made. Scripted
 * `mock:` models and a slow local server keep it fast and offline.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXIT_CODES } from '../src/errors.js';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'llmkb.js');
const gguf = process.env.LLMKB_TEST_GGUF;
const data = process.env.LLMKB_DATA_DIR;

function work(): string {
  return tempDir('llmkb-sweep-bad-');
}

/** A QA set of n questions and a replies file answering every question with `answer`. */
function questions(dir: string, n: number, answer = 'Paris'): { qa: string; replies: string } {
  const qa = join(dir, 'qa.jsonl');
  writeFileSync(
    qa,
    `${Array.from({ length: n }, (_, i) => JSON.stringify({ id: `q${i}`, dataset: 'seen', source: 'nq', question: `what is the capital number ${i}?`, answers: ['Paris'] })).join('\n')}\n`,
  );
  const replies = join(dir, 'replies.jsonl');
  writeFileSync(replies, `${JSON.stringify({ default: true, reply: ` ${answer}\nQUESTION:` })}\n`);
  return { qa, replies };
}

describe('sweep and merge: bad input gets a clear error and its exit code', () => {
  it("a relative model path in a study is read from the study's folder; a missing one is exit 6 in --plan and in the run, naming the file", {
    skip: gguf ? false : 'LLMKB_TEST_GGUF is not set',
  }, async () => {
    const dir = work();
    mkdirSync(join(dir, 'study', 'models'), { recursive: true });
    const { qa } = questions(join(dir, 'study'), 4);
    copyFileSync(gguf!, join(dir, 'study', 'models', 'tiny.gguf'));
    writeFileSync(
      join(dir, 'study', 'ok.yaml'),
      `models:\n  - { label: tiny, spec: "gguf:models/tiny.gguf" }\nsettings: [zero-shot]\ninput: qa.jsonl\nmcqs: 1\nout: res\n`,
    );
    // Run from another folder: the path is the study's, not the working directory's.
    const ok = await llmkb(['--store', join(dir, 's.sqlite'), 'sweep', join(dir, 'study', 'ok.yaml')], { cwd: dir });
    assert.equal(ok.code, 0, ok.stderr);
    assert.ok(existsSync(join(dir, 'study', 'res', 'report.html')), 'results beside the study ("out: res")');
    assert.match(ok.stdout, /results, tables and report\.html in/);
    void qa;
    writeFileSync(join(dir, 'study', 'missing.yaml'), 'models:\n  - { label: tiny, spec: "gguf:models/nope.gguf" }\nsettings: [zero-shot]\ninput: qa.jsonl\n');
    for (const extra of [['--plan'], []]) {
      const r = await llmkb(['--store', join(dir, 's2.sqlite'), 'sweep', join(dir, 'study', 'missing.yaml'), ...extra], { cwd: dir });
      assert.equal(r.code, EXIT_CODES.fileAccess, `${extra.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /model "tiny": \S*study\/models\/nope\.gguf not found/);
      assert.doesNotMatch(r.stdout, /\bnew\b/, 'not planned as a new run');
    }
  });

  it("a study whose mock: model names a missing replies file: exit 6 in --plan and in the run, naming the file from the study's folder", async () => {
    const dir = work();
    mkdirSync(join(dir, 'study'));
    questions(join(dir, 'study'), 2);
    writeFileSync(
      join(dir, 'study', 'missing.yaml'),
      'models:\n  - { label: scripted, spec: "mock:replies/nope.jsonl" }\nsettings: [zero-shot]\ninput: qa.jsonl\nout: res\n',
    );
    for (const extra of [['--plan'], []]) {
      const r = await llmkb(['--store', join(dir, 's.sqlite'), 'sweep', join(dir, 'study', 'missing.yaml'), ...extra], { cwd: dir });
      assert.equal(r.code, EXIT_CODES.fileAccess, `${extra.join(' ')}: ${r.stderr}`);
      assert.equal(EXIT_CODES.fileAccess, 6);
      assert.ok(
        r.stderr.includes(`study/missing.yaml: model "scripted": ${join(dir, 'study', 'replies', 'nope.jsonl')} not found`),
        `${extra.join(' ')} names the file:\n${r.stderr}`,
      );
      assert.doesNotMatch(r.stderr, /internal error|mock:mock:/);
      assert.doesNotMatch(r.stdout, /\bnew\b/, 'not planned as a new run');
    }
    assert.ok(!existsSync(join(dir, 'study', 'res')), 'no results folder left behind');
  });

  it('--plan before the data sets are built estimates with the sizes a default build makes, says so, and never says 0', async () => {
    const dir = work();
    writeFileSync(join(dir, 'r.jsonl'), `${JSON.stringify({ default: true, reply: ' x' })}\n`);
    writeFileSync(join(dir, 'study.yaml'), `models:\n  - { label: m, spec: "mock:r.jsonl" }\nsettings: [zero-shot]\ndata: not-built\n`);
    const r = await llmkb(['--store', join(dir, 's.sqlite'), 'sweep', join(dir, 'study.yaml'), '--plan'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /warning: the data sets are not built yet: estimated with the 3000 seen \+ 3000 unseen questions a default build makes at most/);
    assert.match(r.stdout, /calls still to pay for \(estimate\): model [1-9]\d*/);
    assert.doesNotMatch(r.stdout, /model 0\b/);
  });

  it('a second sweep on a store another sweep is working on exits 5 with the --wait advice, and leaves no folder behind', async () => {
    const dir = work();
    const { qa } = questions(dir, 6);
    const server = await startOpenAICompatibleServer({ complete: () => ' Paris\nQUESTION:', delayMs: 400 });
    try {
      writeFileSync(
        join(dir, 'study.yaml'),
        `models:\n  - { label: slow, spec: "vllm:${server.baseURL}/slow", concurrency: 1 }\nsettings: [zero-shot]\ninput: ${JSON.stringify(qa)}\nmcqs: 1\n`,
      );
      const store = join(dir, 's.sqlite');
      const first = spawn(process.execPath, [BIN, '--store', store, 'sweep', 'study.yaml', '--out', 'first'], {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      await new Promise<void>((resolve) =>
        first.stderr!.on('data', (c: Buffer) => {
          err += c.toString();
          if (/\[1\/1\] slow/.test(err)) resolve();
        }),
      );
      await new Promise((r) => setTimeout(r, 300));
      const second = await llmkb(['--store', store, 'sweep', 'study.yaml', '--out', 'second'], { cwd: dir });
      first.kill('SIGKILL');
      assert.equal(second.code, EXIT_CODES.busy, second.stderr);
      assert.match(second.stderr, /being worked on by another llmkb process/);
      assert.match(second.stderr, /hint: .*--wait/);
      assert.ok(!existsSync(join(dir, 'second')), `no empty results folder left: ${readdirSync(dir).join(', ')}`);
    } finally {
      await server.close();
    }
  });

  it('merge refuses an incomplete set of shards (exit 2, naming the missing one) and an --out that is one of its inputs', async () => {
    const dir = work();
    const { qa, replies } = questions(dir, 4);
    writeFileSync(
      join(dir, 'study.yaml'),
      `models:\n  - { label: a, spec: "mock:${replies}" }\n  - { label: b, spec: "mock:${replies}" }\nsettings: [zero-shot]\ninput: ${JSON.stringify(qa)}\nmcqs: 1\n`,
    );
    for (const i of [1, 2]) {
      const r = await llmkb(['--store', join(dir, `s${i}.sqlite`), 'sweep', 'study.yaml', '--shard', `${i}/2`, '--out', `shard${i}`], { cwd: dir });
      assert.equal(r.code, 0, r.stderr);
    }
    const some = await llmkb(['merge', 'shard1', '--out', 'merged'], { cwd: dir });
    assert.equal(some.code, EXIT_CODES.usage, some.stderr);
    assert.match(some.stderr, /shard\(s\) 2\/2 of study study missing/);
    assert.ok(!existsSync(join(dir, 'merged')), 'nothing written');
    const into = await llmkb(['merge', 'shard1', 'shard2', '--out', 'shard2'], { cwd: dir });
    assert.equal(into.code, EXIT_CODES.usage, into.stderr);
    assert.match(into.stderr, /--out \S*shard2 is one of the shards being merged/);
    const both = await llmkb(['merge', 'shard1', 'shard2', '--out', 'merged'], { cwd: dir });
    assert.equal(both.code, 0, both.stderr);
  });

  it("a study's unknown field, an option of no listed method, and a role of no listed method are refused naming the line", {
    skip: data ? false : 'LLMKB_DATA_DIR is not set',
  }, async () => {
    const dir = work();
    writeFileSync(join(dir, 'r.jsonl'), `${JSON.stringify({ default: true, reply: ' x' })}\n`);
    const cases: Array<[string, RegExp]> = [
      ['models:\n  - { label: m, spec: "mock:r.jsonl" }\nmcq: 3\n', /study\.yaml:3 \(field "mcq"\): unknown field "mcq"/],
      ['models:\n  - { label: m, spec: "mock:r.jsonl" }\nmethods: [reliability]\nnli: "mock:r.jsonl"\n', /study\.yaml:4 \(field "nli"\): unknown field "nli"/],
      [
        'models:\n  - { label: m, spec: "mock:r.jsonl" }\nmethods:\n  - id: reliability\n    options: { mcqs: 0 }\n',
        /field "methods\.0\.options\.mcqs"\): method "reliability": option "mcqs" must be a whole number >= 1/,
      ],
      ['models:\n  - { label: m, spec: "mock:r.jsonl" }\nmethods: [nosuch]\n', /field "methods\.0"\): unknown method "nosuch"/],
    ];
    for (const [text, pattern] of cases) {
      writeFileSync(join(dir, 'study.yaml'), text);
      const r = await llmkb(['--store', join(dir, 's.sqlite'), 'sweep', 'study.yaml', '--plan'], { cwd: dir });
      assert.equal(r.code, EXIT_CODES.usage, r.stderr);
      assert.match(r.stderr, pattern);
    }
  });
});

describe('what a sweep says it wrote', () => {
  it('a sweep whose every run failed says it wrote the sweep record only, though an earlier report.html is in its folder', async () => {
    const dir = work();
    const { qa } = questions(dir, 2);
    const server = await startOpenAICompatibleServer({ fault: () => ({ kind: 'status', status: 401 }) });
    try {
      writeFileSync(
        join(dir, 'study.yaml'),
        `models:\n  - { label: refused, spec: "vllm:${server.baseURL}/m" }\nsettings: [zero-shot]\ninput: ${JSON.stringify(qa)}\nmcqs: 1\nout: res\n`,
      );
      mkdirSync(join(dir, 'res'));
      writeFileSync(join(dir, 'res', 'report.html'), '<p>an earlier sweep</p>');
      const r = await llmkb(['--store', join(dir, 's.sqlite'), 'sweep', 'study.yaml'], { cwd: dir });
      assert.equal(r.code, EXIT_CODES.model, r.stderr);
      assert.match(r.stdout, /0 of 1 runs done here; the sweep record only \(no run finished\) in /);
      assert.doesNotMatch(r.stdout, /report\.html in/);
    } finally {
      await server.close();
    }
  });
});
