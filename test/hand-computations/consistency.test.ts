/**
 * Consistency (paper section 2.2, Eq. 4) by hand: the answer pool never hands out one answer
 * twice, no MCQ set repeats an option, a chosen letter or option text is parsed as the table
 * below says, and Cons(q, r) of a whole stage run is the share of MCQs in which a model with a
 * known rule picks r, counted here from the prompts it was sent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ModelExecutor } from '../../src/executor/model-executor.js';
import { runConsistency } from '../../src/methods/reliability/consistency/consistency-stage.js';
import { AnswerPool, distractorsFor } from '../../src/methods/reliability/consistency/distractors.js';
import {
  answerMcq,
  buildMcqs,
  consistencyScore,
  LETTERS,
  parseChoice,
  UNSURE_OPTION,
  type AnsweredMcq,
  type Mcq,
} from '../../src/methods/reliability/consistency/mcq.js';
import type { JudgedRecord } from '../../src/methods/reliability/judging/judge-response.js';
import { MockModel, type MockCall } from '../../src/providers/mock/mock-model.js';
import { SeededRandom } from '../../src/sampling/seeded-random.js';
import { openDatabase } from '../../src/store/database.js';
import { RunStore } from '../../src/store/run-store.js';
import { normalizeAnswer } from '../../src/text/normalize-answer.js';

function assertDistinct(values: readonly string[], what: string): void {
  const keys = values.map(normalizeAnswer);
  assert.equal(new Set(keys).size, keys.length, `${what} repeats an answer: ${JSON.stringify(values)}`);
}

/** A pool whose own type runs out, so a draw goes on to the other types (where the same answers are again). */
function smallPool(): AnswerPool {
  const pool = new AnswerPool();
  for (const a of ['Paris', 'Lyon', 'Rome', 'the Paris', 'paris.']) pool.add(a, 'location');
  for (const a of ['Jane Austen', 'Homer']) pool.add(a, 'person');
  for (const a of ['1066', 'Nineteen']) pool.add(a, 'number');
  return pool;
}

describe('the answer pool (distractor top-up)', () => {
  it('keeps one copy of an answer per type, after SQuAD normalisation', () => {
    assert.equal(smallPool().size, 7, '"the Paris" and "paris." are "Paris"');
  });

  it('never draws one answer twice, even when the draw moves on from the type to the whole pool', () => {
    for (let seed = 0; seed < 20; seed++) {
      const drawn = smallPool().draw(20, { response: 'Milan', answers: [], answerType: 'location' }, SeededRandom.stream(seed, 'pool'));
      assertDistinct(drawn, `seed ${seed}`);
      assert.equal(drawn.length, 7, 'every distinct answer, once');
      assert.deepEqual(drawn.slice(0, 3).sort(), ['Lyon', 'Paris', 'Rome'], 'its own type first');
    }
  });

  it('never draws an excluded answer (the response, or distractors already there), whatever its spelling', () => {
    const drawn = smallPool().draw(20, { response: 'PARIS', answers: [], answerType: 'location' }, SeededRandom.stream(1, 'pool'), ['the Homer']);
    assert.deepEqual([...drawn].sort(), ['1066', 'Jane Austen', 'Lyon', 'Nineteen', 'Rome']);
  });

  it('tops up a short distractor reply without repeating a distractor', async () => {
    const distractorLlm = new ModelExecutor(new MockModel({ replies: [{ default: true, reply: 'Rome [SEP] Milan' }] }), { cache: null });
    for (let seed = 0; seed < 10; seed++) {
      const set = await distractorsFor({
        itemId: 'q1',
        question: 'Capital of France?',
        response: 'Marseille',
        answers: ['Paris'],
        answerType: 'location',
        pool: smallPool(),
        seed,
        executor: distractorLlm,
      });
      assertDistinct(set.distractors, `seed ${seed}`);
      assert.deepEqual(set.distractors.slice(0, 2), ['Rome', 'Milan'], "the LLM's own first");
      // Distinct answers in the pool other than Rome and the gold answer Paris: Lyon, Jane Austen, Homer, 1066, Nineteen.
      assert.equal(set.toppedUp, 5);
      assert.ok(!set.distractors.map(normalizeAnswer).includes('paris'), 'never the gold answer');
    }
  });
});

