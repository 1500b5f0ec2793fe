/**
 * `llmkb compare` for CONNER runs: the paper's table (Tables 2-3 layout, one per task) with
 * bootstrap CIs, the best run of each setting in bold, and paired differences between every two
 * runs of one task that scored the same queries (read from the records beside their summaries).
 */
import { toCsv, toMarkdown } from '../../run-tables.js';
import { formatResampledP, isSignificant, pairedTestsNote } from '../../significance-format.js';
import type { CompareOutput, ComparedRun } from '../../method.js';
import type { MethodSummary } from '../../method-summary.js';
import { DEFAULT_CHOICES, type ScoringChoices } from '../conner-choices.js';
import { SCORER_ROLES } from '../conner-run-facts.js';
import type { ScoredKnowledge } from '../scoring/scored-knowledge.js';
import type { ConnerBreakdowns } from '../summary/conner-summary.js';
import { pairedDifference, sharedItems, type ConnerPairedDifference } from './paired-difference.js';
import { analysisTables, runsByTask, type AnalysisTable } from './analysis-tables.js';
import { paperTableDefs, paperTableRows, paperValue, tableGroups, taskOf, TASK_TABLES } from './paper-table.js';
import { columnsOf } from '../summary/conner-summary.js';
import { NOT_AS_PAPER_NOTE, notAsPaperLines } from '../summary/paper-columns.js';

/** The choices a run was scored with (older summaries: the defaults). */
function choicesOf(s: MethodSummary): ScoringChoices {
  return (s.breakdowns as Partial<ConnerBreakdowns> | undefined)?.choices ?? DEFAULT_CHOICES;
}

/** Runs that pair: same task, at least two shared items; A and B by the order given. */
export function connerPairedTests(runs: readonly ComparedRun[], options: { resamples: number; seed: number }): ConnerPairedDifference[] {
  const withRecords = runs.filter((r) => r.records && r.records.length > 0);
  const tests: ConnerPairedDifference[] = [];
  for (let i = 0; i < withRecords.length; i++) {
    for (let j = i + 1; j < withRecords.length; j++) {
      const a = withRecords[i]!;
      const b = withRecords[j]!;
      if (taskOf(a.summary) !== taskOf(b.summary)) continue;
      const pairs = sharedItems(a.records as ScoredKnowledge[], b.records as ScoredKnowledge[]);
      if (pairs.length < 2) continue;
      const names: [string, string] = [`${a.summary.model} (${a.summary.setting})`, `${b.summary.model} (${b.summary.setting})`];
      const choices: [ScoringChoices, ScoringChoices] = [choicesOf(a.summary), choicesOf(b.summary)];
      for (const def of paperTableDefs()) tests.push(pairedDifference(pairs, def.id, { names, choices, ...options }));
    }
  }
  return tests;
}

/** Protocol entries that name a model, what they score, and the option that sets them. */
const MODEL_ENTRIES: ReadonlyArray<{ id: string; what: string; metrics: string; option: string }> = [
  { id: 'helpfulness-scorer', what: "helpfulness's answer-loss models", metrics: 'helpfulness', option: '--answerer (or --scorer)' },
  ...SCORER_ROLES.map(({ role, id, name, metrics }) => ({ id, what: `${name}s`, metrics: metrics.replace(/ \(Eq\. [^)]*\)/g, ''), option: `--${role}` })),
];

/** The runs of one task by the choice of a protocol entry (runs without it left out). */
function byChoice(summaries: readonly MethodSummary[], id: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of summaries) {
    const choice = s.protocol?.entries[id]?.choice;
    if (choice !== undefined) out.set(choice, [...(out.get(choice) ?? []), `${s.model} (${s.setting})`]);
  }
  return out;
}

const listed = (m: Map<string, string[]>): string => [...m.entries()].map(([a, names]) => `${a}: ${names.join(', ')}`).join('; ');

