/**
 * `llmkb conner generate|score|select-demos|best-of`: the CONNER method (Chen et al. 2023). A thin
 * caller of src/methods/conner/: options parsed, one library call per command
 * (`generateKnowledgeFile`, `scoreToFiles`, `selectDemosFromPool`, `bestOfFromFiles`,
 * `bestOfFromSamples`), its result printed. The method's modules load inside the actions, so
 * `llmkb --help` does not pay for them.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { LlmkbError } from '../../../errors.js';
// The choices' values only: a module with no imports, so registering the commands stays cheap.
import {
  CONNER_PROFILES,
  DEFAULT_NEGATIVES,
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
import {
  BEST_ZERO_SHOT_PROMPT,
  DEFAULT_ANSWER_MAX_TOKENS,
  DEFAULT_ANSWER_SHOTS,
  DEFAULT_EVIDENCE_TOP,
  DEFAULT_KNOWLEDGE_MAX_TOKENS,
  DEFAULT_SEED,
  DEFAULT_SHOTS,
  RELEASED_EVIDENCE_TOP,
} from '../defaults.js';
import type { CliHost, MethodWorkspace } from '../../method-cli.js';
import { checkOutputFile, checkOutputFolder, collect, positiveInteger, positiveNumber, wholeNumber } from '../../cli-options.js';
import { requireFile } from '../../../io/require-path.js';
import { checkMaxTokens } from '../../token-budget.js';
import { escapeControls } from '../../../terminal-text.js';

/** A note for the user on stderr, its control characters escaped. */
const note = (line: string): void => void process.stderr.write(`${escapeControls(line)}\n`);

const LIMIT_HELP =
  'only n queries of each file, for a quick look: a seeded sample (--seed) of its ids, the same queries in files over the same ones; a run of its own';

function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
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

function gammaOption(value: string): string {
  // Checked here so a typo fails before anything loads; parsed again where it is used.
  const parts = value.split(',').map((p) => Number(p.trim()));
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n)))
    throw new InvalidArgumentError('must be four numbers separated by commas (weights of fact, rel, coh_para, info; Eq. 9), e.g. 1,1,1,1');
  return value;
}

/** A probability p with 0 < p <= 1 (top-p). */
function probability(value: string): number {
  const n = positiveNumber(value);
  if (n > 1) throw new InvalidArgumentError('must be a number > 0 and <= 1');
  return n;
}

/** `--limit n`: the seeded sample of each file, by sorted id, said on stderr when it cuts anything. */
async function limited<T extends { id: string }>(files: T[][], limit: number | undefined, seed: number, what: string): Promise<T[][]> {
  return (await limitedFiles(files, limit, seed, what)).map((f) => f.items);
}

/** `limited`, with what each file's sample is: `{ n, seed }` when the limit cut it (recorded in the knowledge records it becomes). */
async function limitedFiles<T extends { id: string }>(
  files: T[][],
  limit: number | undefined,
  seed: number,
  what: string,
): Promise<Array<{ items: T[]; limit?: { n: number; seed: number } }>> {
  const { limitItemsById, limitNote, limitSample } = await import('../../../sampling/limit-items.js');
  const sampled = await Promise.all(files.map((f) => limitSample(f, limit, seed, limitItemsById)));
  const cuts = sampled.flatMap((s) => (s.cut ? [s.cut] : []));
  if (cuts.length > 0) process.stderr.write(`${escapeControls(limitNote(limit!, cuts, what, seed))}\n`);
  return sampled.map((s) => ({ items: [...s.items], ...(s.cut ? { limit: { n: s.cut.n, seed } } : {}) }));
}

/** A `topic<TAB>views` file as topic -> views; a bad line is named with its number. */
async function readPageviews(file: string): Promise<Map<string, number>> {
  const { parsePageviews } = await import('../summary/analyses.js');
  const { readTextFile } = await import('../../../io/files.js');
  const { InputFileError } = await import('../../../errors.js');
  const hint = "One topic a line, a tab, and its pageviews as a whole number (the authors' emnlp_data/wow/random_testset/*_topic_pageviews.txt).";
  return parsePageviews(readTextFile(requireFile(file, hint)), file, (line, message) => new InputFileError(file, line, undefined, message, hint));
}

