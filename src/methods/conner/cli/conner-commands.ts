/**
 * `llmkb conner generate|score|select-demos|best-of`: the CONNER method (Chen et al. 2023). The
 * method's modules load inside the actions, so `llmkb --help` does not pay for them.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { join } from 'node:path';
import { fileAccessError, LlmkbError } from '../../../errors.js';
import type { Workspace } from '../../../workspace.js';
import { checkMaxTokens, checkOutputFile, checkOutputFolder, collect, positiveInteger, positiveNumber, requireFile, wholeNumber } from '../../../cli/cli-options.js';

function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(values as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${values.join(', ')}`);
    return value as T;
  };
}

function promptNumber(value: string): number {
  const n = positiveInteger(value);
  if (n > 4) throw new InvalidArgumentError('Table 11 has prompts 1-4 (4 is the paper\'s best)');
  return n;
}

function gammaOption(value: string): string {
  // Checked here so a typo fails before anything loads; parsed again where it is used.
  const parts = value.split(',').map((p) => Number(p.trim()));
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n))) throw new InvalidArgumentError('must be four numbers separated by commas (weights of fact, rel, coh_para, info; Eq. 9), e.g. 1,1,1,1');
  return value;
}

interface GenerationCliOptions {
  model?: string;
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

/** A knowledge text or an answer longer than the generator's context would hang or fail on the first query. */
function checkGenerationTokens(model: object, opts: { maxTokens: number; answerMaxTokens: number }): void {
  checkMaxTokens(model, opts.maxTokens, '--max-tokens', 128);
  checkMaxTokens(model, opts.answerMaxTokens, '--answer-max-tokens', 32);
}

/** The queries, the demonstrations and the generator of a generating command (`generate`, `best-of`). */
async function generationInputs(ws: Workspace, input: string, opts: GenerationCliOptions) {
  const { readConnerQueries } = await import('../generation/conner-queries.js');
  const { demonstrationsOf } = await import('../generation/generate-knowledge.js');
  const { readJsonl } = await import('../../../io/jsonl.js');
  const { z } = await import('zod');
  const how = "Give one of CONNER's test files or a JSONL query file (README: CONNER).";
  const all = readConnerQueries(requireFile(input, how), opts.task);
  const queries = opts.limit === undefined ? all : all.slice(0, opts.limit);
  if (opts.fixedDemos && opts.demos === undefined) throw new LlmkbError('--fixed-demos needs --demos FILE', { hint: 'Make the file with `llmkb conner select-demos`.' });
  const demoSchema = z.object({ id: z.string().min(1), topic: z.string(), query: z.string().min(1), knowledge: z.string().min(1), answer: z.string() }).strip();
  const fixedDemos = opts.fixedDemos ? readJsonl(requireFile(opts.demos!, 'Make it with `llmkb conner select-demos`.'), demoSchema, 'demonstration') : undefined;
  const demoPool = fixedDemos ?? demonstrationsOf(opts.demos === undefined ? all : readConnerQueries(requireFile(opts.demos, how), opts.task));
  const entry = ws.entryFor('model', opts.model);
  if (entry === undefined) throw new LlmkbError('no knowledge generator', { hint: 'Pass --model SPEC or set "model" in llmkb.config.json.' });
  const generator = await ws.executor(entry);
  return { queries, demoPool, fixedDemos, generator };
}

/** A probability p with 0 < p <= 1 (top-p). */
function probability(value: string): number {
  const n = positiveNumber(value);
  if (n > 1) throw new InvalidArgumentError('must be a number > 0 and <= 1');
  return n;
}

interface ScorerCliOptions {
  scorer?: string;
  nli?: string;
  relevance?: string;
  corpus?: string;
  evidenceTop: number;
  seed: number;
}

