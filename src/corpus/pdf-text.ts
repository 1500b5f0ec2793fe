/**
 * Text of a PDF, extracted in-process with pdfjs-dist (Mozilla's PDF reader; no external tool).
 *
 * pdf.js gives the text runs of each page with their position (`transform`), advance width and
 * an end-of-line flag. Runs are laid out in content-stream order (the order the producer drew
 * them, which is the reading order for the PDFs that word processors, LaTeX and browsers write),
 * and the separators come from the geometry:
 * - same baseline and a gap wider than a fifth of the font size: a space ("ICLR 2024" stays two words);
 * - a new baseline or `hasEOL`: a line break; a vertical gap of more than ~1.6 lines, or a jump
 *   back up the page (the next column): a blank line between blocks;
 * - a line ending in letter + "-" followed by a line starting with a lower-case letter: the
 *   hyphen and the line break are removed ("knowl-" / "edge" -> "knowledge");
 * - lines that repeat (digits ignored) among the first or last two lines of at least half of
 *   the pages (and of two pages at least) are running headers or footers and are dropped.
 * Pages are joined with a blank line; `pageStarts` gives each page's offset in the text.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { LlmkbError } from '../errors.js';

export interface PdfText {
  text: string;
  /** Offset in `text` at which each page (1, 2, ...) starts. */
  pageStarts: number[];
  pages: number;
  /** Lines dropped as running headers or footers. */
  droppedLines: number;
  /** The PDF's own title / author / creation date, when set. */
  info: Record<string, string>;
}

/** Why a PDF could not be read: it is skipped and reported under this reason. */
export class PdfSkipError extends Error {
  readonly reason: 'encrypted' | 'no-text' | 'corrupt';
  constructor(reason: 'encrypted' | 'no-text' | 'corrupt', message: string) {
    super(message);
    this.name = 'PdfSkipError';
    this.reason = reason;
  }
}

interface Line {
  text: string;
  /** Baseline y (PDF units, up is positive) and font size of the line's first run. */
  y: number;
  size: number;
  /** Block break before this line. */
  blockBefore: boolean;
}

interface RawItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

