/**
 * CONNER's options: on `llmkb eval --method conner` as flags, in a study's `methods:` entry by
 * key. The generation options are those of `llmkb conner generate`, the scoring options those of
 * `llmkb conner score`; each default is the paper's equation or setup (../conner-choices.ts).
 */
import { LlmkbError } from '../../../errors.js';
import type { MethodOption } from '../../method.js';
import {
  DEFAULT_CHOICES,
  DIALOGUE_QUERIES,
  DIALOGUE_VALIDITIES,
  FACTUALITY_RULES,
  INFORMATIVENESS_PREFIXES,
  REFERENCE_PREMISES,
  RELEASED_CODE_CHOICES,
  SENTENCE_COHERENCE_FORMS,
  type ScoringChoices,
} from '../conner-choices.js';
import type { ConnerTask } from '../generation/conner-queries.js';
import { BEST_ZERO_SHOT_PROMPT, DEFAULT_ANSWER_MAX_TOKENS, DEFAULT_ANSWER_SHOTS, DEFAULT_EVIDENCE_TOP, DEFAULT_KNOWLEDGE_MAX_TOKENS, DEFAULT_SHOTS } from '../defaults.js';

export interface ConnerOptions {
  /** The queries: one of CONNER's test files or JSONL. */
  input: string;
  /** undefined: from the CONNER file's name. */
  task?: ConnerTask;
  /** Zero-shot: Table 11's prompt. */
  prompt: number;
  shots: number;
  answerShots: number;
  /** The demonstration pool (default: the other queries of the input). */
  demos?: string;
  fixedDemos: boolean;
  maxTokens: number;
  answerMaxTokens: number;
  corpus?: string;
  evidenceTop: number;
  choices: ScoringChoices;
}

const choice = (key: string, flags: string, values: readonly string[], description: string): MethodOption => ({ key, flags, type: 'string', choices: values, description });

export const CONNER_OPTIONS: readonly MethodOption[] = [
  { key: 'input', flags: '--input <file>', type: 'string', path: 'input-file', required: true, description: "the queries (required): one of CONNER's test files (nq_test_random_testset.txt; WoW's seen_/unseen_random_testset.txt) or JSONL ({id, task, topic, query, referenceKnowledge?, goldAnswer?})" },
  choice('task', '--task <task>', ['qa', 'dialogue'], 'qa or dialogue (default: from the CONNER file name: nq_* is qa)'),
  { key: 'prompt', flags: '--prompt <n>', type: 'integer', min: 1, max: 4, defaultValue: BEST_ZERO_SHOT_PROMPT, description: `zero-shot: the knowledge prompt of Table 11 (1-4; default ${BEST_ZERO_SHOT_PROMPT}, the one the paper marks)` },
  { key: 'shots', flags: '--shots <n>', type: 'integer', min: 1, defaultValue: DEFAULT_SHOTS, description: `few-shot: demonstrations per query (drawn per query, seeded; default ${DEFAULT_SHOTS}; fewer when they do not fit the context, recorded)` },
  { key: 'answerShots', flags: '--answer-shots <n>', type: 'integer', min: 0, defaultValue: DEFAULT_ANSWER_SHOTS, description: `demonstrations in the answer prompt (Appendix G; default ${DEFAULT_ANSWER_SHOTS})` },
  { key: 'demos', flags: '--demos <file>', type: 'string', path: 'input-file', description: 'demonstration pool: a query file with gold knowledge and answers (default: the other queries of the input)' },
  { key: 'fixedDemos', flags: '--fixed-demos', type: 'boolean', description: 'the --demos file as the demonstrations of every query, in order (the output of `llmkb conner select-demos`)' },
  { key: 'maxTokens', flags: '--max-tokens <n>', type: 'integer', min: 1, defaultValue: DEFAULT_KNOWLEDGE_MAX_TOKENS, description: `maximum new tokens of a knowledge text (default ${DEFAULT_KNOWLEDGE_MAX_TOKENS})` },
  { key: 'answerMaxTokens', flags: '--answer-max-tokens <n>', type: 'integer', min: 1, defaultValue: DEFAULT_ANSWER_MAX_TOKENS, description: `maximum new tokens of a downstream answer (default ${DEFAULT_ANSWER_MAX_TOKENS})` },
  { key: 'corpus', flags: '--corpus <name>', type: 'string', description: "evidence from this corpus of the store (`llmkb corpus add`, or an index registered with `llmkb corpus add-remote`); default: each query's reference knowledge" },
  { key: 'evidenceTop', flags: '--evidence-top <n>', type: 'integer', min: 1, defaultValue: DEFAULT_EVIDENCE_TOP, description: `evidence passages per sentence from the corpus (default ${DEFAULT_EVIDENCE_TOP})` },
  choice('aggregation', '--aggregation <op>', ['min', 'mean', 'max'], "factuality over sentences (Eq. 1): min (default, the paper's example), mean or max"),
  choice('factualityRule', '--factuality-rule <rule>', FACTUALITY_RULES, "vector: Eq. 1's NLI vectors (default); labels: each sentence's label combined as ordinals, as the authors' scripts"),
  choice('premises', '--premises <form>', REFERENCE_PREMISES, 'a reference passage as NLI premises: sentences (its sentences, then itself, first 32; default) or passage'),
  choice('coherenceSentence', '--coherence-sentence <form>', SENTENCE_COHERENCE_FORMS, "mean-inverse: Eq. 3's mean of 1/PPL (default); inverse-mean: 1/mean(min(PPL, 200)), as the authors' src/ppl.py"),
  choice('dialogueQuery', '--dialogue-query <form>', DIALOGUE_QUERIES, "dialogue's query for relevance and informativeness: utterance (default) or history (as the authors' scripts)"),
  choice('dialogueValidity', '--dialogue-validity <form>', DIALOGUE_VALIDITIES, 'premises of open-answer validity (Eq. 8): evidence (default) or response-and-evidence (as src/wow_validity.py)'),
  choice('informativenessPrefix', '--informativeness-prefix <form>', INFORMATIVENESS_PREFIXES, "what informativeness conditions on: table11 (default) or code (src/info.py's instruction)"),
  { key: 'asReleased', flags: '--as-released', type: 'boolean', description: "every form of the authors' released scripts at once (labels, sentences, inverse-mean, history, response-and-evidence, code, max, 1 negative); each option still wins" },
  { key: 'negatives', flags: '--negatives <u>', type: 'integer', min: 1, description: `u: random other knowledge texts in the helpfulness baseline (Eq. 6; default ${DEFAULT_CHOICES.negatives}; with --as-released ${RELEASED_CODE_CHOICES.negatives}, as src/helpfulness.py)` },
];

