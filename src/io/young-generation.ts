import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { garbageCollector } from './young-garbage.js';

/**
 * The size of V8's young generation (its new space, as getHeapSpaceStatistics reports it) at
 * which the CLI stops it growing: half what Node 20 and 22 let it grow to (32 MiB).
 */
export const YOUNG_GENERATION_CAP_BYTES = 16 << 20;

/** The new space's size now (bytes). */
export function youngGenerationSize(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Stops V8's young generation growing once it is `capBytes` or more, checked every `everyMs`
 * (a timer that never keeps the process alive) until then. Growing doubles it, so it ends
 * between `capBytes` and twice that; one that grew past twice that before a check is given
 * back once (where V8 gives it back) and grows again up to the cap.
 *
 * Why (issue 13: flat memory, `npm run bench:eval-memory`): the young generation holds the
 * garbage of every model call, and V8 grows it while calls keep coming. Node 24 (V8 13) lets it
 * grow to 128 MiB, Node 20 and 22 to 32 MiB, and peak RSS followed (Node 24: 238 / 359 MB at
 * 300 / 6,000 questions; Node 20: 153 / 180 MB). Capped at 16 MiB: Node 20 143 / 154 MB (163 MB at
 * 12,000), Node 22 153 / 169 MB, Node 24 185-201 / 207-217 MB (188 MB at 12,000, where a young
 * generation that grew to 64 MiB while the questions loaded made it 269 MB before it was given
 * back), the evals as fast (47.8 s against 47.9 s at 6,000 questions on Node 20). V8 reads the
 * largest size (`--max-semi-space-size`) only as node starts, but the growth factor at every
 * growth, so a factor of 1 from the cap on keeps the size it has.
 */
export function capYoungGeneration(capBytes = YOUNG_GENERATION_CAP_BYTES, everyMs = 250): void {
  let shrunk = false;
  const check = (): boolean => {
    const size = youngGenerationSize();
    if (size < capBytes) return false;
    const gc = shrunk ? null : garbageCollector();
    if (size > 2 * capBytes && gc) {
      // It grew past the cap between two checks (a long stretch of work without a turn of the
      // event loop, such as loading a large question set). A last-resort collection gives the
      // young generation back (to 1 MiB on Node 24; Node 20 and 22 keep theirs, at most 32 MiB),
      // and it grows again up to the cap. Once only: it costs a full collection.
      shrunk = true;
      gc({ type: 'major', flavor: 'last-resort' });
      return youngGenerationSize() <= 2 * capBytes && check();
    }
    setFlagsFromString('--semi-space-growth-factor=1');
    return true;
  };
  if (check()) return;
  const timer = setInterval(() => {
    if (check()) clearInterval(timer);
  }, everyMs);
  timer.unref();
}
