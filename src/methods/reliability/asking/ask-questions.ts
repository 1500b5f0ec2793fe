/**
 * Asking (paper section 3.4, Table 6; docs/reliability.md, "Asking"): every question under one prompt
 * setting, greedy, at most 100 new tokens. Shots come from the repositories by similarity and are
 * put in a random (seeded) order. The answer is the text before the model's next "QUESTION:"
 * (base models go on with the pattern); the raw text is kept too.
 */
import { checksumOfLines } from '../../../io/checksum.js';
import type { QAItem } from '../data/qa-item.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import { ContextOverflowError, LlmkbError } from '../../../errors.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import { qaPrompt, type Shot } from '../prompts/paper-prompts.js';
import type { ShotSelector } from '../prompts/shot-selector.js';
import type { ProgressOptions } from '../../../progress/progress.js';
import { runStoredStage } from '../../../store/run-stage.js';
import type { Run, RunStore } from '../../../store/run-store.js';
import { RELIABILITY_METHOD } from '../metrics/metric-defs.js';
import { openMethodRun } from '../../open-run.js';
import { ANSWER_MAX_TOKENS, PROMPT_SETTINGS } from '../defaults.js';

export { ANSWER_MAX_TOKENS, PROMPT_SETTINGS };
export type PromptSetting = (typeof PROMPT_SETTINGS)[number];

export interface ShotChoice {
  shots: Shot[];
  ids: string[];
}

/** Table 6: none; 4 nearest from R_seen; or 2 nearest from R_seen + 2 nearest from R_unseen ("unsure"). Seeded order. */
export function chooseShots(item: QAItem, setting: PromptSetting, selector: ShotSelector | undefined, seed: number): ShotChoice {
  if (setting === 'zero-shot') return { shots: [], ids: [] };
  if (!selector) throw new Error(`${setting} needs a shot selector`);
  const picked: Array<{ item: QAItem; answer: string }> =
    setting === 'four-shot'
      ? selector.nearest(item.question, 'seen', 4).map((s) => ({ item: s, answer: s.answers[0]! }))
      : [
          ...selector.nearest(item.question, 'seen', 2).map((s) => ({ item: s, answer: s.answers[0]! })),
          ...selector.nearest(item.question, 'unseen', 2).map((s) => ({ item: s, answer: 'unsure' })),
        ];
  const ordered = SeededRandom.stream(seed, 'shots', item.id).shuffle(picked);
  return { shots: ordered.map((p) => ({ question: p.item.question, answer: p.answer })), ids: ordered.map((p) => p.item.id) };
}

/** The answer: text before the model's next "QUESTION:", trimmed. */
export function extractAnswer(raw: string): string {
  const cut = raw.indexOf('QUESTION:');
  return (cut === -1 ? raw : raw.slice(0, cut)).trim();
}

export type AskedRecord = QAItem & {
  response: string;
  rawResponse: string;
  setting: PromptSetting;
  /** Ids of the shots in prompt order. */
  shots: string[];
  /** Shots removed so the prompt fits the context window (only with reduceShots). */
  shotsDropped?: number;
  finishReason: string;
  /** Cache key of the question call: the exact exchange behind the response is in the call cache. */
  callKey?: string;
};

export interface AskOptions {
  items: readonly QAItem[];
  executor: ModelExecutor;
  setting: PromptSetting;
  seed: number;
  selector?: ShotSelector;
  maxTokens?: number;
  /** Drop shots until the prompt fits the context window, instead of failing. */
  reduceShots?: boolean;
  /** Where a run of its own is opened when `run` is not given. */
  runs?: RunStore;
  /** Shown in `llmkb runs`. */
  label?: string;
  progress?: ProgressOptions;
  concurrency?: number;
  /** Ask inside an existing run (an evaluation); otherwise the run is derived from these options. */
  run?: Run;
  /** Called with each record made (not those resumed from the store), as it is made, with its question's index. */
  onRecord?: (index: number, record: AskedRecord) => void;
}

export function datasetChecksum(items: readonly QAItem[]): string {
  return checksumOfLines(items, (item) => JSON.stringify(item));
}