/** The scoring choices: each option given, else --as-released's form, else the paper's equation. */
export function scoringChoices(raw: Readonly<Record<string, unknown>>): ScoringChoices {
  const base: ScoringChoices = { ...DEFAULT_CHOICES, ...(raw.asReleased === true ? RELEASED_CODE_CHOICES : {}) };
  const pick = <K extends keyof ScoringChoices>(key: K, option: string): ScoringChoices[K] => (raw[option] as ScoringChoices[K] | undefined) ?? base[key];
  return {
    aggregation: pick('aggregation', 'aggregation'),
    factualityRule: pick('factualityRule', 'factualityRule'),
    premises: pick('premises', 'premises'),
    sentenceCoherence: pick('sentenceCoherence', 'coherenceSentence'),
    dialogueQuery: pick('dialogueQuery', 'dialogueQuery'),
    dialogueValidity: pick('dialogueValidity', 'dialogueValidity'),
    informativenessPrefix: pick('informativenessPrefix', 'informativenessPrefix'),
    negatives: pick('negatives', 'negatives'),
  };
}

/** The options with their defaults; CONNER has no queries of its own, so `input` is required. */
export function connerOptions(raw: Readonly<Record<string, unknown>>): ConnerOptions {
  if (typeof raw.input !== 'string') {
    throw new LlmkbError('CONNER needs its queries: --input FILE (a study: "input" in the method\'s options)', {
      hint: "Give one of CONNER's test files (Natural Questions: nq_test_random_testset.txt; Wizard of Wikipedia: seen_random_testset.txt) or a JSONL query file (docs/conner.md).",
    });
  }
  if (raw.fixedDemos === true && raw.demos === undefined) throw new LlmkbError('--fixed-demos needs --demos FILE', { hint: 'Make the file with `llmkb conner select-demos`.' });
  return {
    input: raw.input,
    ...(raw.task === undefined ? {} : { task: raw.task as ConnerTask }),
    prompt: (raw.prompt as number | undefined) ?? BEST_ZERO_SHOT_PROMPT,
    shots: (raw.shots as number | undefined) ?? DEFAULT_SHOTS,
    answerShots: (raw.answerShots as number | undefined) ?? DEFAULT_ANSWER_SHOTS,
    ...(raw.demos === undefined ? {} : { demos: raw.demos as string }),
    fixedDemos: raw.fixedDemos === true,
    maxTokens: (raw.maxTokens as number | undefined) ?? DEFAULT_KNOWLEDGE_MAX_TOKENS,
    answerMaxTokens: (raw.answerMaxTokens as number | undefined) ?? DEFAULT_ANSWER_MAX_TOKENS,
    ...(raw.corpus === undefined ? {} : { corpus: raw.corpus as string }),
    evidenceTop: (raw.evidenceTop as number | undefined) ?? DEFAULT_EVIDENCE_TOP,
    choices: scoringChoices(raw),
  };
}
