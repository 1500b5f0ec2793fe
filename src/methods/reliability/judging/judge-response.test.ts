import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startOpenAICompatibleServer } from '#test-support/openai-compatible-server.js';
import { ModelExecutor } from '../../../executor/model-executor.js';
import { judgePrompt } from '../prompts/paper-prompts.js';
import { OpenAICompatibleModel } from '../../../providers/openai-compatible/openai-compatible-model.js';
import { CallCache } from '../../../store/call-cache.js';
import { openDatabase } from '../../../store/database.js';
import { judgeByRules, parseJudgeReply, ResponseJudge, type ResponseRecord } from './judge-response.js';
import { lexicalMatch } from './lexical-match.js';
import { normalizeAnswer } from '../../../text/normalize-answer.js';

const seen = (response: string, answers = ['William Shakespeare', 'Roma Gill']): ResponseRecord => ({
  id: 's1',
  dataset: 'seen',
  source: 'nq',
  question: 'Who authored The Taming of the Shrew?',
  answers,
  response,
});
const unseen = (response: string): ResponseRecord => ({
  id: 'u1',
  dataset: 'unseen',
  source: 'T13',
  question: 'Where was Gideon Tancred Halvorsen born?',
  answers: [],
  response,
});

function judgeExecutor(baseURL: string): ModelExecutor {
  return new ModelExecutor(
    new OpenAICompatibleModel({ baseURLs: [baseURL], model: 'judge-model', api: 'completions', echo: false, topLogprobs: 5, flavor: 'vllm', concurrency: 4 }),
    { cache: new CallCache(openDatabase(':memory:')) },
  );
}

describe('SQuAD normalisation', () => {
  it('lower-cases, strips punctuation and articles, collapses white space', () => {
    assert.equal(normalizeAnswer('  The   Beatles! '), 'beatles');
    assert.equal(normalizeAnswer("Ain't it a Shame?"), 'aint it shame');
    assert.equal(normalizeAnswer('U.S.A.'), 'usa');
  });
});

describe('judging by rules', () => {
  it('labels uninformative responses first, with their sub-type and rule', () => {
    const r = judgeByRules(seen('I am not sure.'))!;
    assert.equal(r.label, 'uninformative');
    assert.equal(r.uninformativeType, 'unsure');
    assert.equal(r.judgedBy, 'rule:unsure-answer');
  });

  it('marks an exact match (after normalisation) against any alias correct', () => {
    const r = judgeByRules(seen('roma gill.'))!;
    assert.equal(r.label, 'correct');
    assert.equal(r.judgedBy, 'exact-match');
    assert.match(r.decision.detail!, /Roma Gill/);
  });

  it('matches an alias whose normalised form is longer than the alias ("İ" lower-cases to two code units)', () => {
    const r = judgeByRules(seen('i\u0307stanbul', ['İstanbul']))!;
    assert.equal(r.label, 'correct');
    assert.equal(judgeByRules(seen('Saldaña', ['Saldaña']))!.label, 'correct');
  });

  it('marks an informative answer to an unseen question wrong', () => {
    const r = judgeByRules(unseen('Oslo'))!;
    assert.equal(r.label, 'wrong');
    assert.equal(r.judgedBy, 'rule:unseen-informative');
    assert.equal(judgeByRules(unseen('unsure'))!.label, 'uninformative');
  });

  it('leaves a seen, informative, non-matching response to the judge', () => {
    assert.equal(judgeByRules(seen('W Shakespeare')), undefined);
  });
});

describe('the judge LLM (paper Table 7) on a loopback server', () => {
  it('sends the Table 7 prompt and follows a strict yes/no', async () => {
    const server = await startOpenAICompatibleServer({ complete: (prompt) => (prompt.endsWith('prediction: W Shakespeare\n\nCorrectness:') ? ' yes' : ' no') });
    try {
      const judge = new ResponseJudge({ judge: judgeExecutor(server.baseURL) });
      const yes = await judge.judge(seen('W Shakespeare'));
      assert.equal(yes.record.label, 'correct');
      assert.equal(yes.record.judgedBy, 'llm:openai-compatible:vllm:judge-model:api=completions');
      assert.deepEqual(yes.record.decision.replies, [' yes']);
      assert.equal(
        server.requests[0]!.body.prompt,
        judgePrompt('Who authored The Taming of the Shrew?', ['William Shakespeare', 'Roma Gill'], 'W Shakespeare'),
      );
      assert.match(
        String(server.requests[0]!.body.prompt),
        /Ground truth: \["William Shakespeare","Roma Gill"\]\n\nprediction: W Shakespeare\n\nCorrectness:$/,
      );
      const no = await judge.judge(seen('Christopher Marlowe'));
      assert.equal(no.record.label, 'wrong');
      assert.equal(no.record.approximate, undefined);
    } finally {
      await server.close();
    }
  });

  it('retries an unparseable reply once, then falls back to the lexical rule and says so', async () => {
    const replies = new Map<number, string>([
      [0, ' Maybe.'],
      [1, ' Correctness: yes'],
      [2, ' Hmm'],
      [3, ' I cannot tell'],
    ]);
    let n = 0;
    const server = await startOpenAICompatibleServer({ complete: () => replies.get(n++) ?? ' no' });
    try {
      const judge = new ResponseJudge({ judge: judgeExecutor(server.baseURL) });
      const retried = await judge.judge(seen('W. Shakespeare'));
      assert.equal(retried.record.label, 'correct');
      assert.deepEqual(retried.record.decision.replies, [' Maybe.', ' Correctness: yes']);
      assert.equal(server.requests[1]!.body.max_tokens, 20);
      const fallback = await judge.judge(seen('Marlowe'));
      assert.equal(fallback.record.judgedBy, 'lexical (judge reply unparseable)');
      assert.equal(fallback.record.label, 'wrong');
      assert.equal(fallback.record.approximate, true);
      assert.deepEqual(fallback.record.decision.replies, [' Hmm', ' I cannot tell']);
      assert.deepEqual(judge.stats, { judgeCalls: 4, unparseableReplies: 3, lexicalFallbacks: 1 });
    } finally {
      await server.close();
    }
  });

  it('parses replies strictly', () => {
    assert.equal(parseJudgeReply(' Yes'), true);
    assert.equal(parseJudgeReply('no.'), false);
    assert.equal(parseJudgeReply('yes\nQuestion: ...'), true);
    assert.equal(parseJudgeReply('Yesterday'), undefined);
    assert.equal(parseJudgeReply('The answer is yes'), undefined);
  });
});

describe('without a judge LLM', () => {
  it('uses the lexical rule and marks the label approximate', async () => {
    const judge = new ResponseJudge();
    const r = await judge.judge(seen('It was William Shakespeare'));
    assert.equal(r.record.label, 'correct');
    assert.equal(r.record.judgedBy, 'lexical');
    assert.equal(r.record.decision.detail, 'lexical-v3 containment: contains "William Shakespeare"', 'the rule that matched is on the record');
    assert.equal(r.record.approximate, true);
    assert.equal((await judge.judge(seen('Marlowe'))).record.label, 'wrong');
  });

  it('lexical rule: whole-word containment or token F1 >= 0.6', () => {
    assert.ok(lexicalMatch('it was William Shakespeare', ['William Shakespeare']).correct);
    assert.ok(!lexicalMatch('Shakespeareanism', ['Shakespeare']).correct);
    assert.ok(lexicalMatch('Shakespeare William', ['William Shakespeare']).correct);
    assert.ok(!lexicalMatch('W Shakespeare', ['William Shakespeare']).correct, 'F1 0.5 is below the bar');
  });
});
