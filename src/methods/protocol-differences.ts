/**
 * A run's protocol block (any method): where it departs from its paper, and which choices differ
 * between runs shown side by side (such runs measure different things, and a table that mixes
 * them says so). The choices and their titles are the method's (`EvaluationMethod.protocolChoices`).
 */
import type { MethodProtocol, ProtocolEntry } from './method-summary.js';

/** Choices in display order: the method's, then any others the protocol holds. */
export function choicesOf(protocol: MethodProtocol, titles: Readonly<Record<string, string>>): string[] {
  const known = Object.keys(titles);
  return [...known, ...Object.keys(protocol.entries).filter((c) => !known.includes(c))];
}

/** The entries where a run departs from the paper's protocol, in display order. */
export function departuresOf(protocol: MethodProtocol, titles: Readonly<Record<string, string>>): Array<{ choice: string; entry: ProtocolEntry }> {
  return choicesOf(protocol, titles)
    .filter((c) => protocol.entries[c] && protocol.entries[c].status !== 'paper')
    .map((choice) => ({ choice, entry: protocol.entries[choice]! }));
}

/**
 * Choices that differ between runs (the question set and seed included). `perSetting`: choices
 * that differ between settings by design (compared within a setting only, i.e. not here).
 */
export function differencesOf(
  runs: ReadonlyArray<{ name: string; protocol?: MethodProtocol | undefined }>,
  titles: Readonly<Record<string, string>>,
  perSetting: readonly string[] = [],
): string[] {
  const withProtocol = runs.filter((r): r is { name: string; protocol: MethodProtocol } => r.protocol !== undefined);
  const differences: string[] = [];
  if (withProtocol.length < runs.length && withProtocol.length > 0) {
    differences.push(
      `no protocol block in ${runs
        .filter((r) => r.protocol === undefined)
        .map((r) => r.name)
        .join(', ')} (made by an older llmkb)`,
    );
  }
  const keys = Object.keys(titles).filter((c) => !perSetting.includes(c));
  for (const key of keys) {
    const values = new Map<string, string[]>();
    for (const r of withProtocol) {
      const v = r.protocol.entries[key]?.choice ?? 'unknown';
      values.set(v, [...(values.get(v) ?? []), r.name]);
    }
    if (values.size > 1) differences.push(`${titles[key]}: ${[...values.entries()].map(([v, names]) => `${v} (${names.join(', ')})`).join(' vs ')}`);
  }
  const questionSets = new Set(withProtocol.map((r) => r.protocol.datasets.questions ?? 'unknown'));
  if (questionSets.size > 1) differences.push(`question sets differ (${questionSets.size} different checksums)`);
  const seeds = new Set(withProtocol.map((r) => r.protocol.seed));
  if (seeds.size > 1) differences.push(`seed: ${[...seeds].join(' vs ')}`);
  return differences;
}
