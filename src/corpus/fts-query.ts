/**
 * Natural-language text to an FTS5 MATCH expression that can never be an FTS5 syntax error:
 * the query is cut into word tokens (Unicode letters and digits), each token is written as a
 * double-quoted FTS5 string (so `AND`, `NEAR`, `*`, `:`, `-` and quotes in the user's text are
 * plain words), and the tokens are joined with OR, as BM25 retrieval does.
 *
 * Stop words are dropped from the OR query: a token such as "the" or "of" matches nearly every
 * passage, so FTS5 has to read (and score) almost the whole posting list for it, which makes a
 * query on a large corpus slow while adding next to nothing to the ranking (its IDF is ~0). When
 * a query consists only of stop words, they are kept.
 */

/** A short English stop-word list (articles, pronouns, auxiliaries, prepositions, conjunctions, question words). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but if then else of at by for with about against between into through during before after above below to from up down in out on off over under ' +
    'again further once here there when where why how all any both each few more most other some such no nor not only own same so than too very ' +
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves ' +
    'what which who whom whose this that these those am is are was were be been being have has had having do does did doing would should could can will shall may might must ' +
    's t d ll m o re ve y just also as until while because'
  ).split(' '),
);

const TOKEN = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** The query's word tokens, lower-cased, deduplicated, in order; stop words dropped unless nothing else is left. */
export function queryTokens(query: string): string[] {
  const all: string[] = [];
  for (const m of query.normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
    const token = m[0].replace(/['’].*$/u, '');
    if (token.length > 0 && !all.includes(token)) all.push(token);
  }
  const content = all.filter((t) => !STOP_WORDS.has(t));
  return content.length > 0 ? content : all;
}

/** The FTS5 MATCH expression for a natural-language query, or undefined when it has no word at all. */
export function ftsQuery(query: string): string | undefined {
  const tokens = queryTokens(query);
  if (tokens.length === 0) return undefined;
  return tokens.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}

/** FTS5 MATCH expression for one token, or several ORed. */
export function matchAny(tokens: readonly string[]): string {
  return tokens.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}

/** FTS5 MATCH expression that needs every token. */
export function matchAll(tokens: readonly string[]): string {
  return tokens.map((t) => `"${t.replaceAll('"', '""')}"`).join(' AND ');
}
