/**
 * Reading a question set checks each line by hand first (`wellFormedQAItem`, for speed) and lets
 * the schema decide the rest: for every line the hand check accepts, its record is the schema's,
 * to the byte and the key order (records, run ids and outputs depend on it); every line the
 * schema refuses, the hand check refuses too, so the schema names the error.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { qaItemSchema, wellFormedQAItem } from '../src/methods/reliability/data/qa-item.js';

const valid: unknown[] = [
  { id: 'q1', dataset: 'seen', source: 'nq', question: 'Who wrote Hamlet?', answers: ['Shakespeare'] },
  {
    answers: ['Paris', 'paris'],
    extra: { a: 1 },
    question: 'Capital of France?',
    id: 'q2',
    source: 'nq',
    dataset: 'seen',
    answerType: 'location',
    sourceId: 'NQ:2',
  },
  { id: 'u1', dataset: 'unseen', source: 'T13', question: 'Where was X born?', answers: [], answerType: null },
  { id: 'u2', dataset: 'unseen', source: 'T1', question: ' q ', answers: [], 10: 'numeric key', z: null, a: [1] },
  JSON.parse('{"id":"q3","dataset":"seen","source":"s","question":"q","answers":["a"],"sourceId":"x","answerType":"number","note":"ü"}'),
];
const invalid: unknown[] = [
  null,
  [],
  'a string',
  { id: '', dataset: 'seen', source: 'nq', question: 'q', answers: ['a'] },
  { id: 'q', dataset: 'other', source: 'nq', question: 'q', answers: ['a'] },
  { id: 'q', dataset: 'seen', source: '', question: 'q', answers: ['a'] },
  { id: 'q', dataset: 'seen', source: 'nq', question: '   ', answers: ['a'] },
  { id: 'q', dataset: 'seen', source: 'nq', question: 'q', answers: [] },
  { id: 'q', dataset: 'seen', source: 'nq', question: 'q', answers: ['a', 3] },
  { id: 'q', dataset: 'seen', source: 'nq', question: 'q', answers: 'a' },
  { id: 'q', dataset: 'seen', source: 'nq', question: 'q', answers: ['a'], answerType: 'colour' },
  { id: 'q', dataset: 'seen', source: 'nq', question: 'q', answers: ['a'], sourceId: 7 },
  { id: 7, dataset: 'seen', source: 'nq', question: 'q', answers: ['a'] },
  { dataset: 'seen', source: 'nq', question: 'q', answers: ['a'] },
];

describe('the hand check of a question line', () => {
  it('gives exactly the schema’s record (bytes and key order) for well-formed lines', () => {
    for (const json of valid) {
      const fast = wellFormedQAItem(json);
      assert.ok(fast !== undefined, JSON.stringify(json));
      assert.equal(JSON.stringify(fast), JSON.stringify(qaItemSchema.parse(json)));
      assert.deepEqual(Object.keys(fast), Object.keys(qaItemSchema.parse(json)));
    }
  });

  it('refuses every line the schema refuses (the schema then names the field)', () => {
    for (const json of invalid) {
      assert.equal(qaItemSchema.safeParse(json).success, false, `the schema refuses ${JSON.stringify(json)}`);
      assert.equal(wellFormedQAItem(json), undefined, JSON.stringify(json));
    }
    // A "__proto__" key is left to the schema.
    assert.equal(wellFormedQAItem(JSON.parse('{"id":"q","dataset":"unseen","source":"s","question":"q","answers":[],"__proto__":{"x":1}}')), undefined);
  });
});
