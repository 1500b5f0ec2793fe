/**
 * A CONNER item in `llmkb view`: the query, the knowledge, each of its sentences with the
 * evidence passage chosen for it and its NLI verdict (Eq. 1), every score with the scorer behind
 * it, and the downstream answers (with and without the knowledge) beside the gold answer.
 * Every piece of model or user text goes through `escapeHtml`.
 */
import { escapeHtml } from '../../html-parts.js';
import { CONNER_METRIC_DEFS } from '../metric-defs.js';
import type { ScoredKnowledge } from '../scoring/score-knowledge.js';
import { metricValue } from '../summary/conner-summary.js';

const esc = (v: unknown): string => escapeHtml(v === null || v === undefined ? '' : String(v));
const pre = (text: unknown, cls: string): string => `<pre class="${cls}">${esc(text)}</pre>`;
const num = (v: number | null | undefined, digits = 4): string => (typeof v === 'number' ? v.toFixed(digits) : '–');

/** The NLI labels in the order of the vectors (entailment, neutral, contradiction). */
const VERDICTS = ['entailment', 'neutral', 'contradiction'] as const;

/** Which scorer id stands behind a metric (the three shares come from the factuality scorer). */
function scorerOf(scorers: Record<string, string>, id: string): string {
  return scorers[id] ?? (['fact_consistent', 'non_verified', 'fact_inconsistent'].includes(id) ? (scorers.factuality ?? '') : '');
}

export async function connerItemPage(records: Readonly<Record<string, Record<string, unknown>>>): Promise<string> {
  const r = Object.values(records).find((x) => x && typeof x === 'object' && 'scores' in x) as unknown as ScoredKnowledge | undefined;
  if (!r) return '<p class="empty">This item has no CONNER scores.</p>';
  const s = r.scores;
  const parts: string[] = [];
  parts.push(`<p class="muted">${esc(r.generator)} · ${esc(r.setting)} · ${esc(r.task)} · topic ${esc(r.topic)}</p>`);
  parts.push(`<h2>Query</h2>${pre(r.query, 'question')}`);
  parts.push(`<h2>Knowledge</h2>${pre(r.knowledge, 'response knowledge')}`);

  const scorers = r.scorers ?? {};
  const rows = CONNER_METRIC_DEFS.map((d) => {
    const v = metricValue(r, d.id);
    return `<tr><th scope="row" title="${esc(d.description)}">${esc(d.label)} <span class="muted small">${esc(d.equation ?? '')}</span></th><td class="num">${esc(num(v))}</td><td class="text small"><code>${esc(scorerOf(scorers, d.id) || 'not scored')}</code></td></tr>`;
  });
  rows.push(
    `<tr><th scope="row">S_fact (consistent, non-verified, inconsistent)</th><td class="num">${esc([s.factualConsistent, s.nonVerified, s.factualInconsistent].map((v) => num(v, 3)).join(', '))}</td><td class="text small">label <span class="label ${esc(s.factualityLabel ?? 'none')}">${esc(s.factualityLabel ?? '–')}</span></td></tr>`,
  );
  rows.push(
    `<tr><th scope="row">Helpfulness before max(0, ·)</th><td class="num">${esc(num(s.helpfulnessRaw))}</td><td class="text small">this item's; the run's table value is taken over the set from the losses below</td></tr>`,
  );
  parts.push(
    `<h2>Scores</h2><div class="scroll"><table class="metrics conner-scores"><thead><tr><th>Metric</th><th>Value</th><th>Scorer</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`,
  );

  const sentences = r.sentences ?? [];
  if (sentences.length) {
    const body = sentences.map((x, i) => {
      const verdict = VERDICTS[x.nli.indexOf(Math.max(...x.nli))] ?? '–';
      return `<tr><td class="num">${i + 1}</td><td class="text">${esc(x.sentence)}</td><td class="num">${esc(num(r.sentenceInversePerplexity?.[i]))}</td><td class="text evidence">${x.evidence ? `<span class="muted small">${esc(x.evidence.source)}</span><br>${esc(x.evidence.text)}` : '<span class="muted">no evidence (counted as non-verified)</span>'}</td><td><span class="verdict ${esc(verdict)}">${esc(verdict)}</span></td><td class="num">${esc(x.nli.map((p) => p.toFixed(3)).join(' / '))}</td><td class="num">${esc(x.candidates)}</td></tr>`;
    });
    parts.push(
      `<h2>Sentences and their evidence</h2><p class="muted small">Per sentence the evidence passage with the highest entailment of those checked, its NLI verdict and probabilities (entailment / neutral / contradiction), and 1/PPL of the sentence (Eq. 3).</p><div class="scroll"><table class="sentences"><thead><tr><th>#</th><th>Sentence</th><th>1/PPL</th><th>Evidence chosen</th><th>Verdict</th><th>P(e / n / c)</th><th>checked</th></tr></thead><tbody>${body.join('')}</tbody></table></div>`,
    );
  } else parts.push('<h2>Sentences and their evidence</h2><p class="empty">No sentence was checked (factuality not scored, or the knowledge is empty).</p>');

  parts.push(`<h2>Downstream answers</h2><div class="scroll"><table class="answers"><tbody>
<tr><th scope="row">Gold answer</th><td class="text">${r.goldAnswer === null ? '<span class="muted">none</span>' : esc(r.goldAnswer)}</td></tr>
<tr><th scope="row">Answer with the knowledge</th><td class="text response">${r.answer === null ? '<span class="muted">none</span>' : esc(r.answer)}</td></tr>
<tr><th scope="row">Answered by</th><td class="text">${r.answerer ? `<code>${esc(r.answerer)}</code>${r.answerer === r.generator ? ' <span class="muted">(the generator itself)</span>' : ''}` : '<span class="muted">not recorded</span>'}</td></tr>
<tr><th scope="row">Answer without it</th><td class="text response">${r.answerWithoutKnowledge === undefined || r.answerWithoutKnowledge === null ? '<span class="muted">not recorded</span>' : esc(r.answerWithoutKnowledge)}</td></tr>
</tbody></table></div>`);
  if (r.validityEvidence)
    parts.push(
      `<p class="small">Validity evidence (open answer, Eq. 8): <span class="muted">${esc(r.validityEvidence.source)}</span> ${esc(r.validityEvidence.text)}</p>`,
    );
  if (r.helpfulness)
    parts.push(
      `<p class="small">Helpfulness (Eq. 6): loss of the gold answer with this knowledge ${esc(r.helpfulness.loss.toFixed(4))}; with the other knowledge texts ${esc(r.helpfulness.baselineLosses.map((l) => l.toFixed(4)).join(', '))} (items ${esc(r.helpfulness.negatives.join(', '))}).</p>`,
    );
  if (r.notes?.length) parts.push(`<h3>Notes</h3><ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`);
  return parts.join('\n');
}
