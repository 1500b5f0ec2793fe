/**
 * `llmkb compare` over runs of any methods. A registered method with its own cross-run analysis
 * (the reliability method: the paper's tables) gives it; any other method (registered or not)
 * gets headline tables and rankings built from its summaries' metricDefs alone.
 */
import type { ComparedRun, CompareOutput } from '../methods/method-presentation.js';
import { formatMetric, headlineDefs } from '../methods/method-summary.js';
import { findMethod } from '../methods/registry.js';
import { differencesOf } from '../methods/protocol-differences.js';
import { rankedFlag, warningsJson, warningsMarkdown } from '../methods/summary-warnings.js';
import { distinguishRuns, headlineTable, rankRuns, settingsOf, toCsv, toMarkdown } from '../methods/run-tables.js';

/**
 * Runs ready to compare side by side: two runs with one label get what tells them apart, and
 * runs of one method whose protocols differ are named (each method names its own choices). Runs
 * are compared within their method's tables (`EvaluationMethod.tableOf`, e.g. CONNER's task):
 * runs in different tables never clash.
 */
export function distinctRuns<R extends ComparedRun>(runs: readonly R[]): { runs: R[]; warnings: string[] } {
  const tables = new Map<string, number[]>();
  runs.forEach((r, i) => {
    const key = `${r.summary.method.id}\u0000${findMethod(r.summary.method.id)?.tableOf?.(r.summary) ?? ''}`;
    tables.set(key, [...(tables.get(key) ?? []), i]);
  });
  const distinct = [...runs];
  const warnings: string[] = [];
  const differences: string[] = [];
  for (const indexes of tables.values()) {
    const { summaries, renamed } = distinguishRuns(
      indexes.map((i) => runs[i]!.summary),
      indexes.map((i) => runs[i]!.source),
    );
    indexes.forEach((i, k) => (distinct[i] = { ...runs[i]!, summary: summaries[k]! }));
    warnings.push(...renamed.map((r) => `runs with the same label are shown apart: ${r}`));
    const method = findMethod(runs[indexes[0]!]!.summary.method.id);
    differences.push(
      ...differencesOf(
        indexes.map((i) => ({ name: `${distinct[i]!.summary.model} (${distinct[i]!.summary.setting})`, protocol: distinct[i]!.summary.protocol })),
        method?.protocolChoices ?? {},
        method?.protocolPerSetting ?? [],
      ),
    );
  }
  return { runs: distinct, warnings: [...warnings, ...sharedRuns(distinct), ...differences.map((d) => `the runs differ in protocol: ${d}`)] };
}

/** Labels that name one run of the store (e.g. two copies of one model file): one measurement, not several models. */
function sharedRuns(runs: readonly ComparedRun[]): string[] {
  const labels = new Map<string, string[]>();
  for (const { summary } of runs) {
    if (summary.runId === undefined) continue;
    const key = `${summary.runId}\u0000${summary.setting}`;
    if (!labels.get(key)?.includes(summary.model)) labels.set(key, [...(labels.get(key) ?? []), summary.model]);
  }
  return [...labels.entries()]
    .filter(([, names]) => names.length > 1)
    .map(
      ([key, names]) =>
        `${names.join(' and ')} (${key.split('\u0000')[1]}) are one run (${key.slice(0, 12)}): the same model file and inputs, so their numbers are one measurement shown under ${names.length} labels`,
    );
}

/** Headline tables and rankings of one method's runs, from their metricDefs. */
export function compareByMetricDefs(id: string, title: string, runs: readonly ComparedRun[], order: readonly string[]): CompareOutput {
  const summaries = runs.map((r) => r.summary);
  const table = headlineTable(summaries, order);
  const defs = headlineDefs(summaries[0]?.metricDefs ?? []);
  const settings = settingsOf(summaries, order);
  const rankings = Object.fromEntries(settings.map((s) => [s, Object.fromEntries(defs.map((d) => [d.id, rankRuns(summaries, d.id, s)]))]));
  const warned = warningsMarkdown(summaries);
  const out = [...(warned ? [warned] : []), `## ${title}: headline metrics\n\n${toMarkdown(table)}\n`];
  for (const s of settings)
    out.push(
      `## Rankings: ${title} (${s})\n\n${defs.map((d) => `${d.id}: ${rankings[s]![d.id]!.map((r, i) => `${i + 1}. ${r.model} ${formatMetric(d, r.value)}${rankedFlag(summaries, s, r.model, d.id)}`).join(', ')}`).join('\n')}\n`,
    );
  return {
    markdown: out.join('\n'),
    analysis: {
      runs: runs.map((r) => ({
        label: r.summary.model,
        setting: r.summary.setting,
        runId: r.summary.runId ?? null,
        source: r.source,
        warnings: warningsJson(r.summary),
      })),
      method: id,
      headline: table,
      rankings,
    },
    files: { [`${id}-headline.md`]: `${toMarkdown(table)}\n`, [`${id}-headline.csv`]: toCsv(table) },
  };
}

export async function compareRuns(runs: readonly ComparedRun[], options: { resamples: number; seed: number }): Promise<CompareOutput & { wrote: string }> {
  const groups = new Map<string, ComparedRun[]>();
  for (const r of runs) groups.set(r.summary.method.id, [...(groups.get(r.summary.method.id) ?? []), r]);
  const outputs: CompareOutput[] = [];
  for (const [id, group] of groups) {
    const method = findMethod(id);
    const compare = method?.presentation ? (await method.presentation()).compare : undefined;
    outputs.push(compare ? await compare(group, options) : compareByMetricDefs(id, method?.title ?? `method ${id}`, group, method?.settings ?? []));
  }
  if (outputs.length === 1) return { ...outputs[0]!, wrote: outputs[0]!.wrote ?? `${Object.keys(outputs[0]!.files).join(', ')} and analysis.json` };
  // Several methods: each its own part, one after the other.
  const files = Object.assign({}, ...outputs.map((o) => o.files)) as Record<string, string>;
  return {
    markdown: outputs.map((o) => o.markdown).join('\n'),
    analysis: {
      runs: runs.map((r) => ({
        label: r.summary.model,
        method: r.summary.method.id,
        setting: r.summary.setting,
        runId: r.summary.runId ?? null,
        source: r.source,
      })),
      methods: Object.fromEntries([...groups.keys()].map((id, i) => [id, outputs[i]!.analysis])),
    },
    files,
    wrote: `${Object.keys(files).join(', ')} and analysis.json`,
  };
}
