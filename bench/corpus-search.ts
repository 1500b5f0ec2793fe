/**
 * BM25 search speed on a corpus of about 1,000,000 passages (generated documents, see
 * bench/support/synthetic-corpus.ts) with natural-language queries (NQ questions), and whether
 * the results equal the exhaustive FTS5 ranking:
 * - `Corpus.search` on the questions as asked (query analysis drops the stop words), and on the
 *   same questions with their stop words removed beforehand;
 * - the exact top-k (bm25-top-k.ts) over every word of the question, stop words scored too;
 * - for comparison, the plain one-phase FTS5 `ORDER BY rank` query over the same terms (what a
 *   naive MATCH costs), with and without stop words; and the top 10 of each search compared with it.
 * Term document frequencies and score bounds: `corpus add` stores those of the frequent terms
 * (bm25-bounds.ts); a searcher caches what it uses in memory. Figures:
 * - the cost of storing them: the full computation (timed when the store has none yet, e.g. a
 *   store built before them, or with LLMKB_BENCH_BOUNDS=full), and a small incremental add (a few
 *   hundred passages replacing the previous run's, so adds and removals) to the big corpus;
 * - "cold": each question the first search of a new connection (opening the store and the corpus
 *   included: what one `llmkb corpus search` does after Node has started), for every question, and
 *   for the first LLMKB_BENCH_SPAWN (default 20) in new processes (bench/support/corpus-search-once.ts);
 *   beside them the cold search without stored bounds (as before they existed: in memory only);
 * - "warm": every term already cached (a long run, e.g. CONNER scoring).
 * CPU times are printed beside wall times: the machine the figures come from is shared.
 *
 *   npm run bench:corpus-search -- [passages=1000000] [queries=300]
 *   LLMKB_BENCH_STORE=/tmp/search.sqlite keeps the built corpus there and reuses it on the next run;
 *   LLMKB_BENCH_COMPARE=N compares the first N questions with the exhaustive query (default: all);
 *   LLMKB_BENCH_ALL_WORDS=N: questions of the stop-words-scored series (default 30: its plain
 *   query takes seconds).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bm25BoundsCurrent, refreshBm25Bounds, StoredBm25Bounds } from '../src/corpus/bm25-bounds.js';
import { Bm25TopK, type Bm25Hit } from '../src/corpus/bm25-top-k.js';
import { Corpus } from '../src/corpus/index.js';
import { queryTokens, STOP_WORDS } from '../src/corpus/fts-query.js';
import { openDatabase } from '../src/store/database.js';
import { ArticleWriter, loadQuestions, loadSentences, writeArticlesCsv } from './support/synthetic-corpus.js';

const target = Number(process.argv[2] ?? 1_000_000);
const queryCount = Number(process.argv[3] ?? 300);
const out = (line: string): void => void process.stdout.write(`${line}\n`);
const dir = mkdtempSync(join(tmpdir(), 'llmkb-bench-search-'));
const storePath = process.env.LLMKB_BENCH_STORE ?? join(dir, 'store.sqlite');
const reuse = existsSync(storePath);
const db = openDatabase(storePath);
let corpus = reuse && Corpus.list(db).some((c) => c.name === 'search') ? Corpus.open(db, 'search') : undefined;
if (corpus === undefined) {
  // About 1,800 bytes of CSV per new passage of ~100 words with the 20-word overlap.
  const csv = join(dir, 'articles.csv');
  const megabytes = Math.ceil((target * 520) / 1024 / 1024);
  writeArticlesCsv(csv, megabytes, 999);
  corpus = Corpus.openOrCreate(db, 'search');
  const report = await corpus.add([csv]);
  out(
    `built corpus: ${report.passages} passages from ${megabytes} MB of CSV in ${report.seconds.toFixed(0)} s, of which storing the BM25 bounds of ${report.bounds?.terms} terms ${report.bounds?.seconds.toFixed(1)} s`,
  );
  rmSync(csv);
}
const passages = corpus.stats().passages;
const cpuSeconds = (since: NodeJS.CpuUsage): string => {
  const u = process.cpuUsage(since);
  return ((u.user + u.system) / 1e6).toFixed(1);
};
out(
  `corpus: ${passages} passages${reuse ? ` (reused ${storePath})` : ''}; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${(await import('node:os')).cpus().length} cores`,
);
if (process.env.LLMKB_BENCH_BOUNDS === 'full' || !bm25BoundsCurrent(db, corpus.id, corpus.ftsTable)) {
  const cpu = process.cpuUsage();
  const r = refreshBm25Bounds(db, corpus.id, corpus.ftsTable);
  out(`BM25 bounds, full computation (what corpus add adds after a large add): ${r.terms} terms in ${r.seconds.toFixed(1)} s, CPU ${cpuSeconds(cpu)} s`);
}
{
  // A small incremental add: a file of a few articles, replacing the previous run's (other document ids), so passages are added and removed.
  const variant = db.prepare("SELECT 1 FROM corpus_documents WHERE corpus_id = ? AND doc_id = 'inc1-0'").get(corpus.id) === undefined ? 1 : 2;
  const writer = new ArticleWriter(loadSentences(), 100 + variant);
  // The same path every run, so the next run replaces this run's documents.
  const source = join(tmpdir(), 'llmkb-bench-search-incremental.csv');
  writeFileSync(
    source,
    `filename,article\n${Array.from({ length: 12 }, (_, i) => `inc${variant}-${i},"${writer.article(800, 4000).replaceAll('"', '""')}"`).join('\n')}\n`,
  );
  const cpu = process.cpuUsage();
  const r = await corpus.add([source]);
  out(
    `small incremental add: ${r.documents.added} documents added (${r.passages} passages), ${r.documents.removed} removed, in ${r.seconds.toFixed(1)} s (CPU ${cpuSeconds(cpu)} s), of which the BM25 bounds' ${r.bounds?.mode} update ${r.bounds?.seconds.toFixed(1)} s (${r.bounds?.terms} terms)`,
  );
}

const questions = loadQuestions().slice(0, queryCount);
const withoutStop = (q: string): string =>
  q
    .split(/\s+/)
    .filter((w) => !STOP_WORDS.has(w.toLowerCase()))
    .join(' ');
/** Every word of the question, stop words included (what a plain MATCH of the question scores). */
const allWords = (q: string): string[] => {
  const all: string[] = [];
  for (const m of q
    .normalize('NFKC')
    .toLowerCase()
    .matchAll(/[\p{L}\p{N}]+/gu))
    if (!all.includes(m[0])) all.push(m[0]);
  return all;
};

