import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MCQ_INSTRUCTION } from '../prompts/paper-prompts.js';
import { buildMcqs, consistencyScore, LETTERS, MAX_OPTION_CHARS, mcqPrompt, mcqPromptPrefix, parseChoice, type Mcq } from './mcq.js';

const distractors = ['Christopher Marlowe', 'Ben Jonson', 'John Webster', 'Thomas Kyd', 'Francis Bacon'];

describe('buildMcqs', () => {
  it('makes X MCQs of 5 options: the response, 3 distractors and "unsure", seeded', () => {
    const mcqs = buildMcqs('q1', 'William Shakespeare', distractors, 20, 7);
    assert.equal(mcqs.length, 20);
    for (const m of mcqs) {
      assert.equal(m.options.length, 5);
      assert.equal(m.options[LETTERS.indexOf(m.responseLetter)], 'William Shakespeare');
      assert.equal(m.options[LETTERS.indexOf(m.unsureLetter)], 'unsure');
      assert.equal(new Set(m.options).size, 5);
    }
    assert.deepEqual(buildMcqs('q1', 'William Shakespeare', distractors, 20, 7), mcqs, 'same seed, same MCQs');
    assert.notDeepEqual(buildMcqs('q1', 'William Shakespeare', distractors, 20, 8), mcqs);
    assert.ok(new Set(mcqs.map((m) => m.responseLetter)).size > 2, 'the response moves around');
  });

  it('shortens a 2,000-character response in the prompt', () => {
    const [m] = buildMcqs('q', 'x'.repeat(2000), distractors, 1, 1);
    assert.equal(m!.options[LETTERS.indexOf(m!.responseLetter)]!.length, MAX_OPTION_CHARS);
  });

  it('writes the MCQ prompt with the Table 6 caption instruction', () => {
    const mcq: Mcq = { options: ['Paris', 'Lyon', 'unsure', 'Nice', 'Lille'], responseLetter: 'A', unsureLetter: 'C' };
    assert.equal(
      mcqPrompt('What is the capital of France?', mcq),
      `${MCQ_INSTRUCTION}\nQUESTION: What is the capital of France?\nA. Paris\nB. Lyon\nC. unsure\nD. Nice\nE. Lille\nANSWER:`,
    );
    assert.match(
      mcqPrompt('Q?', mcq, [{ question: 'Capital of Italy?', answer: 'Rome' }]),
      /INSTRUCTION: Please answer knowledge-related multi-choice questions directly.*\nQUESTION: Capital of Italy\?\nANSWER: Rome\nQUESTION: Q\?\nA\. Paris/s,
    );
  });
});

describe('parseChoice', () => {
  const mcq: Mcq = { options: ['Paris', 'D. H. Lawrence', 'unsure', 'Nice', 'Lille'], responseLetter: 'A', unsureLetter: 'C' };
  const cases: Array<[string, string | null, string]> = [
    [' A', 'A', 'letter'],
    ['(B)', 'B', 'letter'],
    ['C.', 'C', 'letter'],
    ['D) Nice', 'D', 'letter'],
    ['E\nQUESTION: next', 'E', 'letter'],
    ['Option B', 'B', 'letter'],
    ['Answer: A', 'A', 'letter'],
    ['b', 'B', 'letter'],
    ['B. D. H. Lawrence', 'B', 'letter'],
    [' Paris', 'A', 'option-text'],
    ['unsure', 'C', 'option-text'],
    ['A and B', null, 'invalid'],
    ['A, C', null, 'invalid'],
    ['La réponse est B', null, 'invalid'],
    ['I think Paris or Lyon', null, 'invalid'],
    ['', null, 'invalid'],
    ['F', null, 'invalid'],
  ];
  for (const [output, choice, parse] of cases) {
    it(`${JSON.stringify(output)} -> ${choice ?? 'invalid'}`, () => {
      assert.deepEqual(parseChoice(output, mcq), { choice, parse });
    });
  }
  it('a lone letter beyond the options is no letter: a 4-option MCQ answered " E " or "e" is invalid, "d" is D', () => {
    const four: Mcq = { options: ['Paris', 'Nice', 'unsure', 'E'], responseLetter: 'A', unsureLetter: 'C' };
    assert.deepEqual(parseChoice(' e ', { ...four, options: ['Paris', 'Nice', 'unsure', 'Lille'] }), { choice: null, parse: 'invalid' });
    assert.deepEqual(parseChoice(' E ', four), { choice: 'D', parse: 'option-text' });
    assert.deepEqual(parseChoice('d', four), { choice: 'D', parse: 'letter' });
  });
});

describe('consistencyScore (Eq. 4)', () => {
  it('is the share of MCQs in which the model chose its response; invalid counts as not', () => {
    const base = { options: [], responseLetter: 'A' as const, unsureLetter: 'E' as const, raw: '' };
    const answered = [
      { ...base, choice: 'A' as const, parse: 'letter' as const, choseResponse: true },
      { ...base, choice: null, parse: 'invalid' as const, choseResponse: false },
      { ...base, choice: 'E' as const, parse: 'letter' as const, choseResponse: false },
      { ...base, choice: 'A' as const, parse: 'letter' as const, choseResponse: true },
    ];
    assert.equal(consistencyScore(answered), 0.5);
  });
});

describe('mcqPromptPrefix', () => {
  it('is what every MCQ prompt of the question starts with, up to its first option', () => {
    const shots = [{ question: 'Capital of Italy?', answer: 'Rome' }];
    for (const mcq of buildMcqs('q1', 'Paris', ['Lyon', 'Nice', 'Lille', 'Metz'], 5, 3)) {
      const prompt = mcqPrompt('What is the capital of France?', mcq, shots);
      const prefix = mcqPromptPrefix('What is the capital of France?', shots);
      assert.ok(prompt.startsWith(prefix));
      assert.ok(prompt.slice(prefix.length).startsWith('A. '), prompt.slice(prefix.length));
    }
  });
});
