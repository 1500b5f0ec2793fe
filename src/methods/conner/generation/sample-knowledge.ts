/**
 * r knowledge texts per query drawn from one generator by top-p (nucleus) sampling, the input of
 * CONNER's knowledge selection (paper section 5: "we generate r different knowledge
 * H = {k~_1..k~_r} from LLMs with top-p sampling", p = 0.9, r = 5). The prompt is the one
 * `conner generate` uses (Table 11 or 12). Each draw has its own seed, derived from (run seed,
 * query id, draw index), so a re-run draws the same texts where the backend honours seeds; every
 * draw is cached by content with its index in the key, and the stage is resumable: an
 * interrupted run repeats no model call.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../store/call-key.js';
import { checksumOfLines } from '../../../io/checksum.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import type { ProgressOptions } from '../../../progress/progress.js';
import { runStage } from '../../../store/run-stage.js';
import type { RunStore } from '../../../store/run-store.js';
import { CONNER_METHOD } from '../metric-defs.js';
import { openMethodRun } from '../../open-run.js';
import { BEST_ZERO_SHOT_PROMPT } from '../defaults.js';
import { KNOWLEDGE_STOP } from './conner-prompts.js';
import type { ConnerQuery } from './conner-queries.js';
import { completeWithFittingShots } from './fit-shots.js';
import { knowledgePromptFor, modelName, type GenerateOptions } from './generate-knowledge.js';

/** The paper's setting (section 5): p = 0.9, r = 5. */
export const DEFAULT_SAMPLES = 5;
export const DEFAULT_TOP_P = 0.9;
/**
 * The paper does not give the temperature. Its generator is ChatGPT through the OpenAI API, whose
 * default temperature is 1 (the distribution as the model gives it); llmkb uses 1.
 */
export const DEFAULT_SAMPLING_TEMPERATURE = 1;

export interface SampleOptions extends Pick<GenerateOptions, 'queries' | 'setting' | 'prompt' | 'shots' | 'demoPool' | 'fixedDemos' | 'seed' | 'maxTokens'> {
  generator: ModelExecutor;
  runs: RunStore;
  /** r: knowledge texts drawn per query. */
  samples: number;
  topP: number;
  temperature: number;
  concurrency?: number;
  progress?: ProgressOptions;
}

/** One query with its r drawn knowledge texts. */
export interface SampledKnowledge extends ConnerQuery {
  generator: string;
  setting: string;
  prompt?: number;
  knowledgeDemos: string[];
  /** The r texts, in draw order. */
  samples: string[];
  /** The seed of each draw. */
  seeds: number[];
  /** Demonstrations left out of the knowledge prompt so it fits the generator's context. */
  knowledgeShotsDropped?: number;
}

/**
 * The seed of draw `sample` for one query: the first 32 bits of sha256(run seed, query id, draw
 * index), so draws of one query differ, and adding queries or draws never changes another's seed.
 */
export function sampleSeed(seed: number, queryId: string, sample: number): number {
  return createHash('sha256').update(`${seed}\u0000conner-sample\u0000${queryId}\u0000${sample}`).digest().readUInt32LE(0);
}

export function samplingRunSpec(
  options: Omit<SampleOptions, 'runs' | 'generator' | 'concurrency' | 'progress'> & { generatorIdentity: string; label?: string },
) {
  return {
    model: options.generatorIdentity,
    dataset: checksumOfLines(options.queries, (q) => canonicalJson(q)),
    setting: `conner-sample:${options.setting}`,
    seed: options.seed,
    params: {
      prompt: options.setting === 'zero-shot' ? (options.prompt ?? BEST_ZERO_SHOT_PROMPT) : null,
      shots: options.setting === 'few-shot' ? options.shots : 0,
      maxTokens: options.maxTokens,
      samples: options.samples,
      topP: options.topP,
      temperature: options.temperature,
      demoPool: checksumOfLines(options.demoPool, (d) => canonicalJson(d)),
      fixedDemos: options.fixedDemos?.map((d) => d.id) ?? null,
    },
    ...(options.label === undefined ? {} : { label: options.label }),
  };
}

export async function sampleKnowledge(options: SampleOptions): Promise<SampledKnowledge[]> {
  const { generator, queries } = options;
  const generatorId = modelName(generator);
  const run = openMethodRun(
    options.runs,
    CONNER_METHOD,
    samplingRunSpec({ ...options, generatorIdentity: generator.model.cacheIdentity, label: `conner best-of samples ${generatorId}` }),
    'conner best-of',
  );
  const records = await runStage<ConnerQuery, SampledKnowledge>({
    run,
    stage: 'sample',
    items: queries,
    idOf: (q) => q.id,
    concurrency: options.concurrency ?? generator.concurrency,
    ...(options.progress === undefined ? {} : { progress: options.progress }),
    work: (q) => sampleOne(q),
  });
  return queries.map((q) => records.get(q.id)!);

  async function sampleOne(q: ConnerQuery): Promise<{ record: SampledKnowledge; cached: boolean }> {
    const { prompt, knowledgeDemos } = knowledgePromptFor(q, options);
    const samples: string[] = [];
    const seeds: number[] = [];
    let cached = true;
    // The demonstrations that fit, found by the first draw, are those of every draw.
    let demos = knowledgeDemos;
    // One draw after another: each is committed to the call cache as it finishes, so a run
    // killed between draws asks only for the draws it had not made.
    for (let i = 0; i < options.samples; i++) {
      const seed = sampleSeed(options.seed, q.id, i);
      const k = await completeWithFittingShots(
        generator,
        demos,
        (d) => ({
          prompt: prompt(d),
          maxTokens: options.maxTokens,
          stop: KNOWLEDGE_STOP,
          sampling: { temperature: options.temperature, topP: options.topP, seed, sample: i },
        }),
        `query ${q.id}, knowledge prompt`,
      );
      demos = k.demos;
      cached &&= k.result.cached;
      samples.push(k.result.value.text.trim());
      seeds.push(seed);
    }
    const record: SampledKnowledge = {
      ...q,
      generator: generatorId,
      setting: options.setting,
      ...(options.setting === 'zero-shot' ? { prompt: options.prompt ?? BEST_ZERO_SHOT_PROMPT } : {}),
      knowledgeDemos: demos.map((d) => d.id),
      samples,
      seeds,
      ...(demos.length < knowledgeDemos.length ? { knowledgeShotsDropped: knowledgeDemos.length - demos.length } : {}),
    };
    return { record, cached };
  }
}
