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
 */
import { normalizeAnswer } from '../../../text/normalize-answer.js';

export type UninformativeType = 'none' | 'unsure' | 'repetition';

export interface UninformativeVerdict {
  type: UninformativeType;
  /** e.g. `rule:empty`, `rule:unsure-phrase`, `rule:repetition-ngram`. */
  rule: string;
  /** What matched, for the record. */
  detail: string;
}

/** Whole answers that decline, after SQuAD normalisation. */
const REFUSALS = new Set([
  'unsure',
  'not sure',
  'im not sure',
  'i am not sure',
  'i am unsure',
  'im unsure',
  'uncertain',
  'i am uncertain',
  'im uncertain',
  'unknown',
  'its unknown',
  'it is unknown',
  'not known',
  'unknowable',
  'i dont know',
  'i do not know',
  'dont know',
  'do not know',
  'idk',
  'no idea',
  'i have no idea',
  'no information',
  'no info',
  'no data',
  'no answer',
  'no comment',
  'n a',
  'na',
  'nil known',
  'cannot answer',
  'cant answer',
  'i cannot answer',
  'i cant answer',
  'cannot say',
  'cant say',
  'hard to say',
  'not available',
  'sorry',
  'pass',
  'no clue',
  'not applicable',
  'undetermined',
  'undecided',
  'to be determined',
  'tbd',
  'tba',
  'to be announced',
  'unclear',
  'not clear',
  'no record',
  'no records',
  'none known',
  'no one knows',
  'nobody knows',
  'unanswerable',
  'i dont remember',
  'i cannot know',
  'i cant know',
  'impossible to know',
  'i have no information',
  'no reliable information',
  'not sure sorry',
]);

/**
 * Declining phrases inside a longer response. Word boundaries throughout; matched on lower-cased
 * text. Two kinds:
 * - `decline`: the model says it does not know *the answer* ("I'm not sure", "I don't know", "no
 *   idea"). A guess after it ("I'm not sure, but I think it might be X") is still unsure: the
 *   paper's `unsure` class is a model that does not commit to an answer.
 * - `disclaimer`: a remark about the model or the sources ("As an AI language model I don't have
 *   real-time data", "I couldn't find specific information", "its origin is uncertain"). On its
 *   own it declines; followed by "however"/"but" and an answer that declines nothing, it is a
 *   preamble to that answer (`answeredAfterDisclaimer`). EVOUNA's human annotators marked such
 *   answers correct (ChatGPT: "As an AI language model, I do not have access to real-time
 *   information. However, America's Next Top Model Cycle 20 was won by Jourdan Miller.").
 */
