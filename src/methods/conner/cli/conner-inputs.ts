/**
 * What `llmkb conner`'s commands read before their one library call: `--limit`'s seeded samples,
 * a pageviews file, a generating command's queries, demonstrations and models, and a scoring
 * command's choices and scorers; with the notes on stderr that tell the user of a departure.
 * The method's modules load inside these calls, so registering the commands does not pay for them.
 */
import { LlmkbError } from '../../../errors.js';
import type { ScoringChoices } from '../conner-choices.js';
import { DEFAULT_ANSWER_MAX_TOKENS, DEFAULT_KNOWLEDGE_MAX_TOKENS } from '../defaults.js';
import type { MethodWorkspace } from '../../method-cli.js';
import { requireFile } from '../../../io/require-path.js';
import { checkMaxTokens } from '../../token-budget.js';
import { escapeControls } from '../../../terminal-text.js';
import type { GenerationCliOptions, ScorerCliOptions } from './conner-options.js';

/** A note for the user on stderr, its control characters escaped. */
export const note = (line: string): void => void process.stderr.write(`${escapeControls(line)}\n`);

/** `--limit n`: the seeded sample of each file, by sorted id, said on stderr when it cuts anything. */
export async function limited<T extends { id: string }>(files: T[][], limit: number | undefined, seed: number, what: string): Promise<T[][]> {
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
export async function readPageviews(file: string): Promise<Map<string, number>> {
  const { parsePageviews } = await import('../summary/analyses.js');
  const { readTextFile } = await import('../../../io/files.js');
  const { InputFileError } = await import('../../../errors.js');
  const hint = "One topic a line, a tab, and its pageviews as a whole number (the authors' emnlp_data/wow/random_testset/*_topic_pageviews.txt).";
  return parsePageviews(readTextFile(requireFile(file, hint)), file, (line, message) => new InputFileError(file, line, undefined, message, hint));
}

/** The queries, the demonstrations, the generator and the answerer of a generating command (`generate`, `best-of`). */
export async function generationInputs(ws: MethodWorkspace, input: string, opts: GenerationCliOptions) {
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

/** The run's choices: each option given, else its profile's (the released scripts' unless --profile equations). */
export async function choicesOf(opts: ScorerCliOptions, negatives?: number): Promise<ScoringChoices> {
  const { scoringChoices } = await import('../pipeline/options.js');
  return scoringChoices({ ...opts, ...(negatives === undefined ? {} : { negatives }) });
}

/** The scorers; the answerer only where helpfulness is scored (`conner score`). */
export async function scoringSetupOf(ws: MethodWorkspace, opts: ScorerCliOptions, choices: ScoringChoices, helpfulness = false) {
  const { scoringSetup } = await import('../conner-setup.js');
  const { answerer, ...specs } = opts;
  const setup = await scoringSetup(ws, helpfulness ? { ...specs, ...(answerer === undefined ? {} : { answerer }) } : specs, choices);
  if (setup.answererUnscoring)
    process.stderr.write(
      `note: the answerer ${setup.answererUnscoring} cannot score prompts: helpfulness's answer losses are the scorer's (a departure: the paper's answerer scores them; recorded)\n`,
    );
  return setup;
}
