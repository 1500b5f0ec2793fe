/**
 * `llmkb judge check` end to end, on the built binary: the lexical rule and a judge LLM on a
 * loopback server measured against hand-labelled responses, the errors a user can cause, and
 * `llmkb judge` itself unchanged by the new subcommand.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startOpenAICompatibleServer } from '#test-support/openai-compatible-server.js';
import { llmkb } from '#test-support/run-cli.js';
import { tempDir } from '#test-support/temp-dir.js';

const LABELLED = [
  { id: 'a', system: 's1', dataset: 'd', question: 'What is the capital of France?', answers: ['Paris'], response: 'It is Paris.', human_correct: true },
  { id: 'b', system: 's1', dataset: 'd', question: 'What is the capital of France?', answers: ['Paris'], response: 'Lyon', human_correct: false },
  { id: 'c', system: 's2', dataset: 'd', question: 'Who wrote Hamlet?', answers: ['William Shakespeare'], response: 'The Bard of Avon', human_correct: true },
  { id: 'd', system: 's2', dataset: 'd', question: 'Who wrote Hamlet?', answers: ['William Shakespeare'], response: "I don't know.", human_correct: false },
];

function workdir(): string {
  const dir = tempDir('llmkb-judge-check-');
  writeFileSync(join(dir, 'labelled.jsonl'), LABELLED.map((x) => JSON.stringify(x)).join('\n') + '\n');
  return dir;
}

describe('llmkb judge check', () => {
  it('measures the lexical rule against human labels (-i FILE, --json)', async () => {
    const dir = workdir();
    const r = await llmkb(['judge', 'check', '-i', 'labelled.jsonl', '--no-judge', '--json'], { cwd: dir, env: { LLMKB_DATA_DIR: '' } });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      judge: string;
      overall: { agreement: number; kappa: number; confusion: Record<string, number> };
      bySystem: Record<string, { agreement: number }>;
    };
    assert.equal(out.judge, 'lexical-v3');
    // a: correct/correct, b: wrong/wrong, c: human correct but no words shared, d: uninformative/wrong.
    assert.deepEqual(out.overall.confusion, { tp: 1, fp: 0, fn: 1, tn: 2 });
    assert.equal(out.overall.agreement, 0.75);
    assert.equal(out.overall.kappa, 0.5);
    assert.deepEqual(Object.keys(out.bySystem).sort(), ['s1', 's2']);
    const text = await llmkb(['judge', 'check', '-i', 'labelled.jsonl', '--no-judge'], { cwd: dir });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /agreement 0\.750, Cohen's kappa 0\.500/);
    assert.match(text.stdout, /human correct\s+1\s+1/);
  });

  it('measures a judge LLM through the cached executor', async () => {
    const server = await startOpenAICompatibleServer({
      complete: (prompt) => (/prediction: (It is Paris\.|The Bard of Avon)\n\nCorrectness:$/.test(prompt) ? ' yes' : ' no'),
    });
    try {
      const dir = workdir();
      const args = ['judge', 'check', '-i', 'labelled.jsonl', '--judge', `vllm:${server.baseURL}/judge-model`, '--json'];
      const first = await llmkb(args, { cwd: dir });
      assert.equal(first.code, 0, first.stderr);
      const out = JSON.parse(first.stdout) as { judge: string; overall: { agreement: number } };
      assert.equal(out.judge, 'llm:openai-compatible:vllm:judge-model:api=completions');
      assert.equal(out.overall.agreement, 1);
      // "It is Paris." is not an exact match and "Lyon" is not either; "I don't know." is uninformative by rule.
      const calls = server.requests.length;
      assert.equal(calls, 3);
      const again = await llmkb(args, { cwd: dir });
      assert.equal(again.code, 0, again.stderr);
      assert.equal(server.requests.length, calls, 'the second measurement comes from the call cache');
    } finally {
      await server.close();
    }
  });

  it('--limit N measures a seeded sample on the EVOUNA default and says so', {
    skip: process.env.LLMKB_DATA_DIR ? false : 'LLMKB_DATA_DIR is not set (EVOUNA)',
  }, async () => {
    const dir = workdir();
    const args = ['judge', 'check', '--no-judge', '--limit', '40', '--json'];
    const r = await llmkb(args, { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { source: string; overall: { n: number }; byDataset: Record<string, { n: number }> };
    assert.equal(out.overall.n, 40);
    assert.match(out.source, /a seeded sample of 40 of \d+/);
    // Split between NQ and TQ in proportion, as every --limit does.
    assert.deepEqual(Object.keys(out.byDataset).sort(), ['NQ', 'TQ']);
    assert.match(r.stderr, /--limit 40: 40 of \d+ human-labelled responses/);
    const again = await llmkb(args, { cwd: dir });
    assert.equal(again.stdout, r.stdout, 'the same sample every time');
  });

  it('says how to find EVOUNA, and names file, line and field of a bad record', async () => {
    const dir = workdir();
    const missing = await llmkb(['judge', 'check', '--no-judge'], { cwd: dir, env: { LLMKB_DATA_DIR: '' } });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--evouna DIR/);
    assert.match(missing.stderr, /LLMKB_DATA_DIR/);
    const wrongDir = await llmkb(['judge', 'check', '--no-judge', '--evouna', join(dir, 'nowhere')], { cwd: dir });
    assert.equal(wrongDir.code, 6, 'a missing file is exit 6 (README "Exit codes")');
    assert.match(wrongDir.stderr, /EVOUNA not found: .*nowhere.*NQ\.json/);
    writeFileSync(join(dir, 'bad.jsonl'), `${JSON.stringify(LABELLED[0])}\n${JSON.stringify({ ...LABELLED[1], human_correct: 'no' })}\n`);
    const bad = await llmkb(['judge', 'check', '-i', 'bad.jsonl', '--no-judge'], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /bad\.jsonl:2 \(field "human_correct"\)/);
    assert.doesNotMatch(bad.stderr, /at .*\.js:\d+/, 'no stack trace');
  });

  it('leaves `llmkb judge` as it was', async () => {
    const dir = workdir();
    writeFileSync(
      join(dir, 'responses.jsonl'),
      `${JSON.stringify({ id: 'q1', dataset: 'seen', source: 'nq', question: 'What is the capital of France?', answers: ['Paris'], response: 'Paris' })}\n`,
    );
    const judged = await llmkb(['judge', '-i', 'responses.jsonl', '-o', 'out.jsonl', '--no-judge'], { cwd: dir });
    assert.equal(judged.code, 0, judged.stderr);
    assert.match(judged.stdout, /judged 1 responses -> out\.jsonl/);
    assert.equal((JSON.parse(readFileSync(join(dir, 'out.jsonl'), 'utf8')) as { label: string }).label, 'correct');
    const noInput = await llmkb(['judge', '--no-judge'], { cwd: dir });
    assert.equal(noInput.code, 2);
    assert.match(noInput.stderr, /required option '-i, --input <file>' not specified/);
  });
});
