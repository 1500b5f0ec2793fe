import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { askQuestions } from '../src/methods/reliability/asking/ask-questions.js';
import type { QAItem } from '../src/methods/reliability/data/qa-item.js';
import { toJsonl } from '../src/io/jsonl.js';
import { ModelExecutor } from '../src/executor/model-executor.js';
import { qaPrompt } from '../src/methods/reliability/prompts/paper-prompts.js';
import { LlamaModel } from '../src/providers/llama/llama-model.js';
import { MockModel } from '../src/providers/mock/mock-model.js';
import { CallCache } from '../src/store/call-cache.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const ITEMS: QAItem[] = [
  { id: 'q-france', dataset: 'seen', source: 'nq', question: 'What is the capital of France?', answers: ['Paris'], answerType: 'location' },
  { id: 'q-hamlet', dataset: 'seen', source: 'triviaqa', question: 'Who wrote Hamlet?', answers: ['William Shakespeare', 'Shakespeare'], answerType: 'person' },
  { id: 'q-everest', dataset: 'seen', source: 'popqa', question: 'What is the height of Mount Everest in metres?', answers: ['8849'], answerType: 'number' },
  { id: 'u-born', dataset: 'unseen', source: 'T13', question: 'Where was Gideon Tancred Halvorsen born?', answers: [], answerType: 'location' },
  {
    id: 'u-album',
    dataset: 'unseen',
    source: 'T18',
    question: 'What is the title of the debut album released by Esme Rosamund Loxley?',
    answers: [],
    answerType: 'other',
  },
];
const R_SEEN: QAItem[] = [
  { id: 'rs-1', dataset: 'seen', source: 'nq', question: 'What is the capital of Italy?', answers: ['Rome'] },
  { id: 'rs-2', dataset: 'seen', source: 'nq', question: 'Who wrote Macbeth?', answers: ['William Shakespeare'] },
  { id: 'rs-3', dataset: 'seen', source: 'nq', question: 'What is the height of Mont Blanc?', answers: ['4808 m'] },
  { id: 'rs-4', dataset: 'seen', source: 'nq', question: 'Who painted the Mona Lisa?', answers: ['Leonardo da Vinci'] },
];
const R_UNSEEN: QAItem[] = [
  { id: 'ru-1', dataset: 'unseen', source: 'T13', question: 'Where was Ilse Tiberius Ormerod born?', answers: ['unsure'] },
  { id: 'ru-2', dataset: 'unseen', source: 'T18', question: 'What is the title of the debut album released by Bram Oswin Vowell?', answers: ['unsure'] },
];

/** A scripted base model: answers the last QUESTION of the prompt, then runs on like base models do. */
function scriptedModel(prompt: string): string {
  const last = prompt.slice(prompt.lastIndexOf('QUESTION: ') + 10, prompt.lastIndexOf('\nANSWER:'));
  const answers: Record<string, string> = {
    'What is the capital of France?': ' Paris\nQUESTION: What is the capital of Spain?\nANSWER: Madrid',
    'Who wrote Hamlet?': ' Shakespeare, I think',
    'What is the height of Mount Everest in metres?': ' 8848 8848 8848 8848 8848',
    'Where was Gideon Tancred Halvorsen born?': ' Oslo, Norway\n',
    'What is the title of the debut album released by Esme Rosamund Loxley?': ' unsure\nQUESTION:',
  };
  return answers[last] ?? ' unsure';
}

function judgeReply(prompt: string): string {
  return prompt.includes('prediction: Shakespeare, I think\n') ? ' yes' : ' no';
}

function workdir(): string {
  const dir = tempDir('llmkb-ask-');
  writeFileSync(join(dir, 'questions.jsonl'), toJsonl(ITEMS));
  writeFileSync(join(dir, 'r_seen.jsonl'), toJsonl(R_SEEN));
  writeFileSync(join(dir, 'r_unseen.jsonl'), toJsonl(R_UNSEEN));
  return dir;
}

