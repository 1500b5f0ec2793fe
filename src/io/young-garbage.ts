import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8's `gc`: a full collection, or with `{ type: 'minor' }` the young generation only; with
 * `{ flavor: 'last-resort' }` a full collection that also gives back what the heap can spare.
 */
export type GarbageCollector = (options?: { type?: 'major' | 'minor'; flavor?: 'regular' | 'last-resort' }) => void;

/** V8's gc function once taken (null: none to be had, so collecting is left to V8). */
let gc: GarbageCollector | null | undefined;

/**
 * V8's `gc` function, or null when the runtime will not give one. It comes from `--expose-gc`
 * when the process has it; otherwise the flag is turned on just long enough to take `gc` from a
 * new context (which is where V8 installs it) and turned off again, so no other context of the
 * process gets a `gc` global.
 */
export function garbageCollector(): GarbageCollector | null {
  if (gc === undefined) {
    const exposed = (globalThis as { gc?: unknown }).gc;
    if (typeof exposed === 'function') {
      gc = exposed as GarbageCollector;
    } else {
      try {
        setFlagsFromString('--expose-gc');
        const taken: unknown = runInNewContext('gc');
        gc = typeof taken === 'function' ? (taken as GarbageCollector) : null;
      } catch {
        // A runtime that refuses (e.g. a V8 without the flag): memory is only kept longer.
        gc = null;
      } finally {
        setFlagsFromString('--no-expose-gc');
      }
    }
  }
  return gc;
}

/**
 * Collects the young generation now (a scavenge, well under a millisecond when it holds little).
 *
 * For bursts of work that make many short-lived Buffers and little else: V8 counts a Buffer's
 * memory, allocated outside its heap, towards the next collection only loosely (a collection
 * comes after about 64 MB of it), so a burst such as moving the call journal into the store
 * (hundreds of inflated frames and 16,384 deflated requests, all garbage a moment later) made
 * tens of MB of them before the first collection. The C allocator kept that memory after they
 * were freed, mixed with what SQLite keeps, and peak RSS rose by it (issue 13, `npm run
 * bench:eval-memory`: 206 / 226 MB at 2,000 / 6,000 questions against 183 / 199 MB with
 * collections as the move goes). Collecting as the burst goes frees its Buffers before the next
 * are made, so the allocator reuses the same memory (`gc` from garbageCollector).
 *
 * From V8 13 (Node 24) a scavenge keeps what a native object holds weakly, such as the stream
 * object of every `zlib` call and its Buffers (about 5 KB a call), so there only full
 * collections, V8's own, free those. A full collection of ours whenever 4 MB piled up freed them
 * but cost 0.85 s of a 6,000-question eval for no lower peak (217 MB against 207 MB without).
 */
export function collectYoungGarbage(): void {
  garbageCollector()?.({ type: 'minor' });
}