function percentiles(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const p = (f: number): number => s[Math.min(s.length - 1, Math.ceil(f * s.length) - 1)]!;
  return `p50 ${p(0.5).toFixed(1)} ms, p90 ${p(0.9).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms, max ${s[s.length - 1]!.toFixed(1)} ms`;
}

function time<T>(f: () => T): [T, number] {
  const t = performance.now();
  const v = f();
  return [v, performance.now() - t];
}

// Warm the page cache once (the first query reads the index from disk).
corpus.search('warm up the index', { k: 10 });
const k = 10;
const ids = (hits: Bm25Hit[]): string => hits.map((h) => h.id).join();

interface Series {
  label: string;
  terms: (q: string) => string[];
  /** A new connection's first search (store and corpus opened), and its CPU time. */
  fresh: number[];
  freshCpu: number[];
  freshIds: string[];
  freshSame: number;
  cold: number[];
  cpu: number[];
  warm: number[];
  exhaustive: number[];
  same: number;
  same1: number;
  compared: number;
  compare: number;
  questions: string[];
  rounds: number;
  fallbacks: number;
}
const compareCount = Number(process.env.LLMKB_BENCH_COMPARE ?? questions.length);
const specs: Array<Pick<Series, 'label' | 'terms'> & { questions?: number }> = [
  { label: 'questions as asked (query analysis drops stop words)', terms: (q) => queryTokens(q) },
  { label: 'questions with stop words removed beforehand', terms: (q) => queryTokens(withoutStop(q)) },
  { label: 'every word scored, stop words too', terms: allWords, questions: Number(process.env.LLMKB_BENCH_ALL_WORDS ?? 30) },
];
const series: Series[] = specs.map((s) => ({
  ...s,
  questions: questions.slice(0, s.questions ?? questions.length),
  compare: Math.min(compareCount, s.questions ?? compareCount),
  fresh: [],
  freshCpu: [],
  freshIds: [],
  freshSame: 0,
  cold: [],
  cpu: [],
  warm: [],
  exhaustive: [],
  same: 0,
  same1: 0,
  compared: 0,
  rounds: 0,
  fallbacks: 0,
}));

