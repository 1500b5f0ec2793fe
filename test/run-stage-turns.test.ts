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
    // CPU time of this process, not wall time: steady on a busy machine, where the process waits for a core.
    const cpu = (): number => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    const started = cpu();
    let timerDoneAt = 0;
    let ruled = 0;
    let ruledBeforeTimer = 0;
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
          timerDoneAt = cpu();
          ruledBeforeTimer = ruled;
          return { record: { label: 'llm' } };
        }
        // A rule: about 0.1 ms of CPU and no I/O.
        const until = cpu() + 0.1;
        while (cpu() < until);
        ruled++;
        return { record: { label: 'rule' } };
      },
    });
    const whole = cpu() - started;
    assert.ok(whole > 300, `the rule work takes long enough to matter (${whole.toFixed(0)} ms of CPU)`);
    assert.ok(timerDoneAt > started);
    // Counted in items, not milliseconds (steady on a busy machine): a turn comes after a slice of
    // about 2 ms of every worker together (about 130 items here); each worker yielding on its own
    // would take 64 slices of 2 ms each (about 1,000 items) before the timer's turn.
    assert.ok(ruledBeforeTimer < 400, `the timer's item resumed after ${ruledBeforeTimer} items decided without I/O`);
  });
});
