/**
 * Corpus ingest speed: a generated filename,article CSV (pandas-style quoting, multi-line
 * articles of public-domain sentences from the corpus fixtures) added with `Corpus.add`
 * (streaming CSV parse, sentence segmentation, passage rows + FTS5 index, transactions of 5000
 * passages), then a bare FTS5 insert loop over the same passages in one transaction, to show
 * how much of the time is the index itself.
 *
 *   node --import tsx bench/corpus-ingest.ts [megabytes=20]
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDatabase as Database } from '../src/store/database.js';
import { Corpus } from '../src/corpus/corpus.js';
import { openDatabase } from '../src/store/database.js';

const megabytes = Number(process.argv[2] ?? 20);
const dir = mkdtempSync(join(tmpdir(), 'llmkb-bench-corpus-'));
const fixtures = join(import.meta.dirname, '..', 'src', 'corpus', 'fixtures');
const sentences = [readFileSync(join(fixtures, 'darwin.jsonl'), 'utf8'), readFileSync(join(fixtures, 'constitution.csv'), 'utf8')]
  .join(' ')
  .replace(/[{}"\\]|"\w+":/g, ' ')
  .split(/(?<=[.;])\s+/)
  .map((s) => s.replace(/\s+/g, ' ').trim())
  .filter((s) => s.split(' ').length >= 6);

// Deterministic pseudo-random articles of 300-1500 words, paragraphs separated by blank lines.
let seed = 12345;
const rand = (n: number): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
const csv = join(dir, 'articles.csv');
const parts: string[] = ['filename,source,article\n'];
let bytes = 0;
let docs = 0;
while (bytes < megabytes * 1024 * 1024) {
  const paragraphs: string[] = [];
  const words = 300 + rand(1200);
  let n = 0;
  while (n < words) {
    const para: string[] = [];
    for (let i = 0; i < 3 + rand(5); i += 1) {
      const s = `${sentences[rand(sentences.length)]!} (${docs}.${n})`;
      para.push(s);
      n += s.split(' ').length;
    }
    paragraphs.push(para.join(' '));
  }
  const row = `doc-${docs}.pdf,bench,"${paragraphs.join('\n\n').replaceAll('"', '""')}"\n`;
  parts.push(row);
  bytes += Buffer.byteLength(row);
  docs += 1;
}
writeFileSync(csv, parts.join(''));
const size = statSync(csv).size;
process.stdout.write(`CSV: ${docs} documents, ${(size / 1024 / 1024).toFixed(1)} MB\n`);

const db = openDatabase(join(dir, 'store.sqlite'));
const corpus = Corpus.openOrCreate(db, 'bench');
const report = await corpus.add([csv]);
process.stdout.write(`Corpus.add: ${report.passages} passages in ${report.seconds.toFixed(2)} s = ${Math.round(report.passages / report.seconds)} passages/s, ${(size / 1024 / 1024 / report.seconds).toFixed(2)} MB/s\n`);
const again = await corpus.add([csv]);
process.stdout.write(`re-add unchanged: ${again.seconds.toFixed(2)} s (hash only)\n`);
const t0 = performance.now();
const hits = corpus.search('natural selection preservation of favourable variations', { k: 10 });
process.stdout.write(`search (${hits.length} hits): ${(performance.now() - t0).toFixed(1)} ms\n`);

const texts = (db.prepare('SELECT text FROM corpus_passages').all() as { text: string }[]).map((r) => r.text);
db.close();
const bare = new Database(join(dir, 'bare.sqlite'));
bare.pragma('journal_mode = WAL');
bare.pragma('synchronous = NORMAL');
bare.exec("CREATE VIRTUAL TABLE f USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')");
const insert = bare.prepare('INSERT INTO f (text) VALUES (?)');
const t1 = performance.now();
bare.transaction(() => {
  for (const t of texts) insert.run(t);
})();
const s = (performance.now() - t1) / 1000;
process.stdout.write(`bare FTS5 insert of the same ${texts.length} passages: ${s.toFixed(2)} s = ${Math.round(texts.length / s)} passages/s (${((100 * s) / report.seconds).toFixed(0)}% of Corpus.add)\n`);
bare.close();
rmSync(dir, { recursive: true, force: true });