/**
 * Runs of one task whose downstream answers come from different answerers (their helpfulness and
 * validity compare answerers as much as knowledge; the paper has one answerer for all, Appendix
 * G), or whose metrics come from different scorer models (they compare the scorers too).
 */
export function answererWarnings(summaries: readonly MethodSummary[]): string[] {
  const warnings: string[] = [];
  for (const task of [...new Set(summaries.map(taskOf))]) {
    const runs = summaries.filter((x) => taskOf(x) === task);
    const table = TASK_TABLES[task] ?? task;
    const answerers = byChoice(runs, 'answerer');
    if (answerers.size > 1) {
      warnings.push(
        `${table}: the runs' downstream answers come from different answerers (${listed(answerers)}), so helpfulness and validity compare the answerers too; the paper has one fixed answerer for every generator (Appendix G): generate with the same --answerer`,
      );
    }
    const baselines = byChoice(runs, 'helpfulness-baseline');
    if (baselines.size > 1) {
      warnings.push(
        `${table}: the runs' helpfulness divides by different baselines (${listed(baselines)}), so helpfulness compares the baselines too; the paper divides every generator by one shared baseline per data set: score every run on the same queries with the same answerer, seed and --helpfulness-baseline shared`,
      );
    }
    for (const { id, what, metrics, option } of MODEL_ENTRIES) {
      const models = byChoice(runs, id);
      if (models.size > 1)
        warnings.push(
          `${table}: the runs were scored by different ${what} (${listed(models)}), so ${metrics} compare the scorers too: score every run with the same ${option}`,
        );
    }
  }
  return warnings;
}

/** A paired test's row: A vs B, the metric, A − B (* p < 0.05), its CI, p and the items. */
export function pairedRow(t: ConnerPairedDifference, resamples: number): string[] {
  const def = paperTableDefs().find((d) => d.id === t.metric)!;
  const fmt = (v: number | null): string => (v === null ? '-' : `${v > 0 ? '+' : ''}${paperValue(def, v)}`);
  return [
    `${t.a} vs ${t.b}`,
    def.label,
    `${fmt(t.difference)}${isSignificant(t.p, t.questions) ? ' *' : ''}`,
    t.interval ? `[${fmt(t.interval[0])}, ${fmt(t.interval[1])}]` : '-',
    formatResampledP(t.p, resamples),
    String(t.questions),
  ];
}

export const PAIRED_HEADER = ['A vs B', 'metric', 'A − B', '95% CI', 'p', 'n (items)'];

/** Each run's columns computed otherwise than the paper's tables, and why. */
function notAsPaperNote(summaries: readonly MethodSummary[]): string {
  const labels = new Map(paperTableDefs().map((d) => [d.id, d.label]));
  const lines = notAsPaperLines(
    summaries.map((s) => ({ name: `${s.model} (${s.setting})`, columns: columnsOf(s) })),
    labels,
  );
  return lines.length
    ? `${NOT_AS_PAPER_NOTE}:\n\n${lines.map((l) => `- ${l}`).join('\n')}\n`
    : "Every column is computed as the paper's tables were, given the scorers named.\n";
}

