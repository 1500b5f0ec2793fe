/**
 * `llmkb conner generate|score|select-demos|best-of`: the CONNER method (Chen et al. 2023). A thin
 * caller of src/methods/conner/: options parsed, one library call per command
 * (`generateKnowledgeFile`, `scoreToFiles`, `selectDemosFromPool`, `bestOfFromFiles`,
 * `bestOfFromSamples`), its result printed. The method's modules load inside the actions, so
 * `llmkb --help` does not pay for them. The shared options are ./conner-options.ts's; what the
 * actions read before their call, ./conner-inputs.ts's.
 */
import type { Command } from 'commander';
import { LlmkbError } from '../../../errors.js';
// The choices' values only: a module with no imports, so registering the commands stays cheap.
import { DEFAULT_NEGATIVES } from '../conner-choices.js';
import { DEFAULT_ANSWER_MAX_TOKENS, DEFAULT_KNOWLEDGE_MAX_TOKENS, DEFAULT_SEED } from '../defaults.js';
import type { CliHost } from '../../method-cli.js';
import { checkOutputFile, checkOutputFolder, collect, positiveInteger, positiveNumber, wholeNumber } from '../../cli-options.js';
import { requireFile } from '../../../io/require-path.js';
import {
  addGenerationOptions,
  addScorerOptions,
  gammaOption,
  type GenerationCliOptions,
  LIMIT_HELP,
  oneOf,
  probability,
  type ScorerCliOptions,
} from './conner-options.js';
import { choicesOf, generationInputs, limited, note, readPageviews, scoringSetupOf } from './conner-inputs.js';

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
