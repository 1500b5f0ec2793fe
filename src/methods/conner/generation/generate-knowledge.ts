/**
 * The generation step: for each query, knowledge from the generator under the zero-shot prompt
 * (Table 11) or the few-shot prompt (Table 12, Appendix F.2), then the downstream answer with
 * that knowledge and without any (few-shot, Table 13, Appendix G) by the answerer. The paper's
 * answers come from one few-shot LLaMA for every generator (Appendix G), so the answerer is its
 * own executor, the same for every generator compared; the generator answering its own knowledge
 * is possible and recorded as a departure. Demonstrations that overflow the context are dropped
 * until the prompt fits (./fit-shots.ts), recorded per item. One resumable stage over the run
 * store: an interrupted run continues at the first query without a record; every call goes
 * through the executor's cache.
 */
import { canonicalJson } from '../../../store/call-key.js';
import { checksumOfLines } from '../../../io/checksum.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import { providerModelName } from '../../../providers/model-kinds.js';
import type { ProgressOptions } from '../../../progress/progress.js';
import { runStage } from '../../../store/run-stage.js';
import type { RunStore } from '../../../store/run-store.js';
import { CONNER_METHOD } from '../metric-defs.js';
import { openMethodRun } from '../../open-run.js';
import { BEST_ZERO_SHOT_PROMPT, type KnowledgeSetting } from '../defaults.js';
import { ANSWER_STOP, answerPrompt, fewShotKnowledgePrompt, KNOWLEDGE_STOP, zeroShotKnowledgePrompt, type Demonstration } from './conner-prompts.js';
import type { ConnerQuery } from './conner-queries.js';
import { completeWithFittingShots } from './fit-shots.js';

/** One query with its generated knowledge and answers: the input of `conner score`. */
export interface GeneratedKnowledge extends ConnerQuery {
  /** `<provider>:<model id>` of the knowledge generator (or a name for knowledge brought from elsewhere). */
  generator: string;
  /** `zero-shot`, `few-shot`, `given` (knowledge brought from elsewhere) or `best-of ...`. */
  setting: string;
  /** Zero-shot: the Table 11 prompt number used. */
  prompt?: number;
  /** Ids of the demonstrations in the few-shot knowledge prompt. */
  knowledgeDemos: string[];
  knowledge: string;
  /** Ids of the demonstrations in the answer prompt. */
  answerDemos: string[];
  /** `<provider>:<model id>` of the model that wrote the answers (Appendix G's answerer). */
  answerer?: string;
  /** The downstream answer given the knowledge (validity's `a`). */
  answerWithKnowledge?: string;
  /** The downstream answer with an empty passage (the baseline of the knowledge's effect). */
  answerWithoutKnowledge?: string;
  /** Demonstrations left out of the knowledge prompt so it fits the generator's context. */
  knowledgeShotsDropped?: number;
  /** Demonstrations left out of the answer prompts so they fit the answerer's context. */
  answerShotsDropped?: number;
  /** `generate --limit n`: the knowledge covers a seeded sample of n of the file's queries. */
  limit?: { n: number; seed: number };
}

export interface GenerateOptions {
  queries: readonly ConnerQuery[];
  generator: ModelExecutor;
  /** Writes the downstream answers (Table 13): one fixed model for every generator compared; the generator itself is a departure. */
  answerer: ModelExecutor;
  runs: RunStore;
  setting: KnowledgeSetting;
  /** Zero-shot: which prompt of Table 11 (1-4; default 4, the ✓ one). */
  prompt?: number;
  /** Demonstrations in the few-shot knowledge prompt (paper: k randomly chosen training examples). */
  shots: number;
  /** Demonstrations in the answer prompt. */
  answerShots: number;
  /** Where demonstrations come from; a query is never its own demonstration. */
  demoPool: readonly Demonstration[];
  /** Fixed demonstrations (from `conner select-demos`) instead of a random draw per query. */
  fixedDemos?: readonly Demonstration[];
  seed: number;
  maxTokens: number;
  answerMaxTokens: number;
  concurrency?: number;
  progress?: ProgressOptions;
}

