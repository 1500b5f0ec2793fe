import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runConsistency } from '../src/methods/reliability/consistency/consistency-stage.js';
import type { AnsweredMcq } from '../src/methods/reliability/consistency/mcq.js';
import { ModelExecutor } from '../src/executor/model-executor.js';
import type { JudgedRecord } from '../src/methods/reliability/judging/judge-response.js';
import { distractorPrompt, MCQ_INSTRUCTION } from '../src/methods/reliability/prompts/paper-prompts.js';
import { LlamaModel } from '../src/providers/llama/llama-model.js';
import { OpenAICompatibleModel } from '../src/providers/openai-compatible/openai-compatible-model.js';
import { CallCache } from '../src/store/call-cache.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { toJsonl } from '../src/io/jsonl.js';
import { startOpenAICompatibleServer, type TestServer } from './support/openai-compatible-server.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const judged = (id: string, question: string, response: string, label: JudgedRecord['label'], dataset: 'seen' | 'unseen' = 'seen'): JudgedRecord => ({
  id,
  dataset,
  source: dataset === 'seen' ? 'nq' : 'T13',
  question,
  answers: dataset === 'seen' ? ['William Shakespeare'] : [],
  answerType: 'person',
  response,
  label,
  uninformativeType: label === 'uninformative' ? 'unsure' : null,
  judgedBy: 'test',
  decision: { by: 'test' },
});

const RECORDS: JudgedRecord[] = [
  judged('a', 'Who wrote Hamlet?', 'William Shakespeare', 'correct'),
  judged('b', 'Who wrote Doctor Faustus?', 'Ben Jonson', 'wrong'),
  judged('c', 'Who painted the Mona Lisa?', 'unsure', 'uninformative'),
  judged('d', 'Who is the mother of Gideon Tancred Halvorsen?', 'Maria Halvorsen', 'wrong', 'unseen'),
];

/** Always picks option A, in both modes; writes 20 numbered distractors for Table 8 prompts. */
function alwaysA(): Promise<TestServer> {
  return startOpenAICompatibleServer({
    complete: (prompt) =>
      prompt.startsWith('INSTRUCTION: For the given question-answer pair')
        ? ` ${Array.from({ length: 20 }, (_, i) => `Author ${i + 1}`).join(' [SEP] ')}`
        : ' A',
    nextToken: () => ({ ' A': 0.6, ' B': 0.1, ' C': 0.1, ' D': 0.1, ' E': 0.1 }),
  });
}

function executorFor(server: TestServer, model: string): ModelExecutor {
  return new ModelExecutor(
    new OpenAICompatibleModel({ baseURLs: [server.baseURL], model, api: 'completions', echo: false, topLogprobs: 5, flavor: 'vllm', concurrency: 4 }),
    { cache: new CallCache(openDatabase(':memory:')) },
  );
}

