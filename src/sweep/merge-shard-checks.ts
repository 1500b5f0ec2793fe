/**
 * What `llmkb merge` checks in a shard before it reads any file the shard names: shards come from
 * other machines, so everything in them is untrusted input. A sweep record must have the shape
 * `sweep` writes (the fields merge uses); every path in it (`runs[].base`, `suffix`) must stay
 * inside the shard's folder: relative, no `..`, no NUL, no symbolic link that leads out of it;
 * and `--out` must not be inside a shard (the merge would rewrite it). Each refusal is exit 2,
 * naming the shard's file and the field.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { EXIT_CODES, InputFileError, LlmkbError } from '../errors.js';
import type { SweepRecord } from './sweep-record.js';

const REMADE = "A shard's sweep record is written by `llmkb sweep --shard I/N`; run that shard again, or take its folder as that machine wrote it.";

const runSchema = z.object({ label: z.string(), method: z.string(), entry: z.string().optional(), setting: z.string(), base: z.string() }).passthrough();
const recordSchema = z
  .object({
    fingerprint: z.string(),
    shard: z
      .object({ index: z.number().int().min(1), count: z.number().int().min(1) })
      .nullable()
      .optional(),
    study: z.object({ name: z.string() }).passthrough(),
    runs: z.array(runSchema),
    title: z.string(),
    suffix: z.string(),
    jobs: z
      .array(z.object({ label: z.string(), method: z.string(), setting: z.string(), status: z.string(), error: z.string().optional() }).passthrough())
      .optional(),
  })
  .passthrough();

/** A field's path as written in messages: `runs[0].base`. */
function fieldName(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('') || '(the record)';
}

/** Why `path` (from a shard) would leave the folder it is relative to; undefined when it stays inside. */
function leavesFolder(path: string): string | undefined {
  if (path === '') return 'is empty';
  if (path.includes('\0')) return 'holds a NUL byte';
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path) || path.startsWith('\\')) return 'is an absolute path; a shard names its files relative to its folder';
  if (path.split(/[/\\]/).some((part) => part === '..')) return 'climbs out of the shard with ".."';
  if (path.split(/[/\\]/).some((part) => part === '' || part === '.')) return 'has an empty or "." part; a shard names a run\'s files as FOLDER/NAME';
  return undefined;
}

/**
 * The sweep record of `file` (a shard's), checked: its shape, and every path in it relative and
 * inside the shard. Refused with exit 2 naming the file and the field.
 */
export function checkShardRecord(file: string, json: unknown): SweepRecord {
  const parsed = recordSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new InputFileError(file, undefined, fieldName(first.path), `not a sweep record of \`llmkb sweep\`: ${first.message}`, REMADE);
  }
  const record = parsed.data;
  for (const [i, run] of record.runs.entries()) {
    const problem = leavesFolder(run.base);
    if (problem !== undefined) throw new InputFileError(file, undefined, `runs[${i}].base`, `"${run.base}" ${problem}`, REMADE);
  }
  if (/[/\\\0]/.test(record.suffix) || record.suffix.includes('..'))
    throw new InputFileError(file, undefined, 'suffix', `"${record.suffix}" would name a file outside the merged folder`, REMADE);
  return record as unknown as SweepRecord;
}

/** A path's real path; for a missing one, its nearest existing folder's real path and the rest as given. */
function real(path: string): string {
  const full = resolve(path);
  try {
    return realpathSync(full);
  } catch {
    const parent = dirname(full);
    return parent === full ? full : join(real(parent), basename(full));
  }
}

/** Whether `path` is `folder` or inside it (both real paths). */
function within(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Refuses a file a shard names (`runs[i].base` and the file beside it) that a symbolic link leads
 * out of the shard's folder: merge would read another machine's choice of this machine's files.
 */
export function checkInsideShard(shardDir: string, file: string, recordFile: string, field: string): void {
  if (!within(real(shardDir), real(file))) {
    throw new InputFileError(
      recordFile,
      undefined,
      field,
      `${file} leads out of the shard's folder ${shardDir} (a symbolic link)`,
      "A shard's files must be inside its folder: copy the files in instead of linking them, or run that shard again.",
    );
  }
}

/** Refuses a destination under `outDir` that a symbolic link there leads out of it: merge writes inside --out only. */
export function checkInsideOut(outDir: string, path: string): void {
  if (!within(real(outDir), real(path)))
    throw new LlmkbError(`${path} leads out of --out ${outDir} (a symbolic link); merge writes inside --out only`, { hint: 'Merge into a new, empty folder.' });
}

/** Refuses `--out` equal to a shard or inside one: the merge would rewrite the shard. */
export function checkOutNotInShard(outDir: string, shardDirs: readonly string[]): void {
  const out = real(outDir);
  for (const dir of shardDirs) {
    const shard = real(dir);
    if (out === shard)
      throw new LlmkbError(`--out ${outDir} is one of the shards being merged`, {
        exitCode: EXIT_CODES.usage,
        hint: 'Merge into a new folder (e.g. --out merged): the shards stay as they are.',
      });
    if (within(shard, out))
      throw new LlmkbError(`--out ${outDir} is inside the shard ${dir}; the merge would rewrite that shard`, {
        exitCode: EXIT_CODES.usage,
        hint: 'Merge into a folder outside every shard (e.g. --out merged beside them): the shards stay as they are.',
      });
  }
}
