/** The reliability method's per-run lines in the report: the counts, the table by source and template, example responses. */
import { escapeHtml, htmlTable } from '../../html-parts.js';
import type { MethodSummary } from '../../method-summary.js';
import { formatPercent, type RunSummary, type ScoredRecord } from '../metrics/summarize-run.js';
import { invalidShare } from '../metrics/mcq-answers.js';

export function runHeadline(summary: MethodSummary): string {
  const s = summary as RunSummary;
  const c = s.counts;
  const mcq =
    c.mcqAnswers === undefined || c.invalidMcqAnswers === undefined
      ? ''
      : ` · MCQ answers ${c.mcqAnswers}, invalid ${c.invalidMcqAnswers} (${invalidShare({ answers: c.mcqAnswers, invalid: c.invalidMcqAnswers })})`;
  return `<strong>${escapeHtml(s.model)}</strong> · ${escapeHtml(s.setting)} · N=${c.seen} (correct ${c.seenCorrect}, wrong ${c.seenWrong}, uninformative ${c.seenUninformative}) · L=${c.unseen} (wrong ${c.unseenWrong}, uninformative ${c.unseenUninformative})${mcq}${s.approximate ? ' · approximate' : ''}`;
}

/** The run's MCQ answers and invalid ones by question set and label of the response re-asked (Eq. 4 counts an invalid answer as not choosing the response). */
function mcqAnswersHtml(s: RunSummary): string {
  const mcq = s.breakdowns.mcqAnswers;
  if (!mcq) return '<p class="note">Invalid MCQ answers: not counted in this summary (made by an older llmkb, or from records without their MCQ counts).</p>';
  const rows = (['seen', 'unseen'] as const).flatMap((d) =>
    Object.entries(mcq[d]).map(([label, c]) => [`${d} ${label}`, String(c.answers), String(c.invalid), invalidShare(c)]),
  );
  return `<h4>Invalid MCQ answers</h4><div class="scroll">${htmlTable(['Responses re-asked', 'MCQ answers', 'invalid', 'share'], rows)}</div><p class="note">An invalid answer names no option (neither a letter nor an option's text); Eq. 4 counts it as not choosing the response.</p>`;
}

const EXAMPLES_PER_LABEL = 3;

/** The example responses the report shows: a few of each label, spread over the run (every k-th), in label order. */
export function exampleRecords<R extends Pick<ScoredRecord, 'label'>>(records: readonly R[], perLabel = EXAMPLES_PER_LABEL): R[] {
  const picked: R[] = [];
  for (const label of ['correct', 'wrong', 'uninformative'] as const) {
    const all = records.filter((r) => r.label === label);
    const step = Math.max(1, Math.floor(all.length / perLabel));
    picked.push(...all.filter((_, i) => i % step === 0).slice(0, perLabel));
  }
  return picked;
}

/** A few responses of each label (exampleRecords), with the question and the accepted answer. */
function examplesHtml(records: readonly ScoredRecord[] | undefined): string {
  if (!records || records.length === 0) return '';
  const rows: string[] = [];
  for (const r of exampleRecords(records)) {
    const label = r.label;
    const q = typeof r.question === 'string' ? r.question : r.id;
    const answers = Array.isArray(r.answers) ? (r.answers as unknown[]).filter((a): a is string => typeof a === 'string') : [];
    const response = typeof r.response === 'string' ? r.response : '';
    rows.push(
      `<tr><th scope="row">${escapeHtml(label)}${r.uninformativeType ? ` (${escapeHtml(r.uninformativeType)})` : ''}</th><td>${escapeHtml(q)}</td><td>${escapeHtml(answers[0] ?? (r.dataset === 'unseen' ? '(unseen: no answer)' : ''))}</td><td>${escapeHtml(response.length > 240 ? `${response.slice(0, 239)}…` : response)}</td></tr>`,
    );
  }
  return rows.length
    ? `<h4>Example responses</h4><div class="scroll"><table class="examples"><thead><tr><th>label</th><th>question</th><th>accepted answer</th><th>response</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`
    : '';
}

export function runDetails(summary: MethodSummary, records?: readonly object[]): string {
  const s = summary as RunSummary;
  const sourceRows = Object.entries(s.breakdowns.bySource).map(([source, g]) => [
    source,
    String(g.counts.seen + g.counts.unseen),
    formatPercent(g.metrics.CR),
    formatPercent(g.metrics.WR),
    formatPercent(g.metrics.UR),
    formatPercent(g.metrics.C_correct),
    formatPercent(g.metrics.C_wrong),
    formatPercent(g.metrics.NCCR),
    formatPercent(g.metrics.IUR),
  ]);
  return `<div class="scroll">${htmlTable(['Source / template', 'n', 'CR', 'WR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'], sourceRows)}</div>${mcqAnswersHtml(s)}${examplesHtml(records as readonly ScoredRecord[] | undefined)}`;
}
