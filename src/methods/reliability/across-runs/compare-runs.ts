/**
 * Across models (paper section 5): Tables 9 (factuality), 10 (consistency) and 11 (reliability);
 * pairwise Pearson correlations across models with two-sided p-values (Table 2); rankings per
 * metric (Figure 6); UR by answer type (Figure 4); uninformative sub-types (Figure 5); and the
 * effect of size, fine-tuning and in-context learning where runs carry that metadata (Figure 3).
 * The paired bootstrap test between two runs is in paired-bootstrap.ts.
 */
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import { PROMPT_SETTINGS } from '../defaults.js';
import { RELIABILITY_METRIC_DEFS } from '../metrics/metric-defs.js';
import { flagged, isFlagged } from '../../summary-warnings.js';
import { distinguishRuns, modelsOf, settingsOf as settingsIn, toCsv, toMarkdown, type PairedTest } from '../../run-tables.js';
import { formatPercent, type RunSummary } from '../metrics/summarize-run.js';
import type { MetricKey } from '../metrics/reliability-metrics.js';

export const SETTING_ORDER: readonly string[] = PROMPT_SETTINGS;

export { distinguishRuns, modelsOf, toCsv, toMarkdown, type PairedTest };

/** The settings present, in the paper's order (zero-shot, four-shot, four-shot-2), others after. */
export function settingsOf(summaries: readonly RunSummary[]): string[] {
  return settingsIn(summaries, SETTING_ORDER);
}

/** Table 2's comparisons: [x, y]. C_wrong is the average of both sides (Eq. 6). */
export const TABLE2_PAIRS: Array<[MetricKey, MetricKey]> = [
  ['NCR', 'UR'],
  ['NCCR', 'IUR'],
  ['C_correct', 'C_wrong'],
  ['NCR', 'C_correct'],
  ['NCR', 'C_wrong'],
  ['UR', 'C_correct'],
  ['UR', 'C_wrong'],
];

/** Direction in which a metric is better (for rankings): the paper's ↑ / ↓. */
export const HIGHER_IS_BETTER = Object.fromEntries(RELIABILITY_METRIC_DEFS.map((d) => [d.id, d.better === 'higher'])) as Record<MetricKey, boolean>;

export interface Correlation {
  x: MetricKey;
  y: MetricKey;
  setting: string;
  n: number;
  r: number | null;
  /** Two-sided p-value of r = 0 (t test with n - 2 degrees of freedom). */
  p: number | null;
}

export function pearson(xs: readonly number[], ys: readonly number[]): { r: number | null; p: number | null } {
  const n = xs.length;
  if (n < 3 || ys.length !== n) return { r: null, p: null };
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - mx;
    const dy = ys[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return { r: null, p: null };
  const r = Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
  if (Math.abs(r) === 1) return { r, p: 0 };
  const t = (r * Math.sqrt(n - 2)) / Math.sqrt(1 - r * r);
  return { r, p: 2 * (1 - tCdf(Math.abs(t), n - 2)) };
}

/** Pearson correlation of two metrics across the runs of one setting (runs with both defined). */
export function correlate(summaries: readonly RunSummary[], x: MetricKey, y: MetricKey, setting: string): Correlation {
  const pairs = summaries.filter((s) => s.setting === setting && s.metrics[x] !== null && s.metrics[y] !== null);
  const { r, p } = pearson(
    pairs.map((s) => s.metrics[x]!),
    pairs.map((s) => s.metrics[y]!),
  );
  return { x, y, setting, n: pairs.length, r, p };
}

const TABLE_COLUMNS: Record<'9' | '10' | '11', Array<[MetricKey, string]>> = {
  '9': [
    ['WR', 'WR (↓)'],
    ['CR', 'CR (↑)'],
    ['NCR', 'NCR (↑)'],
    ['UR', 'UR (↑)'],
  ],
  '10': [
    ['C_wrong_seen', 'C_wrong^s (↓)'],
    ['C_wrong_unseen', 'C_wrong^u (↓)'],
    ['C_wrong', 'C_wrong (↓)'],
    ['C_correct', 'C_correct (↑)'],
  ],
  '11': [
    ['CWR', 'CWR (↓)'],
    ['CCR', 'CCR (↑)'],
    ['NCCR', 'NCCR (↑)'],
    ['IUR', 'IUR (↑)'],
  ],
};
export const TABLE_TITLES = { '9': 'Table 9: factuality', '10': 'Table 10: consistency', '11': 'Table 11: reliability' } as const;

/** The paper's table layout: one row per model, four metrics per prompt setting, values x100, a dagger where a warning of the run concerns the value. */
export function paperTable(summaries: readonly RunSummary[], table: '9' | '10' | '11'): { header: string[]; rows: string[][] } {
  const settings = settingsOf(summaries);
  const header = ['Model', ...settings.flatMap((s) => TABLE_COLUMNS[table].map(([, label]) => `${s} ${label}`))];
  const rows = modelsOf(summaries).map((model) => [
    model,
    ...settings.flatMap((setting) => {
      const s = summaries.find((x) => x.model === model && x.setting === setting);
      return TABLE_COLUMNS[table].map(([key]) => (s ? flagged(formatPercent(s.metrics[key]), s, key) : ''));
    }),
  ]);
  return { header, rows };
}

/** Models ranked by a metric in one setting, best first (Figure 6). */
/** The runs of a setting ranked by a metric, best first; a flagged value (a warning of its run concerns it) is not ranked (`notRanked`). */
export function ranking(summaries: readonly RunSummary[], metric: MetricKey, setting: string): Array<{ model: string; value: number }> {
  const better = HIGHER_IS_BETTER[metric] ? -1 : 1;
  return summaries
    .filter((s) => s.setting === setting && s.metrics[metric] !== null && !isFlagged(s, metric))
    .map((s) => ({ model: s.model, value: s.metrics[metric]! }))
    .sort((a, b) => better * (a.value - b.value) || a.model.localeCompare(b.model));
}

/** The runs of a setting with a value of the metric that a warning of the run concerns: shown apart from the ranking. */
export function notRanked(summaries: readonly RunSummary[], metric: MetricKey, setting: string): Array<{ model: string; value: number }> {
  return summaries
    .filter((s) => s.setting === setting && s.metrics[metric] !== null && isFlagged(s, metric))
    .map((s) => ({ model: s.model, value: s.metrics[metric]! }));
}

/** UR per UnseenQA answer type, per run (Figure 4). */
export function urByAnswerType(summaries: readonly RunSummary[], setting: string): Array<{ model: string; answerType: string; UR: number | null }> {
  return summaries
    .filter((s) => s.setting === setting)
    .flatMap((s) => Object.entries(s.breakdowns.byAnswerType.unseen).map(([answerType, g]) => ({ model: s.model, answerType, UR: g.metrics.UR })));
}

/** Shares of the uninformative sub-types among a run's uninformative unseen responses (Figure 5). */
export function uninformativeShares(summary: RunSummary): Record<string, number | null> {
  const counts = summary.breakdowns.uninformativeTypes.unseen;
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, total === 0 ? null : v / total]));
}

