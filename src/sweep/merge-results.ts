/**
 * `llmkb merge`: folds the results of a study run on several machines (`sweep --shard i/n`) into
 * one: their stores (call cache and runs) into this machine's store, their result files into one
 * folder, then each model's report and the study's comparison, as one machine would have written
 * them. Refused: shards of different studies (their fingerprints differ), runs whose protocol
 * differs from the others' in a choice the whole study shares (judge, distractors, time filter,
 * questions, MCQs, answer mode, max tokens, data set checksums, seed), and one run found twice
 * with different results.
 */
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { makeFolder, readTextFile } from '../io/files.js';
import { EXIT_CODES, FileAccessError, fileAccessError, InputFileError, LlmkbError } from '../errors.js';
import type { MethodProtocol } from '../methods/method-summary.js';
import { findMethod } from '../methods/registry.js';
import { resultFiles } from '../io/result-files.js';
import { foldStore } from '../store/fold-store.js';
import type { Db } from '../store/database.js';
import type { SweepRecord } from './sweep-record.js';
import { checkInsideOut, checkInsideShard, checkOutNotInShard, checkShardRecord } from './merge-shard-checks.js';
import { loadStudyRuns, writeModelReport, writeStudyComparison, type RunFiles } from './study-report.js';
import { escapeControls } from '../terminal-text.js';

export { foldStore };

export interface MergeOptions {
  /** Results folders of the shards. */
  from: string[];
  outDir: string;
  /** Stores of the shards, folded into `into`. */
  stores?: string[];
  into?: Db;
  log?: (line: string) => void;
  /** Merge the shards given even when some of the study's are missing, as a cluster's merge job does (it names them itself). */
  partial?: boolean;
}

export interface MergeResult {
  runs: number;
  markdown: string;
  storeRows: { calls: number; runs: number; records: number };
}

/**
 * A merge that wrote what the shards hold while some run of the study is in none of them (it
 * failed there, or was never run): exit 3, as `sweep` ends when a run fails, naming each run and
 * what its shard recorded. `result` is what was merged.
 */
export class MergeIncompleteError extends LlmkbError {
  readonly result: MergeResult;
  constructor(result: MergeResult, runs: readonly string[]) {
    super(
      `${runs.length} run(s) of the study are in no shard (failed or not run there): ${runs.slice(0, 10).join('; ')}${runs.length > 10 ? `; and ${runs.length - 10} more` : ''}`,
      {
        exitCode: EXIT_CODES.model,
        hint: 'The merged folder covers the runs the shards hold. Run the missing runs on their shard again (the same `llmkb sweep --shard I/N` command: finished runs are not redone), then merge again.',
      },
    );
    this.result = result;
  }
}

/** A run no shard holds, with what its shard's record says of it (failed, and why). */
function notMerged(run: RunFiles, shards: ReadonlyArray<{ records: ReadonlyArray<{ file: string; record: SweepRecord }> }>): string {
  for (const s of shards) {
    for (const r of s.records) {
      const job = (r.record.jobs ?? []).find((j) => j.label === run.label && j.method === run.method && j.setting === run.setting && j.status === 'failed');
      if (job) return `${run.label} (${run.method} · ${run.setting}) failed in ${r.file}${job.error ? `: ${job.error}` : ''}`;
    }
  }
  return `${run.label} (${run.method} · ${run.setting}) not run`;
}

function readSweepRecords(dir: string): Array<{ file: string; record: SweepRecord }> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^sweep(\.shard-\d+-of-\d+)?\.json$/.test(n));
  } catch (error) {
    // Missing or unreadable: a file error (exit 6), as the README's exit-code table says.
    const access = fileAccessError(dir, error, 'read', 'folder');
    if (access instanceof FileAccessError)
      throw new FileAccessError(dir, access.message, {
        ...(access.code === undefined ? {} : { code: access.code }),
        hint: 'Give the --out folders of the shards (each holds sweep.shard-I-of-N.json).',
        cause: error,
      });
    throw new LlmkbError(`${dir} is not a results folder of \`llmkb sweep\``, {
      hint: 'Give the --out folders of the shards (each holds sweep.shard-I-of-N.json).',
    });
  }
  if (names.length === 0)
    throw new LlmkbError(`${dir} holds no sweep record (sweep.json or sweep.shard-I-of-N.json)`, {
      hint: 'Give the --out folders of `llmkb sweep --shard I/N` runs.',
    });
  return names.sort().map((n) => {
    const file = join(dir, n);
    try {
      return { file, record: checkShardRecord(file, JSON.parse(readTextFile(file))) };
    } catch (error) {
      if (error instanceof SyntaxError)
        throw new InputFileError(
          file,
          undefined,
          undefined,
          `not valid JSON: ${error.message}`,
          "The shard's sweep record was cut short; run that shard again.",
        );
      throw error;
    }
  });
}