describe('MCQ sets (X = 20, five options)', () => {
  it('no MCQ repeats an option, when the distractors come from a small pool', async () => {
    for (let seed = 0; seed < 10; seed++) {
      const set = await distractorsFor({
        itemId: `q${seed}`,
        question: 'Capital of France?',
        response: 'Paris',
        answers: ['Paris'],
        answerType: 'location',
        pool: smallPool(),
        seed,
      });
      assertDistinct(set.distractors, 'distractors');
      assert.ok(!set.distractors.map(normalizeAnswer).includes('paris'), 'never the response');
      for (const [i, mcq] of buildMcqs(`q${seed}`, 'Paris', set.distractors, 20, seed).entries()) {
        assert.equal(mcq.options.length, 5);
        assertDistinct(mcq.options, `seed ${seed} MCQ ${i}`);
        assert.equal(mcq.options.filter((o) => o === 'Paris').length, 1);
        assert.equal(mcq.options[LETTERS.indexOf(mcq.responseLetter)], 'Paris');
        assert.equal(mcq.options[LETTERS.indexOf(mcq.unsureLetter)], UNSURE_OPTION);
      }
    }
  });

  it('with fewer than three distractors there are fewer options, and the letters follow them', () => {
    const [mcq] = buildMcqs('q', 'Paris', ['Lyon'], 1, 1);
    assert.equal(mcq!.options.length, 3);
    assert.deepEqual([...mcq!.options].sort(), ['Lyon', 'Paris', 'unsure']);
    assert.equal(mcq!.options[LETTERS.indexOf(mcq!.responseLetter)], 'Paris');
  });
});

describe('parsing the chosen option', () => {
  const mcq: Mcq = { options: ['Rome', 'The Paris Agreement', 'unsure', 'Paris', 'Lyon'], responseLetter: 'D', unsureLetter: 'C' };
  const table: Array<[string, string | null, string]> = [
    ['D', 'D', 'letter'],
    [' d', 'D', 'letter'],
    ['(D)', 'D', 'letter'],
    ['D.', 'D', 'letter'],
    ['D. Paris', 'D', 'letter'],
    ['Answer: D', 'D', 'letter'],
    ['D\nQUESTION: next one', 'D', 'letter'],
    ['paris', 'D', 'option-text'],
    ['The Paris Agreement', 'B', 'option-text'],
    ['Unsure.', 'C', 'option-text'],
    ['D or E', null, 'invalid'],
    ['B, D', null, 'invalid'],
    ['F', null, 'invalid'],
    ['Marseille', null, 'invalid'],
    ['', null, 'invalid'],
  ];
  for (const [output, choice, parse] of table) {
    it(`${JSON.stringify(output)} is ${choice ?? 'no choice'} (${parse})`, () => {
      assert.deepEqual(parseChoice(output, mcq), { choice, parse });
    });
  }
  it('an option text that two options share (after normalisation) names no single option: invalid', () => {
    const twins: Mcq = { options: ['Paris', 'Rome', 'unsure', 'paris.', 'Lyon'], responseLetter: 'A', unsureLetter: 'C' };
    assert.deepEqual(parseChoice('Paris', twins), { choice: null, parse: 'invalid' });
  });
});

describe('the log-probability answer mode (opt-in)', () => {
  const mcq: Mcq = { options: ['Rome', 'Paris', 'unsure', 'Lyon', 'Nice'], responseLetter: 'B', unsureLetter: 'C' };
  async function choose(logprobs: Record<string, number>) {
    const model = new MockModel({ replies: () => ({ logprobs }), logprobs: true, identity: JSON.stringify(logprobs) });
    return (await answerMcq(new ModelExecutor(model, { cache: null }), 'prompt', mcq, 'logprobs')).answered;
  }
  it('picks the most probable letter; a letter the model gave no probability is not a choice', async () => {
    const a = await choose({ A: -2.3, B: -0.4, C: -1.6, E: -3 });
    assert.equal(a.choice, 'B');
    assert.equal(a.parse, 'logprobs');
    assert.equal(a.choseResponse, true);
    assert.equal((await choose({ A: -0.1, B: -0.4 })).choice, 'A');
    assert.equal((await choose({ D: -5 })).choice, 'D', 'the only letter with a probability, however small');
    assert.equal((await choose({ A: -0.7, C: -0.7 })).choice, 'A', 'a tie goes to the earlier letter');
  });
  it('no letter among the returned tokens: invalid, not the response', async () => {
    const a = await choose({});
    assert.deepEqual([a.choice, a.parse, a.choseResponse], [null, 'invalid', false]);
  });
});

describe('Cons(q, r), Eq. 4', () => {
  it('is (1/X) sum [R_i = r]: invalid answers and "unsure" count as not choosing r', () => {
    const base = { options: ['a', 'b', 'unsure', 'c', 'd'], responseLetter: 'B' as const, unsureLetter: 'C' as const, raw: '' };
    const answers: Array<[AnsweredMcq['choice'], AnsweredMcq['parse']]> = [
      ['B', 'letter'],
      ['B', 'option-text'],
      ['C', 'letter'],
      [null, 'invalid'],
      ['A', 'letter'],
      ['B', 'letter'],
      ['D', 'letter'],
      ['B', 'logprobs'],
    ];
    const answered = answers.map(([choice, parse]) => ({ ...base, choice, parse, choseResponse: choice === 'B' }));
    assert.equal(consistencyScore(answered), 4 / 8);
  });
});