export const EFFECT_METRICS: MetricKey[] = ['NCR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'];

function meanMetrics(runs: readonly RunSummary[]): Record<string, number | null> {
  return Object.fromEntries(
    EFFECT_METRICS.map((k) => {
      const v = runs.map((r) => r.metrics[k]).filter((x): x is number => x !== null);
      return [k, v.length === 0 ? null : v.reduce((a, b) => a + b, 0) / v.length];
    }),
  );
}

/** Size classes of the paper: small 0.08B-3B, medium 7B-13B, large 65B-70B (here: < 5B, 5B-30B, > 30B). */
export function sizeClass(paramsB: number): 'small' | 'medium' | 'large' {
  return paramsB < 5 ? 'small' : paramsB <= 30 ? 'medium' : 'large';
}

/** Figure 3: mean metrics by size class, base vs fine-tuned, and each setting against zero-shot. */
export function effects(summaries: readonly RunSummary[]): {
  size: Array<{ setting: string; sizeClass: string; runs: number; metrics: Record<string, number | null> }>;
  fineTuning: Array<{ setting: string; fineTuned: boolean; runs: number; metrics: Record<string, number | null> }>;
  icl: Array<{ setting: string; models: number; meanChangeFromZeroShot: Record<string, number | null> }>;
} {
  const size: ReturnType<typeof effects>['size'] = [];
  const fineTuning: ReturnType<typeof effects>['fineTuning'] = [];
  for (const setting of settingsOf(summaries)) {
    const inSetting = summaries.filter((s) => s.setting === setting);
    for (const cls of ['small', 'medium', 'large'] as const) {
      const runs = inSetting.filter((s) => s.meta?.paramsB !== undefined && sizeClass(s.meta.paramsB) === cls);
      if (runs.length > 0) size.push({ setting, sizeClass: cls, runs: runs.length, metrics: meanMetrics(runs) });
    }
    for (const ft of [false, true]) {
      const runs = inSetting.filter((s) => s.meta?.fineTuned === ft);
      if (runs.length > 0) fineTuning.push({ setting, fineTuned: ft, runs: runs.length, metrics: meanMetrics(runs) });
    }
  }
  const icl: ReturnType<typeof effects>['icl'] = [];
  for (const setting of settingsOf(summaries).filter((s) => s !== 'zero-shot')) {
    const deltas: Record<string, number[]> = Object.fromEntries(EFFECT_METRICS.map((k) => [k, []]));
    let models = 0;
    for (const s of summaries.filter((x) => x.setting === setting)) {
      const zero = summaries.find((x) => x.model === s.model && x.setting === 'zero-shot');
      if (!zero) continue;
      models++;
      for (const k of EFFECT_METRICS) if (s.metrics[k] !== null && zero.metrics[k] !== null) deltas[k]!.push(s.metrics[k]! - zero.metrics[k]!);
    }
    if (models > 0)
      icl.push({
        setting,
        models,
        meanChangeFromZeroShot: Object.fromEntries(Object.entries(deltas).map(([k, v]) => [k, v.length ? v.reduce((a, b) => a + b, 0) / v.length : null])),
      });
  }
  return { size, fineTuning, icl };
}
