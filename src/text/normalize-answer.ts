/**
 * SQuAD answer normalisation (Rajpurkar et al. 2016, the official evaluation script
 * evaluate-v1.1.py, `normalize_answer`): lower-case, remove punctuation, remove the articles
 * a/an/the, collapse white space. Used for exact match (docs/reliability.md, "Judging one response", step 2)
 * and wherever two answers are compared.
 *
 * The output is the Python script's, byte for byte (src/text/normalize-answer.test.ts checks
 * ~200,000 strings against it: scripts/squad-normalize-fixture.py). Three places where a naive
 * JavaScript port differs:
 * - `\b` in Python 3's `re` is Unicode-aware (a word character is a letter, a number or `_`);
 *   JavaScript's `\b` is ASCII-only even with the `u` flag, so "Saldaña" would lose its final "a"
 *   as if it were an article. The boundaries are spelled out with Unicode look-arounds.
 * - `str.split()` splits on Python's white space (also U+001C-U+001F and U+0085, not U+FEFF);
 *   JavaScript's `\s` is a different set.
 * - The order is the script's: white_space_fix(remove_articles(remove_punc(lower(s)))).
 * `str.lower()` and `toLowerCase()` both apply Unicode's full lower-case mapping with the
 * final-sigma rule; they agree on every character both Unicode versions know (Python 3.11 has
 * Unicode 14, Node 20 has a newer one), and the fixture's edge cases ("İ", "ΟΔΥΣΣΕΥΣ") hold them
 * to it.
 */

/** Python's `string.punctuation`: ASCII only, as in the script ("Saldaña!" keeps its ñ). */
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/** `re.sub(r'\b(a|an|the)\b', ' ', text)` with Python's word characters (str.isalnum() or `_`). */
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

/** The separators of Python's `str.split()` (Py_UNICODE_ISSPACE). */
const PYTHON_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** `' '.join(text.split())`. */
export function collapseWhitespace(text: string): string {
  return text
    .split(PYTHON_WHITESPACE)
    .filter((w) => w !== '')
    .join(' ');
}

export function normalizeAnswer(text: string): string {
  return collapseWhitespace(text.toLowerCase().replace(PUNCTUATION, '').replace(ARTICLES, ' '));
}

/** The words of the normalised text (Python's `normalize_answer(s).split()`, as token F1 uses it). */
export function normalizedTokens(text: string): string[] {
  const n = normalizeAnswer(text);
  return n === '' ? [] : n.split(' ');
}
