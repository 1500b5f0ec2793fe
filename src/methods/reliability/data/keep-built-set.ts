/**
 * `llmkb data seenqa` / `unseenqa` never silently replace a data set built otherwise: when the
 * output folder already holds the file and its card records other build parameters (another
 * `--per-source`, `--per-template`, seed, cutoff or sources), or has no readable card, the command
 * refuses before any work unless `--force` is given, and says where else to write. Building the
 * same set again with the same parameters is allowed (it writes the same bytes).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_CODES, LlmkbError } from '../../../errors.js';

/** The parameters a card records that differ from `wanted` (`name: was -> wanted`); undefined: no card to compare with. */
function changedParameters(cardFile: string, wanted: Readonly<Record<string, unknown>>): string[] | undefined {
  let card: Record<string, unknown>;
  try {
    card = JSON.parse(readFileSync(cardFile, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  return Object.entries(wanted)
    .filter(([k, v]) => JSON.stringify(card[k]) !== JSON.stringify(v))
    .map(([k, v]) => `${k} ${card[k] === undefined ? '(not recorded)' : JSON.stringify(card[k])} -> ${JSON.stringify(v)}`);
}

/** Refuses to replace `outDir/file` built with other parameters than `wanted`, unless `force`. */
export function keepBuiltSet(outDir: string, file: string, wanted: Readonly<Record<string, unknown>>, force: boolean, command: string): void {
  const path = join(outDir, file);
  if (force || !existsSync(path)) return;
  const changed = changedParameters(join(outDir, file.replace(/\.jsonl$/, '.card.json')), wanted);
  if (changed !== undefined && changed.length === 0) return;
  const what = changed === undefined ? 'it has no readable card, so how it was built is unknown' : `it was built with other parameters: ${changed.join(', ')}`;
  throw new LlmkbError(`${path} exists and ${what}; building again would replace it (and the runs that read it would no longer match their files)`, {
    exitCode: EXIT_CODES.usage,
    hint: `Write the new set elsewhere with --out DIR (then give eval --data DIR), or add --force to replace it: ${command} --force.`,
  });
}
