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
    const stream = Object.assign(new Writable({ write: (chunk: Buffer, _e: string, done: () => void) => (written.push(chunk.toString()), done()) }), {
      isTTY: false,
    });
    const progress = new Progress('ask', 10, { stream, live: false, intervalMs: 60_000, overall });
    assert.match(progress.line(), /\|  eval setting 1 of 2, ETA --:--$/);
    c.at(2);
    for (let i = 0; i < 4; i++) progress.tick();
    assert.match(progress.line(), /\|  eval setting 1 of 2, ETA 0:58$/);
    progress.finish();
    assert.match(written.join(''), /^ask: 4\/10 in .*eval setting 1 of 2, ETA /);
  });
});

/**
 * An `eval --quick`-like plan (three settings of ask, judge and consistency; 40 questions, of
 * which 35 get MCQs) with the reliability plan's prior costs per item (an ask 16 units, a
 * consistency pair of 3 MCQs 54, the rule judge 0), run on a fake clock with fixed seconds per
 * item: the ETA shown after each item against the time the run really has left.
 */
describe('the ETA of a whole evaluation against the time really left', () => {
  const settings = ['zero-shot', 'four-shot', 'four-shot-2'];
  const plan: PlannedStep[] = settings.flatMap((setting) => [
    { setting, stage: 'ask', items: 40, costPerItem: 16 },
    { setting, stage: 'judge', items: 40, costPerItem: 0 },
    { setting, stage: 'consistency', items: 40, costPerItem: 54 },
  ]);
  const items: Record<string, number> = { ask: 40, judge: 40, consistency: 35 };
  /** Seconds per item: an uncached ask, a rule-judged answer, an MCQ pair (MCQ answers dominate); a cached item. */
  const seconds: Record<string, number> = { ask: 0.4, judge: 0.01, consistency: 1.5 };
  const CACHED = 0.002;

  /** [stage, item index within the stage, ETA, seconds really left] after every item. */
  function simulate(cachedAsksInFirstSetting: boolean): Array<{ step: number; stage: string; item: number; eta: number | undefined; left: number }> {
    const costs = settings.flatMap((_, s) =>
      ['ask', 'judge', 'consistency'].map((stage) =>
        Array.from({ length: items[stage]! }, () => (s === 0 && stage === 'ask' && cachedAsksInFirstSetting ? CACHED : seconds[stage]!)),
      ),
    );
    const total = costs.flat().reduce((a, b) => a + b, 0);
    let now = 0;
    const p = new EvalProgress(plan, () => now * 1000);
    const seen: Array<{ step: number; stage: string; item: number; eta: number | undefined; left: number }> = [];
    costs.forEach((stepCosts, step) => {
      const stage = plan[step]!.stage;
      p.stageStarted(stage, stepCosts.length);
      stepCosts.forEach((cost, item) => {
        now += cost;
        p.ticked(cost === CACHED);
        seen.push({ step, stage, item, eta: p.remainingSeconds(), left: total - now });
      });
      p.stageFinished();
    });
    return seen;
  }

  const worst = (points: ReturnType<typeof simulate>): number => Math.max(...points.map((x) => Math.abs(x.eta! - x.left) / x.left));

  it('is within 15% of the time left from the fifth ask on, and within 10% once an MCQ pair has been answered', () => {
    const points = simulate(false).filter((x) => x.left > 10);
    const fromFifthAsk = points.filter((x) => x.step > 0 || x.item >= 4);
    assert.ok(worst(fromFifthAsk) <= 0.15, `worst ${(worst(fromFifthAsk) * 100).toFixed(0)}%`);
    const fromFirstPair = points.filter((x) => x.step > 2 || (x.stage === 'consistency' && x.item >= 2));
    assert.ok(worst(fromFirstPair) <= 0.1, `worst ${(worst(fromFirstPair) * 100).toFixed(0)}%`);
  });

  it('is not made near zero by a first setting whose answers all come from the call cache', () => {
    const all = simulate(true);
    assert.ok(
      all.filter((x) => x.step < 2).every((x) => x.eta === undefined),
      'unknown while every item done came from the cache',
    );
    const points = all.filter((x) => x.left > 10);
    // The cached asks measure nothing about a model call: from the second uncached item on, the
    // later settings' asks are reckoned at the prior's share of what the MCQ pairs cost.
    const fromFirstPair = points.filter((x) => x.step > 2 || (x.stage === 'consistency' && x.item >= 2));
    assert.ok(worst(fromFirstPair) <= 0.1, `worst ${(worst(fromFirstPair) * 100).toFixed(0)}%`);
  });
});
