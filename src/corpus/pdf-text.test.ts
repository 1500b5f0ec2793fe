import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makePdf, testPaper } from './fixtures/make-pdf.test.js';
import { extractPdfText, joinLines, layoutLines, PdfSkipError } from './pdf-text.js';

const run = (str: string, x: number, y: number, width: number, hasEOL = false, size = 10) => ({
  str,
  transform: [size, 0, 0, size, x, y],
  width,
  height: size,
  hasEOL,
});

describe('PDF text layout', () => {
  it('puts a space between runs on one line when there is a gap, none when they touch', () => {
    const lines = layoutLines([run('ICLR 2024', 72, 700, 50), run('TOWARDS', 130, 700, 50), run('counter', 72, 680, 30), run('factual', 102, 680, 30)]);
    assert.deepEqual(
      lines.map((l) => l.text),
      ['ICLR 2024 TOWARDS', 'counterfactual'],
    );
  });

  it('breaks lines on a new baseline or hasEOL, blocks on a large gap or a jump up (next column)', () => {
    const lines = layoutLines([
      run('one', 72, 700, 20, true),
      run('two', 72, 700, 20),
      run('three', 72, 688, 20),
      run('four.', 72, 650, 20),
      run('five', 320, 700, 20),
      run('six and', 320, 688, 20),
      run('seven', 72, 700, 20),
    ]);
    assert.equal(joinLines(lines), 'one\ntwo\nthree\n\nfour.\n\nfive\nsix and\nseven', 'a paragraph running on to the next column stays one block');
  });

  it('joins a hyphenated line end with a lower-case continuation, and keeps a real hyphen before a capital', () => {
    const lines = layoutLines([run('factual knowl-', 72, 700, 60), run('edge of the Anglo-', 72, 688, 60), run('Saxon period', 72, 676, 60)]);
    assert.equal(joinLines(lines), 'factual knowledge of the Anglo-\nSaxon period');
  });
});

describe('extractPdfText', () => {
  it('extracts the test paper: spaces kept, hyphens joined, running header and footer dropped, pages mapped', async () => {
    const pdf = await extractPdfText(testPaper());
    assert.equal(pdf.pages, 3);
    assert.equal(pdf.droppedLines, 6, 'header and footer on each of 3 pages');
    assert.doesNotMatch(pdf.text, /Workshop on Reliable Knowledge|Page \d of 3/);
    assert.ok(pdf.text.startsWith('ICLR 2024 TOWARDS UNDERSTANDING NATURAL SELECTION\n\n'), pdf.text.slice(0, 80));
    assert.match(pdf.text, /Left column begins here right column continues there/);
    assert.match(pdf.text, /in some way advantageous, which consequently endure\. The model stores factual knowledge about finches/);
    assert.match(pdf.text, /in its weights\.\n\nA second paragraph starts after a gap/);
    assert.equal(pdf.pageStarts.length, 3);
    assert.ok(pdf.text.slice(pdf.pageStarts[1]!).startsWith('Owing to the high geometrical rate'));
    assert.ok(pdf.text.slice(pdf.pageStarts[2]!).startsWith('Sexual selection depends'));
    assert.equal(pdf.info.title, 'Towards understanding natural selection');
  });

  it('reports an encrypted, an image-only and a corrupt PDF with a reason', async () => {
    const cases: [Uint8Array, string][] = [
      [makePdf([{ runs: [{ x: 72, y: 700, text: 'secret' }] }], { encrypted: true }), 'encrypted'],
      [
        makePdf([
          { runs: [], rects: [[72, 72, 300, 400]] },
          { runs: [], rects: [[72, 72, 200, 200]] },
        ]),
        'no-text',
      ],
      [new Uint8Array(Buffer.from('%PDF-1.4\nthis is not a PDF body\n')), 'corrupt'],
      [testPaper().slice(0, 400), 'corrupt'],
    ];
    for (const [bytes, reason] of cases) {
      await assert.rejects(extractPdfText(bytes), (e: unknown) => e instanceof PdfSkipError && e.reason === reason, reason);
    }
  });
});