/** The choices of a run's protocol that its method says one study shares (its `protocolShared`), with the seed and data checksums. */
function sharedProtocol(method: string, p: MethodProtocol | undefined): Record<string, string> {
  if (!p) return { protocol: 'none' };
  return {
    ...Object.fromEntries((findMethod(method)?.protocolShared ?? []).map((c) => [c, p.entries[c]?.choice ?? 'unknown'])),
    seed: String(p.seed),
    ...Object.fromEntries(Object.entries(p.datasets).map(([f, h]) => [`data ${f}`, h])),
  };
}

export async function mergeResults(options: MergeOptions): Promise<MergeResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${escapeControls(line)}\n`));
  if (options.from.length === 0)
    throw new LlmkbError('nothing to merge', { hint: 'Give the results folders of the shards: llmkb merge DIR1 DIR2 DIR3 --out DIR.' });
  const shards = options.from.map((dir) => ({ dir, records: readSweepRecords(dir) }));
  const first = shards[0]!.records[0]!;
  for (const s of shards) {
    for (const r of s.records) {
      if (r.record.fingerprint !== first.record.fingerprint) {
        throw new InputFileError(
          r.file,
          undefined,
          'fingerprint',
          `a shard of another study (or of the same study with other settings) than ${first.file}`,
          'Merge only shards of one study file run with the same settings; the fingerprint covers models, methods, settings, roles, quick, limit, seed, maxTokens, mcqs, mode and cutoff.',
        );
      }
    }
  }
  const order = first.record;
  checkOutNotInShard(options.outDir, options.from);
  // Every shard of the study must be there: a merge of some of them is not the study.
  const count = order.shard?.count ?? 1;
  const present = new Set(shards.flatMap((s) => s.records.map((r) => r.record.shard?.index ?? 1)));
  const absent = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !present.has(i));
  if (absent.length > 0 && !options.partial) {
    throw new LlmkbError(`shard(s) ${absent.map((i) => `${i}/${count}`).join(', ')} of study ${order.study.name} missing from the folders given`, {
      exitCode: EXIT_CODES.usage,
      hint: `Give the --out folder of every shard (sweep.shard-I-of-${count}.json in each): llmkb merge DIR1 ... DIR${count} --out DIR.`,
    });
  }
  makeFolder(options.outDir);

  // Result files: each run from the shard that has it; a run found twice must be the same.
  const sources = new Map<string, string>();
  for (const [i, run] of order.runs.entries()) {
    for (const s of shards) {
      const summary = resultFiles(join(s.dir, run.base)).summary;
      if (!existsSync(summary)) continue;
      checkInsideShard(s.dir, summary, s.records[0]!.file, `runs[${i}].base`);
      const seen = sources.get(run.base);
      if (seen === undefined) sources.set(run.base, s.dir);
      else if (readFileSync(summary, 'utf8') !== readFileSync(resultFiles(join(seen, run.base)).summary, 'utf8')) {
        throw new InputFileError(
          summary,
          undefined,
          undefined,
          `run ${run.label} (${run.setting}) is in two shards with different results (also in ${seen})`,
          'Each run belongs to one shard; rerun it on one machine, or remove one copy.',
        );
      }
    }
  }
  // Protocol: the choices the whole study shares must agree across every run merged.
  const values = new Map<string, Map<string, string[]>>();
  for (const run of order.runs) {
    const dir = sources.get(run.base);
    if (!dir) continue;
    const file = resultFiles(join(dir, run.base)).summary;
    let summary: { method?: { id?: string }; protocol?: MethodProtocol };
    try {
      summary = JSON.parse(readTextFile(file)) as typeof summary;
    } catch (error) {
      if (error instanceof SyntaxError)
        throw new InputFileError(file, undefined, undefined, `not valid JSON: ${error.message}`, 'Run that shard again to rewrite it.');
      throw error;
    }
    // Shared within one `methods:` entry: another method, or the same one on other queries, reads other data.
    for (const [choice, value] of Object.entries(sharedProtocol(summary.method?.id ?? run.method, summary.protocol))) {
      const key = `${run.entry ?? run.method}: ${choice}`;
      const byValue = values.get(key) ?? new Map<string, string[]>();
      byValue.set(value, [...(byValue.get(value) ?? []), `${run.label} (${run.setting}) in ${dir}`]);
      values.set(key, byValue);
    }
  }
  const differing = [...values.entries()].filter(([, v]) => v.size > 1);
  if (differing.length > 0) {
    const [key, byValue] = differing[0]!;
    throw new LlmkbError(
      `the runs differ in protocol (${key}): ${[...byValue.entries()].map(([v, runs]) => `${v.length > 40 ? `${v.slice(0, 16)}…` : v} (${runs.slice(0, 3).join(', ')}${runs.length > 3 ? ', …' : ''})`).join(' vs ')}`,
      {
        hint: `Results run with different protocols cannot be compared as one study${
          differing.length > 1
            ? ` (also differing: ${differing
                .slice(1)
                .map(([k]) => k)
                .join(', ')})`
            : ''
        }. Rerun the odd shard with the same study file and data sets.`,
      },
    );
  }
  for (const [i, run] of order.runs.entries()) {
    const dir = sources.get(run.base);
    if (!dir) continue;
    const from = resultFiles(join(dir, run.base));
    const to = resultFiles(join(options.outDir, run.base));
    checkInsideOut(options.outDir, dirname(to.base));
    makeFolder(dirname(to.base));
    for (const kind of ['summary', 'records', 'execution'] as const) {
      if (!existsSync(from[kind])) continue;
      checkInsideShard(dir, from[kind], shards.find((s) => s.dir === dir)!.records[0]!.file, `runs[${i}].base`);
      checkInsideOut(options.outDir, to[kind]);
      copyFileSync(from[kind], to[kind]);
    }
  }
  const storeRows = { calls: 0, runs: 0, records: 0 };
  if (options.stores?.length) {
    if (!options.into) throw new Error('mergeResults: stores given without a target store');
    for (const file of options.stores) {
      const rows = foldStore(options.into, file);
      storeRows.calls += rows.calls;
      storeRows.runs += rows.runs;
      storeRows.records += rows.records;
      log(`${basename(file)}: ${rows.calls} cached calls, ${rows.runs} runs, ${rows.records} run records added`);
    }
  }
  const { loaded, missing } = await loadStudyRuns(options.outDir, order.runs);
  for (const m of missing) log(`not in any shard: ${m.label} (${m.method} · ${m.setting}), failed or not run there`);
  for (const label of [...new Set(order.runs.map((r) => r.label))]) {
    const runs = loaded.filter((r) => r.files.label === label);
    if (runs.length) await writeModelReport(join(options.outDir, runs[0]!.files.base.split('/')[0]!), label, runs, order.suffix);
  }
  const seed = loaded[0]?.summary.protocol?.seed ?? 42;
  const comparison = loaded.length
    ? await writeStudyComparison(options.outDir, loaded, { title: order.title, seed })
    : { markdown: '', warnings: [], files: [] };
  for (const w of comparison.warnings) log(`warning: ${w}`);
  const result = { runs: loaded.length, markdown: comparison.markdown, storeRows };
  // A partial merge (a cluster's merge job) names the missing shards and the failed runs itself.
  if (missing.length > 0 && !options.partial)
    throw new MergeIncompleteError(
      result,
      missing.map((m) => notMerged(m, shards)),
    );
  return result;
}
