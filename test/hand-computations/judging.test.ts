/**
 * Judging one response by hand: the SQuAD normalisation on cases worked out from the official
 * script's four steps, the thresholds of the repetition rules and of the restatement rule at
 * their boundaries (one response on each side, the counts written out), the order of the rules,
 * the Table 7 reply parse with its one lenient retry, and the lexical judge's token-F1 threshold.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ModelExecutor } from '../../src/executor/model-executor.js';
import {
  JUDGE_REPLY_UNPARSEABLE,
  judgeByRules,
  parseJudgeReply,
  ResponseJudge,
  type ResponseRecord,
} from '../../src/methods/reliability/judging/judge-response.js';
import { lexicalMatch } from '../../src/methods/reliability/judging/lexical-match.js';
import { detectRepetition, detectUninformative } from '../../src/methods/reliability/judging/uninformative.js';
import { MockModel } from '../../src/providers/mock/mock-model.js';
import { normalizeAnswer } from '../../src/text/normalize-answer.js';

describe('SQuAD normalisation: lower-case, drop punctuation, drop a/an/the, collapse white space', () => {
  const table: Array<[string, string]> = [
    ['The Beatles', 'beatles'],
    ['  An   Apple a day ', 'apple day'],
    ["Rock 'n' Roll!", 'rock n roll'],
    ['U.S.A.', 'usa'],
    ['theatre', 'theatre'],
    ['Athena', 'athena'],
    ['the-the', 'thethe'], // punctuation goes first, so no article is left standing alone
    ['A.B.', 'ab'],
    ['\tTwo\nlines\u00a0here', 'two lines here'],
    ['“Quoted”', '“quoted”'],
  ];
  for (const [input, output] of table) it(`${JSON.stringify(input)} -> ${JSON.stringify(output)}`, () => assert.equal(normalizeAnswer(input), output));
});

describe('repetition thresholds', () => {
  it('n-gram loop: at least 3 times back to back, covering at least half of the tokens', () => {
    // "go" x3 then 3 other words: 3 of 6 tokens = 0.5 -> a loop.
    assert.equal(detectRepetition('go go go alpha beta gamma')?.rule, 'rule:repetition-ngram');
    // 3 of 7 tokens < 0.5, and 7 tokens is too few for the word-frequency rules.
    assert.equal(detectRepetition('go go go alpha beta gamma delta'), undefined);
    // Twice is not a loop.
    assert.equal(detectRepetition('go go alpha'), undefined);
    // "red blue" x3 = 6 of 8 tokens.
    assert.deepEqual(detectRepetition('red blue red blue red blue green white'), {
      type: 'repetition',
      rule: 'rule:repetition-ngram',
      detail: '"red blue" x3',
    });
  });

  it('vocabulary: 8 tokens or more, distinct words at most 30% of them', () => {
    // 10 tokens, 3 distinct (paris, rome, lyon): 0.3, and no run of one n-gram three times.
    assert.equal(detectRepetition('paris rome lyon lyon rome paris paris lyon rome rome')?.rule, 'rule:repetition-vocabulary');
    // 10 tokens, 4 distinct: 0.4; the most frequent word (rome) 3 times: under the frequency rule's 4.
    assert.equal(detectRepetition('paris rome lyon lyon rome paris nice lyon rome paris'), undefined);
  });

  it('frequency: one content word at least 4 times and at least 35% of the tokens', () => {
    // paris: 4 of 10 tokens = 0.4 (distinct 6/10).
    assert.equal(detectRepetition('paris is big and paris is old but paris paris')?.rule, 'rule:repetition-frequency');
    // paris: 4 of 12 = 0.33.
    assert.equal(detectRepetition('paris is big and paris is old but paris was paris too'), undefined);
    // paris: 3 of 8 = 0.375, but only 3 times.
    assert.equal(detectRepetition('paris big paris old paris new york city'), undefined);
  });

  it('lines: one sentence at least 3 times and at least half of the sentences', () => {
    // "it rained" 3 of 5 sentences.
    assert.equal(detectRepetition('It rained. The sun shone. It rained. Birds sang. It rained.')?.rule, 'rule:repetition-lines');
    // 3 of 7.
    assert.equal(detectRepetition('It rained. The sun shone. It rained. Birds sang. It rained. Cats slept. Dogs ran.'), undefined);
  });
});

describe("restatement threshold: nothing new and at least 60% of the question's content words", () => {
  // Content words of the question, stemmed: river, flow, through, city, paris (5).
  const q = 'Which river flows through the city of Paris?';
  it('3 of 5 (0.6) is a restatement; 2 of 5 is not', () => {
    assert.deepEqual(detectUninformative('river through Paris', q), { type: 'none', rule: 'rule:restates-question', detail: 'a restatement of the question' });
    assert.equal(detectUninformative('river Paris', q), undefined);
  });
  it('a new word makes it an answer', () => {
    assert.equal(detectUninformative('the Seine river flows through Paris', q), undefined);
  });
});

describe('the order of the rules: uninformative, then unseen, then exact match', () => {
  const seen = (response: string, answers = ['The Beatles']): ResponseRecord => ({
    id: 's',
    dataset: 'seen',
    source: 'nq',
    question: 'Which band recorded Abbey Road?',
    answers,
    response,
  });
  it('exact match after SQuAD normalisation of both sides', () => {
    const r = judgeByRules(seen('  the beatles!! '))!;
    assert.equal(r.label, 'correct');
    assert.equal(r.judgedBy, 'exact-match');
    assert.equal(judgeByRules(seen('Beatles', ['Fab Four', 'the Beatles.']))?.label, 'correct', 'any accepted answer');
    assert.equal(judgeByRules(seen('The Rolling Stones')), undefined, 'not decided by the rules: the judge LLM decides');
  });
  it('an uninformative response is uninformative even when a gold answer says the same', () => {
    assert.equal(judgeByRules(seen('unsure', ['Unsure']))?.label, 'uninformative');
  });
  it('unseen: uninformative or wrong, never correct', () => {
    const unseen = (response: string): ResponseRecord => ({
      id: 'u',
      dataset: 'unseen',
      source: 'T5',
      question: 'Where was Gideon Halvorsen born?',
      answers: [],
      response,
    });
    assert.equal(judgeByRules(unseen('Oslo'))?.label, 'wrong');
    assert.equal(judgeByRules(unseen("I don't know."))?.label, 'uninformative');
  });
});

describe('the judge LLM (Table 7): its reply must start with yes or no; one lenient retry; then the lexical rule', () => {
  it('strict parse', () => {
    for (const [reply, verdict] of [
      [' Yes.', true],
      ['no, because', false],
      ['NO', false],
      ['Correctness: yes', undefined],
      ['yesterday', undefined],
      ['', undefined],
    ] as const) {
      assert.equal(parseJudgeReply(reply), verdict, JSON.stringify(reply));
    }
  });

  async function judgeWith(first: string, retry: string, response = 'The Rolling Stones', answers = ['The Beatles']) {
    const prompts: string[] = [];
    const model = new MockModel({
      replies: (call) => {
        prompts.push(call.prompt);
        return prompts.length === 1 ? first : retry;
      },
      identity: `judge-${first}-${retry}`,
    });
    const judge = new ResponseJudge({ judge: new ModelExecutor(model, { cache: null }) });
    const { record } = await judge.judge({ id: 's', dataset: 'seen', source: 'nq', question: 'Which band recorded Abbey Road?', answers, response });
    return { record, prompts, stats: judge.stats };
  }

  it('"yes" is correct and "no" is wrong, decided by the LLM, in one call', async () => {
    const yes = await judgeWith(' yes', 'unused');
    assert.equal(yes.record.label, 'correct');
    assert.equal(yes.record.judgedBy, 'llm:mock:judge- yes-unused');
    assert.equal(yes.prompts.length, 1);
    assert.equal((await judgeWith('No.', 'unused')).record.label, 'wrong');
  });

  it('an unparseable reply gets one retry, parsed leniently (exactly one of yes / no)', async () => {
    const r = await judgeWith('Correctness:', 'Correctness: yes');
    assert.equal(r.record.label, 'correct');
    assert.equal(r.prompts.length, 2);
    assert.equal(r.stats.unparseableReplies, 1);
    assert.deepEqual(r.record.decision.replies, ['Correctness:', 'Correctness: yes']);
  });

  it('two unparseable replies: the lexical rule decides, and the label is marked approximate', async () => {
    const r = await judgeWith('Hmm', 'yes and no', 'It was The Beatles, in 1969.');
    assert.equal(r.record.judgedBy, JUDGE_REPLY_UNPARSEABLE);
    assert.equal(r.record.label, 'correct', 'the lexical rule finds the answer contained');
    assert.equal(r.record.approximate, true);
    assert.equal(r.stats.lexicalFallbacks, 1);
  });

  it('without a judge LLM the lexical rule decides, approximate', async () => {
    const { record } = await new ResponseJudge().judge({ id: 's', dataset: 'seen', source: 'nq', question: 'q?', answers: ['Paris'], response: 'Lyon' });
    assert.equal(record.label, 'wrong');
    assert.equal(record.approximate, true);
  });
});

describe('the lexical judge: token F1 of at least 0.6', () => {
  // 3 of 5 tokens shared with a 5-token answer: F1 = 2 x 3 / (5 + 5) = 0.6. No other rule
  // matches: the answer is not contained, and 3/5 of its words is under answer-recall's 2/3.
  it('F1 = 0.6 is correct', () => {
    assert.deepEqual(lexicalMatch('apple banana cherry fig grape', ['apple banana cherry date elder']), {
      correct: true,
      rule: 'token-f1',
      detail: 'token F1 0.60 with "apple banana cherry date elder"',
    });
  });
  it('F1 = 2 x 3 / (6 + 5) = 0.55 is not', () => {
    assert.equal(lexicalMatch('apple banana cherry fig grape kiwi', ['apple banana cherry date elder']).correct, false);
  });
  it('answer recall: 2 of 3 content words with the last one is correct; 1 of 3 is not', () => {
    assert.equal(lexicalMatch('It was Maxwell Kagasoff.', ['Daren Maxwell Kagasoff']).rule, 'answer-recall');
    assert.equal(lexicalMatch('It was Kagasoff.', ['Daren Maxwell Kagasoff']).correct, false);
  });
});
