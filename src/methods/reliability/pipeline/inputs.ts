/**
 * The reliability method's inputs (`prepare`): SeenQA and UnseenQA (built in the data folder when
 * missing, from local source files or downloads), or the user's own QA file (`input`); the few-shot
 * repositories R_seen and R_unseen when a few-shot setting runs; the SeenQA card's time filter;
 * and the checksums of every file read, for the protocol block.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { sha256 } from '../../../io/checksum.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import type { PrepareContext, PreparedInputs } from '../../method.js';
import { buildRepositoryFiles, buildSeenQAFiles, buildUnseenQAFiles, checkLocalSources, DATASET_FILES, sourcesOf } from '../data/build-datasets.js';
import { readQAItems, type QAItem } from '../data/qa-item.js';
import { DataSourceError } from '../data/source-files.js';
import { QUICK } from '../defaults.js';
import type { TimeFilterProvenance } from '../protocol.js';
import { Bm25ShotSelector, EmbeddingShotSelector, type ShotSelector } from '../prompts/shot-selector.js';
import { reliabilityOptions, type ReliabilityOptions } from './options.js';
import { mcqsOf } from './run-params.js';
import { requireFolder } from '../../../io/require-path.js';

/**
 * Offline, `llmkb eval --quick` cannot download the default model or the data sources: the two
 * ways out, named whichever download failed first.
 */
export const OFFLINE_HINT =
  'Offline? llmkb eval needs a model and the source files of the data sets: pass a local model with --model gguf:PATH (a .gguf file) and a folder with local copies of the source files with --data-dir DIR (or LLMKB_DATA_DIR); otherwise check the network.';

/** What the stages and the summary need besides the items. */
export interface ReliabilityContext {
  options: ReliabilityOptions;
  rSeen: readonly QAItem[];
  rUnseen: readonly QAItem[];
  timeFilter: TimeFilterProvenance | undefined;
  /** The data files read, with their SHA-256. */
  files: Record<string, string>;
  /** `--quick`: the seeded subset's sizes. */
  quick?: { seen: number; unseen: number };
  /** MCQs per response (as the run's params say: `--mcqs`, else the paper's 20, or fewer for a quick look). */
  mcqs: number;
  /** Shot selectors by embedder identity (built once per evaluation, shared by its runs). */
  selectors: Map<string, ShotSelector>;
}

/** The few-shot selector of a run: by the embedder when there is one, else BM25. */
export function shotSelector(context: ReliabilityContext, embedder: ModelExecutor | undefined): ShotSelector {
  const key = embedder?.model.cacheIdentity ?? '';
  let selector = context.selectors.get(key);
  if (!selector) {
    selector = embedder ? new EmbeddingShotSelector(embedder, context.rSeen, context.rUnseen) : new Bm25ShotSelector(context.rSeen, context.rUnseen);
    context.selectors.set(key, selector);
  }
  return selector;
}

/** A user's own QA set (`input`): no time filter of llmkb's ran on it. */
const OWN_QUESTIONS: TimeFilterProvenance = {
  method: 'none (your own QA set)',
  note: 'the questions come from --input; llmkb filtered none of them for time-sensitive answers (paper Table 5)',
};

/** The time filter SeenQA was built with, from its machine-readable card. */
function timeFilterOf(dataDir: string): TimeFilterProvenance | undefined {
  const card = join(dataDir, DATASET_FILES.seenqa.replace(/\.jsonl$/, '.card.json'));
  if (!existsSync(card)) return undefined;
  try {
    return (JSON.parse(readFileSync(card, 'utf8')) as { timeFilter?: TimeFilterProvenance }).timeFilter;
  } catch {
    return undefined; // an unreadable card: the protocol says the time filter is unknown
  }
}

/** Builds the data sets missing from the data folder (SeenQA's time filter: the `timeFilter` role, else the judge, else the keyword rule). */
async function buildMissing(ctx: PrepareContext, options: ReliabilityOptions, needed: ReadonlyArray<keyof typeof DATASET_FILES>): Promise<void> {
  const missing = needed.filter((k) => !existsSync(join(options.data, DATASET_FILES[k])));
  if (missing.length === 0) return;
  ctx.log(`building data sets in ${options.data} (missing: ${missing.map((k) => DATASET_FILES[k]).join(', ')})`);
  const base = { outDir: options.data, seed: ctx.seed, cacheDir: ctx.cacheDir, ...(options.dataDir ? { dataDir: options.dataDir } : {}) };
  const filter = ctx.roles.timeFilter ?? ctx.roles.judge;
  try {
    if (missing.includes('seenqa')) await buildSeenQAFiles({ ...base, perSource: 1000, ...(filter ? { timeSensitiveExecutor: filter } : {}) });
    if (missing.includes('unseenqa')) await buildUnseenQAFiles({ ...base, cutoff: options.cutoff });
    if (missing.includes('rSeen') || missing.includes('rUnseen')) await buildRepositoryFiles({ ...base, cutoff: options.cutoff });
  } catch (error) {
    if (error instanceof DataSourceError && options.dataDir === undefined)
      throw new DataSourceError(error.message, { hint: `${error.hint ?? ''} ${OFFLINE_HINT}`.trim(), exitCode: error.exitCode, cause: error });
    throw error;
  }
}

