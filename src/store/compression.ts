/**
 * DEFLATE settings of the store's small records: requests in `calls`, long run records, and the
 * call journal's frames.
 *
 * zlib's one-shot functions allocate their output in chunks of `chunkSize` (16 KiB by default,
 * each an allocation of its own outside V8's heap, freed only when the garbage collector gets to
 * it). Chunks under 4 KiB come from Node's shared buffer pool instead, so moving thousands of
 * small records at once does not leave thousands of 16 KiB allocations behind.
 */

/** DEFLATE of one small text, fast (level 1). */
export const SMALL_DEFLATE = { level: 1, chunkSize: 2048 } as const;

/**
 * DEFLATE of a request as it moves into the store: written once and read back only for
 * inspection, so the smaller output of level 6 is worth its time. Same format as SMALL_DEFLATE:
 * rows of either level read alike. A prompt of a few KB deflates to under 1 KiB, so a chunk of
 * 1 KiB holds most outputs whole, and a journal move of thousands of requests takes half the
 * pooled memory it would with 2 KiB chunks.
 */
export const REQUEST_DEFLATE = { level: 6, chunkSize: 1024 } as const;

/** INFLATE of one small record or journal frame. */
export const SMALL_INFLATE = { chunkSize: 2048 } as const;
