/**
 * A stage whose items are mostly decided without I/O (the judge's rules) still gives the event
 * loop a turn every few milliseconds for the items that wait on I/O (the judge LLM's calls): all
 * workers yield together, so an I/O item's reply is taken within a turn, not after every worker's
 * next slice of rule work.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDatabase } from '../src/store/database.js';
import { runStoredStage } from '../src/store/run-stage.js';
import { RunStore } from '../src/store/run-store.js';

describe('runStoredStage turns', () => {
  it('an item waiting on a timer is resumed within a few turns while 64 workers decide the rest without I/O', async () => {
    const run = new RunStore(openDatabase(':memory:')).open({ model: 'm', dataset: 'd', setting: 'zero-shot', seed: 1, label: 'turns' });
    const items = Array.from({ length: 6000 }, (_, i) => ({ id: `q${i}` }));
    const started = performance.now();
    let timerDoneAt = 0;
    await runStoredStage({
      run,
      stage: 'judge',
      items,
      idOf: (item) => item.id,
      concurrency: 64,
      progress: { quiet: true },
      work: async (_item, index) => {
        if (index === 0) {
          // The first item waits on I/O (a timer stands in for a model call's reply).
          await new Promise((resolve) => setTimeout(resolve, 1));
          timerDoneAt = performance.now();
          return { record: { label: 'llm' } };
        }
        // A rule: about 0.1 ms of work and no I/O.
        const until = performance.now() + 0.1;
        while (performance.now() < until);
        return { record: { label: 'rule' } };
      },
    });
    const whole = performance.now() - started;
    const wait = timerDoneAt - started;
    assert.ok(whole > 300, `the rule work takes long enough to matter (${whole.toFixed(0)} ms)`);
    // Each worker yielding on its own took 64 slices of 2 ms (~130 ms) before the timer's turn.
    assert.ok(wait < 60, `the timer's item resumed after ${wait.toFixed(0)} ms of a ${whole.toFixed(0)} ms stage`);
  });
});
