/**
 * Choosing the answer text to show, as the sources give it.
 *
 * `canonicalAnswer`: the one answer to show (in few-shot examples, as an MCQ option). TriviaQA's
 * alias lists are unordered sets of Wikipedia redirects: the first "plain" alias is often a
 * redirect from a character, a spelling, a list page or another language ("Mr Antolini" for The
 * Catcher in the Rye, "Оросын Холбооны Улс" for Russia). The rule picks the alias most central
 * among the others, as a quiz master would read it out; see `SHOWN_ANSWER_RULE`. Decoding the
 * sources' text (HTML entities, Wikipedia-title escapes) is in decode-source-text.ts.
 */
import { normalizeAnswer } from '../../../text/normalize-answer.js';

/** A short description of the shown-answer rule, for the dataset cards. */
export const SHOWN_ANSWER_RULE =
  'Shown answer: for TriviaQA (unordered sets of Wikipedia aliases) the alias most central among the others: aliases grouped by content words (SQuAD normalisation, hyphens as spaces, ' +
  'stop words dropped, plurals and diacritics folded, "Pharlap" = "Phar Lap"); a group scores its summed word Jaccard similarity to every alias, less one point per word beyond the first (a tenth of the list\'s length for lists under ten), plus two points when the list holds it in capitals (the quiz site\'s own answer, "JOHN BISHOP"); only aliases in Latin script, ' +
  'of at most five words, not disambiguation, list or "History of ..." titles, without parentheses, colon, slash or comma qualify; TriviaQA\'s normalised durations ("2 time") are skipped; ' +
  'then the best spelling (not all capitals unless the initials of another alias, in which case as an acronym, and otherwise written as a title: "ANNE CLEEVES" -> "Anne Cleeves"; no odd capitals, no leading "The"). ' +
  "On llmkb's 203 hand-checked TriviaQA questions it shows an acceptable answer for 92% (the first-plain-alias rule before: 33%). NQ and PopQA answers are ordered lists: their first plain answer is shown.";

const MAX_SHOWN_WORDS = 5;

/** Wikipedia article titles that are about the answer rather than the answer itself. */
const ARTICLE_ABOUT =
  /^(list|lists|index|outline|history|etymology|geography|culture|economy|politics|government|demographics|architecture|wildlife|music|climate|transport|transportation|flag|coat of arms|timeline|presidency|administration|names|name|administrative divisions) (of|in)\b/i;

function isLatinText(text: string): boolean {
  // Every letter must be Latin script (accented Latin letters are fine: "André the Giant").
  return /\p{L}/u.test(text) || /\p{N}/u.test(text) ? !/[^\p{Script=Latin}\P{L}]/u.test(text) : false;
}

