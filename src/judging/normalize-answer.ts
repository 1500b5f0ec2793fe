/**
 * SQuAD answer normalisation (Rajpurkar et al. 2016, the official evaluation script): lower-case,
 * remove punctuation, remove the articles a/an/the, collapse white space. Used for exact match
 * (METHOD.md "Judging one response", step 2) and wherever two answers are compared.
 */
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(PUNCTUATION, '')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
