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
}

/**
 * Runs one stage of a run over its items, resumably: items with a stored record are skipped,
 * every new record is committed as soon as it exists, and a stage already marked done returns
 * its stored records without doing anything. On the first failure no new item is started,
 * items in flight finish and are saved, and the error is rethrown: re-running continues there.
 */
export async function runStage<I, R, P = R>(options: StageWork<I, R, P>): Promise<Map<string, P>> {
  const { run, stage, items, idOf } = options;
  const ids = new Set<string>();
  for (const item of items) {
    const id = idOf(item);
    if (ids.has(id)) throw new LlmkbError(`duplicate item id "${id}" in stage ${stage}`, { hint: 'Every item of a run needs a unique id: remove or rename the repeated one in the input.' });
    ids.add(id);
  }
  // Before looking at what is done: another process may be doing it right now.
  await run.acquireLease();
  if (run.stageStatus(stage) === 'done') return run.records<R, P>(stage, options.project);
  run.startStage(stage);
  const existing = new Set(run.recordIds(stage));
  const todo = items.map((item, index) => ({ item, index })).filter(({ item }) => !existing.has(idOf(item)));
  const progress = new Progress(stage, items.length, options.progress);
  progress.skip(items.length - todo.length);
  // Records finishing in the same tick are committed together (one transaction, not one each);
  // a worker goes on only once its record is committed.
  let pending: Array<{ itemId: string; seq: number; record: R; resolve: () => void; reject: (error: unknown) => void }> = [];
  const flush = (): void => {
    const batch = pending;
    pending = [];
    try {
      run.saveRecords(stage, batch);
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    for (const p of batch) p.resolve();
  };
  const save = (itemId: string, seq: number, record: R): Promise<void> =>
    new Promise((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ itemId, seq, record, resolve, reject });
    });
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < todo.length) {
      const { item, index } = todo[next++]!;
      try {
        const { record, cached } = await options.work(item, index);
        await save(idOf(item), index, record);
        progress.tick({ cached: cached ?? false });
      } catch (error) {
        failure ??= { error };
        progress.tick({ failed: true });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, todo.length)) }, worker));
  if (failure) {
    progress.finish('stopped on an error; run the same command again to resume');
    throw failure.error;
  }
  const records = run.records<R, P>(stage, options.project);
  run.finishStage(stage, options.info?.(records));
  progress.finish(todo.length < items.length ? `${items.length - todo.length} resumed from the store` : '');
  return records;
}
