/**
 * Use case 2 as one call per mode (what `llmkb conner best-of` runs; the command prints): the
 * choices, the chosen knowledge as the lines of its output file (each saying how it was chosen,
 * as `conner score` takes it) and the summary document (schema llmkb-conner-best-of-v1: the
 * protocol, mean Q of the chosen and of each candidate, how many were chosen from each), both
 * written when `write` names the files.
 */
import { writeFileAtomic } from '../../../io/files.js';
import { toJsonl } from '../../../io/jsonl.js';
import type { ScoringChoices } from '../conner-choices.js';
import { modelName, type GeneratedKnowledge } from '../generation/generate-knowledge.js';
import {
  bestOf,
  bestOfGain,
  bestOfProtocol,
  bestOfSamples,
  checkSameQueries,
  samplingDeterminism,
  type BestOfChoice,
  type BestOfProtocolNote,
  type BestOfSamplesOptions,
  type CandidateScoring,
  type SampledChoice,
} from './best-of.js';
import type { Gamma } from './knowledge-quality.js';

export const BEST_OF_SCHEMA = 'llmkb-conner-best-of-v1';

/** What a selection did, in either mode. */
interface BestOfFacts {
  gamma: Gamma;
  choices: ScoringChoices;
  queries: number;
  /** How many queries' knowledge came from each candidate (file or draw). */
  chosenFrom: number[];
  meanQuality: ReturnType<typeof bestOfGain>;
  protocol: BestOfProtocolNote[];
}

/** The summary document, its fields in the order it is written. */
export type BestOfSummary =
  | ({ schema: typeof BEST_OF_SCHEMA; mode: 'files'; files: string[] } & BestOfFacts)
  | ({
      schema: typeof BEST_OF_SCHEMA;
      mode: 'samples';
      generator: string;
      answerer: string;
      samples: number;
      topP: number;
      temperature: number;
      seed: number;
    } & BestOfFacts);

export interface BestOfOutput {
  /** The chosen knowledge JSONL (input of `conner score`). */
  output: string;
  /** The summary document. */
  summary: string;
}

export interface BestOfResult<C extends BestOfChoice> {
  choices: C[];
  /** The output file's records: each chosen knowledge text with how it was chosen. */
  lines: object[];
  summary: BestOfSummary;
}

function writeBestOf(write: BestOfOutput | undefined, lines: readonly object[], summary: BestOfSummary): void {
  if (!write) return;
  writeFileAtomic(write.output, toJsonl(lines));
  writeFileAtomic(write.summary, `${JSON.stringify(summary, null, 2)}\n`);
}

/**
 * Files mode: the knowledge of each query chosen among r files (the same query ids in each).
 * `gammaText` is gamma as the user wrote it, recorded in each line (default: its weights joined with commas).
 */
export async function bestOfFromFiles(
  candidates: ReadonlyArray<{ file: string; items: readonly GeneratedKnowledge[] }>,
  scoring: CandidateScoring,
  options: { gammaText?: string; write?: BestOfOutput } = {},
): Promise<BestOfResult<BestOfChoice>> {
  checkSameQueries(candidates);
  const files = candidates.map((c) => c.file);
  const gammaText = options.gammaText ?? scoring.gamma.join(',');
  const choices = await bestOf(
    candidates.map((c) => c.items),
    scoring,
  );
  const lines = choices.map((c) => ({ ...c.chosen, bestOf: { candidate: c.candidate, file: files[c.candidate], qualities: c.qualities, gamma: gammaText } }));
  const chosenFrom = files.map((_, i) => choices.filter((c) => c.candidate === i).length);
  const summary: BestOfSummary = {
    schema: BEST_OF_SCHEMA,
    mode: 'files',
    files,
    gamma: scoring.gamma,
    choices: scoring.choices,
    queries: choices.length,
    chosenFrom,
    meanQuality: bestOfGain(choices),
    protocol: bestOfProtocol({ mode: 'files', gamma: scoring.gamma, files: files.length }),
  };
  writeBestOf(options.write, lines, summary);
  return { choices, lines, summary };
}

/**
 * The paper's way: r top-p draws per query from one generator, the best by Q kept and answered
 * with. `limit` is the seeded sample the queries are (carried by each line, as `conner generate`'s).
 */
export async function bestOfFromSamples(
  options: BestOfSamplesOptions & { limit?: { n: number; seed: number }; gammaText?: string; write?: BestOfOutput },
): Promise<BestOfResult<SampledChoice> & { determinism: { deterministic: boolean; why: string } }> {
  const { scoring, generator, answerer, limit } = options;
  const gammaText = options.gammaText ?? scoring.gamma.join(',');
  const choices = await bestOfSamples(options);
  const lines = choices.map((c) => ({
    ...c.chosen,
    ...(limit ? { limit } : {}),
    bestOf: {
      sample: c.candidate,
      qualities: c.qualities,
      gamma: gammaText,
      topP: options.topP,
      temperature: options.temperature,
      seeds: c.seeds,
      samples: c.samples,
    },
  }));
  const chosenFrom = Array.from({ length: options.samples }, (_, i) => choices.filter((c) => c.candidate === i).length);
  const determinism = samplingDeterminism(generator.model);
  const summary: BestOfSummary = {
    schema: BEST_OF_SCHEMA,
    mode: 'samples',
    generator: modelName(generator),
    answerer: modelName(answerer),
    samples: options.samples,
    topP: options.topP,
    temperature: options.temperature,
    seed: options.seed,
    gamma: scoring.gamma,
    choices: scoring.choices,
    queries: choices.length,
    chosenFrom,
    meanQuality: bestOfGain(choices),
    protocol: bestOfProtocol({
      mode: 'samples',
      gamma: scoring.gamma,
      samples: options.samples,
      topP: options.topP,
      temperature: options.temperature,
      determinism,
      generator: modelName(generator),
      answerer: modelName(answerer),
    }),
  };
  writeBestOf(options.write, lines, summary);
  return { choices, lines, summary, determinism };
}
