/**
 * Sentences of a knowledge text by Unicode sentence boundaries (`Intl.Segmenter`, built into
 * Node), never by full stops: the method notes require a sentence segmenter, and "U.S." or
 * "28.0. 0.137" must not end a sentence on their own.
 */
export function splitSentences(text: string, locale = 'en'): string[] {
  const segmenter = new Intl.Segmenter(locale, { granularity: 'sentence' });
  const out: string[] = [];
  for (const { segment } of segmenter.segment(text)) {
    const s = segment.trim();
    if (s !== '') out.push(s);
  }
  return out;
}
