import { LlmkbError } from '../errors.js';
import { Progress, type ProgressOptions } from '../progress/progress.js';
import type { Run } from './run-store.js';

export interface StageWork<I, R, P = R> {
  run: Run;
  stage: string;
  items: readonly I[];
  idOf: (item: I) => string;
  /** Produces one item's record; `cached` feeds the progress line's cache-hit count. */
  work: (item: I, index: number) => Promise<{ record: R; cached?: boolean }>;
  concurrency: number;
  progress?: ProgressOptions;
  /**
   * What the returned map keeps of each stored record (default: all of it). Records are read
   * back one at a time and reduced, so large records (a pair's every MCQ) stay in the store.
   */
  project?: (record: R) => P;
  /** Summary stored with the finished stage (diagnostics, which judge was used, ...), from the projected records. */
  info?: (records: Map<string, P>) => unknown;
  /** Called with each record this process makes, as it is made (in the order they finish), with its item's index. */
  onRecord?: (index: number, record: R) => void;
}

/**
 * A stage's items loaded one at a time by id (e.g. the previous stage's records, from the run
 * store), so a stage over many items never holds them all: only their ids.
 */
export interface StageItems<I> {
  readonly ids: readonly string[];
  /** The item with this id (at this position of `ids`). */
  load: (id: string, index: number) => I;
  /**
   * The items with these ids, in that order (undefined: left to `load`): the stage loads its
   * items LOAD_BATCH at a time with it, one query for many instead of one each.
   */
  loadMany?: (ids: readonly string[]) => ReadonlyArray<I | undefined>;
}

/** `runStoredStage`'s work: like StageWork, but items may be loaded by id and nothing is returned. */
export interface StoredStageWork<I, R, P = R> extends Omit<StageWork<I, R, P>, 'items' | 'idOf' | 'info'> {
  items: readonly I[] | StageItems<I>;
  /** Needed when `items` is an array. */
  idOf?: (item: I) => string;
  /**
   * Summary stored with the finished stage, from the projected records as `[item id, record]`
   * in item order (a single pass). The projections of the records this process made are kept
   * for it (so `project` should keep little); those of records resumed from the store are read
   * back.
   */
  info?: (records: Iterable<[string, P]>) => unknown;
}

/**
 * Runs one stage of a run over its items, resumably (see `runStoredStage`), and returns its
 * records by item id (projected with `project`), read back from the store.
 */
export async function runStage<I, R, P = R>(options: StageWork<I, R, P>): Promise<Map<string, P>> {
  const { info } = options;
  await runStoredStage<I, R, P>({ ...options, ...(info ? { info: (entries) => info(new Map(entries)) } : { info: undefined }) });
  return options.run.records<R, P>(options.stage, options.project);
}

/** Longest a finished record waits for its commit (see runStoredStage). */
export const RECORD_COMMIT_INTERVAL_MS = 200;
/** Records committed at once at most. */
const RECORD_COMMIT_BATCH = 1024;
/** Items loaded at once by `StageItems.loadMany`. */
const LOAD_BATCH = 128;
/** Longest a stage keeps the event loop to itself when its work needs no I/O. */
const EVENT_LOOP_TURN_MS = 2;

/**
 * Runs one stage of a run over its items, resumably: items with a stored record are skipped,
 * every new record is committed within RECORD_COMMIT_INTERVAL_MS of its making, and a stage
 * already marked done returns at once. On the first failure no new item is started,
 * items in flight finish and are saved, and the error is rethrown: re-running continues there.
 */