/**
 * A source folder (`--data-dir`, or LLMKB_DATA_DIR) is never ignored silently: it must hold the
 * source files of every data set the run reads, even when the data folder has them built
 * already (a wrong folder is an error, not a surprise on the next build); a run that reads no
 * data set says it does not use it.
 */
function checkDataDir(ctx: PrepareContext, options: ReliabilityOptions, needed: ReadonlyArray<keyof typeof DATASET_FILES>): void {
  if (needed.length === 0) {
    // Set in the environment for every command, it is no mistake of this one's.
    if (ctx.options.dataDir !== undefined)
      ctx.log(`note: --data-dir ${options.dataDir} is not used: the questions come from --input and the zero-shot setting needs no repositories`);
    return;
  }
  const sets = new Set(needed.map((k): 'seenqa' | 'unseenqa' | 'repositories' => (k === 'seenqa' || k === 'unseenqa' ? k : 'repositories')));
  checkLocalSources([...new Set([...sets].flatMap((set) => sourcesOf(set)))], resolve(options.dataDir!));
}

export async function prepareReliability(ctx: PrepareContext): Promise<PreparedInputs> {
  const given = reliabilityOptions(ctx.options);
  // The default data folder is read from where relative paths are (the study's folder, or here).
  const options = { ...given, data: resolve(ctx.baseDir, given.data) };
  if (options.dataDir !== undefined && ctx.options.dataDir === undefined)
    requireFolder(options.dataDir, 'Give the folder holding the source files with --data-dir (here from LLMKB_DATA_DIR), or unset it to download them.');
  const fewShot = ctx.settings.some((s) => s !== 'zero-shot');
  const own = options.input !== undefined;
  const needed = [...(own ? [] : (['seenqa', 'unseenqa'] as const)), ...(fewShot || !own ? (['rSeen', 'rUnseen'] as const) : [])];
  if (options.dataDir !== undefined) checkDataDir(ctx, options, needed);
  await buildMissing(ctx, options, needed);
  const files: Record<string, string> = {};
  const read = (file: string): QAItem[] => {
    files[file.startsWith(`${options.data}/`) ? file.slice(options.data.length + 1) : file] = sha256(readFileSync(file));
    return readQAItems(file);
  };
  let items: QAItem[];
  let quick: ReliabilityContext['quick'];
  if (own) {
    items = read(options.input!);
  } else {
    const seen = read(join(options.data, DATASET_FILES.seenqa));
    const unseen = read(join(options.data, DATASET_FILES.unseenqa));
    items = [...seen, ...unseen];
    if (ctx.quick) {
      quick = { seen: Math.min(QUICK.seen, seen.length), unseen: Math.min(QUICK.unseen, unseen.length) };
      items = [
        ...SeededRandom.stream(ctx.seed, 'quick', 'seen').sample(seen, QUICK.seen),
        ...SeededRandom.stream(ctx.seed, 'quick', 'unseen').sample(unseen, QUICK.unseen),
      ];
    }
  }
  const withRepositories = fewShot || !own;
  const rSeen = withRepositories ? read(join(options.data, DATASET_FILES.rSeen)) : [];
  const rUnseen = withRepositories ? read(join(options.data, DATASET_FILES.rUnseen)) : [];
  const context: ReliabilityContext = {
    options,
    rSeen,
    rUnseen,
    timeFilter: own ? OWN_QUESTIONS : timeFilterOf(options.data),
    files,
    ...(quick ? { quick } : {}),
    mcqs: mcqsOf(options, ctx.quick),
    selectors: new Map(),
  };
  const seenCount = items.filter((i) => i.dataset === 'seen').length;
  return {
    items,
    datasets: files,
    context,
    note: `${seenCount} seen + ${items.length - seenCount} unseen questions${quick ? ' (quick)' : ''}${own ? ` from ${options.input}` : ''}`,
  };
}
