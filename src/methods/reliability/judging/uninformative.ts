/**
 * Uninformative responses (paper section 3.3, Appendix C): `none` (no relevant content: empty,
 * punctuation only, or a restatement of the question or prompt), `unsure` (the model declines:
 * "unsure", "I don't know", "As an AI language model…", "no information"…), `repetition` (the
 * text keeps echoing one string; found with a repeated-n-gram pattern and word-frequency
 * analysis). Checked in that order; the first rule that fires names the sub-type, and the rule id
 * is recorded so every label can be explained.
 *
 * Real answers that only look like refusals stay informative: titles that contain a declining
 * word ("Unknown Pleasures", "I Don't Know How to Love Him"), "None" (a claim: zero, or the band),
 * a number, a short answer said twice ("Paris, Paris").
 *
 * The refusals and declining phrases the `unsure` rules look for are in declining-phrases.ts; the
 * words the rules compare (normalised, stop words, stems) come from response-words.ts.
 */
import { normalizeAnswer } from '../../../text/normalize-answer.js';
import { answeredAfterDisclaimer, DECLINING_PHRASES, firstDecliningPhrase, REFUSALS } from './declining-phrases.js';
import { STOPWORDS, stem, words } from './response-words.js';

export type UninformativeType = 'none' | 'unsure' | 'repetition';

export interface UninformativeVerdict {
  type: UninformativeType;
  /** e.g. `rule:empty`, `rule:unsure-phrase`, `rule:repetition-ngram`. */
  rule: string;
  /** What matched, for the record. */
  detail: string;
}

/** Words an unfinished sentence ends with, just before the missing answer. */
const DANGLING = /^(by|is|was|were|are|in|of|at|on|to|from|year|born|called|named|as|than)$/;

/** Questions whose answer is itself a name or title (album, song, band...). */
const ASKS_FOR_NAME = /\b(album|song|single|film|movie|book|novel|band|title|group|show|series|play|poem|painting|record)\b/i;

let lastNormalized: { text: string; normalized: string } | undefined;

/**
 * normalizeAnswer, remembering the last text: judging normalises a response for the rules and
 * then again for exact match (judgeByRules), the same string when it has no prompt scaffold.
 */
export function normalizeOnce(text: string): string {
  if (lastNormalized?.text !== text) lastNormalized = { text, normalized: normalizeAnswer(text) };
  return lastNormalized.normalized;
}

/**
 * Title-like short text ("Unknown Pleasures", "I Don't Know How to Love Him"): most longer words
 * capitalised, no sentence punctuation. Declining phrases inside such text are part of a name.
 */
export function looksLikeTitle(text: string): boolean {
  const t = text.trim().replace(/^["'“‘]|["'”’]$/g, '');
  if (/[.!?]\s*\S/.test(t) || /[,;:]/.test(t)) return false;
  const ws = t.split(/\s+/).filter(Boolean);
  if (ws.length < 2 || ws.length > 10) return false;
  const long = ws.filter((w) => /^\p{L}/u.test(w) && w.replace(/[^\p{L}]/gu, '').length >= 3);
  if (long.length === 0) return false;
  const capitalised = long.filter((w) => /^\p{Lu}/u.test(w)).length;
  return capitalised / long.length >= 0.75 && /^\p{Lu}/u.test(ws[0]!);
}

/** The prompt scaffolding a base model may spill into its answer. */
const SCAFFOLD = /\b(ANSWER|QUESTION|INSTRUCTION|Answer|Question)\s*:/g;

function repeatsAQuestionWord(response: readonly string[], question: readonly string[]): boolean {
  const inQuestion = new Map<string, number>();
  for (const w of question) inQuestion.set(w, (inQuestion.get(w) ?? 0) + 1);
  const inResponse = new Map<string, number>();
  for (const w of response) inResponse.set(w, (inResponse.get(w) ?? 0) + 1);
  return [...inResponse].some(([w, n]) => n > (inQuestion.get(w) ?? n));
}

/**
 * A lower bound on the length of normalizeAnswer(text): its ASCII letters and digits other than
 * those of the articles (a, an, the) all survive normalisation (it removes ASCII punctuation,
 * white space and the articles, and lower-cases), so it has at least that many characters.
 */
function survivingCharacters(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x30 && code <= 0x39) {
      n++;
      continue;
    }
    // A-Z lower-cased as normalizeAnswer does; a, n, t, h and e may be an article's.
    const c = code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
    if (c >= 0x61 && c <= 0x7a && c !== 0x61 && c !== 0x6e && c !== 0x74 && c !== 0x68 && c !== 0x65) n++;
  }
  return n;
}

