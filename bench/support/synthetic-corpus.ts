/**
 * Synthetic documents for the corpus benchmarks, written to files under /tmp (never the repo).
 * Sentences are real text: the public-domain corpus fixtures (Darwin, the US Constitution) and
 * the Wikipedia evidence passages of the CONNER test set in LLMKB_DATA_DIR (CC BY-SA, read, not
 * copied). Repeating a few thousand sentences would leave the vocabulary far smaller than a real
 * corpus of that size (and every posting list denser), so one word in eight is replaced by a
 * pseudo-word drawn from a Zipf distribution over 400,000 (a long tail, as real text has).
 * Deterministic for a seed.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const fixtures = join(import.meta.dirname, '..', '..', 'src', 'corpus', 'fixtures');

export function dataDir(): string {
  return process.env.LLMKB_DATA_DIR ?? '/work/shared/data';
}

/** Real sentences of at least six words. */
export function loadSentences(): string[] {
  const texts = [readFileSync(join(fixtures, 'darwin.jsonl'), 'utf8'), readFileSync(join(fixtures, 'constitution.csv'), 'utf8')];
  try {
    for (const line of readFileSync(join(dataDir(), 'conner', 'nq_test_random_testset.txt'), 'utf8').split('\n')) texts.push(line.split('\t')[2] ?? '');
  } catch {
    // Without the data folder the fixtures alone are used.
  }
  return texts
    .join(' ')
    .replace(/[{}"\\]|"\w+":/g, ' ')
    .split(/(?<=[.;?!])\s+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.split(' ').length >= 6 && s.split(' ').length <= 60);
}

/** Natural-language questions (NQ, from the CONNER test set), for search benchmarks. */
export function loadQuestions(): string[] {
  try {
    return readFileSync(join(dataDir(), 'conner', 'nq_test_random_testset.txt'), 'utf8')
      .split('\n')
      .map((l) => l.split('\t')[1] ?? '')
      .filter((q) => q.split(' ').length >= 4);
  } catch {
    return [
      'what is the origin of the species on the galapagos islands',
      'who signed the constitution of the united states',
      'how does natural selection act on variations',
      'when was the first amendment ratified',
    ];
  }
}

export class SeededRandom {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0 || 1;
  }
  /** Uniform integer in [0, n). */
  int(n: number): number {
    // xorshift32
    let x = this.#state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#state = x >>> 0;
    return this.#state % n;
  }
}

const SYLLABLES = 'ka to mi ra ne su lo vi de pa gri mon tal ber shu quin dor fel zan orp ust iel'.split(' ');

function pseudoWord(rank: number): string {
  let n = rank;
  let w = '';
  do {
    w += SYLLABLES[n % SYLLABLES.length]!;
    n = Math.floor(n / SYLLABLES.length);
  } while (n > 0);
  return w;
}

/** Zipf(s = 1) rank in [0, size) by inverse transform of the harmonic CDF (approximate, fast). */
function zipfRank(rand: SeededRandom, size: number): number {
  const u = (rand.int(1 << 30) + 0.5) / (1 << 30);
  return Math.min(size - 1, Math.floor(Math.exp(u * Math.log(size + 1))) - 1);
}

export class ArticleWriter {
  readonly #sentences: string[];
  readonly #rand: SeededRandom;
  constructor(sentences: string[], seed = 12345) {
    this.#sentences = sentences;
    this.#rand = new SeededRandom(seed);
  }

  /** An article of `minWords`..`maxWords` words in paragraphs separated by blank lines, some sentences quoted. */
  article(minWords = 800, maxWords = 8000): string {
    const r = this.#rand;
    const target = minWords + r.int(maxWords - minWords);
    const paragraphs: string[] = [];
    let n = 0;
    while (n < target) {
      const para: string[] = [];
      const count = 3 + r.int(6);
      for (let i = 0; i < count; i += 1) {
        const words = this.#sentences[r.int(this.#sentences.length)]!.split(' ');
        for (let j = 0; j < words.length; j += 1) if (r.int(8) === 0) words[j] = pseudoWord(zipfRank(r, 400_000));
        const s = words.join(' ');
        para.push(r.int(20) === 0 ? `"${s}"` : s);
        n += words.length;
      }
      paragraphs.push(para.join(' '));
    }
    return paragraphs.join('\n\n');
  }
}

/** A buffered file writer (memory stays flat on any size). */
export class FileSink {
  readonly #fd: number;
  #parts: string[] = [];
  #size = 0;
  bytes = 0;
  constructor(path: string) {
    this.#fd = openSync(path, 'w');
  }
  write(text: string): void {
    this.#parts.push(text);
    this.#size += text.length;
    if (this.#size >= 4 * 1024 * 1024) this.flush();
  }
  flush(): void {
    const buf = Buffer.from(this.#parts.join(''));
    writeSync(this.#fd, buf);
    this.bytes += buf.length;
    this.#parts = [];
    this.#size = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.#fd);
  }
}

/** Writes a `filename,source,article` CSV (pandas-style quoting, multi-line articles) of about `megabytes`; returns the documents written. */
export function writeArticlesCsv(path: string, megabytes: number, seed = 12345): number {
  const writer = new ArticleWriter(loadSentences(), seed);
  const sink = new FileSink(path);
  sink.write('filename,source,article\n');
  let docs = 0;
  while (sink.bytes + 4 * 1024 * 1024 < megabytes * 1024 * 1024 || docs === 0) {
    sink.write(`paper-${docs}.pdf,synthetic,"${writer.article().replaceAll('"', '""')}"\n`);
    docs += 1;
    if (docs % 500 === 0) sink.flush();
  }
  sink.close();
  return docs;
}

/** Writes a JSONL file ({"id", "text"} per line) of about `megabytes`. */
export function writeArticlesJsonl(path: string, megabytes: number, seed = 54321): number {
  const writer = new ArticleWriter(loadSentences(), seed);
  const sink = new FileSink(path);
  let docs = 0;
  while (sink.bytes + 4 * 1024 * 1024 < megabytes * 1024 * 1024 || docs === 0) {
    sink.write(`${JSON.stringify({ id: `paper-${docs}`, source: 'synthetic', text: writer.article() })}\n`);
    docs += 1;
    if (docs % 500 === 0) sink.flush();
  }
  sink.close();
  return docs;
}
