/**
 * The reliability method's sections of the HTML report: the paper's Tables 9-11, Table 2's
 * correlations, Figures 3-7 per setting, and the uninformative sub-types (paper section 5).
 */
import { escapeHtml, figure, htmlTable } from '../../../report/html-parts.js';
import type { MethodSummary } from '../../method-summary.js';
import { formatPercent, type RunSummary } from '../metrics/summarize-run.js';
import { answerTypeHeatmapSpec, rankingSpec, scatterSpec } from './charts.js';
import { correlate, effects, paperTable, settingsOf, TABLE2_PAIRS, TABLE_TITLES, uninformativeShares } from './compare-runs.js';

export async function reportSections(all: readonly MethodSummary[]): Promise<string[]> {
  const summaries = all as readonly RunSummary[];
  const settings = settingsOf(summaries);
  const parts: string[] = [];
  for (const t of ['9', '10', '11'] as const) {
    const table = paperTable(summaries, t);
    parts.push(`<h2>${escapeHtml(TABLE_TITLES[t])}</h2>${htmlTable(table.header, table.rows)}`);
  }

  parts.push('<h2>Correlations across models (Table 2)</h2>');
  const corrRows = TABLE2_PAIRS.map(([x, y]) => [`${x} vs ${y}`, ...settings.map((s) => {
    const c = correlate(summaries, x, y, s);
    return c.r === null ? '-' : `${c.r.toFixed(2)} (p=${c.p!.toPrecision(2)}, n=${c.n})`;
  })]);
  parts.push(htmlTable(['Comparison', ...settings], corrRows));

  for (const setting of settings) {
    const inSetting = summaries.filter((s) => s.setting === setting);
    parts.push(`<h2>Figures: ${escapeHtml(setting)}</h2><div class="charts">`);
    parts.push(await figure(scatterSpec(inSetting, 'UR', 'NCR', setting, { diagonal: true }), 'Factuality on seen (NCR) vs unseen (UR) knowledge; red line y = x (Figure 7a).'));
    parts.push(await figure(scatterSpec(inSetting, 'C_correct', 'C_wrong', setting), 'Consistency on wrong vs correct responses (Figure 7b): lower right is better.'));
    parts.push(await figure(scatterSpec(inSetting, 'IUR', 'NCCR', setting, { diagonal: true }), 'Reliability on seen (NCCR) vs unseen (IUR) knowledge; red line y = x (Figure 7c).'));
    parts.push(await figure(rankingSpec(inSetting, 'NCCR', setting), 'Models ranked by NCCR (Figure 6).'));
    parts.push(await figure(rankingSpec(inSetting, 'IUR', setting), 'Models ranked by IUR (Figure 6).'));
    parts.push(await figure(answerTypeHeatmapSpec(inSetting, setting), 'UR by UnseenQA answer type (Figure 4): darker = more often uninformative.'));
    parts.push('</div>');
    const shares = inSetting.map((s) => {
      const sh = uninformativeShares(s);
      return [s.model, formatPercent(sh.none ?? null, 1), formatPercent(sh.unsure ?? null, 1), formatPercent(sh.repetition ?? null, 1)];
    });
    parts.push(`<h3>Uninformative responses to unseen questions by sub-type (Figure 5)</h3>${htmlTable(['Model', 'none %', 'unsure %', 'repetition %'], shares)}`);
  }

  const fx = effects(summaries);
  if (fx.size.length + fx.fineTuning.length + fx.icl.length > 0) {
    parts.push('<h2>Size, fine-tuning and in-context learning (Figure 3)</h2>');
    const metricCols = ['NCR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'];
    if (fx.size.length) parts.push(`<h3>By model size</h3>${htmlTable(['Setting / size', 'runs', ...metricCols], fx.size.map((r) => [`${r.setting} / ${r.sizeClass}`, String(r.runs), ...metricCols.map((k) => formatPercent(r.metrics[k] ?? null))]))}`);
    if (fx.fineTuning.length) parts.push(`<h3>Base vs fine-tuned</h3>${htmlTable(['Setting / type', 'runs', ...metricCols], fx.fineTuning.map((r) => [`${r.setting} / ${r.fineTuned ? 'fine-tuned' : 'base'}`, String(r.runs), ...metricCols.map((k) => formatPercent(r.metrics[k] ?? null))]))}`);
    if (fx.icl.length) parts.push(`<h3>Change from zero-shot (mean over models)</h3>${htmlTable(['Setting', 'models', ...metricCols], fx.icl.map((r) => [r.setting, String(r.models), ...metricCols.map((k) => formatPercent(r.meanChangeFromZeroShot[k] ?? null))]))}`);
  }
  return parts;
}
