/**
 * The ETA of a whole `llmkb eval` (every setting and stage), by hand on a fake clock: measured
 * seconds per item where a stage of that kind has run, the prior cost scaled by the measured
 * seconds per unit where none has, and a stage's items scaled as an earlier setting's were.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EvalProgress, type PlannedStep } from '../src/progress/eval-progress.js';
import { Writable } from 'node:stream';
import { Progress } from '../src/progress/progress.js';

const STEPS: PlannedStep[] = [
  { setting: 'zero-shot', stage: 'ask', items: 10, costPerItem: 1 },
  { setting: 'zero-shot', stage: 'consistency', items: 10, costPerItem: 5 },
  { setting: 'four-shot', stage: 'ask', items: 10, costPerItem: 1 },
  { setting: 'four-shot', stage: 'consistency', items: 10, costPerItem: 5 },
];

function clock() {
  let now = 0;
  return { at: (seconds: number) => (now = seconds * 1000), read: () => now };
}

describe('the ETA of a whole evaluation', () => {
  it('is unknown until an item is done, then adds up every remaining stage of every setting', () => {
    const c = clock();
    const p = new EvalProgress(STEPS, c.read);
    p.stageStarted('ask', 10);
    assert.equal(p.remainingSeconds(), undefined);
    c.at(2);
    for (let i = 0; i < 4; i++) p.ticked();
    // 0.5 s per ask item = 0.5 s per unit: 6 asks left (3 s), 10 pairs x 5 units (25 s), 10 asks (5 s), 10 pairs (25 s).
    assert.equal(p.remainingSeconds(), 58);
    assert.equal(p.position(), 'setting 1 of 2');
  });

  it('scales a stage by how many items it really had, and uses its own measured time once it has one', () => {
    const c = clock();
    const p = new EvalProgress(STEPS, c.read);
    p.stageStarted('ask', 10);
    for (let i = 0; i < 10; i++) p.ticked();
    c.at(5);
    p.stageFinished();
    p.stageStarted('consistency', 6);
    // Only 6 pairs (of 10 planned): 6 x 2.5 s now, 10 asks x 0.5 s, and 6 pairs x 2.5 s in four-shot.
    assert.equal(p.remainingSeconds(), 35);
    c.at(11);
    p.ticked();
    p.ticked();
    // Consistency measured at 3 s a pair: 4 x 3 + 10 x 0.5 + 6 x 3.
    assert.equal(p.remainingSeconds(), 35);
  });

  it('counts resumed items as done and a stage already finished (never begun) as skipped', () => {
    const c = clock();
    const p = new EvalProgress(STEPS, c.read);
    p.stageStarted('ask', 10);
    p.skipped(8);
    c.at(1);
    p.ticked();
    // zero-shot's consistency was finished before: the next stage begun is four-shot's ask.
    c.at(1);
    p.stageFinished();
    p.stageStarted('ask', 10);
    assert.equal(p.position(), 'setting 2 of 2');
    // 1 s per ask: 10 asks left, 10 pairs x 5 s.
    assert.equal(p.remainingSeconds(), 60);
  });

  it("shows on every stage's progress line", () => {
    const c = clock();
    const overall = new EvalProgress(STEPS, c.read);
    const written: string[] = [];
    const stream = Object.assign(new Writable({ write: (chunk: Buffer, _e: string, done: () => void) => (written.push(chunk.toString()), done()) }), { isTTY: false });
    const progress = new Progress('ask', 10, { stream, live: false, intervalMs: 60_000, overall });
    assert.match(progress.line(), /\|  eval setting 1 of 2, ETA --:--$/);
    c.at(2);
    for (let i = 0; i < 4; i++) progress.tick();
    assert.match(progress.line(), /\|  eval setting 1 of 2, ETA 0:58$/);
    progress.finish();
    assert.match(written.join(''), /^ask: 4\/10 in .*eval setting 1 of 2, ETA /);
  });
});