/** Runs `llmkb ARGS` in `dir` and kills it (SIGKILL) once the server has received `calls` requests; the requests received by then. */
async function killAfterRequests(dir: string, args: string[], server: { requests: unknown[] }, calls: number): Promise<number> {
  const bin = join(import.meta.dirname, '..', 'bin', 'llmkb.js');
  const child = spawn(process.execPath, [bin, ...args], { cwd: dir, stdio: 'ignore', env: { ...process.env, CI: '1' } });
  while (server.requests.length < calls) await new Promise((r) => setTimeout(r, 10));
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  return server.requests.length;
}

/** Runs the finished command again, writing `again`: the same bytes as `first`, and no call to the server. */
async function assertFinishedRunCallsNothing(
  dir: string,
  argsWithOutput: (out: string) => string[],
  first: string,
  again: string,
  server: { requests: unknown[] },
): Promise<void> {
  const calls = server.requests.length;
  const rerun = await llmkb(argsWithOutput(again), { cwd: dir });
  assert.equal(rerun.code, 0);
  assert.equal(readFileSync(join(dir, again), 'utf8'), readFileSync(join(dir, first), 'utf8'));
  assert.equal(server.requests.length, calls, 'the finished run made no call');
}

const readRecords = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('llmkb ask + judge against a scripted loopback server', () => {
  it('asks zero-shot with the Table 6 prompt, cuts at the next QUESTION:, keeps the raw text, and labels every path', async () => {
    const server = await startOpenAICompatibleServer({
      complete: (prompt) => (prompt.startsWith('INSTRUCTION: You need to check') ? judgeReply(prompt) : scriptedModel(prompt)),
    });
    try {
      const dir = workdir();
      const spec = `vllm:${server.baseURL}/base-model`;
      const ask = await llmkb(['ask', '--model', spec, '--input', 'questions.jsonl', '-o', 'responses.jsonl'], { cwd: dir });
      assert.equal(ask.code, 0, ask.stderr);
      assert.equal(server.requests[0]!.body.prompt, qaPrompt('What is the capital of France?'));
      assert.equal(
        server.requests[0]!.body.prompt,
        'INSTRUCTION: Please answer knowledge-related questions directly. Note: Please do not give anything other than the answer; Say "unsure" if you do not know.\nQUESTION: What is the capital of France?\nANSWER:',
      );
      assert.equal(server.requests[0]!.body.max_tokens, 100);
      assert.equal(server.requests[0]!.body.temperature, 0);
      const responses = readRecords(join(dir, 'responses.jsonl'));
      assert.equal(responses.length, 5);
      assert.equal(responses[0]!.response, 'Paris');
      assert.match(String(responses[0]!.rawResponse), /QUESTION: What is the capital of Spain\?/);

      const judged = await llmkb(['judge', '-i', 'responses.jsonl', '-o', 'labeled.jsonl', '--judge', `vllm:${server.baseURL}/judge-model`], { cwd: dir });
      assert.equal(judged.code, 0, judged.stderr);
      const labels = Object.fromEntries(readRecords(join(dir, 'labeled.jsonl')).map((r) => [r.id, [r.label, r.uninformativeType, r.judgedBy]]));
      assert.deepEqual(labels['q-france'], ['correct', null, 'exact-match']);
      assert.deepEqual(labels['q-hamlet'], ['correct', null, 'llm:openai-compatible:vllm:judge-model:api=completions']);
      assert.deepEqual(labels['q-everest'], ['uninformative', 'repetition', 'rule:repetition-ngram']);
      assert.deepEqual(labels['u-born'], ['wrong', null, 'rule:unseen-informative']);
      assert.deepEqual(labels['u-album'], ['uninformative', 'unsure', 'rule:unsure-answer']);
      assert.doesNotMatch(judged.stdout, /APPROXIMATE/);

      const lexical = await llmkb(['judge', '-i', 'responses.jsonl', '-o', 'lexical.jsonl', '--no-judge'], { cwd: dir });
      assert.match(lexical.stdout, /APPROXIMATE/);
      assert.ok(readRecords(join(dir, 'lexical.jsonl')).find((r) => r.id === 'q-hamlet')!.approximate);
    } finally {
      await server.close();
    }
  });

  it('builds four-shot-2 prompts from the nearest R_seen and R_unseen questions, in a seeded order', async () => {
    // A scripted model (the mock provider) that keeps the prompts it was sent.
    const model = new MockModel({ replies: ({ prompt }) => scriptedModel(prompt), identity: 'scripted-base-model' });
    const { Bm25ShotSelector } = await import('../src/methods/reliability/prompts/shot-selector.js');
    const ask = (db: ReturnType<typeof openDatabase>) =>
      askQuestions({
        items: ITEMS,
        executor: new ModelExecutor(model, { cache: new CallCache(db) }),
        setting: 'four-shot-2',
        seed: 42,
        selector: new Bm25ShotSelector(R_SEEN, R_UNSEEN),
        maxTokens: 100,
        runs: new RunStore(db),
        progress: { quiet: true },
      });
    const a = await ask(openDatabase(':memory:'));
    const hamlet = model.calls.map((c) => c.prompt).find((p) => p.endsWith('QUESTION: Who wrote Hamlet?\nANSWER:'))!;
    assert.equal(hamlet.split('QUESTION: ').length - 1, 5, 'four shots and the question');
    assert.equal((hamlet.match(/ANSWER: unsure\n/g) ?? []).length, 2);
    assert.match(hamlet, /QUESTION: Who wrote Macbeth\?\nANSWER: William Shakespeare\n/, 'the nearest seen shot is used');
    assert.equal(a.records.find((r) => r.id === 'q-hamlet')!.shots.length, 4);
    // again, in a fresh store: the same shots in the same order, the same records
    const b = await ask(openDatabase(':memory:'));
    assert.deepEqual(b.records, a.records);
  });

  it('fails clearly on a prompt longer than the context window, or drops shots with --reduce-shots', async () => {
    // refuses prompts with more than two shots, in vLLM's words
    const server = await startOpenAICompatibleServer({ complete: scriptedModel, contextLimit: (prompt) => prompt.split('QUESTION: ').length - 2 > 2 });
    try {
      const dir = workdir();
      const base = [
        'ask',
        '--model',
        `vllm:${server.baseURL}/small-context`,
        '--input',
        'questions.jsonl',
        '--r-seen',
        'r_seen.jsonl',
        '--r-unseen',
        'r_unseen.jsonl',
        '--setting',
        'four-shot',
      ];
      const fail = await llmkb([...base, '-o', 'x.jsonl'], { cwd: dir });
      assert.equal(fail.code, 2);
      assert.match(fail.stderr, /maximum context length is 2048 tokens/);
      assert.match(fail.stderr, /hint: .*--reduce-shots/);
      const reduced = await llmkb([...base, '--reduce-shots', '-o', 'y.jsonl'], { cwd: dir });
      assert.equal(reduced.code, 0, reduced.stderr);
      const records = readRecords(join(dir, 'y.jsonl'));
      assert.ok(records.every((r) => r.shotsDropped === 2 && (r.shots as string[]).length === 2));
      assert.match(reduced.stdout, /5 prompts had shots dropped/);
    } finally {
      await server.close();
    }
  });

  it('resumes after kill -9: answered questions are not asked again, and a finished run asks nothing', async () => {
    const many: QAItem[] = Array.from({ length: 30 }, (_, i) => ({
      id: `u-${i}`,
      dataset: 'unseen',
      source: 'T20',
      question: `What is the occupation of Person Number${i}?`,
      answers: [],
    }));
    const server = await startOpenAICompatibleServer({ delayMs: 40, complete: () => ' teacher' });
    try {
      const dir = workdir();
      writeFileSync(join(dir, 'many.jsonl'), toJsonl(many));
      writeFileSync(join(dir, 'llmkb.config.json'), JSON.stringify({ model: { spec: `vllm:${server.baseURL}/m`, concurrency: 2 } }));
      const before = await killAfterRequests(dir, ['ask', '--input', 'many.jsonl', '-o', 'r.jsonl'], server, 12);
      const resumed = await llmkb(['ask', '--input', 'many.jsonl', '-o', 'r.jsonl'], { cwd: dir });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(readRecords(join(dir, 'r.jsonl')).length, 30);
      const asked = server.requests.map((r) => String(r.body.prompt));
      const repeats = asked.length - new Set(asked).size;
      assert.ok(repeats <= 2, `${repeats} prompts were sent twice (only the ${2} in flight at the kill may be)`);
      assert.ok(server.requests.length - before <= 30 - before + 2);
      await assertFinishedRunCallsNothing(dir, (out) => ['ask', '--input', 'many.jsonl', '-o', out], 'r.jsonl', 'r2.jsonl', server);
    } finally {
      await server.close();
    }
  });

  it('a large judge stage resumes after kill -9 and loses nothing', async () => {
    // 2,500 seen responses that no rule decides: each needs the judge LLM, so records are
    // committed in many groups while calls are in flight.
    const n = 2500;
    const responses = Array.from({ length: n }, (_, i) => ({
      id: `s-${i}`,
      dataset: 'seen',
      source: 'nq',
      question: `Who founded company number ${i}?`,
      answers: [`Founder ${i}`],
      response: `Person ${i}`,
    }));
    const server = await startOpenAICompatibleServer({ delayMs: 4, complete: (prompt) => (/number \d*7\?/.test(prompt) ? ' yes' : ' no') });
    try {
      const dir = workdir();
      writeFileSync(join(dir, 'responses.jsonl'), toJsonl(responses));
      writeFileSync(join(dir, 'llmkb.config.json'), JSON.stringify({ judge: { spec: `vllm:${server.baseURL}/judge-model`, concurrency: 8 } }));
      // Past the first commits (every 200 ms), well before the end.
      const before = await killAfterRequests(dir, ['judge', '-i', 'responses.jsonl', '-o', 'labeled.jsonl'], server, 900);
      assert.ok(before < n, `the stage was killed before its end (${before} calls)`);
      const resumed = await llmkb(['judge', '-i', 'responses.jsonl', '-o', 'labeled.jsonl'], { cwd: dir });
      assert.equal(resumed.code, 0, resumed.stderr);
      const labeled = readRecords(join(dir, 'labeled.jsonl'));
      assert.deepEqual(
        labeled.map((r) => r.id),
        responses.map((r) => r.id),
      );
      for (const r of labeled) assert.equal(r.label, /7$/.test(String(r.id)) ? 'correct' : 'wrong', String(r.id));
      // Calls answered before the kill came from the cache: only those in flight then were sent
      // again, and those answered in the very tick of the kill (the journal is written at its end).
      const prompts = server.requests.map((r) => String(r.body.prompt));
      assert.equal(new Set(prompts).size, n);
      assert.ok(prompts.length - n <= 16, `${prompts.length - n} judge calls were made twice (at most the 8 in flight and 8 answered in the tick of the kill)`);
      await assertFinishedRunCallsNothing(dir, (out) => ['judge', '-i', 'responses.jsonl', '-o', out], 'labeled.jsonl', 'labeled-again.jsonl', server);
    } finally {
      await server.close();
    }
  });
});

