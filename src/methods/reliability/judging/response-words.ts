/**
 * The words of responses and questions as the uninformative rules compare them: normalised words
 * (the last text's remembered), stop words, and a crude stem.
 */
import { normalizeAnswer } from '../../../text/normalize-answer.js';

/** Function words, left out when the rules compare content words. */
export const STOPWORDS = new Set(
  'a an the of in on at to for by with from and or is was were are be been what which who whom whose when where how did does do that this it its as into about'.split(
    ' ',
  ),
);

/** Crude stemming, enough to match "died" with "die" and "medals" with "medal". */
export function stem(word: string): string {
  // word.replace(/(ing|ed|es|s|d)$/, ''), spelled out (it runs for every word of the question):
  // the leftmost match is the longest ending.
  if (word.length <= 4) return word;
  if (word.endsWith('ing')) return word.slice(0, -3);
  if (word.endsWith('ed') || word.endsWith('es')) return word.slice(0, -2);
  if (word.endsWith('s') || word.endsWith('d')) return word.slice(0, -1);
  return word;
}

let lastWords: { text: string; words: readonly string[] } | undefined;

/** Normalised words; the last text's are kept, since one question is checked against each of its twenty distractors in a row. */
export function words(text: string): readonly string[] {
  if (lastWords?.text !== text) lastWords = { text, words: normalizeAnswer(text).split(' ').filter(Boolean) };
  return lastWords.words;
}
