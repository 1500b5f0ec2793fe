import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import { AnswerPool, parseDistractorReply } from './distractors.js';

const twenty = Array.from({ length: 20 }, (_, i) => `Person ${i + 1}`);

describe('parseDistractorReply', () => {
  it('splits on [SEP], trims, and keeps twenty', () => {
    const r = parseDistractorReply(` ${twenty.join(' [SEP] ')}`, 'Barack Obama');
    assert.deepEqual(r.distractors, twenty);
    assert.equal(r.diagnostics.noSeparator, false);
  });

  it('drops the response itself (after normalisation), duplicates, empty items and unsure-like items', () => {
    const r = parseDistractorReply(
      " the Barack Obama. [SEP] George W. Bush [SEP] george w bush [SEP]  [SEP] unsure [SEP] I don't know [SEP] Bill Clinton",
      'Barack Obama',
    );
    assert.deepEqual(r.distractors, ['George W. Bush', 'Bill Clinton']);
    assert.equal(r.diagnostics.droppedEqualToResponse, 1);
    assert.equal(r.diagnostics.droppedDuplicate, 1);
    assert.equal(r.diagnostics.droppedEmpty, 1);
    assert.equal(r.diagnostics.droppedUnsure, 2);
  });

  it('keeps at most twenty of a 200-item reply', () => {
    const many = Array.from({ length: 200 }, (_, i) => `Option ${i}`);
    const r = parseDistractorReply(many.join(' [SEP] '), 'x');
    assert.equal(r.distractors.length, 20);
    assert.equal(r.diagnostics.droppedBeyondWanted, 180);
  });

  it('falls back to lines, semicolons or commas when there is no [SEP], and says so', () => {
    const lines = parseDistractorReply('1. Paris\n2. Lyon\n3. Marseille', 'Nice');
    assert.deepEqual(lines.distractors, ['Paris', 'Lyon', 'Marseille']);
    assert.equal(lines.diagnostics.noSeparator, true);
    assert.deepEqual(parseDistractorReply('Paris, Lyon, Marseille', 'Nice').distractors, ['Paris', 'Lyon', 'Marseille']);
  });

  it('stops where a base model goes on with the few-shot pattern', () => {
    const r = parseDistractorReply('Rome [SEP] Milan\n\nQ: What is the capital of Spain?\n\nA: Madrid', 'Turin');
    assert.deepEqual(r.distractors, ['Rome', 'Milan']);
  });

  it('returns nothing for an empty reply', () => {
    assert.deepEqual(parseDistractorReply('', 'x').distractors, []);
  });
});

describe('AnswerPool', () => {
  const item = (response: string, answers: string[] = []) => ({ response, answers, answerType: 'location' as const });

  it('draws answers of the same type first, never the excluded ones, deterministically', () => {
    const pool = new AnswerPool();
    for (const p of ['Paris', 'Lyon', 'Rome']) pool.add(p, 'location');
    for (const p of ['Jane Austen', 'Homer']) pool.add(p, 'person');
    const a = pool.draw(2, item('Paris'), SeededRandom.stream(1, 'x'));
    assert.deepEqual([...a].sort(), ['Lyon', 'Rome']);
    const b = pool.draw(4, item('paris'), SeededRandom.stream(1, 'x'));
    assert.equal(b.length, 4, 'tops up from other types when the type runs out');
    assert.ok(!b.includes('Paris'));
    assert.deepEqual(pool.draw(4, item('paris'), SeededRandom.stream(1, 'x')), b);
  });

  it("never offers the item's own gold answer or any alias of it, whatever its spelling", () => {
    // The pool holds other questions' answers; one of them is this question's gold answer, in
    // another spelling (as when two questions share an answer, or the model gave it elsewhere).
    const pool = new AnswerPool();
    for (const p of ['The Eiffel Tower', 'Big Ben', 'Colosseum', 'Tour Eiffel', 'Louvre']) pool.add(p, 'location');
    const gold = ['Eiffel Tower', 'tour eiffel.'];
    for (let seed = 0; seed < 30; seed++) {
      const drawn = pool.draw(20, item('Big Ben', gold), SeededRandom.stream(seed, 'x'));
      assert.deepEqual([...drawn].sort(), ['Colosseum', 'Louvre'], `seed ${seed}: ${JSON.stringify(drawn)}`);
    }
  });
});
