/**
 * `llmkb merge`: folds the results of a study run on several machines (`sweep --shard i/n`) into
 * one: their stores (call cache and runs) into this machine's store, their result files into one
 * folder, then each model's report and the study's comparison, as one machine would have written
 * them. Refused: shards of different studies (their fingerprints differ), runs whose protocol
 * differs from the others' in a choice the whole study shares (judge, distractors, time filter,
 * questions, MCQs, answer mode, max tokens, data set checksums, seed), and one run found twice
 * with different results.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readTextFile } from '../io/files.js';
import { FileAccessError, fileAccessError, InputFileError, LlmkbError } from '../errors.js';
import type { Protocol } from '../methods/reliability/protocol.js';
import type { RunSummary } from '../methods/reliability/metrics/summarize-run.js';
import { openDatabase, type Db } from '../store/database.js';
import type { SweepRecord } from './run-study.js';
import { loadStudyRuns, writeModelReport, writeStudyComparison } from './study-report.js';

/** Protocol choices one study shares across all its runs (the others differ per model or setting by design). */
const SHARED_CHOICES = ['judge', 'timeFilter', 'distractors', 'mcqAnswerMode', 'questions', 'mcqsPerResponse', 'maxTokens'] as const;

export interface MergeOptions {
  /** Results folders of the shards. */
  from: string[];
  outDir: string;
  /** Stores of the shards, folded into `into`. */
  stores?: string[];
  into?: Db;
  log?: (line: string) => void;
}

export interface MergeResult {
  runs: number;
  markdown: string;
  storeRows: { calls: number; runs: number; records: number };
}

function readSweepRecords(dir: string): Array<{ file: string; record: SweepRecord }> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^sweep(\.shard-\d+-of-\d+)?\.json$/.test(n));
  } catch (error) {
    // Missing or unreadable: a file error (exit 6), as the README's exit-code table says.
    const access = fileAccessError(dir, error, 'read', 'folder');
    if (access instanceof FileAccessError) throw new FileAccessError(dir, access.message, { ...(access.code === undefined ? {} : { code: access.code }), hint: 'Give the --out folders of the shards (each holds sweep.shard-I-of-N.json).', cause: error });
    throw new LlmkbError(`${dir} is not a results folder of \`llmkb sweep\``, { hint: 'Give the --out folders of the shards (each holds sweep.shard-I-of-N.json).' });
  }
  if (names.length === 0) throw new LlmkbError(`${dir} holds no sweep record (sweep.json or sweep.shard-I-of-N.json)`, { hint: 'Give the --out folders of `llmkb sweep --shard I/N` runs.' });
  return names.sort().map((n) => {
    const file = join(dir, n);
    try {
      return { file, record: JSON.parse(readTextFile(file)) as SweepRecord };
    } catch (error) {
      if (error instanceof SyntaxError) throw new InputFileError(file, undefined, undefined, `not valid JSON: ${error.message}`, 'The shard\'s sweep record was cut short; run that shard again.');
      throw error;
    }
  });
}

function sharedProtocol(p: Protocol | undefined): Record<string, string> {
  if (!p) return { protocol: 'none' };
  return {
    ...Object.fromEntries(SHARED_CHOICES.map((c) => [c, p.entries[c]?.choice ?? 'unknown'])),
    seed: String(p.seed),
    ...Object.fromEntries(Object.entries(p.datasets).map(([f, h]) => [`data ${f}`, h])),
  };
}

/** Folds another store's call cache and runs into `into` (rows already there are kept). */
export function foldStore(into: Db, file: string): { calls: number; runs: number; records: number } {
  if (!existsSync(file)) throw new FileAccessError(file, `store ${file} not found`, { code: 'ENOENT', hint: 'Give the --store file each shard ran with.' });
  // Opened once on its own first: an older store is brought to the current schema.
  openDatabase(file).close();
  into.prepare('ATTACH DATABASE ? AS shard').run(file);
  try {
    return into.transaction(() => {
      const calls = into.prepare('INSERT OR IGNORE INTO calls (key, model, kind, response, prompt_tokens, completion_tokens, latency_ms, created_at, request) SELECT key, model, kind, response, prompt_tokens, completion_tokens, latency_ms, created_at, request FROM shard.calls ORDER BY id').run().changes;
      const runs = into.prepare('INSERT OR IGNORE INTO runs (id, spec, created_at, updated_at) SELECT id, spec, created_at, updated_at FROM shard.runs').run().changes;
      into.prepare(`INSERT INTO run_stages (run_id, stage, status, info, updated_at) SELECT run_id, stage, status, info, updated_at FROM shard.run_stages WHERE true
        ON CONFLICT(run_id, stage) DO UPDATE SET status = CASE WHEN excluded.status = 'done' THEN 'done' ELSE run_stages.status END, info = COALESCE(run_stages.info, excluded.info)`).run();
      const records = into.prepare('INSERT OR IGNORE INTO run_records (run_id, stage, item_id, seq, record, created_at) SELECT run_id, stage, item_id, seq, record, created_at FROM shard.run_records').run().changes;
      return { calls: Number(calls), runs: Number(runs), records: Number(records) };
    })();
  } finally {
    into.prepare('DETACH DATABASE shard').run();
  }
}

