/**
 * A CONNER run in the report's Runs section: its headline line, and under its metrics the
 * scorers, who wrote the downstream answers, factuality label counts, Somers' D with human ratings and (given its records) an
 * example knowledge text per factuality label. Every piece of model text is escaped.
 */
import { escapeHtml, htmlTable } from '../../html-parts.js';
import type { MethodSummary } from '../../method-summary.js';
import type { ScoredKnowledge } from '../scoring/score-knowledge.js';
import { columnsOf, type ConnerBreakdowns } from '../summary/conner-summary.js';
import { paperTableDefs } from './paper-table.js';

export function connerRunHeadline(s: MethodSummary): string {
  const task = String((s.breakdowns as { task?: unknown } | undefined)?.task ?? '');
  const columns = paperTableDefs().map((d) => [d.label, columnsOf(s)[d.id]] as const);
  const otherwise = columns.filter(([, v]) => v && !v.asPaper).map(([label]) => label);
  const asPaper = otherwise.length === 0 ? "every column as the paper's tables" : `computed otherwise than the paper's tables: ${otherwise.join(', ')}`;
  return `<strong>${escapeHtml(s.model)}</strong> · ${escapeHtml(s.setting)} · ${escapeHtml(String(s.counts.items ?? 0))} knowledge texts${task ? ` · ${escapeHtml(task)}` : ''} · ${escapeHtml(asPaper)}`;
}

const LABELS = ['factual-consistent', 'non-verified', 'factual-inconsistent'] as const;

/** Scorers, factuality labels, Somers' D and (given the records) an example knowledge text per factuality label. */
export function connerRunDetails(s: MethodSummary, records?: readonly object[]): string {
  const b = s.breakdowns as unknown as ConnerBreakdowns | undefined;
  const parts: string[] = [];
  if (b?.scorers && Object.keys(b.scorers).length)
    parts.push(
      `<h4>Scorers</h4>${htmlTable(
        ['Metric', 'scorer'],
        Object.entries(b.scorers).map(([m, id]) => [m, id]),
        'protocol',
      )}`,
    );
  if (b?.answerers?.length)
    parts.push(
      `<p>Downstream answers by: ${escapeHtml(b.answerers.map((a) => (a === null ? 'not recorded' : a === s.model ? `${a} (the generator itself)` : a)).join(', '))}</p>`,
    );
  if (b?.factualityLabels)
    parts.push(
      `<p>Factuality labels${b.factualityLabelsUnit === 'sentences' ? ' (sentences)' : ''}: ${escapeHtml(
        Object.entries(b.factualityLabels)
          .map(([l, n]) => `${l} ${n}`)
          .join(', '),
      )}</p>`,
    );
  if (b?.humanCorrelation && Object.keys(b.humanCorrelation).length) {
    parts.push(
      `<h4>Somers' D with human ratings (the paper's section 6)</h4>${htmlTable(
        ['Metric', 'D', 'n', 'p'],
        Object.entries(b.humanCorrelation).map(([m, r]) => [
          m,
          r.d === null ? '-' : r.d.toFixed(2),
          String(r.n),
          r.pValue === null ? '-' : r.pValue.toFixed(3),
        ]),
      )}`,
    );
  }
  const recs = records as readonly ScoredKnowledge[] | undefined;
  if (recs?.length) {
    const rows: string[][] = [];
    for (const label of LABELS) {
      const r = recs.find((x) => x.scores?.factualityLabel === label);
      if (!r) continue;
      const cut = (t: string | null | undefined, n: number): string => ((t ?? '').length > n ? `${(t ?? '').slice(0, n)}…` : (t ?? ''));
      rows.push([label, cut(r.query, 200), cut(r.knowledge, 500), r.scores.factuality === null ? '-' : r.scores.factuality.toFixed(3)]);
    }
    if (rows.length)
      parts.push(
        `<h4>Example knowledge per factuality label</h4><div class="scroll">${htmlTable(['Label', 'query', 'knowledge', 'S_fact'], rows, 'examples')}</div>`,
      );
  }
  return parts.join('\n');
}