function isRestatement(normalizedResponse: string, question: string): string | undefined {
  const r = normalizedResponse.split(' ').filter(Boolean);
  if (r.length === 0) return undefined;
  const rs = r.join(' ');
  // The question is normalised only when it could be the response itself or is compared word
  // by word below: most responses are much shorter than any question.
  let q: readonly string[] | undefined;
  if (survivingCharacters(question) <= rs.length) {
    q = words(question);
    if (q.length === 0) return undefined;
    if (rs === q.join(' ')) return 'the question itself';
  }
  // (Otherwise the question has more than rs.length characters left, so some: it is not empty.)
  // The instruction line echoed back.
  if (
    /please answer knowledge ?related (multichoice )?questions directly|do not give anything other than the (answer|appropriate option)/.test(rs) &&
    r.length >= 6
  )
    return 'the instruction line';
  const rContent = r.filter((w) => !STOPWORDS.has(w)).map(stem);
  // Most responses have fewer than two content words: the question's are not needed then.
  if (rContent.length < 2) return undefined;
  q ??= words(question);
  const qContent = new Set(q.filter((w) => !STOPWORDS.has(w)).map(stem));
  if (qContent.size === 0) return undefined;
  const novel = rContent.filter((w) => !qContent.has(w));
  const covered = new Set(rContent.filter((w) => qContent.has(w)));
  const coverage = covered.size / qContent.size;
  // Nothing new, and most of the question said again; unless the response picks one side of an
  // alternative question ("is Greenland part of Europe or North America" → "Greenland is part of
  // North America"), or says a word of the question more often than the question does, which is
  // then the answer ("... unit of life according to the cell theory" → "... is the cell").
  const picksAlternative = q.includes('or') && !r.includes('or');
  if (novel.length === 0 && coverage >= 0.6 && !picksAlternative && !repeatsAQuestionWord(rContent, q.filter((w) => !STOPWORDS.has(w)).map(stem)))
    return 'a restatement of the question';
  // An unfinished rewording that stops where the answer should start ("... was written by").
  if (novel.length <= 1 && coverage >= 0.6 && DANGLING.test(r[r.length - 1]!)) return 'the question reworded, with no answer';
  return undefined;
}

/** Longest run of one n-gram (n = 1..8) repeated back to back, in tokens covered. */
function repeatedRun(tokens: readonly string[]): { gram: string; times: number; covered: number } | undefined {
  let best: { gram: string; times: number; covered: number } | undefined;
  const maxN = Math.min(8, Math.floor(tokens.length / 3));
  for (let n = 1; n <= maxN; n++) {
    for (let start = 0; start + 3 * n <= tokens.length; start++) {
      let times = 1;
      while (start + (times + 1) * n <= tokens.length) {
        let same = true;
        for (let k = 0; k < n; k++) {
          if (tokens[start + k] !== tokens[start + times * n + k]) {
            same = false;
            break;
          }
        }
        if (!same) break;
        times++;
      }
      if (times >= 3 && (!best || times * n > best.covered)) best = { gram: tokens.slice(start, start + n).join(' '), times, covered: times * n };
    }
  }
  return best;
}