export async function mergeResults(options: MergeOptions): Promise<MergeResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (options.from.length === 0) throw new LlmkbError('nothing to merge', { hint: 'Give the results folders of the shards: llmkb merge DIR1 DIR2 DIR3 --out DIR.' });
  const shards = options.from.map((dir) => ({ dir, records: readSweepRecords(dir) }));
  const first = shards[0]!.records[0]!;
  for (const s of shards) {
    for (const r of s.records) {
      if (r.record.fingerprint !== first.record.fingerprint) {
        throw new InputFileError(r.file, undefined, 'fingerprint', `a shard of another study (or of the same study with other settings) than ${first.file}`, 'Merge only shards of one study file run with the same settings; the fingerprint covers models, methods, settings, roles, quick, limit, seed, maxTokens, mcqs, mode and cutoff.');
      }
    }
  }
  const order = first.record;
  mkdirSync(options.outDir, { recursive: true });

  // Result files: each run from the shard that has it; a run found twice must be the same.
  const sources = new Map<string, string>();
  for (const run of order.runs) {
    for (const s of shards) {
      const summary = join(s.dir, `${run.base}.summary.json`);
      if (!existsSync(summary)) continue;
      const seen = sources.get(run.base);
      if (seen === undefined) sources.set(run.base, s.dir);
      else if (readFileSync(summary, 'utf8') !== readFileSync(join(seen, `${run.base}.summary.json`), 'utf8')) {
        throw new InputFileError(summary, undefined, undefined, `run ${run.label} (${run.setting}) is in two shards with different results (also in ${seen})`, 'Each run belongs to one shard; rerun it on one machine, or remove one copy.');
      }
    }
  }
  // Protocol: the choices the whole study shares must agree across every run merged.
  const values = new Map<string, Map<string, string[]>>();
  for (const run of order.runs) {
    const dir = sources.get(run.base);
    if (!dir) continue;
    let summary: RunSummary;
    try {
      summary = JSON.parse(readTextFile(join(dir, `${run.base}.summary.json`))) as RunSummary;
    } catch (error) {
      if (error instanceof SyntaxError) throw new InputFileError(join(dir, `${run.base}.summary.json`), undefined, undefined, `not valid JSON: ${error.message}`, 'Run that shard again to rewrite it.');
      throw error;
    }
    for (const [key, value] of Object.entries(sharedProtocol(summary.protocol))) {
      const byValue = values.get(key) ?? new Map<string, string[]>();
      byValue.set(value, [...(byValue.get(value) ?? []), `${run.label} (${run.setting}) in ${dir}`]);
      values.set(key, byValue);
    }
  }
  const differing = [...values.entries()].filter(([, v]) => v.size > 1);
  if (differing.length > 0) {
    const [key, byValue] = differing[0]!;
    throw new LlmkbError(`the runs differ in protocol (${key}): ${[...byValue.entries()].map(([v, runs]) => `${v.length > 40 ? `${v.slice(0, 16)}…` : v} (${runs.slice(0, 3).join(', ')}${runs.length > 3 ? ', …' : ''})`).join(' vs ')}`, {
      hint: `Results run with different protocols cannot be compared as one study${differing.length > 1 ? ` (also differing: ${differing.slice(1).map(([k]) => k).join(', ')})` : ''}. Rerun the odd shard with the same study file and data sets.`,
    });
  }
  for (const run of order.runs) {
    const dir = sources.get(run.base);
    if (!dir) continue;
    const folder = run.base.slice(0, run.base.lastIndexOf('/'));
    mkdirSync(join(options.outDir, folder), { recursive: true });
    for (const kind of ['summary.json', 'records.jsonl', 'run.json']) {
      const from = join(dir, `${run.base}.${kind}`);
      if (existsSync(from) && join(options.outDir, `${run.base}.${kind}`) !== from) copyFileSync(from, join(options.outDir, `${run.base}.${kind}`));
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
  const { loaded, missing } = loadStudyRuns(options.outDir, order.runs);
  for (const m of missing) log(`not in any shard: ${m.label} (${m.setting})`);
  for (const label of [...new Set(order.runs.map((r) => r.label))]) {
    const runs = loaded.filter((r) => r.files.label === label);
    if (runs.length) await writeModelReport(options.outDir, runs[0]!.files.base.slice(0, runs[0]!.files.base.lastIndexOf('/')), label, runs, order.suffix);
  }
  const seed = loaded[0]?.summary.protocol?.seed ?? 42;
  const comparison = loaded.length ? await writeStudyComparison(options.outDir, loaded, { title: order.title, seed }) : { markdown: '', warnings: [], files: [] };
  for (const w of comparison.warnings) log(`warning: ${w}`);
  return { runs: loaded.length, markdown: comparison.markdown, storeRows };
}
