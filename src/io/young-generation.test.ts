import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { describe, it } from 'node:test';

/**
 * The young generation's largest size in a fresh node that makes short-lived garbage for a while,
 * as a stream of model calls does, after `capYoungGeneration(cap, 5)` when `cap` is given (a
 * child process: the cap is a V8 flag, for the whole process). `growFirst`: the young generation
 * first grows to 32 MiB or more without a turn of the event loop, and only its size after the
 * cap is reported.
 */
function youngGenerationAfterGarbage(cap?: number, growFirst = false): number {
  const module = pathToFileURL(join(import.meta.dirname, 'young-generation.ts')).href;
  const script = `
    const { capYoungGeneration, youngGenerationSize } = await import(${JSON.stringify(module)});
    let kept = [];
    ${growFirst ? "for (let i = 0; youngGenerationSize() < 32 * 1048576 && i < 5e7; i++) { kept.push({ i, text: 'answer ' + i }); if (kept.length > 100000) kept = []; }" : ''}
    ${cap === undefined ? '' : `capYoungGeneration(${cap}, 5);`}
    let largest = 0;
    for (let turn = 0; turn < 150; turn++) {
      for (let i = 0; i < 20000; i++) { kept.push({ i, text: 'answer ' + i }); if (kept.length > 20000) kept = []; }
      largest = Math.max(largest, youngGenerationSize());
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    process.stdout.write(String(largest));`;
  return Number(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('capYoungGeneration', () => {
  it('stops the young generation growing once it reaches the cap (issue 13: flat memory)', () => {
    const cap = 4 << 20;
    const uncapped = youngGenerationAfterGarbage();
    assert.ok(uncapped >= 4 * cap, `uncapped, the young generation grows to four times the cap (${uncapped} bytes)`);
    const capped = youngGenerationAfterGarbage(cap);
    // A growth doubles it, one may come between two checks, and Node 24 also counts the pages
    // it has taken beyond that for the next scavenge (4-11 MiB at a cap of 4 MiB).
    assert.ok(capped < 4 * cap, `${capped} bytes with a cap of ${cap}`);
  });

  it('gives back a young generation that grew past twice the cap before the first check, and caps it as it grows again', { skip: Number(process.versions.v8.split('.')[0]) < 13 && 'Node 20 and 22 keep their young generation (at most 32 MiB)' }, () => {
    const cap = 4 << 20;
    const capped = youngGenerationAfterGarbage(cap, true);
    assert.ok(capped < 4 * cap, `${capped} bytes with a cap of ${cap}, after growing to 32 MiB or more`);
  });
});