interface GenerationCliOptions {
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

/** The queries, the demonstrations, the generator and the answerer of a generating command (`generate`, `best-of`). */
async function generationInputs(ws: MethodWorkspace, input: string, opts: GenerationCliOptions) {
  const { readConnerQueries } = await import('../generation/conner-queries.js');
  const { demonstrationsOf } = await import('../generation/generate-knowledge.js');
  const { generationModels } = await import('../conner-setup.js');
  const { readJsonl } = await import('../../../io/jsonl.js');
  const { z } = await import('zod');
  const how = "Give one of CONNER's test files or a JSONL query file (docs/conner.md).";
  const all = readConnerQueries(requireFile(input, how), opts.task, note);
  const [{ items: queries, limit }] = (await limitedFiles([all], opts.limit, opts.seed, 'queries')) as [
    { items: typeof all; limit?: { n: number; seed: number } },
  ];
  if (opts.fixedDemos && opts.demos === undefined)
    throw new LlmkbError('--fixed-demos needs --demos FILE', { hint: 'Make the file with `llmkb conner select-demos`.' });
  const demoSchema = z.object({ id: z.string().min(1), topic: z.string(), query: z.string().min(1), knowledge: z.string().min(1), answer: z.string() }).strip();
  const fixedDemos = opts.fixedDemos
    ? readJsonl(requireFile(opts.demos!, 'Make it with `llmkb conner select-demos`.'), demoSchema, 'demonstration')
    : undefined;
  const demoPool = fixedDemos ?? demonstrationsOf(opts.demos === undefined ? all : readConnerQueries(requireFile(opts.demos, how), opts.task, note));
  const models = await generationModels(ws, opts);
  checkMaxTokens(models.generator, opts.maxTokens, '--max-tokens', DEFAULT_KNOWLEDGE_MAX_TOKENS);
  checkMaxTokens(models.answerer, opts.answerMaxTokens, '--answer-max-tokens', DEFAULT_ANSWER_MAX_TOKENS);
  if (models.noAnswerer) {
    process.stderr.write(
      'note: no answerer: the generator writes the downstream answers itself, so helpfulness and validity measure it as an answerer too (the paper has one fixed few-shot answerer for every generator, Appendix G); recorded as a departure. Pass --answerer SPEC or set "answerer" in the config.\n',
    );
  } else if (models.generatorAnswers) {
    process.stderr.write(
      `note: the answerer is the generator itself (${escapeControls(models.answerer.model.modelId)}): helpfulness and validity measure it as an answerer too (the paper has one fixed few-shot answerer for every generator, Appendix G); recorded as a departure. Give another model to --answerer to keep the answers apart from the generator.\n`,
    );
  }
  return { queries, demoPool, fixedDemos, ...models, ...(limit ? { limit } : {}) };
}

interface ScorerCliOptions extends ModelSpecs {
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

/** The run's choices: each option given, else its profile's (the released scripts' unless --profile equations). */
async function choicesOf(opts: ScorerCliOptions, negatives?: number): Promise<ScoringChoices> {
  const { scoringChoices } = await import('../pipeline/options.js');
  return scoringChoices({ ...opts, ...(negatives === undefined ? {} : { negatives }) });
}

/** The scorers; the answerer only where helpfulness is scored (`conner score`). */
async function scoringSetupOf(ws: MethodWorkspace, opts: ScorerCliOptions, choices: ScoringChoices, helpfulness = false) {
  const { scoringSetup } = await import('../conner-setup.js');
  const { answerer, ...specs } = opts;
  const setup = await scoringSetup(ws, helpfulness ? { ...specs, ...(answerer === undefined ? {} : { answerer }) } : specs, choices);
  if (setup.answererUnscoring)
    process.stderr.write(
      `note: the answerer ${setup.answererUnscoring} cannot score prompts: helpfulness's answer losses are the scorer's (a departure: the paper's answerer scores them; recorded)\n`,
    );
  return setup;
}

/** The knowledge generator, its prompt and the answerer: the same for `generate` and `best-of`'s draws. */
function addGenerationOptions(command: Command): Command {
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

function addScorerOptions(command: Command): Command {
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

export function registerConnerCommands(program: Command, host: CliHost): void {
  const conner = program
    .command('conner')
    .description('CONNER (Chen et al. 2023): generate knowledge, score it on six perspectives, select demonstrations and the best knowledge');

  addGenerationOptions(
    conner
      .command('generate')
      .description("knowledge for each query (paper Tables 11-12), then the answerer's answer with and without it (Table 13)")
      .argument(
        '<input>',
        "queries: one of CONNER's test files (4 tab-separated fields) or JSONL ({id, task, topic, query, referenceKnowledge?, goldAnswer?})",
      ),
  )
    .option('--seed <n>', 'seed of the demonstration draws and of --limit', wholeNumber, DEFAULT_SEED)
    .option('--max-tokens <n>', 'maximum new tokens of the knowledge', positiveInteger, DEFAULT_KNOWLEDGE_MAX_TOKENS)
    .option('--answer-max-tokens <n>', 'maximum new tokens of an answer', positiveInteger, DEFAULT_ANSWER_MAX_TOKENS)
    .option('--limit <n>', LIMIT_HELP, positiveInteger)
    .option('-o, --output <file>', 'knowledge JSONL', 'conner-knowledge.jsonl')
    .action(async (input: string, opts: GenerationCliOptions & { output: string }, command: Command) => {
      const { generateKnowledgeFile } = await import('../generation/generate-file.js');
      await host.withWorkspace(command, async (ws) => {
        checkOutputFile(opts.output, [input, opts.demos]);
        const { queries, demoPool, fixedDemos, generator, answerer, limit } = await generationInputs(ws, input, opts);
        const { records, shotsDropped } = await generateKnowledgeFile({
          queries,
          generator,
          answerer,
          runs: ws.runs,
          setting: opts.setting,
          prompt: opts.prompt,
          shots: opts.shots,
          answerShots: opts.answerShots,
          demoPool,
          ...(fixedDemos ? { fixedDemos } : {}),
          seed: opts.seed,
          maxTokens: opts.maxTokens,
          answerMaxTokens: opts.answerMaxTokens,
          output: opts.output,
          ...(limit ? { limit } : {}),
        });
        if (shotsDropped.knowledge + shotsDropped.answer > 0) {
          process.stderr.write(
            `note: demonstrations left out to fit the context: ${shotsDropped.knowledge} knowledge prompts, ${shotsDropped.answer} answer prompts (recorded per item and in the scores' protocol)\n`,
          );
        }
        process.stdout.write(
          `generated knowledge for ${records.length} queries (${opts.setting}${opts.setting === 'zero-shot' ? `, Table 11 prompt ${opts.prompt}` : `, ${fixedDemos ? `${fixedDemos.length} fixed` : opts.shots} demonstrations`}; answers by ${records[0]?.answerer ?? '-'}) -> ${opts.output}\n`,
        );
      });
    });

  addScorerOptions(
    conner
      .command('score')
      .description(
        'score knowledge files on factuality, relevance, coherence, informativeness, helpfulness, validity (Eq. 1-8); several files: one row per generator',
      )
      .argument(
        '<input...>',
        'knowledge JSONL files (from `conner generate`, or your own: {id, query, knowledge, goldAnswer?, answerWithKnowledge?, answerer?})',
      ),
  )
    .option(
      '--answerer <spec>',
      'the answerer, whose answer losses helpfulness takes (the paper: LLaMA-65B answers and scores; default: "answerer" in the config, else --scorer, a recorded departure)',
    )
    .option(
      '--negatives <u>',
      `u: random other knowledge texts of the same generator in the helpfulness baseline (Eq. 6; sets --helpfulness-baseline negatives; default: ${DEFAULT_NEGATIVES})`,
      positiveInteger,
    )
    .option('--seed <n>', 'seed of the helpfulness negatives, the bootstrap and --limit', wholeNumber, DEFAULT_SEED)
    .option('--resamples <n>', 'bootstrap resamples for the 95% intervals', positiveInteger, 1000)
    .option(
      '--ratings <file>',
      "human ratings JSONL ({id, generator?, setting?, factuality?, relevance?, coherence?, informativeness?, helpfulness?, validity?}: 0, 1 or 2): Somers' D per metric",
    )
    .option(
      '--pageviews <file>',
      "Wikipedia pageviews per topic (`topic<TAB>views` a line, as the authors' *_topic_pageviews.txt): kept in each record, for the long-tail analysis (Fig. 2a) of compare and report",
    )
    .option('--concurrency <n>', "items scored at once (default: the scorers' own)", positiveInteger)
    .option('--limit <n>', LIMIT_HELP, positiveInteger)
    .option('-o, --output <file>', 'per-item scores JSONL', 'conner-scores.jsonl')
    .option(
      '--out <dir>',
      'results folder: per generator and setting, <generator>.<setting>.summary.json (llmkb-summary-v2) and .records.jsonl, read by compare, report and view',
      'conner-results',
    )
    .option('--json', 'print the summaries as JSON instead of the table')
    .action(
      async (
        inputs: string[],
        opts: ScorerCliOptions & {
          negatives?: number;
          resamples: number;
          ratings?: string;
          pageviews?: string;
          concurrency?: number;
          limit?: number;
          output: string;
          out: string;
          json?: boolean;
        },
        command: Command,
      ) => {
        const { readKnowledgeFile } = await import('../generation/knowledge-file.js');
        const { ratedKeys, scoreToFiles } = await import('../score-files.js');
        const { matchRatings, readRatings } = await import('../summary/human-ratings.js');
        const { formatConnerRuns } = await import('../summary/conner-summary.js');
        const { createHash } = await import('node:crypto');
        const { readFileSync } = await import('node:fs');
        await host.withWorkspace(command, async (ws) => {
          checkOutputFile(opts.output, [...inputs, opts.ratings]);
          checkOutputFolder(opts.out);
          const read = inputs.map((f) => readKnowledgeFile(requireFile(f, 'Make it with `llmkb conner generate`, or bring your own JSONL (docs/conner.md).')));
          const kept = await limited(read, opts.limit, opts.seed, 'queries');
          const files = kept.map((items, i) => ({ file: inputs[i]!, sha256: createHash('sha256').update(readFileSync(inputs[i]!)).digest('hex'), items }));
          const pageviews = opts.pageviews === undefined ? undefined : await readPageviews(opts.pageviews);
          // Ratings are matched to the knowledge texts before any model is loaded.
          const ratings =
            opts.ratings === undefined
              ? undefined
              : matchRatings(
                  opts.ratings,
                  readRatings(requireFile(opts.ratings, 'One JSON line per rated knowledge text (docs/conner.md).')),
                  ratedKeys(files),
                );
          const choices = await choicesOf(opts, opts.negatives);
          const setup = await scoringSetupOf(ws, opts, choices, true);
          const { summaries, written } = await scoreToFiles(files, {
            runs: ws.runs,
            setup,
            choices,
            seed: opts.seed,
            resamples: opts.resamples,
            output: opts.output,
            out: opts.out,
            log: note,
            ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
            ...(ratings ? { ratings } : {}),
            ...(opts.limit === undefined ? {} : { limit: opts.limit }),
            ...(pageviews ? { pageviews, pageviewsFile: opts.pageviews! } : {}),
          });
          process.stdout.write(
            opts.json
              ? `${JSON.stringify(summaries, null, 2)}\n`
              : `${formatConnerRuns(summaries)}\n\nscores -> ${opts.output}; summaries and records per generator and setting -> ${opts.out}/ (${written.length}: llmkb compare ${opts.out}/*.summary.json)\n`,
          );
        });
      },
    );

  addScorerOptions(
    conner
      .command('select-demos')
      .description('use case 1 (section 5): sample m candidate demonstrations, keep the n with the highest Q = gamma . [fact, rel, coh_para, info] (Eq. 9)')
      .argument('<pool>', 'query file with gold knowledge and answers (a CONNER file or JSONL)'),
  )
    .option('--candidates <m>', 'm: candidates sampled from the pool (seeded)', positiveInteger, 30)
    .option('--top <n>', 'n: demonstrations kept', positiveInteger, 8)
    .option('--gamma <weights>', 'gamma of Eq. 9: weights of fact, rel, coh_para, info', gammaOption, '1,1,1,1')
    .option('--seed <n>', 'seed of the candidate sample', wholeNumber, DEFAULT_SEED)
    .option('--task <task>', 'qa or dialogue (default: from the CONNER file name)', oneOf(['qa', 'dialogue'] as const))
    .option('-o, --output <file>', 'demonstrations JSONL (for `conner generate --demos FILE --fixed-demos`)', 'conner-demos.jsonl')
    .option('--summary <file>', 'what the selection did: the protocol and the Q of every kept demonstration', 'conner-demos.json')
    .action(
      async (
        pool: string,
        opts: ScorerCliOptions & { candidates: number; top: number; gamma: string; task?: 'qa' | 'dialogue'; output: string; summary: string },
        command: Command,
      ) => {
        const { readConnerQueries } = await import('../generation/conner-queries.js');
        const { demonstrationPool, selectDemosFromPool } = await import('../use-cases/select-demos.js');
        const { parseGamma, qTermsLine } = await import('../use-cases/knowledge-quality.js');
        await host.withWorkspace(command, async (ws) => {
          checkOutputFile(opts.output, [pool]);
          checkOutputFile(opts.summary, [pool, opts.output], '--summary');
          const gamma = parseGamma(opts.gamma);
          const all = readConnerQueries(requireFile(pool, "Give one of CONNER's test files or a JSONL query file."), opts.task, note);
          // A pool with no usable query is refused before any model is loaded.
          demonstrationPool(pool, all);
          const choices = await choicesOf(opts);
          const setup = await scoringSetupOf(ws, opts, choices);
          const { demonstrations: demos, summary } = await selectDemosFromPool(pool, all, {
            runs: ws.runs,
            ...setup,
            choices,
            seed: opts.seed,
            candidates: opts.candidates,
            top: opts.top,
            gamma,
            write: { output: opts.output, summary: opts.summary },
          });
          if (setup.evidence.id === 'reference')
            process.stderr.write(
              "note: factuality checks each demonstration's gold knowledge against itself (no --corpus): it hardly ranks them (see the summary's protocol)\n",
            );
          process.stdout.write(
            `kept ${demos.length} of ${summary.candidates} candidate demonstrations by Q (gamma ${opts.gamma}); ${qTermsLine(demos.map((d) => d.missing))} -> ${opts.output}\n`,
          );
        });
      },
    );

  addScorerOptions(
    addGenerationOptions(
      conner
        .command('best-of')
        .description(
          'use case 2 (section 5): per query, draw r knowledge texts by top-p sampling and keep the one with the highest Q = gamma . [fact, rel, coh_para, info] (Eq. 9); or choose among r --input files',
        )
        .argument('[queries]', 'query file to draw knowledge for (as `conner generate` takes it); omit with --input'),
    ),
  )
    .option(
      '--input <file>',
      'files mode instead of sampling: a knowledge JSONL per candidate (repeatable, at least two, the same query ids in each; e.g. `conner generate` with --prompt 1..4), a departure from the paper',
      collect,
    )
    .option('--samples <r>', 'r: knowledge texts drawn per query (the paper: 5)', positiveInteger, 5)
    .option('--top-p <p>', 'nucleus sampling: keep the most probable tokens up to this total probability (the paper: 0.9)', probability, 0.9)
    .option('--temperature <t>', 'sampling temperature (the paper does not give it; 1 is the OpenAI API default)', positiveNumber, 1)
    .option('--max-tokens <n>', 'maximum new tokens of a knowledge text', positiveInteger, DEFAULT_KNOWLEDGE_MAX_TOKENS)
    .option('--answer-max-tokens <n>', 'maximum new tokens of an answer', positiveInteger, DEFAULT_ANSWER_MAX_TOKENS)
    .option('--limit <n>', LIMIT_HELP, positiveInteger)
    .option('--gamma <weights>', 'gamma of Eq. 9: weights of fact, rel, coh_para, info', gammaOption, '1,1,1,1')
    .option('--seed <n>', 'seed of the draws (one per query and draw), of the demonstrations and of --limit', wholeNumber, DEFAULT_SEED)
    .option('-o, --output <file>', 'chosen knowledge JSONL (input of `conner score`)', 'conner-best.jsonl')
    .option('--summary <file>', 'what the selection did: protocol, mean Q of the chosen and of each candidate, choices per candidate', 'conner-best-of.json')
    .action(
      async (
        queriesFile: string | undefined,
        opts: ScorerCliOptions &
          GenerationCliOptions & { input?: string[]; samples: number; topP: number; temperature: number; gamma: string; output: string; summary: string },
        command: Command,
      ) => {
        const { checkSameQueries } = await import('../use-cases/best-of.js');
        const { bestOfFromFiles, bestOfFromSamples } = await import('../use-cases/best-of-run.js');
        const { parseGamma } = await import('../use-cases/knowledge-quality.js');
        await host.withWorkspace(command, async (ws) => {
          checkOutputFile(opts.output, [queriesFile, ...(opts.input ?? []), opts.demos]);
          checkOutputFile(opts.summary, [queriesFile, ...(opts.input ?? []), opts.demos, opts.output], '--summary');
          const gamma = parseGamma(opts.gamma);
          const files = opts.input ?? [];
          if (queriesFile !== undefined && files.length > 0)
            throw new LlmkbError('give either a query file (top-p sampling, as the paper) or --input files, not both', {
              hint: 'llmkb conner best-of QUERIES --samples 5, or llmkb conner best-of --input a.jsonl --input b.jsonl',
            });
          if (queriesFile === undefined && files.length === 0)
            throw new LlmkbError('best-of needs a query file or --input files', {
              hint: 'llmkb conner best-of nq_test_random_testset.txt --samples 5 --top-p 0.9 draws the candidates as the paper does; --input FILE (repeatable) chooses among files instead.',
            });
          if (queriesFile === undefined && files.length < 2)
            throw new LlmkbError('files mode needs at least two --input files', {
              hint: 'Generate candidates with `llmkb conner generate --prompt N -o candN.jsonl` for N = 1..4, or with several models; or give a query file to sample from.',
            });
          const choices = await choicesOf(opts);
          const scoring = async () => {
            const setup = await scoringSetupOf(ws, opts, choices);
            return { runs: ws.runs, ...setup, choices, seed: opts.seed, gamma };
          };
          const write = { output: opts.output, summary: opts.summary };
          if (queriesFile === undefined) {
            const { readKnowledgeFile } = await import('../generation/knowledge-file.js');
            const read = files.map((f) => readKnowledgeFile(requireFile(f, 'Make it with `llmkb conner generate`.')));
            const candidates = (await limited(read, opts.limit, opts.seed, 'queries')).map((items, i) => ({ file: files[i]!, items }));
            // Files with other queries are refused before any scorer is loaded.
            checkSameQueries(candidates);
            const { summary } = await bestOfFromFiles(candidates, await scoring(), { gammaText: opts.gamma, write });
            process.stdout.write(`chose knowledge for ${summary.queries} queries; from each file: ${summary.chosenFrom.join(', ')} -> ${opts.output}\n`);
          } else {
            const { queries, demoPool, fixedDemos, generator, answerer, limit } = await generationInputs(ws, queriesFile, opts);
            const { summary, determinism } = await bestOfFromSamples({
              queries,
              generator,
              answerer,
              setting: opts.setting,
              prompt: opts.prompt,
              shots: opts.shots,
              demoPool,
              ...(fixedDemos ? { fixedDemos } : {}),
              seed: opts.seed,
              maxTokens: opts.maxTokens,
              samples: opts.samples,
              topP: opts.topP,
              temperature: opts.temperature,
              answerShots: opts.answerShots,
              answerMaxTokens: opts.answerMaxTokens,
              scoring: await scoring(),
              ...(limit ? { limit } : {}),
              gammaText: opts.gamma,
              write,
            });
            const fmt = (q: number | null): string => (q === null ? '-' : q.toFixed(3));
            const gain = summary.meanQuality;
            process.stdout.write(
              `chose among ${opts.samples} top-p draws (p ${opts.topP}, T ${opts.temperature}) for ${summary.queries} queries; chosen from each draw: ${summary.chosenFrom.join(', ')}; mean Q chosen ${fmt(gain.chosen)}, per draw ${gain.perCandidate.map(fmt).join(', ')}${determinism.deterministic ? '' : ' (nondeterministic: see the summary)'} -> ${opts.output}\n`,
            );
          }
        });
      },
    );
}