export async function runStoredStage<I, R, P = R>(options: StoredStageWork<I, R, P>): Promise<void> {
  const { run, stage } = options;
  const source: StageItems<I> = Array.isArray(options.items) ? arrayItems(options.items as readonly I[], options.idOf!) : (options.items as StageItems<I>);
  const ids = new Set<string>();
  for (const id of source.ids) {
    if (ids.has(id))
      throw new LlmkbError(`duplicate item id "${id}" in stage ${stage}`, {
        hint: 'Every item of a run needs a unique id: remove or rename the repeated one in the input.',
      });
    ids.add(id);
  }
  // Before looking at what is done: another process may be doing it right now.
  await run.acquireLease();
  if (run.stageStatus(stage) === 'done') return;
  run.startStage(stage);
  const existing = new Set(run.recordIds(stage));
  const total = source.ids.length;
  const todo: number[] = [];
  for (let index = 0; index < total; index++) if (!existing.has(source.ids[index]!)) todo.push(index);
  existing.clear();
  const progress = new Progress(stage, total, options.progress);
  progress.skip(total - todo.length);
  const project = options.project ?? ((record: R) => record as unknown as P);
  // For the stage's info: what `project` keeps of each record made here (no second read of the store).
  const made: Array<P | undefined> | undefined = options.info ? new Array<P | undefined>(total) : undefined;
  // Records are committed in groups, at most every RECORD_COMMIT_INTERVAL_MS (or RECORD_COMMIT_BATCH
  // records), and a worker goes on to its next item without waiting for the commit: one
  // transaction per record rewrote the table's last page and an index page for every record,
  // about five times the records' size written at paper scale. A kill loses at most the
  // records of the last interval, and their model calls are in the call cache, so a resumed run
  // remakes them without a call. Progress counts a record once it is committed.
  let pending: Array<{ itemId: string; seq: number; record: R; cached: boolean }> = [];
  let timer: NodeJS.Timeout | undefined;
  let failure: { error: unknown } | undefined;
  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    try {
      run.saveRecords(stage, batch);
    } catch (error) {
      failure ??= { error };
      for (let i = 0; i < batch.length; i++) progress.tick({ failed: true });
      return;
    }
    for (const p of batch) progress.tick({ cached: p.cached });
  };
  const save = (itemId: string, seq: number, record: R, cached: boolean): void => {
    if (made) made[seq] = project(record);
    options.onRecord?.(seq, record);
    pending.push({ itemId, seq, record, cached });
    if (pending.length >= RECORD_COMMIT_BATCH) flush();
    else if (timer === undefined) timer = setTimeout(flush, RECORD_COMMIT_INTERVAL_MS);
  };
  let next = 0;
  // Items are taken in `todo` order; with `loadMany`, the next LOAD_BATCH of them are loaded at
  // once when the first of them is taken, and each is let go as soon as it is.
  let batchStart = 0;
  let batch: Array<I | undefined> = [];
  const load = (position: number, id: string, index: number): I => {
    if (!source.loadMany) return source.load(id, index);
    if (position >= batchStart + batch.length) {
      batchStart = position;
      batch = source.loadMany(todo.slice(position, position + LOAD_BATCH).map((i) => source.ids[i]!)).slice();
    }
    const item = batch[position - batchStart];
    batch[position - batchStart] = undefined;
    return item === undefined ? source.load(id, index) : item;
  };
  // Work that needs no I/O (answered from the cache, decided by a rule) never waits: the event
  // loop gets a turn every few milliseconds (replies of the calls in flight, timers, progress,
  // Ctrl-C), as it did when every record waited for its commit; longer gaps would hold the
  // replies of the calls in flight (the judge's, while rules decide other records) as long.
  let turnAt = performance.now();
  // One turn for every worker: were each worker to yield on its own, the event loop would get a
  // turn only after every worker's next 2 ms of work, and a stage whose items are mostly decided
  // by rules (the judge's) would send its first requests after most of those items.
  let turn: Promise<void> | undefined;
  const nextTurn = (): Promise<void> =>
    (turn ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        turn = undefined;
        turnAt = performance.now();
        resolve();
      }),
    ));
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < todo.length) {
      const position = next++;
      const index = todo[position]!;
      const id = source.ids[index]!;
      try {
        const { record, cached } = await options.work(load(position, id, index), index);
        save(id, index, record, cached ?? false);
        if (performance.now() - turnAt > EVENT_LOOP_TURN_MS) await nextTurn();
      } catch (error) {
        failure ??= { error };
        progress.tick({ failed: true });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, todo.length)) }, worker));
  // Whatever finished is saved, also when the stage stops on an error (a re-run continues there).
  flush();
  if (failure) {
    progress.finish('stopped on an error; run the same command again to resume');
    throw failure.error;
  }
  run.finishStage(stage, options.info && made ? options.info(madeAndResumed(run, stage, source.ids, made, project, todo.length < total)) : undefined);
  progress.finish(todo.length < total ? `${total - todo.length} resumed from the store` : '');
}

/**
 * The stage's projected records in item order: those made in this process from memory, those
 * resumed from the store read back (one at a time).
 */
function* madeAndResumed<R, P>(
  run: Run,
  stage: string,
  ids: readonly string[],
  made: Array<P | undefined>,
  project: (record: R) => P,
  resumed: boolean,
): Generator<[string, P]> {
  if (resumed) {
    const index = new Map(ids.map((id, i) => [id, i]));
    for (const [id, record] of run.entries<R>(stage)) {
      const i = index.get(id);
      if (i !== undefined && made[i] === undefined) made[i] = project(record);
    }
  }
  for (let i = 0; i < ids.length; i++) if (made[i] !== undefined) yield [ids[i]!, made[i]!];
}

/** An array of items as StageItems. */
function arrayItems<I>(items: readonly I[], idOf: (item: I) => string): StageItems<I> {
  return { ids: items.map(idOf), load: (_id, index) => items[index]! };
}
