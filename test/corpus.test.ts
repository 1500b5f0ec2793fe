/**
 * `llmkb corpus` end to end, through the built binary: a filename,article CSV, JSONL, a folder of
 * text files, and PDFs rendered by headless Chromium (a real producer: embedded subset fonts,
 * its own text runs) with a running header and footer, a two-column page, a title of two runs
 * and a hyphenated line end; plus encrypted and corrupt PDFs, which are named and counted.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { makePdf } from '../src/corpus/fixtures/make-pdf.test.js';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const FIXTURES = resolve(import.meta.dirname, '..', 'src', 'corpus', 'fixtures');
const CHROMIUM = process.env.LLMKB_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) process.stderr.write(`SKIPPED: corpus PDF tests with Chromium-made PDFs need Chromium at ${CHROMIUM} (Debian package "chromium")\n`);

const dir = tempDir('llmkb-corpus-cli-');
const store = join(dir, 'store.sqlite');
const run = (...args: string[]) => llmkb(['--store', store, 'corpus', ...args]);

// Darwin, On the Origin of Species (1859), chapter IV; public domain.
const PARA = [
  'Natural selection acts solely through the preservation of variations in some way advantageous, which consequently endure.',
  'Owing to the high geometrical rate of increase of all organic beings, each area is already fully stocked with inhabitants.',
  'Sexual selection depends on a struggle between the males for possession of the females; the result is not death to the unsuccessful competitor, but few or no offspring.',
  'Slow though the process of selection may be, if feeble man can do much by his powers of artificial selection, I can see no limit to the amount of change.',
];

async function chromiumPdf(html: string): Promise<Buffer> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  try {
    const page = await browser.newPage();
    await page.setContent(html);
    return await page.pdf({
      format: 'A5',
      displayHeaderFooter: true,
      headerTemplate: '<div style="font-size:9px;width:100%;text-align:center">Workshop on Reliable Knowledge Bases</div>',
      footerTemplate: '<div style="font-size:9px;width:100%;text-align:center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
      margin: { top: '60px', bottom: '60px', left: '40px', right: '40px' },
    });
  } finally {
    await browser.close();
  }
}

describe('llmkb corpus', () => {
  it('adds a filename,article CSV, searches it, and re-adding it is a no-op', async () => {
    const add = await run('add', 'law', join(FIXTURES, 'constitution.csv'));
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /corpus "law" \(new\): 1 files \(0 unchanged\), documents \+3 added/);
    const search = await run('search', 'law', 'How old must a Representative be?', '-k', '2');
    assert.equal(search.code, 0, search.stderr);
    assert.match(search.stdout, /^1\. score \d+\.\d{3} {2}article-1\.txt {2}p\. 1 {2}chars \d+-\d+ {2}\(passage \d\)\n {3}.*twenty five Years/);
    const json = await run('search', 'law', 'freedom of the press', '--json', '-k', '1');
    const hits = JSON.parse(json.stdout) as { docId: string; page: number; start: number; end: number; text: string }[];
    assert.equal(hits.length, 1);
    assert.equal(hits[0]!.docId, 'amendment-1.txt');
    assert.equal(hits[0]!.end - hits[0]!.start, hits[0]!.text.length);
    const again = await run('add', 'law', join(FIXTURES, 'constitution.csv'), '--json');
    const report = JSON.parse(again.stdout) as { unchangedFiles: number; passages: number };
    assert.deepEqual([report.unchangedFiles, report.passages], [1, 0]);
    const stats = await run('stats', 'law');
    assert.match(stats.stdout, /files {6}1 \(csv 1\)/);
    assert.match(stats.stdout, /documents {2}3 /);
    assert.match(stats.stdout, /k1 = 1\.2, b = 0\.75/);
  });

  it('adds JSONL and a folder of text files to one corpus; list and remove', async () => {
    const add = await run('add', 'darwin', join(FIXTURES, 'darwin.jsonl'), join(FIXTURES, 'texts'), '--passage-words', '50', '--overlap-words', '10');
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /documents \+5 added/);
    assert.match(add.stdout, /ignored 1 file of no corpus format/);
    const s = await run('search', 'darwin', 'finches beaks', '-k', '1');
    assert.match(s.stdout, /galapagos\.md/);
    const list = await run('list');
    assert.match(list.stdout, /^darwin {2}3 files {2}5 documents {2}\d+ passages {2}\(passages of 50 words, overlap 10, Porter stemming\)\nlaw /);
    const rm = await run('remove', 'darwin');
    assert.equal(rm.code, 0);
    const gone = await run('search', 'darwin', 'finches');
    assert.equal(gone.code, 2);
    assert.match(gone.stderr, /no corpus named "darwin" \(corpora: law\)/);
  });

  it('searches densely and hybrid with an embedding model served over HTTP (embedded once, through the call cache)', async () => {
    // A bag-of-words embedding: texts sharing content words are close, as with a real model.
    const server = await startOpenAICompatibleServer({
      embed: (text) => {
        const v = new Array<number>(128).fill(0);
        for (const w of text.toLowerCase().match(/\p{L}{4,}/gu) ?? []) v[[...w.replace(/s$/, '')].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 128, 7)]! += 1;
        return v;
      },
    });
    try {
      const spec = `vllm:${server.baseURL}/bow-128`;
      assert.equal((await run('add', 'dense', join(FIXTURES, 'texts'))).code, 0);
      const embed = await run('embed', 'dense', '--embedder', spec);
      assert.equal(embed.code, 0, embed.stderr);
      assert.match(embed.stdout, /corpus "dense": \d+ passages embedded with bow-128/);
      const requests = server.requests.length;
      const dense = await run('search', 'dense', 'pigeons bred by fanciers', '--mode', 'dense', '--embedder', spec, '--json', '-k', '1');
      assert.equal(dense.code, 0, dense.stderr);
      assert.equal((JSON.parse(dense.stdout) as { docId: string }[])[0]!.docId, join('notes', 'pigeons.txt'));
      assert.equal(server.requests.length, requests + 1, 'only the query was embedded');
      const hybrid = await run('search', 'dense', 'finches beaks islands', '--mode', 'hybrid', '--embedder', spec, '-k', '1');
      assert.equal(hybrid.code, 0, hybrid.stderr);
      assert.match(hybrid.stdout, /^1\. score 0\.\d{5} {2}galapagos\.md/);
    } finally {
      await server.close();
    }
  });

  it('builds a QA set from a corpus with a scripted question writer, and the items run through ask, judge, consistency, metrics and report', async () => {
    // The writer answers from the passage it is shown; the subject model knows one answer of two.
    const server = await startOpenAICompatibleServer({
      complete: (prompt) => {
        if (prompt.startsWith('INSTRUCTION: Write one factoid question')) {
          const passage = prompt.slice(prompt.indexOf('PASSAGE: ') + 9);
          if (passage.includes('twenty five Years'))
            return ' QUESTION: What minimum age must a member of the United States House of Representatives have reached?\nANSWER: twenty five Years\nTYPE: number';
          if (passage.includes('thirty five Years'))
            return ' QUESTION: What minimum age must a President of the United States have reached?\nANSWER: thirty five Years\nTYPE: number';
          if (passage.includes('Congress shall make no law'))
            return ' QUESTION: According to the text, what shall Congress not make?\nANSWER: no law\nTYPE: other';
          return ' QUESTION: Which planet is the largest in the Solar System?\nANSWER: Jupiter\nTYPE: other';
        }
        if (prompt.startsWith('INSTRUCTION: For the given')) return ' forty Years [SEP] ten Years [SEP] fifty Years [SEP] sixty Years';
        if (prompt.includes('House of Representatives have reached?\nANSWER:')) return ' twenty five Years';
        if (prompt.includes('President of the United States have reached?\nANSWER:')) return ' forty Years';
        return ' A';
      },
    });
    try {
      const work = tempDir('llmkb-corpus-qa-');
      const inWork = (...args: string[]) => llmkb(['--store', store, ...args], { cwd: work });
      assert.equal(
        (await inWork('corpus', 'add', 'constitution', join(FIXTURES, 'constitution.csv'), '--passage-words', '60', '--overlap-words', '15')).code,
        0,
      );
      const built = await inWork(
        'data',
        'from-corpus',
        'constitution',
        '--count',
        '5',
        '--seed',
        '3',
        '--out',
        'data',
        '--question-writer',
        `vllm:${server.baseURL}/writer`,
      );
      assert.equal(built.code, 0, built.stderr);
      assert.match(built.stdout, /corpus "constitution": 2 questions -> \S+corpus-constitution\.jsonl/);
      assert.match(built.stdout, /7 passages tried\nrejected: passage-dependent 1, answer-not-in-passage 4;/);
      const items = (await import('node:fs'))
        .readFileSync(join(work, 'data', 'corpus-constitution.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { question: string; answers: string[]; provenance: { document: string; answerStart: number; answerEnd: number } });
      assert.deepEqual(items.map((i) => i.answers[0]).sort(), ['thirty five Years', 'twenty five Years']);
      assert.deepEqual(items.map((i) => i.provenance.document).sort(), ['article-1.txt', 'article-2.txt']);
      const model = `vllm:${server.baseURL}/subject`;
      const ask = await inWork('ask', '--model', model, '--input', join('data', 'corpus-constitution.jsonl'), '-o', 'responses.jsonl');
      assert.equal(ask.code, 0, ask.stderr);
      const judge = await inWork('judge', '-i', 'responses.jsonl', '-o', 'labeled.jsonl', '--no-judge');
      assert.equal(judge.code, 0, judge.stderr);
      const cons = await inWork(
        'consistency',
        '-i',
        'labeled.jsonl',
        '-o',
        'consistency.jsonl',
        '--model',
        model,
        '--distractor',
        `vllm:${server.baseURL}/distractor`,
        '--mcqs',
        '2',
        '--data',
        'data',
        '--compare-modes',
        '0',
      );
      assert.equal(cons.code, 0, cons.stderr);
      const metrics = await inWork('metrics', '-i', 'consistency.jsonl', '--format', 'json', '--resamples', '20');
      assert.equal(metrics.code, 0, metrics.stderr);
      (await import('node:fs')).writeFileSync(join(work, 'summary.json'), metrics.stdout);
      const summary = JSON.parse(metrics.stdout) as Record<string, unknown>;
      assert.match(JSON.stringify(summary), /"seen"/);
      const report = await inWork('report', 'summary.json', '-o', 'report.html');
      assert.equal(report.code, 0, report.stderr);
      assert.match((await import('node:fs')).readFileSync(join(work, 'report.html'), 'utf8'), /<html/i);
    } finally {
      await server.close();
    }
  });

  it('reports bad input with the file, line and exit code 2', async () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'filename,content\nx.txt,"text"\n');
    const r = await run('add', 'bad', bad);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.csv:1 \(field "article"\): no text column "article"; the columns are: "filename", "content"/);
    assert.match(r.stderr, /hint: .*--text-column/);
    const missing = await run('add', 'bad', join(dir, 'nope.csv'));
    assert.equal(missing.code, 6);
    assert.match(missing.stderr, /nope\.csv/);
    assert.doesNotMatch((await run('list')).stdout, /^bad /m, 'a corpus that could not be filled is not left behind');
    const mode = await run('search', 'law', 'x', '--mode', 'dense');
    assert.equal(mode.code, 2);
    assert.match(mode.stderr, /search mode "dense" needs an embedding model/);
    const unknown = await run('search', 'law', 'x', '--mode', 'vector');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /must be bm25, dense or hybrid/);
  });

  it('extracts Chromium-made PDFs: spaces, columns, hyphenation, headers; names and counts unreadable PDFs', {
    skip: hasChromium ? false : `no Chromium at ${CHROMIUM}`,
  }, async () => {
    const folder = join(dir, 'papers');
    mkdirSync(folder);
    const body = [1, 2, 3, 4, 5, 6].map((i) => `<p>${PARA[i % PARA.length]}</p>`).join('');
    writeFileSync(
      join(folder, 'paper.pdf'),
      await chromiumPdf(`<html><body style="font-family:serif;font-size:12pt">
      <h1><span>ICLR 2024</span><span style="margin-left:0.6em">TOWARDS UNDERSTANDING SELECTION</span></h1>
      <p>The model stores factual knowl-<br>edge about pigeons and finches.</p>
      <div style="column-count:2;column-gap:2em">${body}</div>${body}${body}</body></html>`),
    );
    writeFileSync(join(folder, 'locked.pdf'), makePdf([{ runs: [{ x: 72, y: 700, text: 'secret' }] }], { encrypted: true }));
    writeFileSync(join(folder, 'broken.pdf'), '%PDF-1.7\ntruncated\n');
    const add = await run('add', 'papers', folder);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /skipped 2 files that could not be read:\n {2}\S*broken\.pdf: corrupt: .*\n {2}\S*locked\.pdf: encrypted: /);
    assert.match(add.stdout, /documents \+1 added/);
    const title = JSON.parse((await run('search', 'papers', 'towards understanding selection', '--json', '-k', '1')).stdout) as {
      text: string;
      page: number;
    }[];
    // The 24-point title wraps on an A5 page: line breaks, but never "2024TOWARDS".
    assert.match(title[0]!.text, /^ICLR 2024 TOWARDS\s+UNDERSTANDING\s+SELECTION\s+The model stores/);
    assert.equal(title[0]!.page, 1);
    const knowledge = JSON.parse((await run('search', 'papers', 'knowledge pigeons', '--json', '-k', '1')).stdout) as { text: string }[];
    assert.match(knowledge[0]!.text, /factual knowledge about pigeons/);
    const header = await run('search', 'papers', 'Workshop Reliable Bases', '--json');
    assert.deepEqual(JSON.parse(header.stdout), [], 'running header and footer are not indexed');
    const all = JSON.parse((await run('search', 'papers', 'selection struggle organic', '--json', '-k', '50')).stdout) as { text: string; pageEnd: number }[];
    assert.ok(Math.max(...all.map((h) => h.pageEnd)) >= 2, 'passages on later pages');
    for (const h of all) assert.doesNotMatch(h.text, /[a-z][A-Z]{2}|advantageous,which|selectionacts/, 'no glued runs');
  });
});
