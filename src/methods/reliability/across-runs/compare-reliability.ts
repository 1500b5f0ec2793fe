/**
 * `llmkb compare` for reliability runs: the paper's Tables 9-11, Table 2's correlations (* p <
 * 0.05), rankings, the effects of size, fine-tuning and prompt setting, and paired bootstrap
 * tests on NCCR and IUR between runs of one setting that were read from their records.
 */
import type { CompareOutput, ComparedRun } from '../../method.js';
import { FLAG, isFlagged, warningsJson, warningsMarkdown } from '../../summary-warnings.js';
import { formatPercent, type RunSummary, type ScoredRecord } from '../metrics/summarize-run.js';
import type { MetricKey } from '../metrics/reliability-metrics.js';
import { formatAnalyticP, formatResampledP, pairedTestsNote, significanceStar } from '../../significance-format.js';
import {
  correlate,
  effects,
  notRanked,
  paperTable,
  ranking,
  settingsOf,
  TABLE2_PAIRS,
  TABLE_TITLES,
  toCsv,
  toMarkdown,
  type PairedTest,
} from './compare-runs.js';
import { pairedBootstrap } from './paired-bootstrap.js';

export async function compareReliability(runs: readonly ComparedRun[], opts: { resamples: number; seed: number }): Promise<CompareOutput> {
  const summaries = runs.map((r) => r.summary as RunSummary);
  const out: string[] = [];
  const warned = warningsMarkdown(summaries);
  if (warned) out.push(warned);
  for (const t of ['9', '10', '11'] as const) out.push(`## ${TABLE_TITLES[t]}\n\n${toMarkdown(paperTable(summaries, t))}\n`);
  const settings = settingsOf(summaries);
  const correlations = settings.flatMap((s) => TABLE2_PAIRS.map(([x, y]) => correlate(summaries, x, y, s)));
  const corrTable = {
    header: ['Comparison', ...settings],
    rows: TABLE2_PAIRS.map(([x, y]) => [
      `${x} vs ${y}`,
      ...settings.map((s) => {
        const c = correlations.find((k) => k.x === x && k.y === y && k.setting === s)!;
        return c.r === null ? '-' : `${c.r.toFixed(2)}${c.p! < 0.05 ? '*' : ''} (p=${formatAnalyticP(c.p!)}, n=${c.n})`;
      }),
    ]),
  };
  out.push(`## Table 2: Pearson correlations across models (* p < 0.05)\n\n${toMarkdown(corrTable)}\n`);
  const rankings = Object.fromEntries(
    settings.map((s) => [
      s,
      Object.fromEntries((['NCR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'] as MetricKey[]).map((m) => [m, ranking(summaries, m, s)])),
    ]),
  );
  const unranked = Object.fromEntries(
    settings.map((s) => [
      s,
      Object.fromEntries(
        (['NCR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'] as MetricKey[])
          .map((m) => [m, notRanked(summaries, m, s)])
          .filter(([, v]) => (v as unknown[]).length > 0),
      ),
    ]),
  );
  const rankingLine = (s: string, m: MetricKey): string => {
    const ranked = (rankings[s]![m] as Array<{ model: string; value: number }>).map((r, i) => `${i + 1}. ${r.model} ${formatPercent(r.value)}`).join(', ');
    const apart = notRanked(summaries, m, s)
      .map((r) => `${r.model} ${formatPercent(r.value)}${FLAG}`)
      .join(', ');
    return `${m}: ${ranked || '(none)'}${apart ? `; not ranked (a warning of the run concerns the value): ${apart}` : ''}`;
  };
  for (const s of settings) out.push(`## Rankings (${s})\n\n${(['NCCR', 'IUR'] as MetricKey[]).map((m) => rankingLine(s, m)).join('\n')}\n`);
  const fx = effects(summaries);
  const pairedTests: PairedTest[] = [];
  const withRecords = runs.filter((r) => r.records);
  for (let i = 0; i < withRecords.length; i++) {
    for (let j = i + 1; j < withRecords.length; j++) {
      const a = withRecords[i]!;
      const b = withRecords[j]!;
      if (a.summary.setting !== b.summary.setting) continue;
      for (const metric of ['NCCR', 'IUR'] as MetricKey[]) {
        const test = pairedBootstrap(a.records as ScoredRecord[], b.records as ScoredRecord[], metric, {
          names: [a.summary.model, b.summary.model],
          resamples: opts.resamples,
          seed: opts.seed,
        });
        pairedTests.push({ ...test, setting: a.summary.setting });
      }
    }
  }
  const pairedTable = pairedTestsTable(pairedTests, summaries, opts.resamples);
  if (pairedTests.length)
    out.push(`## Paired bootstrap tests\n\n${toMarkdown(pairedTable)}\n\n${pairedTestsNote({ resamples: opts.resamples, seed: opts.seed })}\n`);
  const tables = Object.fromEntries((['9', '10', '11'] as const).map((t) => [`table${t}`, paperTable(summaries, t)]));
  const analysis = {
    runs: runs.map((r) => ({
      label: r.summary.model,
      setting: r.summary.setting,
      runId: r.summary.runId ?? null,
      source: r.source,
      warnings: warningsJson(r.summary),
    })),
    ...tables,
    correlations,
    rankings,
    notRanked: unranked,
    effects: fx,
    pairedTests,
  };
  const files: Record<string, string> = {};
  for (const t of ['9', '10', '11'] as const) {
    const table = paperTable(summaries, t);
    files[`table${t}.md`] = `${toMarkdown(table)}\n`;
    files[`table${t}.csv`] = toCsv(table);
  }
  files['correlations.md'] = `${toMarkdown(corrTable)}\n`;
  files['correlations.csv'] = toCsv({
    header: ['x', 'y', 'setting', 'n', 'r', 'p'],
    rows: correlations.map((c) => [c.x, c.y, c.setting, String(c.n), c.r === null ? '' : String(c.r), c.p === null ? '' : String(c.p)]),
  });
  if (pairedTests.length) {
    files['paired-tests.md'] = `${toMarkdown(pairedTable)}\n`;
    files['paired-tests.csv'] = toCsv(pairedTable);
  }
  return { markdown: out.join('\n'), analysis, files, wrote: `tables, correlations${pairedTests.length ? ', paired tests' : ''} and analysis.json` };
}

/**
 * The paired tests as a table: the two runs, their setting, the metric, A - B with its 95% CI and
 * p (x100), and the questions both answered; a dagger where a warning of either run concerns the
 * metric.
 */
function pairedTestsTable(tests: readonly PairedTest[], summaries: readonly RunSummary[], resamples: number): { header: string[]; rows: string[][] } {
  const run = (model: string, setting: string | undefined) => summaries.find((s) => s.model === model && s.setting === setting);
  return {
    header: ['setting', 'A', 'B', 'metric', 'A - B', '95% CI', 'p', 'n (questions)'],
    rows: tests.map((t) => {
      const mark = isFlagged(run(t.a, t.setting), t.metric) || isFlagged(run(t.b, t.setting), t.metric) ? FLAG : '';
      return [
        t.setting ?? '',
        t.a,
        t.b,
        t.metric,
        `${formatPercent(t.difference)}${t.difference === null ? '' : `${significanceStar(t.p, t.questions)}${mark}`}`,
        t.interval ? `[${formatPercent(t.interval[0])}, ${formatPercent(t.interval[1])}]` : '-',
        formatResampledP(t.p, resamples),
        String(t.questions),
      ];
    }),
  };
}