export function askRun(options: AskOptions): Run {
  if (!options.runs) throw new Error('askRun: no run store to open the run in');
  return openMethodRun(
    options.runs,
    RELIABILITY_METHOD,
    {
      model: options.executor.model.cacheIdentity,
      dataset: datasetChecksum(options.items),
      setting: options.setting,
      seed: options.seed,
      params: {
        maxTokens: options.maxTokens ?? ANSWER_MAX_TOKENS,
        shots: options.setting === 'zero-shot' ? 'none' : (options.selector?.id ?? 'none'),
        reduceShots: options.reduceShots ?? false,
      },
      ...(options.label === undefined ? {} : { label: options.label }),
    },
    'ask',
  );
}

/** Asks every question; returns the run and its records (read back from the store). */
export async function askQuestions(options: AskOptions): Promise<{ run: Run; records: AskedRecord[] }> {
  const run = await runAskStage(options);
  return { run, records: [...run.entries<AskedRecord>('ask')].map(([, r]) => r) };
}

/**
 * Asks every question, resumably, into the run's `ask` stage; the records stay in the store
 * (read them with `run.entries('ask')` or `run.record('ask', id)`), so memory does not grow
 * with the number of questions.
 */
export async function runAskStage(options: AskOptions): Promise<Run> {
  const maxTokens = options.maxTokens ?? ANSWER_MAX_TOKENS;
  const run = options.run ?? askRun(options);
  if (options.setting !== 'zero-shot') {
    if (!options.selector) throw new Error(`${options.setting} needs the few-shot repositories`);
    await options.selector.prepare(options.items.map((i) => i.question));
  }
  await runStoredStage<QAItem, AskedRecord, number>({
    run,
    stage: `ask`,
    items: options.items,
    idOf: (item) => item.id,
    concurrency: options.concurrency ?? options.executor.concurrency,
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.onRecord ? { onRecord: options.onRecord } : {}),
    work: async (item) => {
      const choice = chooseShots(item, options.setting, options.selector, options.seed);
      for (let dropped = 0; ; dropped++) {
        const shots = choice.shots.slice(0, choice.shots.length - dropped);
        try {
          const result = await options.executor.complete({ prompt: qaPrompt(item.question, shots), maxTokens });
          const raw = result.value.text;
          const record: AskedRecord = {
            ...item,
            response: extractAnswer(raw),
            rawResponse: raw,
            setting: options.setting,
            shots: choice.ids.slice(0, shots.length),
            finishReason: result.value.finishReason,
            ...(dropped > 0 ? { shotsDropped: dropped } : {}),
            callKey: result.key,
          };
          return { record, cached: result.cached };
        } catch (error) {
          if (!(error instanceof ContextOverflowError) || !options.reduceShots || shots.length === 0) throw error;
        }
      }
    },
    // The stage's info needs only whether shots were dropped.
    project: (r) => (r.shotsDropped ? 1 : 0),
    info: (done) => {
      let items = 0;
      let shotsDroppedItems = 0;
      for (const [, dropped] of done) {
        items++;
        shotsDroppedItems += dropped;
      }
      return { items, shotsDroppedItems };
    },
  });
  return run;
}

/** A repository's items by id, built once per repository (shotsFromIds runs once per pair). */
const byIdCache = new WeakMap<readonly QAItem[], Map<string, QAItem>>();
function byIdOf(items: readonly QAItem[]): Map<string, QAItem> {
  let byId = byIdCache.get(items);
  if (!byId || byId.size !== items.length) {
    byId = new Map(items.map((i) => [i.id, i]));
    byIdCache.set(items, byId);
  }
  return byId;
}

/** Rebuilds a record's shots (for its MCQs) from the ids `askQuestions` stored. */
export function shotsFromIds(ids: readonly string[] | undefined, rSeen: readonly QAItem[], rUnseen: readonly QAItem[]): Shot[] {
  if (!ids || ids.length === 0) return [];
  const seen = byIdOf(rSeen);
  const unseen = byIdOf(rUnseen);
  return ids.map((id) => {
    const s = seen.get(id);
    if (s) return { question: s.question, answer: s.answers[0]! };
    const u = unseen.get(id);
    if (u) return { question: u.question, answer: 'unsure' };
    throw new LlmkbError(`few-shot example "${id}" is in neither r_seen nor r_unseen`, {
      hint: 'Use the repositories the responses were asked with (--data DIR: the folder `llmkb data repositories` built for that run).',
    });
  });
}