describe('Cons(q, r) on a scripted loopback server', () => {
  for (const mode of ['generate', 'logprobs'] as const) {
    it(`a model that always picks A gets Cons = share of MCQs with the response at A (${mode})`, async () => {
      const server = await alwaysA();
      try {
        const runs = new RunStore(openDatabase(':memory:'));
        const { run, records, diagnostics } = await runConsistency({
          records: RECORDS,
          executor: executorFor(server, 'm'),
          distractor: executorFor(server, 'distractor'),
          mode,
          seed: 3,
          runs,
          progress: { quiet: true },
        });
        const stored = run.records<{ mcqs: AnsweredMcq[] }>('consistency');
        assert.deepEqual([...stored.keys()].sort(), ['a', 'b', 'd'], 'only correct and wrong responses');
        for (const r of records) {
          if (r.label === 'uninformative') {
            assert.equal(r.consistency, null);
            continue;
          }
          const mcqs = stored.get(r.id)!.mcqs;
          assert.equal(mcqs.length, 20);
          assert.equal(r.consistency, mcqs.filter((m) => m.responseLetter === 'A').length / 20);
          assert.ok(mcqs.every((m) => m.choice === 'A' && m.parse === (mode === 'generate' ? 'letter' : 'logprobs')));
          assert.ok(mcqs.every((m) => m.options.every((o) => o === r.response || o === 'unsure' || /^Author \d+$/.test(o))));
        }
        assert.equal(diagnostics.mcqs, 60);
        assert.equal(diagnostics.invalidAnswers, 0);
        const distractorRequest = server.requests.find((q) => String(q.body.prompt).startsWith('INSTRUCTION: For the given'))!;
        assert.ok(
          [
            distractorPrompt('Who wrote Hamlet?', 'William Shakespeare'),
            distractorPrompt('Who wrote Doctor Faustus?', 'Ben Jonson'),
            distractorPrompt('Who is the mother of Gideon Tancred Halvorsen?', 'Maria Halvorsen'),
          ].includes(String(distractorRequest.body.prompt)),
        );
        const mcqRequest = server.requests.find((q) => String(q.body.prompt).startsWith(MCQ_INSTRUCTION))!;
        assert.match(String(mcqRequest.body.prompt), /\nA\. .+\nB\. .+\nC\. .+\nD\. .+\nE\. .+\nANSWER:$/);
        if (mode === 'logprobs') assert.equal(mcqRequest.body.max_tokens, 1);
      } finally {
        await server.close();
      }
    });
  }

  it('is reproducible to the byte with the same seed, and counts bad distractor replies', async () => {
    const server = await startOpenAICompatibleServer({
      complete: (prompt) => {
        if (!prompt.startsWith('INSTRUCTION: For the given')) return ' B';
        if (prompt.includes('A: William Shakespeare\n')) return ' William Shakespeare [SEP] Marlowe'; // the answer itself among them, too few
        if (prompt.includes('A: Ben Jonson\n')) return '';
        return ' Anna\nBerta\nCarla\nDora';
      },
    });
    try {
      const run = async () =>
        runConsistency({
          records: RECORDS,
          executor: executorFor(server, 'm'),
          distractor: executorFor(server, 'distractor'),
          mode: 'generate',
          seed: 11,
          runs: new RunStore(openDatabase(':memory:')),
          progress: { quiet: true },
        });
      const first = await run();
      const second = await run();
      assert.equal(JSON.stringify(second.records), JSON.stringify(first.records));
      assert.equal(first.diagnostics.distractorRepliesWithTheResponse, 1);
      assert.equal(first.diagnostics.distractorRepliesEmpty, 1);
      assert.equal(first.diagnostics.distractorRepliesWithoutSeparator, 2, 'the empty reply and the line list');
      assert.equal(first.diagnostics.pairsToppedUpFromPool, 2, 'fewer than 3 usable: topped up from the answer pool');
      const a = first.records.find((r) => r.id === 'a')!;
      assert.equal(a.consistencyDetail?.toppedUp !== undefined && a.consistencyDetail.toppedUp > 0, true);
    } finally {
      await server.close();
    }
  });
  it('counts bad MCQ replies, over-long responses and 200-item distractor replies in the diagnostics, without a crash', async () => {
    const essay = `Ben Jonson, ${'who wrote many plays and masques for the court, '.repeat(45)}`.slice(0, 2000);
    let n = 0;
    const server = await startOpenAICompatibleServer({
      complete: (prompt) => {
        if (prompt.startsWith('INSTRUCTION: For the given')) return ` ${Array.from({ length: 200 }, (_, i) => `Playwright ${i + 1}`).join(' [SEP] ')}`;
        n += 1;
        return n % 2 === 0 ? ' La réponse est B' : ' A and C';
      },
    });
    try {
      const records = [judged('a', 'Who wrote Hamlet?', 'William Shakespeare', 'correct'), judged('b', 'Who wrote Volpone?', essay, 'wrong')];
      const { records: out, diagnostics } = await runConsistency({
        records,
        executor: executorFor(server, 'm'),
        distractor: executorFor(server, 'distractor'),
        mode: 'generate',
        mcqs: 6,
        seed: 5,
        runs: new RunStore(openDatabase(':memory:')),
        progress: { quiet: true },
      });
      assert.equal(essay.length, 2000);
      assert.equal(diagnostics.mcqs, 12);
      assert.equal(diagnostics.invalidAnswers, 12, 'another language and two letters are both invalid');
      assert.equal(diagnostics.optionsShortened, 6, 'every MCQ of the 2,000-character response');
      assert.equal(diagnostics.distractorRepliesOverTwenty, 2);
      assert.deepEqual(
        out.map((r) => r.consistency),
        [0, 0],
        'an invalid answer never counts as choosing the response',
      );
    } finally {
      await server.close();
    }
  });

  it("generate mode leaves room for an answer given as the option's text, and stops at the end of the answer line", async () => {
    const long = 'The Honourable Company of Master Mariners of the City of London';
    const server = await startOpenAICompatibleServer({
      complete: (prompt) => {
        if (prompt.startsWith('INSTRUCTION: For the given')) return ` ${Array.from({ length: 20 }, (_, i) => `Guild ${i + 1}`).join(' [SEP] ')}`;
        return ` ${long}\nQUESTION: Who else? ${'and more words '.repeat(40)}`;
      },
    });
    try {
      const records = [judged('g', 'Which livery company owns HQS Wellington?', long, 'correct')];
      const {
        run,
        records: out,
        diagnostics,
      } = await runConsistency({
        records,
        executor: executorFor(server, 'm'),
        distractor: executorFor(server, 'distractor'),
        mode: 'generate',
        mcqs: 5,
        seed: 2,
        runs: new RunStore(openDatabase(':memory:')),
        progress: { quiet: true },
      });
      assert.equal(diagnostics.invalidAnswers, 0);
      assert.equal(out[0]!.consistency, 1, 'the option text names the response every time');
      const mcqs = run.records<{ mcqs: AnsweredMcq[] }>('consistency').get('g')!.mcqs;
      assert.ok(
        mcqs.every((m) => m.parse === 'option-text' && m.raw === ` ${long}`),
        'cut at the end of the answer line, nothing lost to the budget',
      );
      const request = server.requests.find((q) => String(q.body.prompt).startsWith(MCQ_INSTRUCTION))!;
      assert.ok(Number(request.body.max_tokens) >= 12 && Number(request.body.max_tokens) <= 100);
      assert.deepEqual(request.body.stop, ['\n'], 'the answer line ends the answer (answer-line-v1)');
    } finally {
      await server.close();
    }
  });
});

