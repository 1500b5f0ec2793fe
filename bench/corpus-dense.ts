/**
 * Exact dense search (src/corpus/dense-index.ts: every stored vector read once, a k-heap of the
 * best) over N vectors of D dimensions, as `llmkb corpus search --mode dense` runs it: p50/p99
 * latency, peak RSS, and the size of the vectors in the store.
 *
 * The vectors are seeded pseudo-random unit vectors written straight into the corpus's vector
 * table (embedding a million passages with a model is not what is measured here), and the query
 * vector comes from the same generator: the cost of the scan does not depend on the values.
 *
 *   npm run bench:corpus-dense -- [vectors=1000000] [dimensions=384] [queries=20]
 *   LLMKB_BENCH_STORE=/tmp/dense.sqlite keeps the vectors there and reuses them on the next run.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Corpus } from '../src/corpus/index.js';
import { denseSearch, normalized, vectorTable, type Embedder } from '../src/corpus/dense-index.js';
import { openDatabase } from '../src/store/database.js';
import { SeededRandom } from './support/synthetic-corpus.js';

const count = Number(process.argv[2] ?? 1_000_000);
const dims = Number(process.argv[3] ?? 384);
const queries = Number(process.argv[4] ?? 20);
const out = (line: string): void => void process.stdout.write(`${line}\n`);
const dir = mkdtempSync(join(tmpdir(), 'llmkb-bench-dense-'));
const storePath = process.env.LLMKB_BENCH_STORE ?? join(dir, 'store.sqlite');
const db = openDatabase(storePath);
const corpus = Corpus.openOrCreate(db, 'dense');
const table = vectorTable(corpus.id);

const rand = new SeededRandom(7);
const vector = (): Float32Array => {
  const v: number[] = [];
  for (let i = 0; i < dims; i += 1) v.push((rand.int(1 << 24) / (1 << 24)) * 2 - 1);
  return normalized(v);
};

const have = (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
if (have < count) {
  const started = performance.now();
  const insert = db.prepare(`INSERT INTO ${table} (passage_id, vector) VALUES (?, ?)`);
  const batch = db.transaction((from: number, to: number) => {
    for (let id = from; id < to; id += 1) {
      const v = vector();
      insert.run(id, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
    }
  });
  for (let from = have + 1; from <= count; from += 10_000) batch(from, Math.min(count + 1, from + 10_000));
  out(`wrote ${count - have} vectors of ${dims} dimensions in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
db.pragma('wal_checkpoint(TRUNCATE)');
const bytes = statSync(storePath).size;
out(
  `${count} vectors x ${dims} dimensions (Float32, ${((count * dims * 4) / 1024 / 1024).toFixed(0)} MB of vectors; store ${(bytes / 1024 / 1024).toFixed(0)} MB)${existsSync(storePath) && have > 0 ? ` (reused ${storePath})` : ''}; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

/** The query's vector from the same seeded generator (see the module comment). */
const embedder: Embedder = {
  model: { cacheIdentity: 'bench-seeded-vectors', modelId: 'bench-seeded-vectors' },
  embed: (texts) => Promise.resolve({ value: texts.map(() => Array.from(vector())) }),
};

const wall: number[] = [];
const cpu: number[] = [];
let peakRss = process.memoryUsage().rss;
const rssBefore = peakRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
await denseSearch(db, corpus.id, corpus.name, embedder, 'warm-up', 10); // the page cache
for (let i = 0; i < queries; i += 1) {
  const c = process.cpuUsage();
  const t = performance.now();
  const hits = await denseSearch(db, corpus.id, corpus.name, embedder, `query ${i}`, 10);
  wall.push(performance.now() - t);
  const used = process.cpuUsage(c);
  cpu.push((used.user + used.system) / 1000);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  if (hits.length !== 10) throw new Error('expected 10 hits');
}
clearInterval(sampler);

function percentiles(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const p = (f: number): number => s[Math.min(s.length - 1, Math.ceil(f * s.length) - 1)]!;
  return `p50 ${p(0.5).toFixed(0)} ms, p99 ${p(0.99).toFixed(0)} ms`;
}
out(
  `exact dense top 10, ${queries} queries: wall ${percentiles(wall)}; CPU ${percentiles(cpu)}; ${(((count / (wall.reduce((a, b) => a + b, 0) / wall.length)) * 1000) / 1e6).toFixed(2)} M vectors/s`,
);
out(`RSS: ${(rssBefore / 1024 / 1024).toFixed(0)} MB before the searches, peak ${(peakRss / 1024 / 1024).toFixed(0)} MB (vectors are streamed, not held)`);
db.close();
if (process.env.LLMKB_BENCH_STORE === undefined) rmSync(dir, { recursive: true, force: true });
