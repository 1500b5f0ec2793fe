/**
 * CONNER's options: on `llmkb eval --method conner` as flags, in a study's `methods:` entry by
 * key. The generation options are those of `llmkb conner generate`, the scoring options those of
 * `llmkb conner score`; each scoring default is its profile's (../conner-choices.ts): the
 * released scripts' form unless `--profile equations`.
 */
import { LlmkbError } from '../../../errors.js';
import type { MethodOption } from '../../method.js';
import {
  CONNER_PROFILES,
  DIALOGUE_QUERIES,
  EQUATIONS_CHOICES,
  EVIDENCE_LISTS,
  HELPFULNESS_BASELINES,
  HELPFULNESS_PROMPTS,
  DIALOGUE_VALIDITIES,
  FACTUALITY_RULES,
  INFORMATIVENESS_PREFIXES,
  REFERENCE_PREMISES,
  profileChoices,
  RELEASED_CODE_CHOICES,
  SENTENCE_COHERENCE_FORMS,
  type ConnerProfile,
  type ScoringChoices,
} from '../conner-choices.js';
import type { ConnerTask } from '../generation/conner-queries.js';
import {
  BEST_ZERO_SHOT_PROMPT,
  DEFAULT_ANSWER_MAX_TOKENS,
  DEFAULT_ANSWER_SHOTS,
  DEFAULT_EVIDENCE_TOP,
  DEFAULT_KNOWLEDGE_MAX_TOKENS,
  RELEASED_EVIDENCE_TOP,
  DEFAULT_SHOTS,
} from '../defaults.js';

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

const choice = (key: string, flags: string, values: readonly string[], description: string): MethodOption => ({
  key,
  flags,
  type: 'string',
  choices: values,
  description,
});

