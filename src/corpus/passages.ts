/**
 * Splitting a document into passages: sentence-aware windows of about `passageWords` words that
 * overlap by about `overlapWords` words. Sentences come from `Intl.Segmenter` (Unicode sentence
 * boundaries, built into Node), never from a full-stop rule. A sentence longer than a passage is
 * cut into word windows. Every passage keeps its character offsets into the document text and
 * the page(s) it starts and ends on.
 */

export interface PassageOptions {
  /** Target words per passage (default 100). */
  passageWords?: number;
  /** Words repeated from the end of one passage at the start of the next (default 20). */
  overlapWords?: number;
  /** BCP 47 locale of the sentence segmenter (default "en"). */
  locale?: string;
}

export const DEFAULT_PASSAGE_WORDS = 100;
export const DEFAULT_OVERLAP_WORDS = 20;

export interface Passage {
  /** 0-based position of the passage in its document. */
  seq: number;
  /** Character offsets into the document text: `text === documentText.slice(start, end)`. */
  start: number;
  end: number;
  /** 1-based page the passage starts on (1 for documents without pages). */
  page: number;
  /** 1-based page the passage ends on. */
  pageEnd: number;
  words: number;
  text: string;
}

interface Unit {
  start: number;
  end: number;
  words: number;
}

/** Whitespace-separated words (the same count as /\S+/g, without a regular expression's match objects). */
function countWords(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    // ASCII white space, NBSP and the Unicode spaces \s matches.
    const space =
      c <= 32
        ? c === 32 || (c >= 9 && c <= 13)
        : c === 160 ||
          c === 0x1680 ||
          (c >= 0x2000 && c <= 0x200a) ||
          c === 0x2028 ||
          c === 0x2029 ||
          c === 0x202f ||
          c === 0x205f ||
          c === 0x3000 ||
          c === 0xfeff;
    if (space) inWord = false;
    else if (!inWord) {
      inWord = true;
      n += 1;
    }
  }
  return n;
}

/** Longest piece of text given to the segmenter at once (see `segments`). */
const CHUNK = 4096;

/**
 * The sentence segments of `text`, segmenting it in pieces of at most ~4 KB: iterating
 * `Intl.Segmenter` over one long string is quadratic in the string's length in Node 20, and
 * pieces of a few KB keep it linear (bench/README.md has the figures).
 * A piece ends at a paragraph break when the window has one, else after sentence-final
 * punctuation followed by white space, else at white space: places where the segmenter breaks.
 */
function* segments(segmenter: Intl.Segmenter, text: string): Generator<{ segment: string; index: number }> {
  let from = 0;
  while (from < text.length) {
    let to = Math.min(text.length, from + CHUNK);
    if (to < text.length) {
      const window = text.slice(from, to);
      const cut = [window.lastIndexOf('\n\n'), lastMatch(window, /[.!?;:]["'”’)\]]*\s/g), window.lastIndexOf(' ')].find((i) => i > CHUNK / 4);
      if (cut !== undefined) to = from + cut + 1;
    }
    for (const s of segmenter.segment(text.slice(from, to))) yield { segment: s.segment, index: s.index + from };
    from = to;
  }
}

function lastMatch(text: string, re: RegExp): number {
  let last = -1;
  for (const m of text.matchAll(re)) last = m.index + m[0].length - 2;
  return last;
}

/** Sentences (trimmed) with offsets; sentences longer than `maxWords` are cut into word windows. */
function units(text: string, maxWords: number, locale: string): Unit[] {
  const segmenter = new Intl.Segmenter(locale, { granularity: 'sentence' });
  const out: Unit[] = [];
  // UAX #29 ends a sentence at every line break; a single line break is a wrapped line (PDF
  // text, hard-wrapped files), so the segmenter sees it as a space. Same length: offsets hold.
  const unwrapped = text.replace(/([^\n])\n(?=[^\n])/g, '$1 ');
  for (const { segment, index } of segments(segmenter, unwrapped)) {
    const lead = segment.length - segment.trimStart().length;
    const trimmed = segment.trim();
    if (trimmed.length === 0) continue;
    const start = index + lead;
    const words = countWords(trimmed);
    if (words <= maxWords) {
      out.push({ start, end: start + trimmed.length, words });
      continue;
    }
    // A run-on "sentence" (a table, a list without full stops): word windows of maxWords.
    const re = /\S+/g;
    let first = -1;
    let last = -1;
    let n = 0;
    for (let m = re.exec(trimmed); m !== null; m = re.exec(trimmed)) {
      if (first < 0) first = m.index;
      last = m.index + m[0].length;
      n += 1;
      if (n === maxWords) {
        out.push({ start: start + first, end: start + last, words: n });
        first = -1;
        n = 0;
      }
    }
    if (n > 0) out.push({ start: start + first, end: start + last, words: n });
  }
  return out;
}

/** 1-based page of a character offset, given the sorted start offsets of the pages. */
export function pageAt(pageStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = pageStarts.length - 1;
  if (hi < 0) return 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pageStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * Splits `text` into passages. `pageStarts` are the character offsets at which pages 1, 2, ...
 * begin (omit for a document without pages).
 */
export function splitPassages(text: string, options: PassageOptions = {}, pageStarts: readonly number[] = [0]): Passage[] {
  const target = options.passageWords ?? DEFAULT_PASSAGE_WORDS;
  const overlap = options.overlapWords ?? DEFAULT_OVERLAP_WORDS;
  if (!Number.isInteger(target) || target < 1) throw new RangeError(`passageWords must be a positive integer, not ${target}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= target)
    throw new RangeError(`overlapWords must be an integer from 0 to passageWords - 1 (${target - 1}), not ${overlap}`);
  const us = units(text, target, options.locale ?? 'en');
  const passages: Passage[] = [];
  // A window may grow past the target by a quarter before the next sentence goes to the next passage.
  const limit = Math.ceil(target * 1.25);
  let i = 0;
  while (i < us.length) {
    let j = i;
    let words = 0;
    while (j < us.length && (words === 0 || (words < target && words + us[j]!.words <= limit))) {
      words += us[j]!.words;
      j += 1;
    }
    const start = us[i]!.start;
    const end = us[j - 1]!.end;
    passages.push({
      seq: passages.length,
      start,
      end,
      page: pageAt(pageStarts, start),
      pageEnd: pageAt(pageStarts, end - 1),
      words,
      text: text.slice(start, end),
    });
    if (j >= us.length) break;
    // Next window: back up over whole sentences until about `overlap` words are repeated (a
    // sentence longer than 1.5 x the overlap is not repeated), always moving on.
    let k = j;
    let back = 0;
    while (k - 1 > i && back < overlap && back + us[k - 1]!.words <= 1.5 * overlap) {
      back += us[k - 1]!.words;
      k -= 1;
    }
    i = k;
  }
  return passages;
}
