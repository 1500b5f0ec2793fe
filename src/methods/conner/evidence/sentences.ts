/**
 * Sentences of a knowledge text, as the authors' scripts split them with NLTK's Punkt
 * (`sent_tokenize`, src/eval_exp.py:77, src/ppl.py:59): abbreviations and initials stay inside
 * their sentence ("U.S. Army", "Mr. Smith", "J. R. R. Tolkien", "e.g.", "Dr.", "No. 5", "3.5").
 *
 * Node's `Intl.Segmenter` (Unicode sentence boundaries, UAX #29) proposes the boundaries; it keeps
 * decimals and "e.g. lower-case" whole but ends a sentence after "U.S.", "Mr." or an initial before
 * a capital. A proposed boundary is dropped when the text before it ends with
 * - a title or other abbreviation that never ends a sentence in running text ("Mr.", "Dr.", "St.",
 *   "Gen.", "e.g.", "i.e.", "vs."; `ABBREVIATIONS`);
 * - "No." or "Nos." before a number ("No. 5");
 * - a single capital initial ("J.", "R.") or a run of dotted letters ("U.S.", "J.R.", "D.C."),
 *   unless the next sentence starts with a word that usually starts sentences ("He", "The", ...:
 *   `SENTENCE_STARTERS`), as Punkt's orthographic heuristic decides for known abbreviations.
 * On the NQ gold passages of CONNER's test file this leaves 20 sentences of at most two words
 * where Intl.Segmenter alone makes 84; those left are table cells ("102.55 ?"), stray quotes and
 * real short sentences ("Help !"), which Punkt splits the same way.
 */

/** Abbreviations (lower case, without the final full stop) after which a sentence does not end. */
export const ABBREVIATIONS: ReadonlySet<string> = new Set([
  'mr',
  'mrs',
  'ms',
  'messrs',
  'dr',
  'prof',
  'rev',
  'fr',
  'hon',
  'st',
  'mt',
  'ft',
  'jr',
  'sr',
  'gen',
  'col',
  'lt',
  'maj',
  'capt',
  'cmdr',
  'sgt',
  'cpl',
  'adm',
  'gov',
  'sen',
  'rep',
  'pres',
  'supt',
  'insp',
  'e.g',
  'i.e',
  'cf',
  'vs',
  'viz',
  'approx',
  'ca',
  'c',
  'fig',
  'figs',
  'vol',
  'vols',
  'pp',
  'ed',
  'eds',
  'dept',
  'univ',
  'assn',
  'bros',
  'inc',
  'ltd',
  'corp',
  'co',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'mon',
  'tue',
  'wed',
  'thu',
  'fri',
  'sat',
  'sun',
  'a.m',
  'p.m',
]);

/** Words that usually start a sentence: after "U.S." or an initial, a boundary before one of them stays. */
export const SENTENCE_STARTERS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'the',
  'he',
  'she',
  'it',
  'they',
  'we',
  'i',
  'you',
  'his',
  'her',
  'its',
  'their',
  'this',
  'that',
  'these',
  'those',
  'there',
  'in',
  'on',
  'at',
  'after',
  'before',
  'during',
  'however',
  'but',
  'and',
  'as',
  'when',
  'while',
  'since',
  'although',
  'if',
  'for',
  'from',
  'by',
  'with',
  'also',
  'then',
  'many',
  'some',
  'most',
  'other',
  'both',
  'each',
  'one',
  'today',
]);

/** The text before a proposed boundary ends with an abbreviation or initial that keeps the sentence going. */
function continues(before: string, next: string): boolean {
  // "No . 5": the tokenised text of the NQ passages puts a space before the full stop.
  const spacedNo = /\bnos? \.$/i.test(before);
  const last = spacedNo ? 'No.' : (/(\S+)$/.exec(before)?.[1] ?? '');
  if (!last.endsWith('.')) return false;
  const word = last.slice(0, -1).replace(/^[("'\u201c\u2018[]+/, '');
  const lower = word.toLowerCase();
  const nextWord = (/^[("'\u201c\u2018[]*([\p{L}\p{N}]+)/u.exec(next)?.[1] ?? '').toLowerCase();
  if (lower === 'no' || lower === 'nos') return /^\d/.test(nextWord);
  if (ABBREVIATIONS.has(lower)) return true;
  // An initial ("J.") or dotted letters ("U.S.", "J.R."): a name or acronym goes on, unless a sentence starter follows.
  if (/^(?:\p{Lu}|(?:\p{L}\.)+\p{L})$/u.test(word)) return nextWord !== '' && !SENTENCE_STARTERS.has(nextWord);
  return false;
}

export function splitSentences(text: string, locale = 'en'): string[] {
  const segmenter = new Intl.Segmenter(locale, { granularity: 'sentence' });
  // Raw segments, so a merged sentence keeps the text's own spacing.
  const raw: string[] = [];
  for (const { segment } of segmenter.segment(text)) {
    if (segment.trim() === '') {
      if (raw.length > 0) raw[raw.length - 1] += segment;
      continue;
    }
    if (raw.length > 0 && continues(raw[raw.length - 1]!.trim(), segment.trim())) raw[raw.length - 1] += segment;
    else raw.push(segment);
  }
  return raw.map((s) => s.trim());
}