export const CONNER_OPTIONS: readonly MethodOption[] = [
  {
    key: 'input',
    flags: '--input <file>',
    type: 'string',
    path: 'input-file',
    required: true,
    description:
      "the queries (required): one of CONNER's test files (nq_test_random_testset.txt; WoW's seen_/unseen_random_testset.txt) or JSONL ({id, task, topic, query, referenceKnowledge?, goldAnswer?})",
  },
  choice('task', '--task <task>', ['qa', 'dialogue'], 'qa or dialogue (default: from the CONNER file name: nq_* is qa)'),
  {
    key: 'prompt',
    flags: '--prompt <n>',
    type: 'integer',
    min: 1,
    max: 4,
    defaultValue: BEST_ZERO_SHOT_PROMPT,
    description: `zero-shot: the knowledge prompt of Table 11 (1-4; default ${BEST_ZERO_SHOT_PROMPT}, the one the paper marks)`,
  },
  {
    key: 'shots',
    flags: '--shots <n>',
    type: 'integer',
    min: 1,
    defaultValue: DEFAULT_SHOTS,
    description: `few-shot: demonstrations per query (drawn per query, seeded; default ${DEFAULT_SHOTS}; fewer when they do not fit the context, recorded)`,
  },
  {
    key: 'answerShots',
    flags: '--answer-shots <n>',
    type: 'integer',
    min: 0,
    defaultValue: DEFAULT_ANSWER_SHOTS,
    description: `demonstrations in the answer prompt (Appendix G; default ${DEFAULT_ANSWER_SHOTS})`,
  },
  {
    key: 'demos',
    flags: '--demos <file>',
    type: 'string',
    path: 'input-file',
    description: 'demonstration pool: a query file with gold knowledge and answers (default: the other queries of the input)',
  },
  {
    key: 'fixedDemos',
    flags: '--fixed-demos',
    type: 'boolean',
    description: 'the --demos file as the demonstrations of every query, in order (the output of `llmkb conner select-demos`)',
  },
  {
    key: 'maxTokens',
    flags: '--max-tokens <n>',
    type: 'integer',
    min: 1,
    defaultValue: DEFAULT_KNOWLEDGE_MAX_TOKENS,
    description: `maximum new tokens of a knowledge text (default ${DEFAULT_KNOWLEDGE_MAX_TOKENS})`,
  },
  {
    key: 'answerMaxTokens',
    flags: '--answer-max-tokens <n>',
    type: 'integer',
    min: 1,
    defaultValue: DEFAULT_ANSWER_MAX_TOKENS,
    description: `maximum new tokens of a downstream answer (default ${DEFAULT_ANSWER_MAX_TOKENS})`,
  },
  {
    key: 'corpus',
    flags: '--corpus <name>',
    type: 'string',
    description:
      "evidence from this corpus of the store (`llmkb corpus add`, or an index registered with `llmkb corpus add-remote`); default: each query's reference knowledge",
  },
  {
    key: 'evidenceTop',
    flags: '--evidence-top <n>',
    type: 'integer',
    min: 1,
    description: `passages retrieved from the corpus: per item after the gold passage (default ${RELEASED_EVIDENCE_TOP}, scripts/nq_factuality.sh IR_num), or per sentence with --evidence-list retrieved (default ${DEFAULT_EVIDENCE_TOP})`,
  },
  choice(
    'profile',
    '--profile <name>',
    CONNER_PROFILES,
    "as-released (default): the authors' released scripts, which produced the paper's Tables 2 and 3; equations: the paper text's equations (Eq. 1 with min, Eq. 3, u random other knowledge texts). Each option below wins over it",
  ),
  { key: 'equations', flags: '--equations', type: 'boolean', description: 'the same as --profile equations' },
  { key: 'asReleased', flags: '--as-released', type: 'boolean', description: 'the same as --profile as-released (the default)' },
  choice(
    'aggregation',
    '--aggregation <op>',
    ['min', 'mean', 'max'],
    "factuality over sentences (Eq. 1): max (as-released, scripts/nq_factuality.sh), min (equations, the paper's example) or mean",
  ),
  choice(
    'factualityRule',
    '--factuality-rule <rule>',
    FACTUALITY_RULES,
    "labels: each sentence's label combined as ordinals (as-released, src/eval_exp.py); vector: Eq. 1's NLI vectors (equations)",
  ),
  choice(
    'evidenceList',
    '--evidence-list <form>',
    EVIDENCE_LISTS,
    "with --corpus: gold-and-retrieved (as-released: the gold passage's sentences, the passage, the item's top passages, first 32) or retrieved (equations: each sentence's top passages)",
  ),
  choice(
    'premises',
    '--premises <form>',
    REFERENCE_PREMISES,
    'a reference passage as NLI premises: sentences (its sentences, then itself, first 32; both profiles) or passage',
  ),
  choice(
    'coherenceSentence',
    '--coherence-sentence <form>',
    SENTENCE_COHERENCE_FORMS,
    "inverse-mean: 1/mean(min(PPL, cap)) (as-released, src/ppl.py); mean-inverse: Eq. 3's mean of 1/PPL (equations)",
  ),
  {
    key: 'pplCap',
    flags: '--ppl-cap <n>',
    type: 'integer',
    min: 1,
    description: `inverse-mean's perplexity cap (default ${RELEASED_CODE_CHOICES.pplCap}, src/ppl.py:36; the shipped nq_ref_avg_sent_ppl used 100)`,
  },
  choice(
    'dialogueQuery',
    '--dialogue-query <form>',
    DIALOGUE_QUERIES,
    "dialogue's query for relevance and informativeness: history (as-released) or utterance (equations)",
  ),
  choice(
    'dialogueValidity',
    '--dialogue-validity <form>',
    DIALOGUE_VALIDITIES,
    'premises of open-answer validity (Eq. 8): response-and-evidence (as-released, src/wow_validity.py) or evidence (equations)',
  ),
  choice(
    'informativenessPrefix',
    '--informativeness-prefix <form>',
    INFORMATIVENESS_PREFIXES,
    "what informativeness conditions on: code (as-released, src/info.py's instruction) or table11 (equations)",
  ),
  choice(
    'helpfulnessPrompt',
    '--helpfulness-prompt <form>',
    HELPFULNESS_PROMPTS,
    "released (as-released: src/helpfulness.py's 8-shot prompt, no Topic line) or table13 (equations: Table 13's template, no demonstrations)",
  ),
  choice(
    'helpfulnessBaseline',
    '--helpfulness-baseline <form>',
    HELPFULNESS_BASELINES,
    'shared (as-released: one baseline per data set, every run the same) or negatives (equations: u other knowledge texts of the same generator)',
  ),
  {
    key: 'negatives',
    flags: '--negatives <u>',
    type: 'integer',
    min: 1,
    description: `u: random other knowledge texts in the helpfulness baseline with --helpfulness-baseline negatives (Eq. 6; default ${EQUATIONS_CHOICES.negatives})`,
  },
];