export async function compareConner(runs: readonly ComparedRun[], options: { resamples: number; seed: number }): Promise<CompareOutput> {
  const summaries = runs.map((r) => r.summary);
  const out: string[] = [];
  const warnings = answererWarnings(summaries);
  for (const w of warnings) out.push(`**Warning:** ${w}.\n`);
  const files: Record<string, string> = {};
  const tables: Record<string, { header: string[]; rows: string[][] }> = {};
  const analyses: Record<string, AnalysisTable[]> = {};
  const pairedByTask: Record<string, ConnerPairedDifference[]> = {};
  const pairedMd: string[] = [];
  const pairedCsv: string[][] = [];
  for (const { task, runs: ofTask } of runsByTask(runs)) {
    const title = TASK_TABLES[task] ?? task;
    const settings = tableGroups(ofTask.map((r) => r.summary))[0]!.settings;
    const table = paperTableRows(settings, { withCi: true, markBest: true });
    // The CSV says per row which columns are computed otherwise, and why (the Markdown says it under the table).
    const plain = paperTableRows(settings, { withCi: true, markBest: false });
    const why = (s: MethodSummary): string =>
      paperTableDefs()
        .flatMap((d) => (columnsOf(s)[d.id]?.asPaper === false ? [`${d.label}: ${columnsOf(s)[d.id]!.departures.join(', ')}`] : []))
        .join('; ');
    const ordered = settings.flatMap((x) => x.runs);
    tables[task] = {
      header: [...plain.header, 'computed otherwise than the paper (protocol entries)'],
      rows: plain.rows.map((row, i) => [...row, why(ordered[i]!)]),
    };
    out.push(
      `## CONNER: automatic evaluation, ${title}\n\n${toMarkdown(table)}\n\n95% bootstrap CIs in brackets; **bold**: the best run of its setting in that column. ${notAsPaperNote(ofTask.map((r) => r.summary))}`,
    );
    files[`conner-${task}.md`] = `${toMarkdown(table)}\n\n${notAsPaperNote(ofTask.map((r) => r.summary))}`;
    files[`conner-${task}.csv`] = toCsv(tables[task]);
    const paired = connerPairedTests(ofTask, options);
    pairedByTask[task] = paired;
    if (paired.length > 0) {
      const ptable = { header: PAIRED_HEADER, rows: paired.map((t) => pairedRow(t, options.resamples)) };
      out.push(
        `## CONNER: paired differences on shared queries, ${title}\n\n${toMarkdown(ptable)}\n\n${pairedTestsNote({ resamples: options.resamples, seed: options.seed, items: 'queries' })}\n`,
      );
      pairedMd.push(`## ${title}\n\n${toMarkdown(ptable)}\n`);
      pairedCsv.push(...ptable.rows.map((row) => [task, ...row]));
    }
    analyses[task] = analysisTables(ofTask, { permutations: options.resamples, seed: options.seed });
    for (const a of analyses[task]) {
      out.push(`### ${a.title}, ${title}\n\n${toMarkdown(a)}\n\n${a.note}\n`);
      files[`conner-${task}-${a.id}.md`] = `${toMarkdown(a)}\n\n${a.note}\n`;
      files[`conner-${task}-${a.id}.csv`] = toCsv(a);
    }
  }
  if (pairedMd.length > 0) {
    files['conner-paired.md'] = pairedMd.join('\n');
    files['conner-paired.csv'] = toCsv({ header: ['task', ...PAIRED_HEADER], rows: pairedCsv });
  } else if (runs.length > 1) {
    out.push(
      `Paired differences: none (no two runs of one task with their records and shared queries; give the .summary.json files written by \`llmkb conner score --out\`, with their .records.jsonl beside them).\n`,
    );
  }
  return {
    markdown: out.join('\n'),
    analysis: {
      method: 'conner',
      runs: runs.map((r) => ({
        label: r.summary.model,
        setting: r.summary.setting,
        task: taskOf(r.summary),
        items: r.summary.counts.items ?? null,
        source: r.source,
        records: r.records?.length ?? 0,
        paperColumns: columnsOf(r.summary),
      })),
      metrics: Object.fromEntries(
        runs.map((r, i) => [
          `${i}`,
          { model: r.summary.model, setting: r.summary.setting, task: taskOf(r.summary), metrics: r.summary.metrics, intervals: r.summary.intervals },
        ]),
      ),
      tables,
      pairedDifferences: pairedByTask,
      analyses,
      warnings,
    },
    files,
    wrote: "the paper's tables per task (Markdown, CSV), the analyses (Tables 5-6/15, 8, 10, 16; Fig. 2), paired differences and analysis.json",
  };
}
