/**
 * The generation step: for each query, knowledge from the generator under the zero-shot prompt
 * (Table 11) or the few-shot prompt (Table 12, Appendix F.2), then the downstream answer with
 * that knowledge and without any (few-shot, Table 13, Appendix G). One resumable stage over the
 * run store: an interrupted run continues at the first query without a record; every call goes
 * through the executor's cache.
 */
import { ContextOverflowError, LlmkbError } from '../../../errors.js';
import { canonicalJson } from '../../../store/call-key.js';
import { checksumOfLines } from '../../../io/checksum.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import type { ProgressOptions } from '../../../progress/progress.js';
import { runStage } from '../../../store/run-stage.js';
import type { RunStore } from '../../../store/run-store.js';
import { ANSWER_STOP, BEST_ZERO_SHOT_PROMPT, answerPrompt, fewShotKnowledgePrompt, KNOWLEDGE_STOP, zeroShotKnowledgePrompt, type Demonstration } from './conner-prompts.js';
import type { ConnerQuery } from './conner-queries.js';

export type KnowledgeSetting = 'zero-shot' | 'few-shot';
export const KNOWLEDGE_SETTINGS: readonly KnowledgeSetting[] = ['zero-shot', 'few-shot'];

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
  /** The downstream answer given the knowledge (validity's `a`). */
  answerWithKnowledge?: string;
  /** The downstream answer with an empty passage (the baseline of the knowledge's effect). */
  answerWithoutKnowledge?: string;
}

export interface GenerateOptions {
  queries: readonly ConnerQuery[];
  generator: ModelExecutor;
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

export const DEFAULT_KNOWLEDGE_MAX_TOKENS = 128;
export const DEFAULT_ANSWER_MAX_TOKENS = 32;
export const DEFAULT_SHOTS = 8;
export const DEFAULT_ANSWER_SHOTS = 4;

export function demonstrationsOf(queries: readonly ConnerQuery[]): Demonstration[] {
  return queries
    .filter((q) => (q.referenceKnowledge ?? '').trim() !== '' && (q.goldAnswer ?? '').trim() !== '')
    .map((q) => ({ id: q.id, topic: q.topic, query: q.query, knowledge: q.referenceKnowledge!, answer: q.goldAnswer! }));
}

/** k demonstrations for one query: a seeded draw per (seed, purpose, query), excluding the query itself. */
export function drawDemos(pool: readonly Demonstration[], queryId: string, k: number, seed: number, purpose: string): Demonstration[] {
  if (k <= 0) return [];
  return SeededRandom.stream(seed, purpose, queryId).sample(pool.filter((d) => d.id !== queryId), k);
}

export function generationRunSpec(options: Omit<GenerateOptions, 'runs' | 'generator' | 'concurrency' | 'progress'> & { generatorIdentity: string; label?: string }) {
  return {
    model: options.generatorIdentity,
    dataset: checksumOfLines(options.queries, (q) => canonicalJson(q)),
    setting: `conner-generate:${options.setting}`,
    seed: options.seed,
    params: {
      prompt: options.setting === 'zero-shot' ? (options.prompt ?? BEST_ZERO_SHOT_PROMPT) : null,
      shots: options.setting === 'few-shot' ? options.shots : 0,
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
  const { generator, queries } = options;
  const generatorId = `${generator.model.provider}:${generator.model.modelId}`;
  const run = options.runs.open(generationRunSpec({ ...options, generatorIdentity: generator.model.cacheIdentity, label: `conner generate ${generatorId}` }));
  const records = await runStage<ConnerQuery, GeneratedKnowledge>({
    run,
    stage: 'generate',
    items: queries,
    idOf: (q) => q.id,
    concurrency: options.concurrency ?? generator.concurrency,
    ...(options.progress === undefined ? {} : { progress: options.progress }),
    work: (q) => generateOne(q).catch((error: unknown) => {
      if (error instanceof ContextOverflowError) {
        throw new LlmkbError(`query ${q.id}: ${error.message}`, { hint: 'Use fewer demonstrations (--shots, --answer-shots) or a model with a longer context; CONNER\'s gold passages are long.', cause: error });
      }
      throw error;
    }),
  });
  return queries.map((q) => records.get(q.id)!);

  async function generateOne(q: ConnerQuery): Promise<{ record: GeneratedKnowledge; cached: boolean }> {
    const { prompt, knowledgeDemos } = knowledgePromptFor(q, options);
    const k = await generator.complete({ prompt, maxTokens: options.maxTokens, stop: KNOWLEDGE_STOP });
    const knowledge = k.value.text.trim();
    const answers = await answersFor(generator, q, knowledge, options);
    const record: GeneratedKnowledge = {
      ...q,
      generator: generatorId,
      setting: options.setting,
      ...(options.setting === 'zero-shot' ? { prompt: options.prompt ?? BEST_ZERO_SHOT_PROMPT } : {}),
      knowledgeDemos: knowledgeDemos.map((d) => d.id),
      knowledge,
      answerDemos: answers.answerDemos,
      answerWithKnowledge: answers.answerWithKnowledge,
      answerWithoutKnowledge: answers.answerWithoutKnowledge,
    };
    return { record, cached: k.cached && answers.cached };
  }
}

/** The knowledge prompt of one query (Table 11 or 12) and the demonstrations in it. */
export function knowledgePromptFor(
  q: ConnerQuery,
  options: Pick<GenerateOptions, 'setting' | 'prompt' | 'shots' | 'demoPool' | 'fixedDemos' | 'seed'>,
): { prompt: string; knowledgeDemos: Demonstration[] } {
  const knowledgeDemos =
    options.setting === 'zero-shot' ? [] : options.fixedDemos ? options.fixedDemos.filter((d) => d.id !== q.id) : drawDemos(options.demoPool, q.id, options.shots, options.seed, 'knowledge-demos');
  const prompt = options.setting === 'zero-shot' ? zeroShotKnowledgePrompt(q, options.prompt ?? BEST_ZERO_SHOT_PROMPT) : fewShotKnowledgePrompt(q, knowledgeDemos);
  return { prompt, knowledgeDemos };
}

/** The downstream answers (Table 13, greedy) with the knowledge and with an empty passage. */
export async function answersFor(
  generator: ModelExecutor,
  q: ConnerQuery,
  knowledge: string,
  options: Pick<GenerateOptions, 'demoPool' | 'answerShots' | 'seed' | 'answerMaxTokens'>,
): Promise<{ answerDemos: string[]; answerWithKnowledge: string; answerWithoutKnowledge: string; cached: boolean }> {
  const answerDemos = drawDemos(options.demoPool, q.id, options.answerShots, options.seed, 'answer-demos');
  const withK = await generator.complete({ prompt: answerPrompt(q, knowledge, answerDemos), maxTokens: options.answerMaxTokens, stop: ANSWER_STOP });
  const withoutK = await generator.complete({ prompt: answerPrompt(q, '', answerDemos), maxTokens: options.answerMaxTokens, stop: ANSWER_STOP });
  return {
    answerDemos: answerDemos.map((d) => d.id),
    answerWithKnowledge: withK.value.text.trim(),
    answerWithoutKnowledge: withoutK.value.text.trim(),
    cached: withK.cached && withoutK.cached,
  };
}