/** The profile asked for: --profile, else --equations / --as-released, else the default (as-released). */
export function connerProfile(raw: Readonly<Record<string, unknown>>): ConnerProfile {
  const asked = [
    ...(raw.profile === undefined ? [] : [raw.profile as ConnerProfile]),
    ...(raw.equations === true ? ['equations' as const] : []),
    ...(raw.asReleased === true ? ['as-released' as const] : []),
  ];
  if (new Set(asked).size > 1)
    throw new LlmkbError(`two CONNER profiles asked for: ${[...new Set(asked)].join(' and ')}`, {
      hint: 'Give one of --profile as-released (the default), --profile equations (or --equations).',
    });
  return asked[0] ?? 'as-released';
}

/** The scoring choices: each option given, else its profile's. */
export function scoringChoices(raw: Readonly<Record<string, unknown>>): ScoringChoices {
  const base = profileChoices(connerProfile(raw));
  const pick = <K extends keyof ScoringChoices>(key: K, option: string): ScoringChoices[K] => (raw[option] as ScoringChoices[K] | undefined) ?? base[key];
  const choices: ScoringChoices = {
    profile: base.profile,
    aggregation: pick('aggregation', 'aggregation'),
    factualityRule: pick('factualityRule', 'factualityRule'),
    premises: pick('premises', 'premises'),
    sentenceCoherence: pick('sentenceCoherence', 'coherenceSentence'),
    pplCap: pick('pplCap', 'pplCap'),
    evidenceList: pick('evidenceList', 'evidenceList'),
    dialogueQuery: pick('dialogueQuery', 'dialogueQuery'),
    dialogueValidity: pick('dialogueValidity', 'dialogueValidity'),
    informativenessPrefix: pick('informativenessPrefix', 'informativenessPrefix'),
    helpfulnessPrompt: pick('helpfulnessPrompt', 'helpfulnessPrompt'),
    helpfulnessBaseline: pick('helpfulnessBaseline', 'helpfulnessBaseline'),
    negatives: pick('negatives', 'negatives'),
  };
  // u random negatives asked for with the shared baseline: the baseline they belong to.
  if (raw.negatives !== undefined && raw.helpfulnessBaseline === undefined) choices.helpfulnessBaseline = 'negatives';
  return choices;
}

/** Passages retrieved from a corpus: the scripts' 10 per item, or 5 per sentence. */
export function evidenceTopOf(raw: Readonly<Record<string, unknown>>, choices: Pick<ScoringChoices, 'evidenceList'>): number {
  return (raw.evidenceTop as number | undefined) ?? (choices.evidenceList === 'gold-and-retrieved' ? RELEASED_EVIDENCE_TOP : DEFAULT_EVIDENCE_TOP);
}

/** The options with their defaults; CONNER has no queries of its own, so `input` is required. */
export function connerOptions(raw: Readonly<Record<string, unknown>>): ConnerOptions {
  if (typeof raw.input !== 'string') {
    throw new LlmkbError('CONNER needs its queries: --input FILE (a study: "input" in the method\'s options)', {
      hint: "Give one of CONNER's test files (Natural Questions: nq_test_random_testset.txt; Wizard of Wikipedia: seen_random_testset.txt) or a JSONL query file (docs/conner.md).",
    });
  }
  const choices = scoringChoices(raw);
  if (raw.fixedDemos === true && raw.demos === undefined)
    throw new LlmkbError('--fixed-demos needs --demos FILE', { hint: 'Make the file with `llmkb conner select-demos`.' });
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
    evidenceTop: evidenceTopOf(raw, choices),
    choices,
  };
}