/** The scorers and the evidence source of a scoring command, from its options and the config. */
async function scoringSetup(ws: Workspace, opts: ScorerCliOptions) {
  const { executorClassifier, executorTokenScorer } = await import('../scoring/executor-scorers.js');
  const { corpusEvidence, referenceEvidence } = await import('../evidence/evidence-source.js');
  type AnyExecutor = Parameters<typeof executorTokenScorer>[0];
  const load = async (role: 'scorer' | 'nli' | 'relevance', spec?: string): Promise<AnyExecutor | undefined> => {
    const entry = ws.entryFor(role, spec);
    return entry === undefined ? undefined : ((await ws.scorerExecutor(entry)) as unknown as AnyExecutor);
  };
  const scorerEx = await load('scorer', opts.scorer);
  const nliEx = await load('nli', opts.nli);
  const relevanceEx = await load('relevance', opts.relevance);
  if (!scorerEx && !nliEx && !relevanceEx) {
    throw new LlmkbError('no scorer configured: nothing to score', { hint: 'Pass --scorer, --nli and/or --relevance model specs, or set "scorer", "nli", "relevance" in llmkb.config.json (README: CONNER).' });
  }
  if (opts.corpus !== undefined) {
    const { Corpus, remoteCorpus } = await import('../../../corpus/index.js');
    if (remoteCorpus(ws.db, opts.corpus) === undefined) Corpus.open(ws.db, opts.corpus); // a missing corpus fails here, before any model call
  }
  const scorer = scorerEx ? executorTokenScorer(scorerEx) : undefined;
  const nli = nliEx ? executorClassifier(nliEx, 'nli') : undefined;
  const relevance = relevanceEx ? executorClassifier(relevanceEx, 'relevance') : undefined;
  const evidence = opts.corpus === undefined ? referenceEvidence() : corpusEvidence(ws.db, opts.corpus, opts.evidenceTop);
  const unscored = [
    ...(nli ? [] : ['factuality', 'validity']),
    ...(relevance ? [] : ['relevance']),
    ...(scorer ? [] : ['coherence_sentence', 'coherence_paragraph', 'informativeness', 'helpfulness']),
  ];
  return {
    ...(scorer ? { scorer } : {}),
    ...(nli ? { nli } : {}),
    ...(relevance ? { relevance } : {}),
    evidence,
    unscored,
    concurrency: Math.min(...[scorerEx, nliEx, relevanceEx].filter((e) => e !== undefined).map((e) => e.concurrency)),
  };
}

/** The knowledge generator and its prompt: the same for `generate` and `best-of`'s draws. */
function addGenerationOptions(command: Command): Command {
  return command
    .option('-m, --model <spec>', 'knowledge generator (default: "model" in the config)')
    .option('--setting <setting>', 'knowledge prompt: zero-shot (Table 11) or few-shot (Table 12)', oneOf(['zero-shot', 'few-shot'] as const), 'zero-shot')
    .option('--prompt <n>', 'zero-shot prompt of Table 11 (1-4; 4 is the best, marked in the paper)', promptNumber, 4)
    .option('--shots <n>', 'few-shot demonstrations per query (drawn per query, seeded)', positiveInteger, 8)
    .option('--answer-shots <n>', 'demonstrations in the answer prompt (Appendix G)', wholeNumber, 4)
    .option('--demos <file>', 'demonstration pool (a query file with gold knowledge and answers); default: the other queries of the input')
    .option('--fixed-demos', 'use the --demos file as the demonstrations of every query, in order (the output of `conner select-demos`)')
    .option('--task <task>', 'qa or dialogue (default: from the CONNER file name: nq_* is qa)', oneOf(['qa', 'dialogue'] as const));
}