type PhraseKind = 'decline' | 'disclaimer';
const DECLINING_PHRASES: Array<[string, RegExp, PhraseKind]> = [
  ['unsure', /^unsure\b/, 'decline'],
  ['not-sure', /\b(i'?m|i am|we are|we're)\s+(not\s+(entirely\s+|completely\s+|quite\s+|really\s+)?(sure|certain)|unsure|uncertain)\b/, 'decline'],
  ['not-sure-bare', /^(not\s+(sure|certain)|unsure|uncertain|unknown)\b[\s.,!;:-]/, 'decline'],
  ['dont-know', /\b(i|we)\s+(do\s+not|don'?t|dont|cannot|can'?t)\s+(really\s+)?(know|recall|remember|tell|say)\b/, 'decline'],
  ['no-idea', /\b(i\s+have|i'?ve\s+got|i'?ve)\s+no\s+(idea|clue|knowledge|information|data|record)\b/, 'decline'],
  [
    'no-information',
    /\b(i\s+)?(do\s+not|don'?t|dont|cannot|can'?t|couldn'?t|could\s+not)\s+(have|find|access|provide|give|offer|locate)\s+(any\s+|enough\s+|specific\s+|reliable\s+|real-time\s+|current\s+|accurate\s+|verified\s+|the\s+|that\s+|this\s+)*(information|info|knowledge|data|details|records?|answer|facts)\b/,
    'disclaimer',
  ],
  [
    'no-information-about',
    /\bno\s+(specific\s+|reliable\s+|public(ly available)?\s+|available\s+|known\s+|verifiable\s+|accurate\s+|such\s+)*(information|data|records?|details|knowledge|mention|evidence)\s+(about|on|of|regarding|for|available|exists?)\b/,
    'disclaimer',
  ],
  [
    'there-is-no-record',
    /\bthere(\s+(is|are|was|were)|'s)\s+no\s+(known\s+|public\s+|reliable\s+|such\s+|available\s+|record(ed)?\s+)*(record|records|information|data|person|one|evidence|answer|way\s+to\s+know|public\s+figure)\b/,
    'disclaimer',
  ],
  [
    'as-an-ai',
    /\b(as|i'?m|i\s+am)\s+(just\s+|only\s+)?an?\s+(ai|a\.i\.|artificial intelligence|language model|large language model|ai language model|ai assistant|ai model|chatbot)\b/,
    'disclaimer',
  ],
  ['as-an-ai-short', /\bi'?m\s+(just\s+)?an?\s+ai\b|\bi\s+am\s+(just\s+)?an?\s+ai\b/, 'disclaimer'],
  [
    'impossible-to-know',
    /\b(impossible|not\s+possible|no\s+way|hard|difficult)\s+(for\s+me\s+)?to\s+(know|predict|say|tell|determine|answer|foresee)\b/,
    'decline',
  ],
  // "My knowledge cutoff prevents me from answering"; not the qualifier "As of my knowledge
  // cutoff in 2021, the owner was X", which dates an answer (GPT-4's habit on EVOUNA).
  [
    'knowledge-cutoff',
    /(?<!\b(as\s+of|since|until|up\s+to|based\s+on|according\s+to|at\s+the\s+time\s+of)\s+(my\s+)?(last\s+|latest\s+|most\s+recent\s+)?)\b(my\s+)?(knowledge|training)\s+(cutoff|cut-off|data\s+(only\s+)?(goes|extends)|only\s+goes)\b/,
    'disclaimer',
  ],
  // First person (or no subject at all): "You can't find your vase" in a story is not a refusal.
  [
    'cannot-answer',
    /(\b(i|we)\s+|\bi'm\s+|^)(cannot|can'?t|can\s+not|am\s+unable\s+to|are\s+unable\s+to|unable\s+to|am\s+not\s+able\s+to|not\s+able\s+to)\s+(answer|provide|predict|determine|know|say|tell|confirm|verify|find|give|access|browse|look|help)\b/,
    'disclaimer',
  ],
  ['not-available', /\b(is|are|was|were)\s+not\s+(publicly\s+)?(available|known|disclosed|documented|public|recorded)\b/, 'disclaimer'],
  [
    'is-unknown',
    /\b(is|are|was|were|remains?|currently)\s+(still\s+)?(unknown|uncertain|undetermined|unclear|undecided|not\s+yet\s+(known|determined|decided|announced))\b/,
    'disclaimer',
  ],
  [
    'future-event',
    /\b(has|have|had)\s+not\s+(yet\s+)?(happened|taken\s+place|occurred|been\s+(held|played|decided|determined|announced))\b|\b(hasn'?t|haven'?t)\s+(yet\s+)?(happened|taken\s+place|occurred|been)\b|\byet\s+to\s+(happen|take\s+place|occur|be\s+(held|played|decided|determined|announced))\b|\b(is|are)\s+in\s+the\s+future\b|\bcannot\s+predict\s+the\s+future\b|\bhas\s+not\s+(yet\s+)?been\s+determined\b/,
    'disclaimer',
  ],
  // "appears to be a fictional person", "X is fictional.", "is not a real person"; not the
  // description "Kaa is a fictional Indian rock python" or "the uvea is made up of the iris...".
  [
    'fictional',
    /\b(seems|appears)\s+to\s+be\s+(a\s+)?(fictional|fictitious|made[\s-]up|not\s+a\s+real)\b|\bis\s+(a\s+)?(fictional|fictitious|made[\s-]up)(\s+(person|individual|name|figure|people))?\s*([.,;!]|$)|\bis\s+not\s+a\s+real\b|\b(no\s+such|not\s+a\s+(real|known|famous|notable|public))\s+(person|individual|figure|people)\b|\bdoes\s+not\s+(seem\s+to\s+)?exist\b|\bnot\s+(familiar|aware)\s+(with|of)\b|\bi('?m|\s+am)\s+not\s+(familiar|aware)\b|\bcould\s+not\s+find\b|\bcouldn'?t\s+find\b|\bno\s+(one|person)\s+(by|with|named)\s+that\s+name\b/,
    'disclaimer',
  ],
  ['sorry', /^(i'?m\s+|i\s+am\s+|)sorry\b/, 'disclaimer'],
  ['no-answer', /^(no\s+answer|n\/a|none\s+known|not\s+applicable)\b/, 'decline'],
];

/** Pointing elsewhere or offering something else instead of answering (ChatGPT's habits in EVOUNA). */
const DEFLECTION =
  /\b(you\s+(can|could|may|might|should)\s+(want\s+to\s+)?(check|consult|refer|visit|search|look|try|contact|find)|(please|kindly)\s+(check|consult|refer|specify|provide|clarify|visit)|can\s+you\s+(please\s+)?(specify|clarify|provide|tell)|if\s+you\s+(can\s+|could\s+)?(provide|give|specify|clarify|tell)|i\s+(would\s+)?(recommend|suggest)|it'?s\s+(best|advisable|recommended)\s+to|(there\s+(has|have)\s+been\s+)?no\s+official\s+(announcement|information|confirmation|word))/;

/** Words of an offer, which is not an answer: "However, I can provide you with a general overview." */
const OFFER_WORDS = new Set(
  'i can could would be happy glad provide give offer you with some general overview information info factual details context background based according research studies sources tell help answer question'.split(
    ' ',
  ),
);

/** A turn from a disclaimer to an answer ("..., however, X", "..., but to answer your question, X"). */
const CONTRAST = /\b(however|but|that said|that being said|nevertheless|nonetheless|even so|still)\b[\s,:;-]*/g;

/**
 * Any of DECLINING_PHRASES, in one pattern: most responses contain none, and one search of the
 * alternation costs less than twenty of the phrases (the phrases have no flags and no
 * back-references, so the alternation matches exactly when one of them does).
 */
const ANY_DECLINING_PHRASE = new RegExp(DECLINING_PHRASES.map(([, re]) => `(?:${re.source})`).join('|'));

function firstDecliningPhrase(lower: string): { name: string; kind: PhraseKind; match: RegExpExecArray } | undefined {
  if (!ANY_DECLINING_PHRASE.test(lower)) return undefined;
  for (const [name, re, kind] of DECLINING_PHRASES) {
    const match = re.exec(lower);
    if (match) return { name, kind, match };
  }
  return undefined;
}

/**
 * A disclaimer followed by a turn ("however", "but") and then an answer: text with at least two
 * content words the question does not contain and no declining phrase of either kind. "I'm
 * sorry, but I couldn't find any information" stays a refusal; "As an AI language model I don't
 * have personal opinions. However, Georgia Nicolson is the main character" does not.
 */
function answeredAfterDisclaimer(lower: string, question: string): boolean {
  const questionWords = new Set(words(question).map(stem));
  for (const turn of lower.matchAll(CONTRAST)) {
    const after = lower.slice(turn.index + turn[0].length);
    if (firstDecliningPhrase(after)) continue;
    // Only what comes before a pointer elsewhere can be the answer: "However, you can check the
    // official website", "However, I can provide a general overview" answer nothing.
    const deflection = DEFLECTION.exec(after);
    const rest = deflection ? after.slice(0, deflection.index) : after;
    const novel = words(rest).filter((w) => !STOPWORDS.has(w) && !OFFER_WORDS.has(w) && !questionWords.has(stem(w)));
    if (novel.length >= 2) return true;
  }
  return false;
}

const STOPWORDS = new Set(
  'a an the of in on at to for by with from and or is was were are be been what which who whom whose when where how did does do that this it its as into about'.split(
    ' ',
  ),
);

/** Words an unfinished sentence ends with, just before the missing answer. */
const DANGLING = /^(by|is|was|were|are|in|of|at|on|to|from|year|born|called|named|as|than)$/;

/** Crude stemming, enough to match "died" with "die" and "medals" with "medal". */
function stem(word: string): string {
  // word.replace(/(ing|ed|es|s|d)$/, ''), spelled out (it runs for every word of the question):
  // the leftmost match is the longest ending.
  if (word.length <= 4) return word;
  if (word.endsWith('ing')) return word.slice(0, -3);
  if (word.endsWith('ed') || word.endsWith('es')) return word.slice(0, -2);
  if (word.endsWith('s') || word.endsWith('d')) return word.slice(0, -1);
  return word;
}

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

let lastWords: { text: string; words: readonly string[] } | undefined;

/** Normalised words; the last text's are kept, since one question is checked against each of its twenty distractors in a row. */
function words(text: string): readonly string[] {
  if (lastWords?.text !== text) lastWords = { text, words: normalizeAnswer(text).split(' ').filter(Boolean) };
  return lastWords.words;
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