export function demonstrationsOf(queries: readonly ConnerQuery[]): Demonstration[] {
  return queries
    .filter((q) => (q.referenceKnowledge ?? '').trim() !== '' && (q.goldAnswer ?? '').trim() !== '')
    .map((q) => ({ id: q.id, topic: q.topic, query: q.query, knowledge: q.referenceKnowledge!, answer: q.goldAnswer! }));
}

/** k demonstrations for one query: a seeded draw per (seed, purpose, query), excluding the query itself. */
export function drawDemos(pool: readonly Demonstration[], queryId: string, k: number, seed: number, purpose: string): Demonstration[] {
  if (k <= 0) return [];
  return SeededRandom.stream(seed, purpose, queryId).sample(
    pool.filter((d) => d.id !== queryId),
    k,
  );
}

/** `<provider>:<model id>`: how records name a generator or an answerer. */
export function modelName(executor: ModelExecutor): string {
  return providerModelName(executor.model);
}

/** The setting as summaries group it: Table 11 prompts other than the default are told apart. */
export function settingLabel(item: Pick<GeneratedKnowledge, 'setting' | 'prompt'>): string {
  return item.setting === 'zero-shot' && item.prompt !== undefined && item.prompt !== BEST_ZERO_SHOT_PROMPT
    ? `zero-shot (Table 11 prompt ${item.prompt})`
    : item.setting;
}

export function generationRunSpec(
  options: Omit<GenerateOptions, 'runs' | 'generator' | 'answerer' | 'concurrency' | 'progress'> & {
    generatorIdentity: string;
    answererIdentity: string;
    label?: string;
  },
) {
  return {
    model: options.generatorIdentity,
    dataset: checksumOfLines(options.queries, (q) => canonicalJson(q)),
    setting: `conner-generate:${options.setting}`,
    seed: options.seed,
    params: {
      prompt: options.setting === 'zero-shot' ? (options.prompt ?? BEST_ZERO_SHOT_PROMPT) : null,
      shots: options.setting === 'few-shot' ? options.shots : 0,
      // The answerer writes half of each record: another answerer is another run.
      answerer: options.answererIdentity,
      answerShots: options.answerShots,
      maxTokens: options.maxTokens,
      answerMaxTokens: options.answerMaxTokens,
      demoPool: checksumOfLines(options.demoPool, (d) => canonicalJson(d)),
      fixedDemos: options.fixedDemos?.map((d) => d.id) ?? null,
    },
    ...(options.label === undefined ? {} : { label: options.label }),
  };
}

export async function generateKnowledge(options: GenerateOptions): Promise<GeneratedKnowledge[]> {
  const { generator, answerer, queries } = options;
  const run = openMethodRun(
    options.runs,
    CONNER_METHOD,
    generationRunSpec({
      ...options,
      generatorIdentity: generator.model.cacheIdentity,
      answererIdentity: answerer.model.cacheIdentity,
      label: `conner generate ${modelName(generator)}`,
    }),
    'conner generate',
  );
  const records = await runStage<ConnerQuery, GeneratedKnowledge>({
    run,
    stage: 'generate',
    items: queries,
    idOf: (q) => q.id,
    concurrency: options.concurrency ?? Math.min(generator.concurrency, answerer.concurrency),
    ...(options.progress === undefined ? {} : { progress: options.progress }),
    work: (q) => generateOne(q, options),
  });
  return queries.map((q) => records.get(q.id)!);
}

