/**
 * Corpus ingest at scale: a generated `filename,source,article` CSV (default 1 GB; pandas-style
 * quoting, multi-line articles, see bench/support/synthetic-corpus.ts) added with `Corpus.add`
 * (streaming CSV parse and sentence segmentation in a worker thread, passage rows + FTS5 index
 * written in transactions of 5,000 passages), with the process's peak RSS; then a bare FTS5
 * insert loop over the same passages (read back from the corpus in chunks, only the inserts
 * timed, 5,000-row transactions) for the rate to compare with; then a JSONL file and PDFs
 * for their passages/s and MB/s. Files live in a temporary folder under /tmp, removed at the end.
 *
 *   npm run bench:corpus-ingest -- [csv-megabytes=1024] [jsonl-megabytes=200] [pdf-files=40]
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Corpus } from '../src/corpus/index.js';
import { makePdf, type PdfRun } from '../src/corpus/fixtures/make-pdf.test.js';
import { openDatabase, SqliteDatabase as Database } from '../src/store/database.js';
import { ArticleWriter, loadSentences, writeArticlesCsv, writeArticlesJsonl } from './support/synthetic-corpus.js';

const csvMb = Number(process.argv[2] ?? 1024);
const jsonlMb = Number(process.argv[3] ?? 200);
const pdfFiles = Number(process.argv[4] ?? 40);
const dir = mkdtempSync(join(tmpdir(), 'llmkb-bench-corpus-'));
const out = (line: string): void => void process.stdout.write(`${line}\n`);
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

/** Peak resident set size of this process so far (threads included), from /proc; sampled RSS elsewhere. */
function peakRss(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.memoryUsage().rss;
}

/**
 * CPU seconds of the main thread (from /proc on Linux: the thread that writes to SQLite) and of
 * the whole process (every thread, ended worker threads included).
 */
function threadCpu(): { main: number; others: number } {
  const usage = process.cpuUsage();
  const all = (usage.user + usage.system) / 1e6;
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const main = (Number(f[11]) + Number(f[12])) / 100;
    return { main, others: all - main };
  } catch {
    return { main: NaN, others: NaN };
  }
}

async function timedAdd(
  corpus: Corpus,
  paths: string[],
  label: string,
  bytes: number,
): Promise<{ passages: number; seconds: number; maxRss: number; mainCpu: number }> {
  let maxRss = process.memoryUsage().rss;
  const samples: number[] = [];
  const timer = setInterval(() => {
    const rss = process.memoryUsage().rss;
    samples.push(rss);
    maxRss = Math.max(maxRss, rss);
  }, 500);
  const cpu0 = threadCpu();
  const report = await corpus.add(paths, {
    onProgress: (p) => {
      if (p.documents % 50_000 === 0) out(`  ... ${p.documents} documents, ${p.passages} passages, ${mb(p.bytes)} MB, RSS ${mb(process.memoryUsage().rss)} MB`);
    },
  });
  clearInterval(timer);
  const cpu1 = threadCpu();
  const mainCpu = cpu1.main - cpu0.main;
  const quarter = samples.slice(Math.floor(samples.length / 4));
  const q = (xs: number[], f: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(f * xs.length))] ?? 0;
  out(
    `${label}: ${report.documents.added} documents, ${report.passages} passages, ${mb(bytes)} MB in ${report.seconds.toFixed(1)} s = ${Math.round(report.passages / report.seconds)} passages/s, ${(bytes / 1024 / 1024 / report.seconds).toFixed(2)} MB/s; RSS sampled max ${mb(maxRss)} MB (after the first quarter: median ${mb(q(quarter, 0.5))} MB, max ${mb(q(quarter, 1))} MB)`,
  );
  out(
    `     CPU: main thread ${mainCpu.toFixed(1)} s (${Math.round(report.passages / mainCpu)} passages per main-thread CPU second), other threads ${(cpu1.others - cpu0.others).toFixed(1)} s`,
  );
  return { passages: report.passages, seconds: report.seconds, maxRss, mainCpu };
}

// 1. CSV
const t = performance.now();
const csv = join(dir, 'articles.csv');
const csvDocs = writeArticlesCsv(csv, csvMb);
const csvBytes = statSync(csv).size;
out(`generated ${csv}: ${csvDocs} documents, ${mb(csvBytes)} MB in ${((performance.now() - t) / 1000).toFixed(1)} s`);
const store = join(dir, 'store.sqlite');
let db = openDatabase(store);
const corpus = Corpus.openOrCreate(db, 'bench');
const added = await timedAdd(corpus, [csv], 'CSV  Corpus.add', csvBytes);
out(`     peak RSS of the process so far (VmHWM): ${mb(peakRss())} MB`);
const again = await corpus.add([csv]);
out(`     re-add unchanged: ${again.seconds.toFixed(1)} s (file hash only)`);
db.close();
rmSync(csv);

