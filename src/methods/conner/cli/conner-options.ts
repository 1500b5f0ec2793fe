/**
 * The options of `llmkb conner`'s commands: the value parsers (one of a list, a Table 11 prompt,
 * Eq. 9's gamma, a top-p), the options' types, and the option sets the commands share: the
 * knowledge generator's (`generate`, `best-of`) and the scorers' (`score`, `select-demos`,
 * `best-of`).
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
// The choices' values only: a module with no imports, so registering the commands stays cheap.
import {
  CONNER_PROFILES,
  DIALOGUE_QUERIES,
  DIALOGUE_VALIDITIES,
  EVIDENCE_LISTS,
  FACTUALITY_RULES,
  HELPFULNESS_BASELINES,
  HELPFULNESS_PROMPTS,
  INFORMATIVENESS_PREFIXES,
  REFERENCE_PREMISES,
  SENTENCE_COHERENCE_FORMS,
  type ScoringChoices,
} from '../conner-choices.js';
import type { ModelSpecs } from '../conner-setup.js';
import { BEST_ZERO_SHOT_PROMPT, DEFAULT_ANSWER_SHOTS, DEFAULT_EVIDENCE_TOP, DEFAULT_SHOTS, RELEASED_EVIDENCE_TOP } from '../defaults.js';
import { positiveInteger, positiveNumber, wholeNumber } from '../../cli-options.js';

export const LIMIT_HELP =
  'only n queries of each file, for a quick look: a seeded sample (--seed) of its ids, the same queries in files over the same ones; a run of its own';

export function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(values as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${values.join(', ')}`);
    return value as T;
  };
}

function promptNumber(value: string): number {
  const n = positiveInteger(value);
  if (n > 4) throw new InvalidArgumentError("Table 11 has prompts 1-4 (4 is the paper's best)");
  return n;
}

export function gammaOption(value: string): string {
  // Checked here so a typo fails before anything loads; parsed again where it is used.
  const parts = value.split(',').map((p) => Number(p.trim()));
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n)))
    throw new InvalidArgumentError('must be four numbers separated by commas (weights of fact, rel, coh_para, info; Eq. 9), e.g. 1,1,1,1');
  return value;
}

/** A probability p with 0 < p <= 1 (top-p). */
export function probability(value: string): number {
  const n = positiveNumber(value);
  if (n > 1) throw new InvalidArgumentError('must be a number > 0 and <= 1');
  return n;
}

export interface GenerationCliOptions {
  model?: string;
  answerer?: string;
  setting: 'zero-shot' | 'few-shot';
  prompt: number;
  shots: number;
  answerShots: number;
  demos?: string;
  fixedDemos?: boolean;
  task?: 'qa' | 'dialogue';
  seed: number;
  maxTokens: number;
  answerMaxTokens: number;
  limit?: number;
}

export interface ScorerCliOptions extends ModelSpecs {
  seed: number;
  aggregation?: ScoringChoices['aggregation'];
  factualityRule?: ScoringChoices['factualityRule'];
  premises?: ScoringChoices['premises'];
  coherenceSentence?: ScoringChoices['sentenceCoherence'];
  dialogueQuery?: ScoringChoices['dialogueQuery'];
  dialogueValidity?: ScoringChoices['dialogueValidity'];
  informativenessPrefix?: ScoringChoices['informativenessPrefix'];
  profile?: ScoringChoices['profile'];
  equations?: boolean;
  asReleased?: boolean;
  pplCap?: number;
  evidenceList?: ScoringChoices['evidenceList'];
  helpfulnessPrompt?: ScoringChoices['helpfulnessPrompt'];
  helpfulnessBaseline?: ScoringChoices['helpfulnessBaseline'];
}

/** The knowledge generator, its prompt and the answerer: the same for `generate` and `best-of`'s draws. */
export function addGenerationOptions(command: Command): Command {
  return command
    .option('-m, --model <spec>', 'knowledge generator (default: "model" in the config)')
    .option(
      '--answerer <spec>',
      'the fixed answerer that writes the downstream answers (Table 13; the paper: LLaMA-65B for every generator); default: "answerer" in the config, else the generator itself (a recorded departure)',
    )
    .option('--setting <setting>', 'knowledge prompt: zero-shot (Table 11) or few-shot (Table 12)', oneOf(['zero-shot', 'few-shot'] as const), 'zero-shot')
    .option(
      '--prompt <n>',
      `zero-shot prompt of Table 11 (1-4; ${BEST_ZERO_SHOT_PROMPT} is the best, marked in the paper)`,
      promptNumber,
      BEST_ZERO_SHOT_PROMPT,
    )
    .option(
      '--shots <n>',
      'few-shot demonstrations per query (drawn per query, seeded; fewer when they do not fit the context, recorded)',
      positiveInteger,
      DEFAULT_SHOTS,
    )
    .option(
      '--answer-shots <n>',
      'demonstrations in the answer prompt (Appendix G; fewer when they do not fit the context, recorded)',
      wholeNumber,
      DEFAULT_ANSWER_SHOTS,
    )
    .option('--demos <file>', 'demonstration pool (a query file with gold knowledge and answers); default: the other queries of the input')
    .option('--fixed-demos', 'use the --demos file as the demonstrations of every query, in order (the output of `conner select-demos`)')
    .option('--task <task>', 'qa or dialogue (default: from the CONNER file name: nq_* is qa)', oneOf(['qa', 'dialogue'] as const));
}

