/**
 * One sweep of two models over one judge and distractor LLM: the two runs go side by side and
 * send identical judge and distractor prompts (the same question and the same answer), which the
 * shared model receives once, not once per model (src/executor/in-flight-calls.ts shares calls in
 * flight between the runs' executors; the call cache shares them once answered).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const QUESTIONS = 6;

describe('a sweep of two models shares the judge and distractor calls they have in common', () => {
  it('each identical judge and distractor prompt reaches the shared model once', async () => {
    const dir = tempDir('llmkb-sweep-shared-');
    writeFileSync(
      join(dir, 'qa.jsonl'),
      `${Array.from({ length: QUESTIONS }, (_, i) => JSON.stringify({ id: `q${i}`, dataset: 'seen', source: 'nq', question: `what is the capital number ${i}?`, answers: ['Paris'] })).join('\n')}\n`,
    );
    // Two models that give the same wrong answer to every question (two rule files, so two models
    // and two runs): every judge and distractor prompt of one run is also one of the other's.
    const answer = { default: true, reply: ' Lyon\nQUESTION:' };
    writeFileSync(join(dir, 'a.jsonl'), `${JSON.stringify(answer)}\n`);
    writeFileSync(join(dir, 'b.jsonl'), `${JSON.stringify({ contains: 'a rule of model b only', reply: ' unused' })}\n${JSON.stringify(answer)}\n`);
    // The judge says "no" (the answer is wrong); distractors come as [SEP]-separated text. Slow
    // enough (150 ms a call) that the two runs' calls are in flight at the same time.
    const server = await startOpenAICompatibleServer({
      complete: (prompt) => (prompt.includes('Distractors:') ? ' Marseille [SEP] Nice [SEP] Toulouse [SEP] Bordeaux [SEP] Lille' : ' no'),
      delayMs: 150,
    });
    try {
      writeFileSync(
        join(dir, 'study.yaml'),
        `models:\n  - { label: model-a, spec: "mock:a.jsonl" }\n  - { label: model-b, spec: "mock:b.jsonl" }\njudge: "vllm:${server.baseURL}/shared"\ndistractor: "vllm:${server.baseURL}/shared"\nsettings: [zero-shot]\ninput: qa.jsonl\nmcqs: 1\n`,
      );
      const r = await llmkb(['--store', join(dir, 's.sqlite'), 'sweep', 'study.yaml', '--out', 'res'], { cwd: dir });
      assert.equal(r.code, 0, r.stderr);
      const prompts = server.requests.filter((q) => q.path.endsWith('/completions')).map((q) => String(q.body.prompt));
      const judge = prompts.filter((p) => !p.includes('Distractors:'));
      const distractor = prompts.filter((p) => p.includes('Distractors:'));
      // One judge call and one distractor call per question: for both models together.
      assert.equal(judge.length, QUESTIONS, `judge requests: ${judge.length}, expected one per question for both models`);
      assert.equal(distractor.length, QUESTIONS, `distractor requests: ${distractor.length}, expected one per question for both models`);
      assert.equal(new Set(prompts).size, prompts.length, 'no prompt sent twice');
      // Both runs used those answers: each judged every question with the shared LLM.
      const sweep = JSON.parse(readFileSync(join(dir, 'res', 'sweep.json'), 'utf8')) as {
        jobs: Array<{ label: string; status: string }>;
        tokens: Record<string, { calls: number; requests: number; cacheHits: number }>;
      };
      assert.deepEqual(sweep.jobs.map((j) => `${j.label}:${j.status}`).sort(), ['model-a:done', 'model-b:done']);
      assert.equal(sweep.tokens.judge?.calls, 2 * QUESTIONS, `judge calls over both runs: ${JSON.stringify(sweep.tokens.judge)}`);
      assert.equal(sweep.tokens.judge?.requests, QUESTIONS, 'judge requests over both runs');
    } finally {
      await server.close();
    }
  });
});
