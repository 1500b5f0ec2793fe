/**
 * What a declining response says (the `unsure` rules of uninformative.ts): whole answers that
 * decline, declining phrases inside a longer response (a decline, or a disclaimer about the model
 * or the sources), and whether an answer follows a disclaimer ("..., however, X").
 */
import { STOPWORDS, stem, words } from './response-words.js';

/** Whole answers that decline, after SQuAD normalisation. */
export const REFUSALS = new Set([
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
export const DECLINING_PHRASES: Array<[string, RegExp, PhraseKind]> = [
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

export function firstDecliningPhrase(lower: string): { name: string; kind: PhraseKind; match: RegExpExecArray } | undefined {
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
export function answeredAfterDisclaimer(lower: string, question: string): boolean {
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