export function addScorerOptions(command: Command): Command {
  return command
    .option(
      '--scorer <spec>',
      'reference language model for perplexity and informativeness, and helpfulness without an answerer (default: "scorer" in the config), e.g. gguf:./gpt-neo-2.7b.gguf or a vLLM server with prompt log-probabilities',
    )
    .option(
      '--nli <spec>',
      'NLI model for factuality and validity (default: "nli" in the config), e.g. tei:URL/MODEL with "task": "nli" in the config, or llm-nli:<text model spec>',
    )
    .option(
      '--relevance <spec>',
      'query-passage relevance model (default: "relevance" in the config): one logit, or several with a "relevant" label (monoBERT: "labels": {"LABEL_1": "relevant"})',
    )
    .option(
      '--coherence <spec>',
      'discourse-coherence scorer of a paragraph (Eq. 4; "task": "coherence" in the config; default: "coherence" in the config, else 1/PPL of the whole text, a recorded departure)',
    )
    .option(
      '--corpus <name>',
      "evidence from this corpus (BM25 over a corpus of the store, `llmkb corpus add`, or an OpenSearch index registered with `llmkb corpus add-remote`); default: each query's reference knowledge",
    )
    .option(
      '--evidence-top <n>',
      `passages retrieved from the corpus: per item after the gold passage (default ${RELEASED_EVIDENCE_TOP}, as scripts/nq_factuality.sh), or per sentence with --evidence-list retrieved (default ${DEFAULT_EVIDENCE_TOP})`,
      positiveInteger,
    )
    .option(
      '--profile <name>',
      "as-released (default): the authors' released scripts, which produced the paper's Tables 2 and 3; equations: the paper text's equations (Eq. 1 with min, Eq. 3, u random other knowledge texts). Each option below wins over it",
      oneOf(CONNER_PROFILES),
    )
    .option('--equations', 'the same as --profile equations')
    .option('--as-released', 'the same as --profile as-released (the default)')
    .option(
      '--aggregation <op>',
      "factuality over sentences: max (as-released, scripts/nq_factuality.sh), min (equations, the paper's example) or mean",
      oneOf(['min', 'mean', 'max'] as const),
    )
    .option(
      '--factuality-rule <rule>',
      "labels: each sentence's label combined as ordinals (as-released, src/eval_exp.py); vector: Eq. 1's NLI vectors (equations)",
      oneOf(FACTUALITY_RULES),
    )
    .option(
      '--evidence-list <form>',
      "with --corpus: gold-and-retrieved (as-released: the gold passage's sentences, the passage, the item's top passages, first 32) or retrieved (equations: each sentence's top passages)",
      oneOf(EVIDENCE_LISTS),
    )
    .option(
      '--premises <form>',
      "a reference passage as NLI premises: sentences (its sentences, then itself whole, first 32; the authors' scripts; default) or passage (whole only)",
      oneOf(REFERENCE_PREMISES),
    )
    .option(
      '--coherence-sentence <form>',
      "inverse-mean: 1/mean(min(PPL, cap)) (as-released, src/ppl.py); mean-inverse: Eq. 3's mean of 1/PPL (equations)",
      oneOf(SENTENCE_COHERENCE_FORMS),
    )
    .option('--ppl-cap <n>', 'the perplexity cap of inverse-mean (default 200, src/ppl.py:36; the shipped nq_ref_avg_sent_ppl used 100)', positiveInteger)
    .option(
      '--dialogue-query <form>',
      "dialogue's query for relevance and informativeness: history (as-released) or utterance (equations)",
      oneOf(DIALOGUE_QUERIES),
    )
    .option(
      '--dialogue-validity <form>',
      'premises of open-answer validity (Eq. 8): response-and-evidence (as-released, src/wow_validity.py) or evidence (equations)',
      oneOf(DIALOGUE_VALIDITIES),
    )
    .option(
      '--informativeness-prefix <form>',
      "what informativeness conditions on: code (as-released, src/info.py's instruction) or table11 (equations)",
      oneOf(INFORMATIVENESS_PREFIXES),
    )
    .option(
      '--helpfulness-prompt <form>',
      "released (as-released: src/helpfulness.py's 8-shot prompt, no Topic line) or table13 (equations: Table 13's template, no demonstrations)",
      oneOf(HELPFULNESS_PROMPTS),
    )
    .option(
      '--helpfulness-baseline <form>',
      'shared (as-released: one baseline per data set for every run) or negatives (equations: u other knowledge texts of the same generator)',
      oneOf(HELPFULNESS_BASELINES),
    );
}