export function detectRepetition(response: string): UninformativeVerdict | undefined {
  // Lower-cased words without punctuation; articles kept (a loop on "the" is still a loop).
  // Digit groups joined by punctuation are one token: "2008-12-12 00:00:00" is a date, not a loop on "00".
  const tokens = response
    .toLowerCase()
    .replace(/(?<=\d)[:.\-/,](?=\d)/g, '')
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
  if (tokens.length < 3) return undefined;
  const run = repeatedRun(tokens);
  // Looping on one string: it repeats at least three times and fills most of the response.
  if (run && run.covered / tokens.length >= 0.5) {
    return { type: 'repetition', rule: 'rule:repetition-ngram', detail: `"${run.gram}" x${run.times}` };
  }
  // Word-frequency analysis: a long response made of very few distinct words, or dominated by one.
  if (tokens.length >= 8) {
    const counts = new Map<string, number>();
    for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
    const distinct = counts.size / tokens.length;
    const [topWord, topCount] = [...counts.entries()].filter(([w]) => !STOPWORDS.has(w)).sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    if (distinct <= 0.3) return { type: 'repetition', rule: 'rule:repetition-vocabulary', detail: `${counts.size} distinct words in ${tokens.length}` };
    if (topCount >= 4 && topCount / tokens.length >= 0.35)
      return { type: 'repetition', rule: 'rule:repetition-frequency', detail: `"${topWord}" is ${topCount} of ${tokens.length} words` };
  }
  // Repeated lines or sentences: the same sentence three or more times.
  const parts = response.split(/[\n.!?]+/);
  if (parts.length < 3) return undefined;
  // Single letters are the pieces of abbreviations ("U.S.S. Maine"), not sentences.
  const sentences = parts.map((s) => normalizeAnswer(s)).filter((s) => s.length > 1);
  if (sentences.length >= 3) {
    const counts = new Map<string, number>();
    for (const s of sentences) counts.set(s, (counts.get(s) ?? 0) + 1);
    const [sentence, n] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    if (n >= 3 && n / sentences.length >= 0.5) return { type: 'repetition', rule: 'rule:repetition-lines', detail: `"${sentence}" x${n}` };
  }
  return undefined;
}

export function detectUninformative(response: string, question: string): UninformativeVerdict | undefined {
  return firstUninformativeRule(response, question, true);
}

/**
 * Whether detectUninformative calls the response `unsure`: the same rules in the same order, but
 * the repetition rules, checked last, cannot make it `unsure` and are skipped (a distractor
 * generator's every item is checked).
 */
export function declinesToAnswer(response: string, question: string): boolean {
  return firstUninformativeRule(response, question, false)?.type === 'unsure';
}

function firstUninformativeRule(response: string, question: string, repetition: boolean): UninformativeVerdict | undefined {
  const text = response.trim();
  // none: nothing there
  if (text === '') return { type: 'none', rule: 'rule:empty', detail: 'empty response' };
  if (/^[\p{P}\p{S}\s]*$/u.test(text)) return { type: 'none', rule: 'rule:punctuation-only', detail: JSON.stringify(text.slice(0, 40)) };
  const withoutScaffold = text.replace(SCAFFOLD, ' ').trim();
  // (Unchanged text was checked just above.)
  if (withoutScaffold !== text && (withoutScaffold === '' || /^[\p{P}\p{S}\s]*$/u.test(withoutScaffold)))
    return { type: 'none', rule: 'rule:prompt-scaffold-only', detail: JSON.stringify(text.slice(0, 40)) };
  const normalized = normalizeOnce(withoutScaffold);
  const restated = isRestatement(normalized, question);
  if (restated) return { type: 'none', rule: 'rule:restates-question', detail: restated };
  // unsure: the model declines; unless a question about a name or title got a title-like answer
  // ("Unknown Pleasures", "Nobody Knows"): then the words are the name, not a refusal. Asked
  // only when a refusal is found (most responses have none).
  let nameAnswer: boolean | undefined;
  const isNameAnswer = (): boolean => (nameAnswer ??= ASKS_FOR_NAME.test(question) && looksLikeTitle(withoutScaffold));
  if (REFUSALS.has(normalized) && !isNameAnswer()) return { type: 'unsure', rule: 'rule:unsure-answer', detail: normalized };
  // A quoted title is a name, not the model's words: "I Can't Help Falling in Love With You" was recorded by Elvis.
  const unquoted = withoutScaffold.replace(/["“]([^"“”\n]{1,100})["”]/g, (quote, inner: string) => (looksLikeTitle(inner) ? '"…"' : quote));
  const lower = unquoted.toLowerCase().replace(/[’‘]/g, "'");
  const found = firstDecliningPhrase(lower);
  // Every phrase found decides, unless all of them are disclaimers that an answer follows.
  if (found && !isNameAnswer()) {
    const declines = found.kind === 'decline' || DECLINING_PHRASES.some(([, re, kind]) => kind === 'decline' && re.test(lower));
    if (declines || !answeredAfterDisclaimer(lower.slice(found.match.index), question))
      return { type: 'unsure', rule: 'rule:unsure-phrase', detail: `${found.name}: "${found.match[0]}"` };
  }
  // repetition: echoing one string
  return repetition ? detectRepetition(withoutScaffold) : undefined;
}