function showable(alias: string): boolean {
  const a = alias.trim();
  if (a === '' || !/^[\p{L}\p{N}'"‘“]/u.test(a)) return false;
  // A truncated redirect ("All Saints'", "The Goodies,") ends in a mark a title does not end in.
  if (/['’,;]$/.test(a)) return false;
  if (!isLatinText(a)) return false;
  if (/[()[\]{}:/\\|%=<>#@_~^`*,]/.test(a)) return false;
  if (/\bdisambiguation\b/i.test(a)) return false;
  if (ARTICLE_ABOUT.test(a.replace(/^the /i, ''))) return false;
  if (a.split(/\s+/).length > MAX_SHOWN_WORDS) return false;
  // TriviaQA's normalised durations ("2 time", "two  time" for "2 hours") are not answers anyone says.
  if (
    /^(\d[\d.,]*|[a-z]+)\s+time$/i.test(a) &&
    /^(\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred)/i.test(a)
  )
    return false;
  return normalizeAnswer(a) !== '';
}

/** Words that do not identify an answer ("Republic of Austria" is about Austria). */
const STOP_WORDS = new Set(['of', 'in', 'and', 'on', 'at', 'to', 'for', 'by', 'with', 'from', 'de', 'la', 'le', 'du', 'von', 'der']);

/**
 * Content tokens for comparing aliases: SQuAD normalisation with hyphens and slashes read as
 * spaces ("Bee-Gees" = "Bee Gees"), diacritics folded ("Aikidō" = "Aikido"), stop words dropped,
 * and a light plural stem ("Luthiers" = "Luthier", "Heretics" = "Heretic").
 */
function tokenSet(text: string): Set<string> {
  const folded = text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[-‐–—/]/g, ' ');
  const words = normalizeAnswer(folded)
    .split(' ')
    .filter((w) => w !== '' && !STOP_WORDS.has(w));
  return new Set(words.map((w) => (w.length > 4 && w.endsWith('ies') ? `${w.slice(0, -3)}y` : w.length > 3 && /[^su]s$/.test(w) ? w.slice(0, -1) : w)));
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/** Words a title writes in lower case after its first word. */
const SMALL_WORDS = new Set([
  'of',
  'the',
  'in',
  'and',
  'a',
  'an',
  'on',
  'at',
  'to',
  'for',
  'by',
  'with',
  'from',
  'la',
  'le',
  'les',
  'de',
  'del',
  'du',
  'des',
  'von',
  'van',
  'der',
  'den',
  'di',
  'da',
  'y',
  'e',
]);

/**
 * How well a spelling reads as a Wikipedia title / quiz answer; higher is better. Quiz sites
 * contribute upper-case ("IRVINE WELSH", "THE EDEN") and lower-case ("hms ark royal") variants of
 * the same name; the title form starts with a capital, is not shouted, and capitalises the name.
 */
function spellingScore(text: string): number[] {
  const letters = text.replace(/[^\p{L}]/gu, '');
  const allCaps = letters.length > 1 && letters === letters.toUpperCase() && letters !== letters.toLowerCase();
  const words = text.split(/\s+/).filter((w) => /\p{L}/u.test(w));
  const capitalisedSmall = words.slice(1).filter((w) => SMALL_WORDS.has(w.toLowerCase()) && /^\p{Lu}/u.test(w)).length;
  const capitalised = words.filter((w) => /^[\p{Lu}\p{N}]/u.test(w)).length;
  const punctuation = text.replace(/[\p{L}\p{N}\s'’]/gu, '').length;
  return [
    /^[\p{Lu}\p{N}"'‘“]/u.test(text) ? 1 : 0,
    allCaps ? 0 : 1,
    -words.filter((w) => w.length >= 5 && w === w.toUpperCase() && w !== w.toLowerCase()).length,
    // Capitals inside a word: "RusSia", "BuddHism", "UNited" (typos in redirects).
    /\p{Ll}\p{Lu}|\p{Lu}{2}\p{Ll}/u.test(text) ? 0 : 1,
    /^(the|a|an)\s/i.test(text) ? 0 : 1,
    -capitalisedSmall,
    capitalised,
    -punctuation,
    // Diacritics as Wikipedia spells them ("André") over their plain-ASCII redirect.
    /[^\x00-\x7f]/.test(text) ? 1 : 0,
  ];
}

function compareScores(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (b[i] ?? 0) - (a[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** First alias that reads as a plain short answer (the rule for ordered answer lists; before 0.x also TriviaQA's). */
export function firstPlain(answers: readonly string[]): string | undefined {
  return answers.find((a) => /^[\p{L}\p{N}][\p{L}\p{N}\s.,'’&-]*$/u.test(a) && !/\(.*\)/.test(a) && a.trim().split(/\s+/).length <= MAX_SHOWN_WORDS);
}

/**
 * Written in capitals as a word or name: at least four letters, a vowel, and nothing but capitals,
 * digits, spaces, hyphens, apostrophes and "&" ("A .R . EGYPT" and "BMCT" are abbreviations, left as they are).
 */
function isCapitalised(text: string): boolean {
  const letters = text.replace(/[^\p{L}]/gu, '');
  return letters.length >= 4 && /^[\p{Lu}\p{N}\s&'’-]+$/u.test(text) && /[AEIOUY]/.test(letters);
}

function titleCase(text: string): string {
  return text
    .toLowerCase()
    .split(/(\s+)/)
    .map((w, i) => (i > 0 && SMALL_WORDS.has(w) ? w : w.replace(/^(\P{L}*)(\p{L})/u, (_m, pre: string, c: string) => pre + c.toUpperCase())))
    .join('');
}

/** Upper-case initials of the multi-word aliases (all words, and content words only): "UKIP" for "United Kingdom Independence Party". */
function knownAcronyms(aliases: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const alias of aliases) {
    const words = alias.split(/[\s-]+/).filter((w) => /^\p{L}/u.test(w));
    if (words.length < 2) continue;
    out.add(words.map((w) => w[0]!.toUpperCase()).join(''));
    out.add(
      words
        .filter((w) => !STOP_WORDS.has(w.toLowerCase()))
        .map((w) => w[0]!.toUpperCase())
        .join(''),
    );
  }
  return out;
}

function trigrams(text: string): Set<string> {
  // Lower case but punctuation kept: "St John's" and "St Johns" are different spellings here.
  const t = ` ${text.toLowerCase().replace(/\s+/g, ' ').trim()} `;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= t.length; i++) out.add(t.slice(i, i + 3));
  return out;
}

/**
 * Points a group loses per content token beyond the first: redirects add words ("Queen Victoria of
 * England", "Wisconsin state"), the title is usually the shortest central name. A list of fewer
 * than ten aliases loses a tenth of its length instead, so that a short list ("Phar", "Phar Lap",
 * "Pharlap") is not decided by the penalty alone.
 */
const LENGTH_PENALTY = 1;

/** Score points for the group of the quiz site's own answer (see `centralAlias`). */
const QUIZ_ANSWER_BONUS = 2;

/**
 * The most central showable alias of an unordered alias set. Aliases are grouped by their content
 * tokens (`tokenSet`: "Guy Fawkes" and "Guy fawkes" are one group, so a name that was written in
 * several ways weighs more; "Pharlap" joins "Phar Lap"). A group's score is its summed token
 * Jaccard similarity to every distinct alias string (its own spellings count fully), less
 * `LENGTH_PENALTY` per token beyond the first, plus `QUIZ_ANSWER_BONUS` for the group of the quiz
 * site's own answer; ties go to fewer tokens, then the alphabetically first key. Within the group
 * the spelling is chosen by `spellingScore`, with character-trigram centrality among all aliases
 * deciding between spellings that differ in more than case ("Cyclops" over "Cyclop").
 */
export function centralAlias(answers: readonly string[]): string | undefined {
  const distinct = [...new Set(answers.map((a) => a.trim()).filter(Boolean))];
  const tokens = distinct.map(tokenSet);
  // Written with or without spaces, a name is one name: "Pharlap" = "Phar Lap", "Beegees" = "Bee Gees".
  const compact = tokens.map((t) => [...t].join(''));
  const spacedKey = new Map<string, string>();
  const spacedTokens = new Map<string, Set<string>>();
  tokens.forEach((t, i) => {
    if (t.size > 1 && !spacedKey.has(compact[i]!)) {
      spacedKey.set(compact[i]!, [...t].sort().join(' '));
      spacedTokens.set(compact[i]!, t);
    }
  });
  const keyOf = (i: number) => spacedKey.get(compact[i]!) ?? [...tokens[i]!].sort().join(' ');
  const groups = new Map<string, { forms: string[]; tokens: Set<string>; compact: string }>();
  distinct.forEach((a, i) => {
    if (!showable(a) || tokens[i]!.size === 0) return;
    const key = keyOf(i);
    const group = groups.get(key);
    if (group) group.forms.push(a);
    else groups.set(key, { forms: [a], tokens: spacedTokens.get(compact[i]!) ?? tokens[i]!, compact: compact[i]! });
  });
  const acronyms = knownAcronyms(distinct);
  // The quiz site's own answer: TriviaQA keeps the question writer's answer among the aliases, and
  // several sites write answers in capitals ("THE EDEN", "JOHN BISHOP"). Such an alias's group gets
  // `QUIZ_ANSWER_BONUS`. Not counted: initials of another alias ("EENT", "THFC"), and a single
  // capitalised word with no other spelling in the list (codes such as "USCHI", "COYS").
  const quizKeys = new Set<string>();
  distinct.forEach((a, i) => {
    const key = keyOf(i);
    if (!groups.has(key) || !isCapitalised(a) || acronyms.has(a.replace(/[^\p{L}]/gu, ''))) return;
    if (!/\s/.test(a.trim()) && !groups.get(key)!.forms.some((f) => !isCapitalised(f))) return;
    quizKeys.add(key);
  });
  let best: { key: string; score: number; size: number; forms: string[] } | undefined;
  for (const [key, group] of groups) {
    let score = -1 + (quizKeys.has(key) ? QUIZ_ANSWER_BONUS : 0); // -1: the alias itself
    tokens.forEach((t, i) => {
      score += compact[i] === group.compact || keyOf(i) === key ? 1 : Math.max(jaccard(group.tokens, t), jaccard(new Set([group.compact]), t));
    });
    score -= Math.min(LENGTH_PENALTY, distinct.length / 10) * (group.tokens.size - 1);
    const size = group.tokens.size;
    const better =
      best === undefined || score > best.score + 1e-9 || (Math.abs(score - best.score) <= 1e-9 && (size < best.size || (size === best.size && key < best.key)));
    if (better) best = { key, score, size, forms: group.forms };
  }
  if (best === undefined) return undefined;
  const grams = distinct.map(trigrams);
  const centrality = (form: string) => {
    const own = trigrams(form);
    let sum = 0;
    for (const g of grams) sum += jaccard(own, g);
    return Math.round(sum * 1000);
  };
  // The quiz site's capitals are shown as a title would be written ("ANNE CLEEVES" -> "Anne Cleeves").
  const forms = [...new Set(best.forms.flatMap((f) => (isCapitalised(f) && !acronyms.has(f.replace(/[^\p{L}]/gu, '')) ? [f, titleCase(f)] : [f])))];
  const ranked = forms.map((form) => {
    const [upper, notCaps, notShouted, noInnerCaps, ...rest] = spellingScore(form);
    // "UKIP" when the list also has "United Kingdom Independence Party": capitals are its spelling.
    const acronym = acronyms.has(form) ? 1 : 0;
    const [noArticle, ...others] = rest;
    return { form, key: [upper!, acronym, notCaps!, notShouted!, noInnerCaps!, noArticle!, centrality(form), ...others] };
  });
  ranked.sort((a, b) => compareScores(a.key, b.key) || (a.form < b.form ? -1 : a.form > b.form ? 1 : 0));
  return ranked[0]!.form;
}

/** The answer to show for a question of `source` (see `SHOWN_ANSWER_RULE`). */
export function canonicalAnswer(answers: readonly string[], source: string): string {
  if (source === 'triviaqa') return centralAlias(answers) ?? firstPlain(answers) ?? answers[0]!;
  return firstPlain(answers) ?? answers[0]!;
}

/** The answers with the shown one first (readers of item files show `answers[0]`). */
export function withCanonicalFirst(answers: readonly string[], source: string): string[] {
  const shown = canonicalAnswer(answers, source);
  return [shown, ...answers.filter((a) => a !== shown)];
}