// 2. The bare FTS5 loop over the same passages.
db = openDatabase(store);
const bare = new Database(join(dir, 'bare.sqlite'));
bare.pragma('journal_mode = WAL');
bare.pragma('synchronous = NORMAL');
bare.exec("CREATE VIRTUAL TABLE f USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')");
const insert = bare.prepare('INSERT INTO f (text) VALUES (?)');
const chunk = db.prepare('SELECT id, text FROM corpus_passages WHERE id > ? ORDER BY id LIMIT 5000');
const transaction = bare.transaction((texts: string[]) => {
  for (const text of texts) insert.run(text);
});
let last = 0;
let bareSeconds = 0;
let bareCount = 0;
let bareCpu = 0;
for (;;) {
  const rows = chunk.all(last) as { id: number; text: string }[];
  if (rows.length === 0) break;
  last = rows[rows.length - 1]!.id;
  const texts = rows.map((r) => r.text);
  const t0 = performance.now();
  const c0 = threadCpu().main;
  transaction(texts);
  bareSeconds += (performance.now() - t0) / 1000;
  bareCpu += threadCpu().main - c0;
  bareCount += texts.length;
}
bare.close();
rmSync(join(dir, 'bare.sqlite'), { force: true });
const bareRate = bareCount / bareSeconds;
const addRate = added.passages / added.seconds;
out(`bare FTS5 insert loop, same ${bareCount} passages, 5,000-row transactions: ${bareSeconds.toFixed(1)} s = ${Math.round(bareRate)} passages/s`);
out(`     CPU: ${bareCpu.toFixed(1)} s (${Math.round(bareCount / bareCpu)} passages per CPU second)`);
out(
  `=> by CPU time of the writing thread (steady under other load on the machine): Corpus.add at ${(added.passages / added.mainCpu / (bareCount / bareCpu)).toFixed(2)}x the bare loop`,
);
out(
  `=> by wall-clock time: Corpus.add runs at ${(addRate / bareRate).toFixed(2)}x the bare loop (target >= 0.8x), RSS max ${mb(added.maxRss)} MB (target < 400 MB)`,
);
Corpus.remove(db, 'bench');
db.exec('VACUUM');

// 3. JSONL
if (jsonlMb > 0) {
  const jsonl = join(dir, 'articles.jsonl');
  writeArticlesJsonl(jsonl, jsonlMb);
  const c = Corpus.openOrCreate(db, 'bench-jsonl');
  await timedAdd(c, [jsonl], 'JSONL Corpus.add', statSync(jsonl).size);
  rmSync(jsonl);
  Corpus.remove(db, 'bench-jsonl');
}

// 4. PDF: papers of 12 pages, two text runs per line, a running header and footer.
if (pdfFiles > 0) {
  const pdfDir = join(dir, 'pdfs');
  mkdirSync(pdfDir);
  const writer = new ArticleWriter(loadSentences(), 777);
  let pdfBytes = 0;
  for (let f = 0; f < pdfFiles; f += 1) {
    const words = writer.article(6000, 6001).replace(/"/g, '').split(/\s+/);
    const pages: { runs: PdfRun[] }[] = [];
    let w = 0;
    for (let p = 1; w < words.length; p += 1) {
      const runs: PdfRun[] = [
        { x: 72, y: 760, text: 'Proceedings of the Workshop on Synthetic Text', size: 9 },
        { x: 290, y: 30, text: String(p), size: 9 },
      ];
      for (let y = 720; y > 60 && w < words.length; y -= 13) {
        const line = words.slice(w, w + 14);
        w += 14;
        runs.push({ x: 72, y, text: line.slice(0, 7).join(' ') }, { x: 300, y, text: line.slice(7).join(' ') });
      }
      pages.push({ runs });
    }
    const pdf = makePdf(pages, { title: `Paper ${f}` });
    writeFileSync(join(pdfDir, `paper-${f}.pdf`), pdf);
    pdfBytes += pdf.length;
  }
  const c = Corpus.openOrCreate(db, 'bench-pdf');
  await timedAdd(c, [pdfDir], `PDF  Corpus.add (${pdfFiles} files)`, pdfBytes);
  Corpus.remove(db, 'bench-pdf');
}
db.close();
rmSync(dir, { recursive: true, force: true });
