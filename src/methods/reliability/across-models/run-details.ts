/** The reliability method's per-run lines in the report: the counts, and the table by source and template. */
import { escapeHtml, htmlTable } from '../../../report/html-parts.js';
import type { MethodSummary } from '../../method-summary.js';
import { formatPercent, type RunSummary } from '../metrics/summarize-run.js';

export function runHeadline(summary: MethodSummary): string {
  const s = summary as RunSummary;
  const c = s.counts;
  return `<strong>${escapeHtml(s.model)}</strong> · ${escapeHtml(s.setting)} · N=${c.seen} (correct ${c.seenCorrect}, wrong ${c.seenWrong}, uninformative ${c.seenUninformative}) · L=${c.unseen} (wrong ${c.unseenWrong}, uninformative ${c.unseenUninformative})${s.approximate ? ' · approximate' : ''}`;
}

export function runDetails(summary: MethodSummary): string {
  const s = summary as RunSummary;
  const sourceRows = Object.entries(s.breakdowns.bySource).map(([source, g]) => [source, String(g.counts.seen + g.counts.unseen), formatPercent(g.metrics.CR), formatPercent(g.metrics.WR), formatPercent(g.metrics.UR), formatPercent(g.metrics.C_correct), formatPercent(source.startsWith('T') ? g.metrics.C_wrong_unseen : g.metrics.C_wrong_seen), formatPercent(g.metrics.NCCR), formatPercent(g.metrics.IUR)]);
  return htmlTable(['Source / template', 'n', 'CR', 'WR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'], sourceRows);
}