function addScorerOptions(command: Command): Command {
  return command
    .option('--scorer <spec>', 'reference language model for perplexity, informativeness, helpfulness (default: "scorer" in the config), e.g. gguf:./gpt2.gguf or a vLLM server with prompt log-probabilities')
    .option('--nli <spec>', 'NLI model for factuality and validity (default: "nli" in the config), e.g. tei:URL/MODEL with "task": "nli" in the config, or llm-nli:<text model spec>')
    .option('--relevance <spec>', 'query-passage relevance model (default: "relevance" in the config), e.g. tei:URL/cross-encoder/ms-marco-MiniLM-L-6-v2')
    .option('--corpus <name>', "evidence from this corpus (BM25 over a corpus of the store, `llmkb corpus add`, or an OpenSearch index registered with `llmkb corpus add-remote`); default: each query's reference knowledge")
    .option('--evidence-top <n>', 'evidence passages per sentence from the corpus', positiveInteger, 5);
}

export function registerConnerCommands(program: Command, workspace: (command: Command) => Workspace): void {
  const conner = program.command('conner').description('CONNER (Chen et al. 2023): generate knowledge, score it on six perspectives, select demonstrations and the best knowledge');

  addGenerationOptions(
    conner
      .command('generate')
      .description('knowledge for each query (paper Tables 11-12), then the answer with and without it (Table 13)')
      .argument('<input>', "queries: one of CONNER's test files (4 tab-separated fields) or JSONL ({id, task, topic, query, referenceKnowledge?, goldAnswer?})"),
  )
    .option('--seed <n>', 'seed of the demonstration draws', wholeNumber, 0)
    .option('--max-tokens <n>', 'maximum new tokens of the knowledge', positiveInteger, 128)
    .option('--answer-max-tokens <n>', 'maximum new tokens of an answer', positiveInteger, 32)
    .option('--limit <n>', 'only the first n queries of the input', positiveInteger)
    .option('-o, --output <file>', 'knowledge JSONL', 'conner-knowledge.jsonl')
    .action(async (input: string, opts: GenerationCliOptions & { output: string }, command: Command) => {
      const { generateKnowledge } = await import('../generation/generate-knowledge.js');
      const { toJsonl } = await import('../../../io/jsonl.js');
      const { writeFileAtomic } = await import('../../../io/files.js');
      const ws = workspace(command);
      try {
        checkOutputFile(opts.output);
        const { queries, demoPool, fixedDemos, generator } = await generationInputs(ws, input, opts);
        checkGenerationTokens(generator.model, opts);
        const records = await generateKnowledge({
          queries, generator, runs: ws.runs, setting: opts.setting, prompt: opts.prompt, shots: opts.shots, answerShots: opts.answerShots, demoPool,
          ...(fixedDemos ? { fixedDemos } : {}), seed: opts.seed, maxTokens: opts.maxTokens, answerMaxTokens: opts.answerMaxTokens,
        });
        writeFileAtomic(opts.output, toJsonl(records));
        process.stdout.write(`generated knowledge for ${records.length} queries (${opts.setting}${opts.setting === 'zero-shot' ? `, Table 11 prompt ${opts.prompt}` : `, ${fixedDemos ? `${fixedDemos.length} fixed` : opts.shots} demonstrations`}) -> ${opts.output}\n`);
      } finally {
        await ws.close();
      }
    });

  addScorerOptions(
    conner
      .command('score')
      .description('score knowledge files on factuality, relevance, coherence, informativeness, helpfulness, validity (Eq. 1-8); several files: one row per generator')
      .argument('<input...>', 'knowledge JSONL files (from `conner generate`, or your own: {id, query, knowledge, goldAnswer?, answerWithKnowledge?})'),
  )
    .option('--aggregation <op>', 'factuality over sentences: min (the paper), mean or max', oneOf(['min', 'mean', 'max'] as const), 'min')
    .option('--negatives <u>', 'u: random other knowledge texts in the helpfulness baseline (Eq. 6)', positiveInteger, 5)
    .option('--seed <n>', 'seed of the helpfulness negatives and the bootstrap', wholeNumber, 0)
    .option('--resamples <n>', 'bootstrap resamples for the 95% intervals', positiveInteger, 1000)
    .option('--ratings <file>', "human ratings JSONL ({id, generator?, setting?, factuality?, relevance?, coherence?, informativeness?, helpfulness?, validity?}: 0-2): Somers' D per metric")
    .option('--concurrency <n>', 'items scored at once (default: the scorers\' own)', positiveInteger)
    .option('--limit <n>', 'only the first n records of each file', positiveInteger)
    .option('-o, --output <file>', 'per-item scores JSONL', 'conner-scores.jsonl')
    .option('--out <dir>', 'results folder: per generator and setting, <generator>.<setting>.summary.json (llmkb-summary-v2) and .records.jsonl, read by compare, report and view', 'conner-results')
    .option('--json', 'print the summaries as JSON instead of the table')
    .action(async (inputs: string[], opts: ScorerCliOptions & { aggregation: 'min' | 'mean' | 'max'; negatives: number; resamples: number; ratings?: string; concurrency?: number; limit?: number; output: string; out: string; json?: boolean }, command: Command) => {
      const { readKnowledgeFile } = await import('../generation/knowledge-file.js');
      const { scoreKnowledge } = await import('../scoring/score-knowledge.js');
      const { connerProtocol } = await import('../conner-protocol.js');
      const { connerRunSummaries, formatConnerRuns, readRatings } = await import('../summary/conner-summary.js');
      const { connerResultStem } = await import('../summary/conner-result-files.js');
      const { toJsonl } = await import('../../../io/jsonl.js');
      const { writeFileAtomic } = await import('../../../io/files.js');
      const { createHash } = await import('node:crypto');
      const { readFileSync, mkdirSync } = await import('node:fs');
      const ws = workspace(command);
      try {
        checkOutputFile(opts.output);
        checkOutputFolder(opts.out);
        const files = inputs.map((f) => {
          const all = readKnowledgeFile(requireFile(f, 'Make it with `llmkb conner generate`, or bring your own JSONL (README: CONNER).'));
          return opts.limit === undefined ? all : all.slice(0, opts.limit);
        });
        const ratings = opts.ratings === undefined ? undefined : readRatings(requireFile(opts.ratings, 'One JSON line per rated item (README: CONNER).'));
        const setup = await scoringSetup(ws, opts);
        const records = [];
        // Which input files each generator and setting was read from: the checksums in its summary.
        const sources = new Map<string, Record<string, string>>();
        for (const [i, items] of files.entries()) {
          const scored = await scoreKnowledge({ items, runs: ws.runs, ...setup, aggregation: opts.aggregation, negatives: opts.negatives, seed: opts.seed, concurrency: opts.concurrency ?? setup.concurrency });
          const sha = createHash('sha256').update(readFileSync(inputs[i]!)).digest('hex');
          for (const r of scored) {
            const key = `${r.generator}\u0000${r.setting}`;
            sources.set(key, { ...sources.get(key), [inputs[i]!]: sha });
          }
          records.push(...scored);
        }
        const protocol = connerProtocol({ evidence: setup.evidence.id, aggregation: opts.aggregation, negatives: opts.negatives, unscored: setup.unscored, givenKnowledge: files.flat().some((k) => k.setting === 'given') });
        const summaries = connerRunSummaries(records, { resamples: opts.resamples, seed: opts.seed, protocol, ...(ratings ? { ratings } : {}), datasets: (g, s) => sources.get(`${g}\u0000${s}`) ?? {} });
        writeFileAtomic(opts.output, toJsonl(records));
        try {
          mkdirSync(opts.out, { recursive: true });
        } catch (error) {
          throw fileAccessError(opts.out, error, 'write', 'folder');
        }
        const written: string[] = [];
        for (const summary of summaries) {
          const base = join(opts.out, connerResultStem(summary.model, summary.setting));
          writeFileAtomic(`${base}.records.jsonl`, toJsonl(records.filter((r) => r.generator === summary.model && r.setting === summary.setting)));
          writeFileAtomic(`${base}.summary.json`, `${JSON.stringify(summary, null, 2)}\n`);
          written.push(`${base}.summary.json`);
        }
        process.stdout.write(opts.json ? `${JSON.stringify(summaries, null, 2)}\n` : `${formatConnerRuns(summaries)}\n\nscores -> ${opts.output}; summaries and records per generator and setting -> ${opts.out}/ (${written.length}: llmkb compare ${opts.out}/*.summary.json)\n`);
      } finally {
        await ws.close();
      }
    });

  addScorerOptions(
    conner
      .command('select-demos')
      .description('use case 1 (section 5): sample m candidate demonstrations, keep the n with the highest Q = gamma . [fact, rel, coh_para, info] (Eq. 9)')
      .argument('<pool>', 'query file with gold knowledge and answers (a CONNER file or JSONL)'),
  )
    .option('--candidates <m>', 'm: candidates sampled from the pool (seeded)', positiveInteger, 30)
    .option('--top <n>', 'n: demonstrations kept', positiveInteger, 8)
    .option('--gamma <weights>', 'gamma of Eq. 9: weights of fact, rel, coh_para, info', gammaOption, '1,1,1,1')
    .option('--seed <n>', 'seed of the candidate sample', wholeNumber, 0)
    .option('--task <task>', 'qa or dialogue (default: from the CONNER file name)', oneOf(['qa', 'dialogue'] as const))
    .option('-o, --output <file>', 'demonstrations JSONL (for `conner generate --demos FILE --fixed-demos`)', 'conner-demos.jsonl')
    .option('--summary <file>', 'what the selection did: the protocol and the Q of every kept demonstration', 'conner-demos.json')
    .action(async (pool: string, opts: ScorerCliOptions & { candidates: number; top: number; gamma: string; task?: 'qa' | 'dialogue'; output: string; summary: string }, command: Command) => {
      const { readConnerQueries } = await import('../generation/conner-queries.js');
      const { selectDemonstrations, selectDemosProtocol } = await import('../use-cases/select-demos.js');
      const { parseGamma } = await import('../use-cases/knowledge-quality.js');
      const { toJsonl } = await import('../../../io/jsonl.js');
      const { writeFileAtomic } = await import('../../../io/files.js');
      const ws = workspace(command);
      try {
        checkOutputFile(opts.output);
        checkOutputFile(opts.summary);
        const gamma = parseGamma(opts.gamma);
        const all = readConnerQueries(requireFile(pool, "Give one of CONNER's test files or a JSONL query file."), opts.task);
        const queries = all.filter(
          (q): q is typeof q & { referenceKnowledge: string; goldAnswer: string } => (q.referenceKnowledge ?? '').trim() !== '' && (q.goldAnswer ?? '').trim() !== '',
        );
        if (queries.length === 0) throw new LlmkbError(`${pool}: no query has both gold knowledge and a gold answer`, { hint: 'Demonstrations need "referenceKnowledge" and "goldAnswer".' });
        const setup = await scoringSetup(ws, opts);
        const demos = await selectDemonstrations(queries, { runs: ws.runs, ...setup, aggregation: 'min', negatives: 5, seed: opts.seed, candidates: opts.candidates, top: opts.top, gamma });
        const protocol = selectDemosProtocol({ candidates: opts.candidates, top: opts.top, gamma, evidence: setup.evidence.id, skipped: all.length - queries.length });
        writeFileAtomic(opts.output, toJsonl(demos));
        writeFileAtomic(opts.summary, `${JSON.stringify({ schema: 'llmkb-conner-select-demos-v1', pool, candidates: Math.min(opts.candidates, queries.length), top: opts.top, gamma, seed: opts.seed, evidence: setup.evidence.id, demonstrations: demos.map((d) => ({ id: d.id, rank: d.rank, quality: d.quality, missing: d.missing })), protocol }, null, 2)}\n`);
        if (setup.evidence.id === 'reference') process.stderr.write("note: factuality checks each demonstration's gold knowledge against itself (no --corpus): it hardly ranks them (see the summary's protocol)\n");
        process.stdout.write(`kept ${demos.length} of ${Math.min(opts.candidates, queries.length)} candidate demonstrations by Q (gamma ${opts.gamma}) -> ${opts.output}\n`);
      } finally {
        await ws.close();
      }
    });

  addScorerOptions(
    addGenerationOptions(
      conner
        .command('best-of')
        .description('use case 2 (section 5): per query, draw r knowledge texts by top-p sampling and keep the one with the highest Q = gamma . [fact, rel, coh_para, info] (Eq. 9); or choose among r --input files')
        .argument('[queries]', "query file to draw knowledge for (as `conner generate` takes it); omit with --input"),
    ),
  )
    .option('--input <file>', 'files mode instead of sampling: a knowledge JSONL per candidate (repeatable, at least two; e.g. `conner generate` with --prompt 1..4), a departure from the paper', collect)
    .option('--samples <r>', 'r: knowledge texts drawn per query (the paper: 5)', positiveInteger, 5)
    .option('--top-p <p>', 'nucleus sampling: keep the most probable tokens up to this total probability (the paper: 0.9)', probability, 0.9)
    .option('--temperature <t>', 'sampling temperature (the paper does not give it; 1 is the OpenAI API default)', positiveNumber, 1)
    .option('--max-tokens <n>', 'maximum new tokens of a knowledge text', positiveInteger, 128)
    .option('--answer-max-tokens <n>', 'maximum new tokens of an answer', positiveInteger, 32)
    .option('--limit <n>', 'only the first n queries of the input', positiveInteger)
    .option('--gamma <weights>', 'gamma of Eq. 9: weights of fact, rel, coh_para, info', gammaOption, '1,1,1,1')
    .option('--aggregation <op>', 'factuality over sentences: min, mean or max', oneOf(['min', 'mean', 'max'] as const), 'min')
    .option('--seed <n>', 'seed of the draws (one per query and draw) and of the demonstrations', wholeNumber, 0)
    .option('-o, --output <file>', 'chosen knowledge JSONL (input of `conner score`)', 'conner-best.jsonl')
    .option('--summary <file>', 'what the selection did: protocol, mean Q of the chosen and of each candidate, choices per candidate', 'conner-best-of.json')
    .action(async (queriesFile: string | undefined, opts: ScorerCliOptions & GenerationCliOptions & { input?: string[]; samples: number; topP: number; temperature: number; gamma: string; aggregation: 'min' | 'mean' | 'max'; output: string; summary: string }, command: Command) => {
      const { bestOf, bestOfGain, bestOfProtocol, bestOfSamples, samplingDeterminism } = await import('../use-cases/best-of.js');
      const { parseGamma } = await import('../use-cases/knowledge-quality.js');
      const { toJsonl } = await import('../../../io/jsonl.js');
      const { writeFileAtomic } = await import('../../../io/files.js');
      const ws = workspace(command);
      try {
        checkOutputFile(opts.output);
        checkOutputFile(opts.summary);
        const gamma = parseGamma(opts.gamma);
        const files = opts.input ?? [];
        if (queriesFile !== undefined && files.length > 0) throw new LlmkbError('give either a query file (top-p sampling, as the paper) or --input files, not both', { hint: 'llmkb conner best-of QUERIES --samples 5, or llmkb conner best-of --input a.jsonl --input b.jsonl' });
        if (queriesFile === undefined && files.length === 0) throw new LlmkbError('best-of needs a query file or --input files', { hint: 'llmkb conner best-of nq_test_random_testset.txt --samples 5 --top-p 0.9 draws the candidates as the paper does; --input FILE (repeatable) chooses among files instead.' });
        if (queriesFile === undefined && files.length < 2) throw new LlmkbError('files mode needs at least two --input files', { hint: 'Generate candidates with `llmkb conner generate --prompt N -o candN.jsonl` for N = 1..4, or with several models; or give a query file to sample from.' });
        const scoring = async () => {
          const setup = await scoringSetup(ws, opts);
          return { runs: ws.runs, ...setup, aggregation: opts.aggregation, negatives: 5, seed: opts.seed, gamma };
        };
        let lines: object[];
        let summary: object;
        if (queriesFile === undefined) {
          const { readKnowledgeFile } = await import('../generation/knowledge-file.js');
          const candidates = files.map((f) => readKnowledgeFile(requireFile(f, 'Make it with `llmkb conner generate`.')));
          const choices = await bestOf(candidates, await scoring());
          lines = choices.map((c) => ({ ...c.chosen, bestOf: { candidate: c.candidate, file: files[c.candidate], qualities: c.qualities, gamma: opts.gamma } }));
          const counts = files.map((_, i) => choices.filter((c) => c.candidate === i).length);
          summary = { schema: 'llmkb-conner-best-of-v1', mode: 'files', files, gamma, queries: choices.length, chosenFrom: counts, meanQuality: bestOfGain(choices), protocol: bestOfProtocol({ mode: 'files', gamma, files: files.length }) };
          process.stdout.write(`chose knowledge for ${choices.length} queries; from each file: ${counts.join(', ')} -> ${opts.output}\n`);
        } else {
          const { queries, demoPool, fixedDemos, generator } = await generationInputs(ws, queriesFile, opts);
          checkGenerationTokens(generator.model, opts);
          const setup = await scoring();
          const choices = await bestOfSamples({
            queries, generator, setting: opts.setting, prompt: opts.prompt, shots: opts.shots, demoPool, ...(fixedDemos ? { fixedDemos } : {}), seed: opts.seed, maxTokens: opts.maxTokens,
            samples: opts.samples, topP: opts.topP, temperature: opts.temperature, answerShots: opts.answerShots, answerMaxTokens: opts.answerMaxTokens, scoring: setup,
          });
          lines = choices.map((c) => ({ ...c.chosen, bestOf: { sample: c.candidate, qualities: c.qualities, gamma: opts.gamma, topP: opts.topP, temperature: opts.temperature, seeds: c.seeds, samples: c.samples } }));
          const counts = Array.from({ length: opts.samples }, (_, i) => choices.filter((c) => c.candidate === i).length);
          const determinism = samplingDeterminism(generator.model);
          summary = {
            schema: 'llmkb-conner-best-of-v1', mode: 'samples', generator: `${generator.model.provider}:${generator.model.modelId}`, samples: opts.samples, topP: opts.topP, temperature: opts.temperature, seed: opts.seed, gamma,
            queries: choices.length, chosenFrom: counts, meanQuality: bestOfGain(choices), protocol: bestOfProtocol({ mode: 'samples', gamma, samples: opts.samples, topP: opts.topP, temperature: opts.temperature, determinism }),
          };
          const gain = bestOfGain(choices);
          const fmt = (q: number | null): string => (q === null ? '-' : q.toFixed(3));
          process.stdout.write(`chose among ${opts.samples} top-p draws (p ${opts.topP}, T ${opts.temperature}) for ${choices.length} queries; chosen from each draw: ${counts.join(', ')}; mean Q chosen ${fmt(gain.chosen)}, per draw ${gain.perCandidate.map(fmt).join(', ')}${determinism.deterministic ? '' : ' (nondeterministic: see the summary)'} -> ${opts.output}\n`);
        }
        writeFileAtomic(opts.output, toJsonl(lines));
        writeFileAtomic(opts.summary, `${JSON.stringify(summary, null, 2)}\n`);
      } finally {
        await ws.close();
      }
    });
}
