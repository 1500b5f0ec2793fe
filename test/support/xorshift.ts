/**
 * xorshift32: a tiny seeded generator for test corpora, so the same documents come out on every
 * run (the exact-top-k tests compare FTS5 rankings over them).
 */
export function xorshift32(seed: number): (n: number) => number {
  let x = seed;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}