const judged = (
  id: string,
  question: string,
  response: string,
  label: JudgedRecord['label'],
  answers: string[],
  answerType: JudgedRecord['answerType'],
): JudgedRecord => ({
  id,
  dataset: 'seen',
  source: 'nq',
  question,
  answers,
  answerType,
  response,
  label,
  uninformativeType: label === 'uninformative' ? 'unsure' : null,
  judgedBy: 'test',
  decision: { by: 'test' },
});

/** The options of an MCQ prompt, in letter order (the lines "A. ..." after the question). */
function optionsOf(prompt: string): string[] {
  return [...prompt.matchAll(/^([A-E])\. (.*)$/gm)].map((m) => m[2]!);
}

describe('a consistency stage with a model whose choices are known', () => {
  /**
   * The model: on "Who wrote Hamlet?" it picks William Shakespeare wherever it is; on "Who
   * wrote Doctor Faustus?" it answers "Christopher Marlowe" by text when that option is there,
   * else "unsure" by letter; on "Capital of Australia?" it says "A or B" (invalid) when the
   * response is at A, else the response's letter.
   */
  const calls: MockCall[] = [];
  function reply(call: MockCall): string {
    calls.push(call);
    const options = optionsOf(call.prompt);
    const letterOf = (text: string) => LETTERS[options.indexOf(text)];
    if (call.prompt.includes('Who wrote Hamlet?')) return ` ${letterOf('William Shakespeare')}`;
    if (call.prompt.includes('Who wrote Doctor Faustus?')) return options.includes('Christopher Marlowe') ? ' Christopher Marlowe' : ` ${letterOf('unsure')}`;
    return options[0] === 'Sydney' ? ' A or B' : ` ${letterOf('Sydney')}`;
  }

  it('Cons = hand count over the prompts sent; one MCQ per prompt, twenty per pair', async () => {
    const records = [
      judged('hamlet', 'Who wrote Hamlet?', 'William Shakespeare', 'correct', ['William Shakespeare'], 'person'),
      judged('faustus', 'Who wrote Doctor Faustus?', 'Ben Jonson', 'wrong', ['Christopher Marlowe'], 'person'),
      judged('canberra', 'Capital of Australia?', 'Sydney', 'wrong', ['Canberra'], 'location'),
      judged('u', 'Who painted the Mona Lisa?', 'unsure', 'uninformative', ['Leonardo da Vinci'], 'person'),
      judged('more', 'Who wrote Emma?', 'Jane Austen', 'correct', ['Jane Austen'], 'person'),
    ];
    // No call cache: two MCQs of a pair may have the same options in the same order, and each must reach the model to be counted here.
    const executor = new ModelExecutor(new MockModel({ replies: reply, identity: 'known-choices' }), { cache: null });
    const { records: out } = await runConsistency({
      records,
      executor,
      seed: 4,
      mcqs: 20,
      runs: new RunStore(openDatabase(':memory:')),
      progress: { quiet: true },
    });
    const byId = new Map(out.map((r) => [r.id, r]));
    assert.equal(byId.get('u')!.consistency, null, 'uninformative: no Cons');

    const promptsOf = (question: string) => calls.filter((c) => c.prompt.includes(question));
    const hamlet = promptsOf('Who wrote Hamlet?');
    assert.equal(hamlet.length, 20);
    assert.equal(byId.get('hamlet')!.consistency, 1, 'always picks its response');

    const faustus = promptsOf('Who wrote Doctor Faustus?');
    assert.equal(faustus.length, 20);
    // It never picks "Ben Jonson": Cons = 0, whatever the options.
    assert.equal(byId.get('faustus')!.consistency, 0);
    assert.ok(
      !faustus.some((c) => optionsOf(c.prompt).includes('Christopher Marlowe')),
      "the gold answer is never a pool distractor, though the pool holds it (as another record's answer)",
    );

    const canberra = promptsOf('Capital of Australia?');
    const atA = canberra.filter((c) => optionsOf(c.prompt)[0] === 'Sydney').length;
    assert.ok(atA > 0 && atA < 20, `response at A in ${atA} of 20 MCQs`);
    assert.equal(byId.get('canberra')!.consistency, (20 - atA) / 20, 'invalid answers count as not choosing r');
    assert.equal(byId.get('canberra')!.consistencyDetail!.invalid, atA);
    for (const c of calls) assertDistinct(optionsOf(c.prompt), 'an MCQ prompt');
  });
});
