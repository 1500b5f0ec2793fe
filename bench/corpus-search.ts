/**
 * BM25 search speed on a corpus of about 1,000,000 passages (generated documents, see
 * bench/support/synthetic-corpus.ts) with natural-language queries (NQ questions):
 * - as asked (stop words in the text; `Corpus.search` drops them, and keeps the rarest terms
 *   within its posting budget),
 * - the same questions without their stop words,
 * - and, for comparison, the plain one-phase FTS5 OR query over every word of the question,
 *   stop words included (what a naive MATCH does), and the one-phase OR query without stop words.
 * Prints p50/p90/p99 latency, and how often the two-phase top 10 equals the exhaustive top 10.
 *
 *   npm run bench:corpus-search -- [passages=1000000] [queries=300]
 *   LLMKB_BENCH_STORE=/tmp/search.sqlite keeps the built corpus there and reuses it on the next run.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Corpus } from '../src/corpus/corpus.js';
import { matchAny, STOP_WORDS } from '../src/corpus/fts-query.js';
import { openDatabase } from '../src/store/database.js';
import { loadQuestions, writeArticlesCsv } from './support/synthetic-corpus.js';

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
  out(`built corpus: ${report.passages} passages from ${megabytes} MB of CSV in ${report.seconds.toFixed(0)} s`);
  rmSync(csv);
}
const passages = corpus.stats().passages;
out(`corpus: ${passages} passages${reuse ? ` (reused ${storePath})` : ''}`);

const questions = loadQuestions().slice(0, queryCount);
const withoutStop = (q: string): string => q.split(/\s+/).filter((w) => !STOP_WORDS.has(w.toLowerCase())).join(' ');

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

const asked: number[] = [];
const content: number[] = [];
const hitsOf = new Map<string, number[]>();
for (const q of questions) {
  const [hits, ms] = time(() => corpus.search(q, { k: 10 }));
  asked.push(ms);
  hitsOf.set(q, hits.map((h) => h.passageId));
  content.push(time(() => corpus.search(withoutStop(q), { k: 10 }))[1]);
}
out(`${questions.length} NQ questions, k = 10 (e.g. "${questions[0]}" -> terms ${JSON.stringify(corpus.searchTerms(questions[0]!).terms)})`);
out(`Corpus.search, questions as asked (stop words in the text):  ${percentiles(asked)}`);
out(`Corpus.search, questions without stop words:                 ${percentiles(content)}`);

// The slow baselines, on the first `compareCount` questions only.
const compareCount = Number(process.env.LLMKB_BENCH_COMPARE ?? 30);
const fts = corpus.ftsTable;
const naive = db.prepare(`SELECT rowid AS id, rank FROM ${fts} WHERE ${fts} MATCH ? ORDER BY rank LIMIT 10`);
const naiveMs: number[] = [];
const exhaustiveMs: number[] = [];
let same = 0;
let same1 = 0;
let withDropped = 0;
for (const q of questions.slice(0, compareCount)) {
  // One-phase OR over every word, stop words included: what a plain MATCH costs.
  const all: string[] = [];
  for (const m of q.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) if (!all.includes(m[0])) all.push(m[0]);
  naiveMs.push(time(() => naive.all(matchAny(all)))[1]);
  const [exact, ems] = time(() => corpus.searchIds(q, 10, { exhaustive: true }));
  exhaustiveMs.push(ems);
  const ids = hitsOf.get(q)!;
  if (exact.map((e) => e.id).join() === ids.join()) same += 1;
  if (exact[0]?.id === ids[0]) same1 += 1;
  if (corpus.searchTerms(q).dropped.length > 0) withDropped += 1;
}
out(`one-phase FTS5 OR, every word incl. stop words (first ${naiveMs.length}): ${percentiles(naiveMs)}`);
out(`one-phase FTS5 OR, stop words dropped (first ${exhaustiveMs.length}):      ${percentiles(exhaustiveMs)}`);
out(`top 10 identical to the exhaustive (all terms, stop words dropped) top 10 for ${same} of ${compareCount} questions; top 1 identical for ${same1} (frequent terms left out in ${withDropped} questions)`);
db.close();
rmSync(dir, { recursive: true, force: true });