// Cold first: each question the first search of a new connection, as in a new process (the
// corpus search of `Corpus.searchIds` on the question as asked; the other series' terms through
// a searcher with the stored bounds).
const searchName = corpus.name;
for (const s of series) {
  for (const q of s.questions) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const fresh = openDatabase(storePath);
    const c = Corpus.open(fresh, searchName);
    const hits =
      s === series[0] ? c.searchIds(q, k) : new Bm25TopK(fresh, c.ftsTable, new StoredBm25Bounds(fresh, c.id, c.ftsTable)).search(s.terms(q), k).hits;
    s.fresh.push(performance.now() - started);
    s.freshIds.push(ids(hits));
    const used = process.cpuUsage(cpu);
    s.freshCpu.push((used.user + used.system) / 1000);
    fresh.close();
  }
}
// New processes: the first questions, one `corpus-search-once` process each.
const spawnCount = Math.min(questions.length, Number(process.env.LLMKB_BENCH_SPAWN ?? 20));
const spawned: number[] = [];
const spawnedCpu: number[] = [];
const spawnedWall: number[] = [];
const spawnedIds: string[] = [];
let spawnedSame = 0;
for (const q of questions.slice(0, spawnCount)) {
  const started = performance.now();
  const line = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'support', 'corpus-search-once.ts'), storePath, searchName, String(k), q],
    { encoding: 'utf8' },
  );
  spawnedWall.push(performance.now() - started);
  const r = JSON.parse(line) as { ms: number; cpuMs: number; ids: number[] };
  spawnedIds.push(r.ids.join());
  spawned.push(r.ms);
  spawnedCpu.push(r.cpuMs);
}
out(`cold: ${new Date().toISOString()}`);

const warm = new Bm25TopK(db, corpus.ftsTable);
// "Warm": the document frequencies and term bounds of every question's terms are known.
for (const s of series) for (const q of s.questions) warm.search(s.terms(q), k);
out(`warmed: ${new Date().toISOString()}`);
for (const s of series) {
  for (const [i, q] of s.questions.entries()) {
    const terms = s.terms(q);
    // Without stored bounds: a new instance counts the terms' document frequencies and ranks their bounds first.
    s.cold.push(time(() => new Bm25TopK(db, corpus.ftsTable).search(terms, k))[1]);
    const cpu = process.cpuUsage();
    const [result, ms] = time(() => warm.search(terms, k));
    const used = process.cpuUsage(cpu);
    s.warm.push(ms);
    s.cpu.push((used.user + used.system) / 1000);
    s.rounds += result.plan.rounds;
    if (result.plan.exhaustive && result.plan.rounds > 1) s.fallbacks += 1;
    if (i < s.compare) {
      const [exact, ems] = time(() => warm.exhaustive(terms, k));
      s.exhaustive.push(ems);
      s.compared += 1;
      if (ids(exact) === ids(result.hits)) s.same += 1;
      if (ids(exact) === s.freshIds[i]) s.freshSame += 1;
      if (s === series[0] && i < spawnedIds.length && ids(exact) === spawnedIds[i]) spawnedSame += 1;
      if (exact[0]?.id === result.hits[0]?.id) s.same1 += 1;
    }
  }
}
out(
  `${questions.length} NQ questions, k = ${k} (e.g. "${questions[0]}" -> terms ${JSON.stringify(queryTokens(questions[0]!))}, plan ${JSON.stringify(warm.search(queryTokens(questions[0]!), k).plan)})`,
);
for (const s of series) {
  out(`\n${s.label} (${s.questions.length} questions):`);
  out(`  exact top-k, cold (new connection, store opened, stored bounds): ${percentiles(s.fresh)}`);
  out(`  exact top-k, cold, CPU time:                                     ${percentiles(s.freshCpu)}`);
  if (s === series[0] && spawned.length > 0) {
    out(
      `  exact top-k, cold in ${spawned.length} new processes (store opened, Node start-up left out): ${percentiles(spawned)}; CPU ${percentiles(spawnedCpu)}`,
    );
    out(`    (whole process, Node and tsx start-up included: ${percentiles(spawnedWall)})`);
  }
  out(`  exact top-k, cold without stored bounds (frequencies and bounds computed in memory, as before): ${percentiles(s.cold)}`);
  out(`  exact top-k, warm (document frequencies cached):  ${percentiles(s.warm)}`);
  out(`  exact top-k, warm, CPU time (the machine is shared): ${percentiles(s.cpu)}`);
  out(`  plain FTS5 OR ORDER BY rank (first ${s.exhaustive.length}):        ${percentiles(s.exhaustive)}`);
  out(
    `  top ${k} identical to the plain FTS5 top ${k} for ${s.same} of ${s.compared} questions (warm), ${s.freshSame} (cold)${s === series[0] ? `, ${spawnedSame} of ${Math.min(spawnedIds.length, s.compared)} (new processes)` : ''}; top 1 for ${s.same1}; ${(s.rounds / s.questions.length).toFixed(2)} rounds per query, the plain query needed for ${s.fallbacks}`,
  );
}
db.close();
rmSync(dir, { recursive: true, force: true });