describe('ask on $LLMKB_TEST_GGUF (real model: mechanics, not accuracy)', { skip: process.env.LLMKB_TEST_GGUF ? false : 'LLMKB_TEST_GGUF is not set' }, () => {
  it('answers every question in each setting, and a finished run is read back without model calls', async () => {
    const model = await LlamaModel.load({ model: process.env.LLMKB_TEST_GGUF!, modelsDir: tmpdir(), threads: 1 });
    try {
      const db = openDatabase(':memory:');
      const runs = new RunStore(db);
      const executor = new ModelExecutor(model, { cache: new CallCache(db) });
      const { Bm25ShotSelector } = await import('../src/methods/reliability/prompts/shot-selector.js');
      const selector = new Bm25ShotSelector(R_SEEN, R_UNSEEN);
      const first = await askQuestions({ items: ITEMS, executor, setting: 'four-shot-2', seed: 1, selector, maxTokens: 24, runs, progress: { quiet: true } });
      assert.equal(first.records.length, ITEMS.length);
      for (const r of first.records) {
        assert.equal(typeof r.response, 'string');
        assert.ok(r.rawResponse.length > 0);
        assert.ok(!r.response.includes('QUESTION:'));
        assert.equal(r.shots.length, 4);
      }
      const calls = executor.accounting.calls;
      const second = await askQuestions({ items: ITEMS, executor, setting: 'four-shot-2', seed: 1, selector, maxTokens: 24, runs, progress: { quiet: true } });
      assert.deepEqual(second.records, first.records);
      assert.equal(executor.accounting.calls, calls, 'no model call for a finished stage');
    } finally {
      await model.close();
    }
  });
});
