/**
 * Verifying a question writer's answer against its passage: a normalized span search (case,
 * punctuation and spacing ignored, on word boundaries) that gives the span's offsets in the
 * original text, and the answer types the rules can tell on their own.
 */
import type { AnswerType } from './qa-item.js';

export interface NormalizedText {
  text: string;
  /** map[i]: offset in the original text of normalized character i. */
  map: number[];
}

/**
 * Text for span matching: NFKC, lower case, every run of characters that are not letters or
 * digits made one space, trimmed; with the original offset of each character kept.
 */
export function normalizeForMatch(text: string): NormalizedText {
  const out: string[] = [];
  const map: number[] = [];
  let space = true;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    const width = ch.length;
    const norm = ch.normalize('NFKC').toLowerCase();
    if (/^[\p{L}\p{N}]+$/u.test(norm) || /\p{M}/u.test(norm)) {
      for (const c of norm) {
        out.push(c);
        map.push(i);
      }
      space = false;
    } else if (!space) {
      out.push(' ');
      map.push(i);
      space = true;
    }
    i += width;
  }
  while (out.length > 0 && out[out.length - 1] === ' ') {
    out.pop();
    map.pop();
  }
  return { text: out.join(''), map };
}

/**
 * Where `span` occurs in `text`, normalized on both sides and on word boundaries: the original
 * offsets [start, end) of its first occurrence, or undefined.
 */
export function findSpan(text: string, span: string): { start: number; end: number } | undefined {
  const needle = normalizeForMatch(span).text;
  if (needle.length === 0) return undefined;
  const hay = normalizeForMatch(text);
  for (let from = 0; ; ) {
    const i = hay.text.indexOf(needle, from);
    if (i < 0) return undefined;
    const j = i + needle.length;
    const before = i === 0 || hay.text[i - 1] === ' ';
    const after = j === hay.text.length || hay.text[j] === ' ';
    if (before && after) {
      const start = hay.map[i]!;
      const lastChar = hay.map[j - 1]!;
      const end = lastChar + String.fromCodePoint(text.codePointAt(lastChar)!).length;
      return { start, end };
    }
    from = i + 1;
  }
}

const MONTHS =
  /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b/i;

/** The answer type the rules can tell: a date or year is a time, a number is a number; otherwise undefined. */
export function ruleAnswerType(answer: string): AnswerType | undefined {
  const a = answer.trim();
  if (
    /^(?:1[0-9]{3}|20[0-9]{2})s?$/.test(a) ||
    /\b\d{1,2}(?:st|nd|rd|th)? (?:of )?[A-Z][a-z]+,? \d{4}\b/.test(a) ||
    (MONTHS.test(a) && /\d/.test(a)) ||
    /^\d{4}-\d{2}(?:-\d{2})?$/.test(a) ||
    /\b(?:century|centuries)\b/i.test(a)
  )
    return 'time';
  if (
    /^[-+]?[\d,.]*\d[\d,.]*\s*(?:%|percent|per cent|[a-zA-Z]{1,3})?$/.test(a) ||
    /^(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion)(?:[\s-]\w+)?$/i.test(a)
  )
    return 'number';
  return undefined;
}