/** One query's knowledge (Table 11 or 12) by the generator, then the answerer's answers with and without it (Table 13). */
export async function generateOne(
  q: ConnerQuery,
  options: Omit<GenerateOptions, 'queries' | 'runs' | 'concurrency' | 'progress'>,
): Promise<{ record: GeneratedKnowledge; cached: boolean }> {
  const { generator, answerer } = options;
  const { knowledgeDemos, prompt } = knowledgePromptFor(q, options);
  const k = await completeWithFittingShots(
    generator,
    knowledgeDemos,
    (demos) => ({ prompt: prompt(demos), maxTokens: options.maxTokens, stop: KNOWLEDGE_STOP }),
    `query ${q.id}, knowledge prompt`,
  );
  const knowledge = k.result.value.text.trim();
  const { cached: answersCached, ...answerFields } = await answersFor(answerer, q, knowledge, options);
  const record: GeneratedKnowledge = {
    ...q,
    generator: modelName(generator),
    setting: options.setting,
    ...(options.setting === 'zero-shot' ? { prompt: options.prompt ?? BEST_ZERO_SHOT_PROMPT } : {}),
    knowledgeDemos: k.demos.map((d) => d.id),
    knowledge,
    ...answerFields,
    ...(k.dropped > 0 ? { knowledgeShotsDropped: k.dropped } : {}),
  };
  return { record, cached: k.result.cached && answersCached };
}

/** The knowledge prompt of one query (Table 11 or 12) as a function of its demonstrations, and the demonstrations drawn for it. */
export function knowledgePromptFor(
  q: ConnerQuery,
  options: Pick<GenerateOptions, 'setting' | 'prompt' | 'shots' | 'demoPool' | 'fixedDemos' | 'seed'>,
): { knowledgeDemos: Demonstration[]; prompt: (demos: readonly Demonstration[]) => string } {
  if (options.setting === 'zero-shot') return { knowledgeDemos: [], prompt: () => zeroShotKnowledgePrompt(q, options.prompt ?? BEST_ZERO_SHOT_PROMPT) };
  const knowledgeDemos = options.fixedDemos
    ? options.fixedDemos.filter((d) => d.id !== q.id)
    : drawDemos(options.demoPool, q.id, options.shots, options.seed, 'knowledge-demos');
  return { knowledgeDemos, prompt: (demos) => fewShotKnowledgePrompt(q, demos) };
}

/** What `answersFor` adds to a record. */
export type Answers = Required<Pick<GeneratedKnowledge, 'answerDemos' | 'answerer' | 'answerWithKnowledge' | 'answerWithoutKnowledge'>> &
  Pick<GeneratedKnowledge, 'answerShotsDropped'>;

/**
 * The downstream answers (Table 13, greedy) by the answerer, with the knowledge and with an empty
 * passage, after the same demonstrations: as many of those drawn as fit with the knowledge.
 */
export async function answersFor(
  answerer: ModelExecutor,
  q: ConnerQuery,
  knowledge: string,
  options: Pick<GenerateOptions, 'demoPool' | 'answerShots' | 'seed' | 'answerMaxTokens'>,
): Promise<Answers & { cached: boolean }> {
  const drawn = drawDemos(options.demoPool, q.id, options.answerShots, options.seed, 'answer-demos');
  const withK = await completeWithFittingShots(
    answerer,
    drawn,
    (demos) => ({ prompt: answerPrompt(q, knowledge, demos), maxTokens: options.answerMaxTokens, stop: ANSWER_STOP }),
    `query ${q.id}, answer prompt`,
  );
  const withoutK = await answerer.complete({ prompt: answerPrompt(q, '', withK.demos), maxTokens: options.answerMaxTokens, stop: ANSWER_STOP });
  return {
    answerDemos: withK.demos.map((d) => d.id),
    answerer: modelName(answerer),
    answerWithKnowledge: withK.result.value.text.trim(),
    answerWithoutKnowledge: withoutK.value.text.trim(),
    ...(withK.dropped > 0 ? { answerShotsDropped: withK.dropped } : {}),
    cached: withK.result.cached && withoutK.cached,
  };
}