/** Text that ends a sentence (or a heading-like line ending in a colon). */
const SENTENCE_END = /[.!?:;]["'”’)\]]*\s*$/;

let pdfjs: Promise<typeof import('pdfjs-dist/legacy/build/pdf.mjs')> | undefined;

function pdfjsRoot(): string {
  return dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
}

/** Groups a page's runs into lines, with spaces where the gap between runs is a space. */
export function layoutLines(items: readonly RawItem[]): Line[] {
  const lines: Line[] = [];
  let cur: (Line & { x1: number }) | undefined;
  let eol = false;
  let prevY = 0;
  let prevSize = 0;
  for (const item of items) {
    const t = item.transform;
    const x = t[4] ?? 0;
    const y = t[5] ?? 0;
    const size = Math.hypot(t[2] ?? 0, t[3] ?? 0) || item.height || 10;
    if (item.str.length === 0 || (item.str.trim().length === 0 && cur === undefined)) {
      if (item.hasEOL) eol = true;
      if (cur !== undefined && item.str.length > 0 && !eol) cur.text += ' ';
      continue;
    }
    const sameLine = cur !== undefined && !eol && Math.abs(y - cur.y) < 0.5 * Math.min(size, cur.size) && x - cur.x1 > -size;
    if (cur !== undefined && sameLine) {
      const gap = x - cur.x1;
      if (gap > 0.2 * Math.min(size, cur.size) && !/\s$/.test(cur.text) && !/^\s/.test(item.str)) cur.text += ' ';
      cur.text += item.str;
      cur.x1 = Math.max(cur.x1, x + item.width);
    } else {
      if (cur !== undefined) {
        lines.push(cur);
        prevY = cur.y;
        prevSize = cur.size;
      }
      const lineSize = Math.max(size, prevSize);
      // Down the page by more than ~1.6 lines: a new block. Back up the page (the next column, a
      // float): a new block only after sentence-final punctuation, else the paragraph goes on.
      const blockBefore = cur !== undefined && (prevY - y > 1.6 * lineSize || (y - prevY > 0.5 * lineSize && SENTENCE_END.test(cur.text)));
      cur = { text: item.str, y, size, blockBefore, x1: x + item.width };
    }
    eol = item.hasEOL;
  }
  if (cur !== undefined) lines.push(cur);
  for (const line of lines) line.text = line.text.replace(/\s+/g, ' ').trim();
  return lines.filter((l) => l.text.length > 0);
}

function headerKey(text: string): string {
  return text.replace(/\d+/g, '#').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Drops running headers and footers (see the module comment); returns how many lines went. */
export function dropRunningLines(pages: Line[][]): number {
  const withText = pages.filter((p) => p.length > 0).length;
  if (withText < 2) return 0;
  const need = Math.max(2, Math.ceil(withText / 2));
  let dropped = 0;
  for (const edge of ['top', 'bottom'] as const) {
    const counts = new Map<string, number>();
    for (const page of pages) {
      const lines = edge === 'top' ? page.slice(0, 2) : page.slice(-2);
      for (const key of new Set(lines.map((l) => headerKey(l.text)))) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const running = new Set([...counts].filter(([, n]) => n >= need).map(([k]) => k));
    if (running.size === 0) continue;
    for (let p = 0; p < pages.length; p += 1) {
      const page = pages[p]!;
      const candidates = edge === 'top' ? page.slice(0, 2) : page.slice(-2);
      const drop = new Set(candidates.filter((l) => running.has(headerKey(l.text))));
      if (drop.size === 0) continue;
      const kept = page.filter((l) => !drop.has(l));
      if (kept.length > 0 && edge === 'top' && drop.has(page[0]!)) kept[0]!.blockBefore = false;
      dropped += page.length - kept.length;
      pages[p] = kept;
    }
  }
  return dropped;
}

/** Joins a page's lines: line breaks within blocks, blank lines between blocks, hyphenated line ends joined. */
export function joinLines(lines: readonly Line[]): string {
  let out = '';
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (i === 0) {
      out = line.text;
      continue;
    }
    if (!line.blockBefore && /\p{L}[-\u00AD]$/u.test(out) && /^\p{Ll}/u.test(line.text)) {
      out = out.slice(0, -1) + line.text;
      continue;
    }
    out += (line.blockBefore ? '\n\n' : '\n') + line.text;
  }
  return out;
}

/**
 * Extracts the text of a PDF. Throws PdfSkipError for an encrypted PDF, a PDF without a text
 * layer (scanned pages; no OCR here) and a file pdf.js cannot parse.
 */
export async function extractPdfText(data: Uint8Array): Promise<PdfText> {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  let getDocument: typeof import('pdfjs-dist/legacy/build/pdf.mjs').getDocument;
  try {
    ({ getDocument } = await pdfjs);
  } catch (error) {
    pdfjs = undefined;
    // pdf.js 5 needs its optional dependency @napi-rs/canvas in Node (DOMMatrix and friends).
    throw new LlmkbError(`PDF support is not available: pdfjs-dist could not be loaded (${error instanceof Error ? error.message : String(error)})`, {
      hint: 'Reinstall llmkb with its optional dependencies (npm install without --omit=optional): pdfjs-dist needs @napi-rs/canvas in Node.',
      cause: error,
    });
  }
  const root = pdfjsRoot();
  const task = getDocument({
    data,
    standardFontDataUrl: `${join(root, 'standard_fonts')}/`,
    cMapUrl: `${join(root, 'cmaps')}/`,
    cMapPacked: true,
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    verbosity: 0,
  });
  let doc: Awaited<typeof task.promise>;
  try {
    doc = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => {});
    const name = (error as { name?: string } | null)?.name;
    const message = error instanceof Error ? error.message : String(error);
    if (name === 'PasswordException') throw new PdfSkipError('encrypted', `encrypted (password-protected): ${message}`);
    throw new PdfSkipError('corrupt', `not a readable PDF: ${message}`);
  }
  try {
    const pages: Line[][] = [];
    for (let p = 1; p <= doc.numPages; p += 1) {
      const page = await doc.getPage(p);
      const content = await page.getTextContent();
      const items = (content.items as unknown[]).filter((i): i is RawItem => typeof (i as { str?: unknown }).str === 'string');
      pages.push(layoutLines(items));
      page.cleanup();
    }
    if (pages.every((p) => p.length === 0))
      throw new PdfSkipError('no-text', `no text layer on any of its ${doc.numPages} pages (scanned or image-only; OCR is not supported)`);
    const droppedLines = dropRunningLines(pages);
    const pageStarts: number[] = [];
    let text = '';
    for (const lines of pages) {
      // A sentence that runs on to the next page is not cut by a paragraph break.
      if (pageStarts.length > 0) text += text.length === 0 || SENTENCE_END.test(text) ? '\n\n' : '\n';
      pageStarts.push(text.length);
      text += joinLines(lines);
    }
    const info: Record<string, string> = {};
    try {
      const meta = await doc.getMetadata();
      const raw = meta.info as Record<string, unknown>;
      for (const key of ['Title', 'Author', 'CreationDate', 'Producer']) {
        const v = raw[key];
        if (typeof v === 'string' && v.trim().length > 0) info[key.toLowerCase()] = v.trim();
      }
    } catch {
      // Metadata is optional.
    }
    return { text, pageStarts, pages: doc.numPages, droppedLines, info };
  } catch (error) {
    if (error instanceof PdfSkipError) throw error;
    throw new PdfSkipError('corrupt', `cannot read its pages: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await doc.destroy();
  }
}