describe('llmkb consistency', () => {
  it('scores labelled records end to end, reports mode agreement, and reruns from the cache', async () => {
    const server = await alwaysA();
    const dir = tempDir('llmkb-cons-');
    try {
      writeFileSync(join(dir, 'labeled.jsonl'), toJsonl(RECORDS));
      const args = [
        'consistency',
        '-i',
        'labeled.jsonl',
        '-o',
        'consistency.jsonl',
        '--model',
        `vllm:${server.baseURL}/m`,
        '--distractor',
        `vllm:${server.baseURL}/distractor`,
        '--mcqs',
        '4',
      ];
      const first = await llmkb(args, { cwd: dir });
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /Cons\(q, r\) for 3 correct\/wrong responses, 12 MCQs \(generate; distractors: LLM /, "the paper's answer mode by default");
      assert.match(
        first.stdout,
        /answer-mode check \(a check, not part of the metrics\): the 12 MCQs of 3 seeded sampled pair\(s\), asked again in \w+ mode, got the option the run's \w+ mode chose in 12\/12 \(100\.0%\)\. Read: the consistency metrics \(C_correct, C_wrong, NCCR, IUR\) hardly depend/,
        'all three pairs sampled, both modes pick A',
      );
      const out = readFileSync(join(dir, 'consistency.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; consistency: number | null });
      assert.deepEqual(
        out.map((r) => r.id),
        ['a', 'b', 'c', 'd'],
      );
      assert.ok(out.every((r) => (r.id === 'c' ? r.consistency === null : typeof r.consistency === 'number')));
      const calls = server.requests.length;
      const again = await llmkb([...args, '-o', 'again.jsonl'], { cwd: dir });
      assert.equal(again.code, 0, again.stderr);
      assert.equal(server.requests.length, calls, 'finished stage and cached comparison: no model call');
      assert.equal(readFileSync(join(dir, 'again.jsonl'), 'utf8'), readFileSync(join(dir, 'consistency.jsonl'), 'utf8'));
      const bad = await llmkb(['consistency', '-i', 'missing.jsonl', '--model', `vllm:${server.baseURL}/m`], { cwd: dir });
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /missing\.jsonl/);
      assert.doesNotMatch(bad.stderr, /\n\s+at /, 'no stack trace');
    } finally {
      await server.close();
    }
  });
});

describe('both answer modes on $LLMKB_TEST_GGUF', { skip: process.env.LLMKB_TEST_GGUF ? false : 'LLMKB_TEST_GGUF is not set' }, () => {
  it('scores Cons in [0, 1] in logprobs and generate mode', async () => {
    const model = await LlamaModel.load({ model: process.env.LLMKB_TEST_GGUF!, modelsDir: tmpdir(), threads: 1 });
    try {
      for (const mode of ['logprobs', 'generate'] as const) {
        const executor = new ModelExecutor(model, { cache: null });
        const { records, diagnostics } = await runConsistency({
          records: RECORDS,
          executor,
          mode,
          mcqs: 4,
          seed: 1,
          runs: new RunStore(openDatabase(':memory:')),
          progress: { quiet: true },
        });
        for (const r of records.filter((x) => x.label !== 'uninformative')) {
          assert.ok(r.consistency !== null && r.consistency >= 0 && r.consistency <= 1);
          assert.equal(r.consistencyDetail?.mode, mode);
        }
        assert.equal(diagnostics.mcqs, 12);
        if (mode === 'logprobs') assert.equal(diagnostics.invalidAnswers, 0, 'a letter always has a probability');
        assert.ok(diagnostics.tokensEvaluatedPerMcq > 0);
      }
    } finally {
      await model.close();
    }
  });
});
