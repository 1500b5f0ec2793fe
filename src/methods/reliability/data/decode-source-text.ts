/**
 * Source text as llmkb keeps it, decoded from the forms the sources give it in.
 *
 * - `decodeHtmlEntities`: some source strings carry HTML entities ("AT&amp;T" in the TriviaQA DPR
 *   split). Named entities (the common HTML set, not all 2,000+ of HTML5) and numeric ones are
 *   decoded; anything that is not a known entity ("R&B;" in a TriviaQA question) is left as it is.
 *   No entity library is installed, and a table of the names that occur in quiz text is enough.
 * - `decodeWikiTitleEscapes`: TriviaQA aliases are Wikipedia titles, some with URL escapes for
 *   ASCII punctuation ("Catherine Élise %22Cate%22 Blanchett"); only punctuation escapes are
 *   decoded so that a literal "%" followed by hex digits in ordinary text is never touched.
 */

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '\u2013',
  mdash: '\u2014',
  lsquo: '\u2018',
  rsquo: '\u2019',
  sbquo: '\u201a',
  ldquo: '\u201c',
  rdquo: '\u201d',
  bdquo: '\u201e',
  hellip: '\u2026',
  middot: '\u00b7',
  bull: '\u2022',
  deg: '\u00b0',
  copy: '\u00a9',
  reg: '\u00ae',
  trade: '\u2122',
  pound: '\u00a3',
  euro: '\u20ac',
  yen: '\u00a5',
  cent: '\u00a2',
  sect: '\u00a7',
  para: '\u00b6',
  times: '\u00d7',
  divide: '\u00f7',
  frac12: '\u00bd',
  frac14: '\u00bc',
  frac34: '\u00be',
  sup2: '\u00b2',
  sup3: '\u00b3',
  plusmn: '\u00b1',
  micro: '\u00b5',
  laquo: '\u00ab',
  raquo: '\u00bb',
  iexcl: '\u00a1',
  iquest: '\u00bf',
  szlig: '\u00df',
  shy: '\u00ad',
  Agrave: 'À',
  Aacute: 'Á',
  Acirc: 'Â',
  Atilde: 'Ã',
  Auml: 'Ä',
  Aring: 'Å',
  AElig: 'Æ',
  Ccedil: 'Ç',
  Egrave: 'È',
  Eacute: 'É',
  Ecirc: 'Ê',
  Euml: 'Ë',
  Igrave: 'Ì',
  Iacute: 'Í',
  Icirc: 'Î',
  Iuml: 'Ï',
  ETH: 'Ð',
  Ntilde: 'Ñ',
  Ograve: 'Ò',
  Oacute: 'Ó',
  Ocirc: 'Ô',
  Otilde: 'Õ',
  Ouml: 'Ö',
  Oslash: 'Ø',
  Ugrave: 'Ù',
  Uacute: 'Ú',
  Ucirc: 'Û',
  Uuml: 'Ü',
  Yacute: 'Ý',
  THORN: 'Þ',
  agrave: 'à',
  aacute: 'á',
  acirc: 'â',
  atilde: 'ã',
  auml: 'ä',
  aring: 'å',
  aelig: 'æ',
  ccedil: 'ç',
  egrave: 'è',
  eacute: 'é',
  ecirc: 'ê',
  euml: 'ë',
  igrave: 'ì',
  iacute: 'í',
  icirc: 'î',
  iuml: 'ï',
  eth: 'ð',
  ntilde: 'ñ',
  ograve: 'ò',
  oacute: 'ó',
  ocirc: 'ô',
  otilde: 'õ',
  ouml: 'ö',
  oslash: 'ø',
  ugrave: 'ù',
  uacute: 'ú',
  ucirc: 'û',
  uuml: 'ü',
  yacute: 'ý',
  thorn: 'þ',
  yuml: 'ÿ',
  OElig: 'Œ',
  oelig: 'œ',
  Scaron: 'Š',
  scaron: 'š',
  Yuml: 'Ÿ',
};

/** Decodes named (see the table above) and numeric (`&#233;`, `&#xE9;`) HTML entities; leaves unknown ones. */
export function decodeHtmlEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      // Surrogates, NUL and values beyond Unicode are not characters: keep the text as it was.
      if (!Number.isFinite(code) || code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return whole;
      return String.fromCodePoint(code);
    }
    // Own keys only: "&constructor;" must not find Object's prototype.
    return Object.hasOwn(NAMED_ENTITIES, body) ? NAMED_ENTITIES[body]! : whole;
  });
}

/** Decodes `%XX` escapes of ASCII punctuation only (`%22` -> `"`, `%3F` -> `?`, `%60` -> backtick). */
export function decodeWikiTitleEscapes(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(/%([0-9A-Fa-f]{2})/g, (whole, hex: string) => {
    const c = Number.parseInt(hex, 16);
    const punctuation = (c >= 0x20 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
    return punctuation ? String.fromCharCode(c) : whole;
  });
}

/** Source text as llmkb keeps it: HTML entities decoded; for TriviaQA aliases also Wikipedia-title escapes. */
export function cleanSourceText(text: string, source: string): string {
  const decoded = decodeHtmlEntities(text);
  return source === 'triviaqa' ? decodeWikiTitleEscapes(decoded) : decoded;
}
