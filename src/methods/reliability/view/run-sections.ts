/**
 * A reliability run's page in `llmkb view`, after its metrics: labels by source and template (a
 * chart), and the breakdowns by source, UnseenQA template, answer type and uninformative sub-type,
 * each count a link to its items, with the group's headline metrics from the summary.
 */
import { escapeHtml } from '../../html-parts.js';
import { formatMetric, headlineDefs } from '../../method-summary.js';
import type { MetricDef } from '../../method.js';
import type { RunPageContext } from '../../method-presentation.js';
import { invalidShare } from '../metrics/mcq-answers.js';
import { METRIC_ITEMS } from './metric-items.js';
import { flagged } from '../../summary-warnings.js';
import type { SummaryWarning } from '../../method-summary.js';

const LABEL_COLORS = { domain: ['correct', 'wrong', 'uninformative', '(no label)'], range: ['#2e7d32', '#c62828', '#9e9e9e', '#bdbdbd'] };

function labelChart(rows: ReadonlyArray<{ grp: string | null; label: string | null; n: number }>): object | undefined {
  if (rows.length === 0) return undefined;
  const byGroup = new Map<string, number>();
  for (const r of rows)
    byGroup.set(`${r.grp ?? '(none)'}\u0000${r.label ?? '(no label)'}`, (byGroup.get(`${r.grp ?? '(none)'}\u0000${r.label ?? '(no label)'}`) ?? 0) + r.n);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Labels by source / template',
    width: 380,
    height: { step: 14 },
    data: { values: [...byGroup.entries()].map(([k, n]) => ({ source: k.split('\u0000')[0], label: k.split('\u0000')[1], n })) },
    mark: 'bar',
    encoding: {
      y: { field: 'source', type: 'nominal', title: null, sort: null, axis: { labelLimit: 0 } },
      x: { field: 'n', type: 'quantitative', stack: 'normalize', title: 'share of items', axis: { format: '%' } },
      color: { field: 'label', type: 'nominal', scale: LABEL_COLORS, title: null },
      order: { field: 'label' },
    },
  };
}

export async function reliabilityRunSections(ctx: RunPageContext): Promise<string> {
  const parts: string[] = [];
  const bySource = ctx.counts('source');
  const chart = labelChart(bySource);
  if (chart) parts.push(`<h2>Labels</h2><div class="charts"><figure class="chart">${await ctx.chart(chart)}</figure></div>`);
  parts.push('<h2>Breakdowns</h2><p class="muted">Each count links to the items behind it.</p>');
  const groups = (ctx.summary?.breakdowns as { bySource?: Record<string, { metrics: Record<string, number | null> }> } | undefined)?.bySource ?? {};
  const defs = (ctx.summary?.metricDefs as MetricDef[] | undefined) ?? [];
  const groupDefs = headlineDefs(defs).filter((d) => Object.values(groups).some((g) => d.id in g.metrics));
  // A source's kind comes from its items' set, never from its name: one whose items are all unseen is a template (UnseenQA's T1..T20, or a user's unseen set).
  const seenSources = new Set(bySource.filter((r) => r.dataset !== 'unseen').map((r) => r.grp));
  const templates = bySource.filter((r) => !seenSources.has(r.grp));
  // A warning of the run concerns its groups' values of the metrics it names too: the same dagger.
  // Each group's metric value links to the group's items behind it.
  const extra = (g: string) =>
    groupDefs.map((d) => {
      const value = groups[g]?.metrics[d.id];
      const text = flagged(formatMetric(d, value), { warnings: ctx.summary?.warnings as SummaryWarning[] | undefined, metrics: groups[g]?.metrics }, d.id);
      const behind = METRIC_ITEMS[d.id];
      return value === null || value === undefined || !behind
        ? text
        : { text, href: ctx.itemsHref({ ...behind.selection, source: g }), title: `the items behind ${d.label} in ${g}: ${behind.title}` };
    });
  parts.push(
    ctx.countsTable(
      'By source',
      'source',
      bySource.filter((r) => seenSources.has(r.grp)),
      extra,
      groupDefs.map((d) => d.label),
    ),
  );
  if (templates.length)
    parts.push(
      ctx.countsTable(
        'By UnseenQA template (sources of unseen questions only)',
        'source',
        templates,
        extra,
        groupDefs.map((d) => d.label),
      ),
    );
  parts.push(ctx.countsTable('By answer type', 'answer_type', ctx.counts('answer_type')));
  parts.push(ctx.countsTable('Uninformative responses by sub-type', 'subtype', ctx.counts('subtype', 'uninformative')));
  parts.push(mcqAnswersSection(ctx));
  return parts.join('\n');
}

/** The run's MCQ answers and invalid ones by question set and label of the response re-asked, from its summary; each count links to the items behind it. */
function mcqAnswersSection(ctx: RunPageContext): string {
  const mcq = (ctx.summary?.breakdowns as { mcqAnswers?: Record<string, Record<string, { answers: number; invalid: number }>> } | undefined)?.mcqAnswers;
  const title = '<h3>Invalid MCQ answers</h3>';
  if (!mcq)
    return `${title}<p class="muted">Not counted: the run has no summary with MCQ counts yet (its summary file is written when it finishes), or it was made by an older llmkb.</p>`;
  const link = (n: number, href: string, title: string) => (n === 0 ? '0' : `<a href="${escapeHtml(href)}" title="${escapeHtml(title)}">${n}</a>`);
  const rows = Object.entries(mcq).flatMap(([dataset, groups]) =>
    Object.entries(groups).map(([label, c]) => {
      const answers = ctx.itemsHref({ dataset, label, fields: { mcqs: { min: 1 } } });
      const invalid = ctx.itemsHref({ dataset, label, fields: { mcq_invalid: { min: 1 } } });
      return `<tr><th scope="row">${escapeHtml(`${dataset} ${label}`)}</th><td class="num">${link(c.answers, answers, 'the responses re-asked as MCQs')}</td><td class="num">${link(c.invalid, invalid, 'the responses with an invalid MCQ answer')}</td><td class="num">${invalidShare(c)}</td></tr>`;
    }),
  );
  return `${title}<p class="muted">An invalid answer names no option (neither a letter nor an option's text); Eq. 4 counts it as not choosing the response. Each count links to its responses (the items filter <em>invalid MCQ answers</em> finds them in any run); the item pages show every MCQ with its raw answer.</p><div class="scroll"><table class="counts"><thead><tr><th>responses re-asked</th><th>MCQ answers</th><th>invalid</th><th>share</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}
