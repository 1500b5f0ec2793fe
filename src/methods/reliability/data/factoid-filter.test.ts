import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { factoidRejection, hasSingleAnswer } from './factoid-filter.js';
import type { SourceQuestion } from './source-readers.js';

const q = (source: SourceQuestion['source'], question: string, answers: string[]): SourceQuestion => ({ source, question, answers, sourceId: 'x:1' });

describe('factoid filter', () => {
  it('removes "why" questions, whatever the case and position', () => {
    assert.equal(factoidRejection(q('nq', 'why is the sky blue', ['Rayleigh scattering'])), 'why-question');
    assert.equal(factoidRejection(q('triviaqa', 'Who asked Why Not? in 1968?', ['Kennedy'])), 'why-question');
    assert.equal(factoidRejection(q('nq', 'who wrote whyte notation', ['Frederick Whyte'])), undefined, '"whyte" is not "why"');
  });

  it('keeps NQ answer lists that are one answer, drops distinct entities', () => {
    assert.ok(hasSingleAnswer(q('nq', 'when', ['14 December 1972 UTC', 'December 1972'])));
    assert.ok(hasSingleAnswer(q('nq', 'how many', ['eight', '8'])));
    assert.ok(hasSingleAnswer(q('nq', 'who', ['The Beatles', 'Beatles'])));
    assert.equal(factoidRejection(q('nq', 'who wrote he aint heavy', ['Bobby Scott', 'Bob Russell'])), 'multiple-answers');
    assert.equal(factoidRejection(q('nq', 'where', ['Chhattisgarh', 'Madhya Pradesh'])), 'multiple-answers');
  });

  it('treats TriviaQA and PopQA answer lists as aliases of one answer', () => {
    assert.equal(factoidRejection(q('triviaqa', 'Who was the man behind The Chipmunks?', ['David Seville', 'Ross Bagdasarian'])), undefined);
    assert.equal(factoidRejection(q('popqa', 'What is the capital of Var?', ['Toulon', 'Port-la-Montagne', 'Tolon'])), undefined);
  });

  it('drops answers longer than five tokens, judged by the shortest alias', () => {
    assert.equal(factoidRejection(q('nq', 'what', ['the president of the united states of america'])), 'long-answer');
    assert.equal(factoidRejection(q('nq', 'what', ['one two three four five'])), undefined);
    assert.equal(factoidRejection(q('triviaqa', 'what', ['List of deadliest helicopter crashes in the world', 'Helicopter'])), undefined);
  });
});
