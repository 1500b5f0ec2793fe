/**
 * A reliability item in `llmkb view`: the question and its accepted answers, the prompt sent (from
 * the call cache), the response as judged and as generated, why it got its label (the rule or the
 * judge's exchange), and its consistency: the distractors and every MCQ with the option chosen.
 * Every piece of model or user text is escaped.
 */
import { escapeHtml } from '../../html-parts.js';
import { generationCallKey } from '../../../executor/call-key.js';
import type { ItemPageContext } from '../../method-presentation.js';
import { ANSWER_MAX_TOKENS } from '../defaults.js';
import { MCQ_INSTRUCTION, qaPrompt } from '../prompts/paper-prompts.js';
import { mcqPrompt } from '../consistency/mcq.js';

const esc = (v: unknown): string => escapeHtml(v === null || v === undefined ? '' : String(v));
const pre = (text: unknown, className = ''): string =>
  `<pre class="${className}">${esc(typeof text === 'string' ? text : JSON.stringify(text, null, 2))}</pre>`;

/** Call keys anywhere at the top of a record or its decision. */
function callKeysOf(record: Record<string, unknown> | undefined): string[] {
  if (!record) return [];
  const out: string[] = [];
  const take = (v: unknown) => {
    if (typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)) out.push(v);
    else if (Array.isArray(v)) v.forEach(take);
  };
  for (const [k, v] of Object.entries(record)) if (/callKeys?$|^cacheKeys?$/.test(k)) take(v);
  return out;
}

function promptSection(ctx: ItemPageContext, record: Record<string, unknown>): string {
  const keys = callKeysOf(record);
  if (keys.length) return `<h2>Prompt sent</h2>${keys.map((k) => ctx.exchange(k)).join('')}`;
  const question = typeof record.question === 'string' ? record.question : undefined;
  const shots = Array.isArray(record.shots) ? (record.shots as unknown[]) : [];
  if (!question) return '';
  if (shots.length === 0 && ctx.modelIdentity) {
    // Zero-shot, from records made before they kept their call's key: the prompt is the question in Table 6's template; the cache confirms it was the one sent.
    // Such records predate served identities in keys, so their calls are keyed by the model's identity alone (records since keep the exact key).
    const prompt = qaPrompt(question);
    const maxTokens = typeof ctx.params?.maxTokens === 'number' ? ctx.params.maxTokens : ANSWER_MAX_TOKENS;
    const { key } = generationCallKey(ctx.modelIdentity, 'complete', { prompt, maxTokens });
    if (ctx.hasCall(key)) return `<h2>Prompt sent</h2>${ctx.exchange(key)}`;
    return `<h2>Prompt sent</h2><p class="muted small">Rebuilt from Table 6's template (not found in the call cache).</p>${pre(prompt, 'prompt')}`;
  }
  if (shots.length === 0)
    return `<h2>Prompt sent</h2><p class="muted small">Rebuilt from Table 6's template (zero-shot).</p>${pre(qaPrompt(question), 'prompt')}`;
  return `<h2>Prompt sent</h2><p class="muted small">${shots.length} shot(s): ${esc(shots.join(', '))}. This run's records do not keep the call keys, so the exact prompt with its shots is not shown.</p>`;
}

/**
 * The exact prompt of the item's first MCQ (the others differ only in their options' order and
 * distractors): from the call cache when it holds the call, else rebuilt (zero-shot) or, for a
 * few-shot run, its instruction line at least.
 */
function mcqPromptSection(ctx: ItemPageContext, first: Record<string, unknown>, question: string, fewShot: boolean): string {
  const head = '<h4>Prompt of MCQ 1</h4>';
  if (typeof first.callKey === 'string' && ctx.hasCall(first.callKey)) return `${head}${ctx.exchange(first.callKey)}`;
  const options = (first.options as string[] | undefined) ?? [];
  if (!fewShot && question)
    return `${head}<p class="muted small">Rebuilt from the MCQ template (not found in the call cache).</p>${pre(mcqPrompt(question, { options, responseLetter: 'A', unsureLetter: 'A' }), 'prompt')}`;
  return `${head}<p class="muted small">Not in the call cache; its instruction line:</p>${pre(MCQ_INSTRUCTION, 'prompt')}`;
}

function mcqTable(mcqs: Array<Record<string, unknown>>, mode: string | undefined): string {
  const letters = ['A', 'B', 'C', 'D', 'E'];
  return `<div class="scroll"><table class="mcqs"><thead><tr><th>#</th><th>Options</th><th>Chosen</th><th>Parse</th>${mode === 'logprobs' ? '<th>P(chosen)</th>' : '<th>Raw output</th>'}</tr></thead><tbody>${mcqs
    .map((m, i) => {
      const options = (m.options as string[] | undefined) ?? [];
      let probability = '';
      if (mode === 'logprobs' && typeof m.raw === 'string') {
        try {
          const lps = JSON.parse(m.raw) as Record<string, number | null>;
          const ps = Object.fromEntries(Object.entries(lps).map(([k, v]) => [k, v === null ? 0 : Math.exp(v)]));
          const total = Object.values(ps).reduce((a, b) => a + b, 0);
          if (typeof m.choice === 'string')
            probability = `${(ps[m.choice] ?? 0).toFixed(3)}${total > 0 ? ` (${((ps[m.choice] ?? 0) / total).toFixed(3)} among the letters)` : ''}`;
        } catch {
          probability = '';
        }
      }
      const opts = options.map((o, j) => {
        const l = letters[j]!;
        const marks = [
          l === m.responseLetter ? '<span class="mark resp" title="the response">response</span>' : '',
          l === m.unsureLetter ? '<span class="mark unsure">unsure</span>' : '',
          l === m.choice ? '<span class="mark chosen">chosen</span>' : '',
        ].join('');
        return `<li class="${l === m.choice ? 'chosen' : ''}"><strong>${l}.</strong> ${esc(o)} ${marks}</li>`;
      });
      return `<tr><td class="num">${i + 1}</td><td><ol class="options">${opts.join('')}</ol></td><td>${esc(m.choice ?? '–')}${m.choseResponse ? ' ✓' : ''}</td><td>${esc(m.parse)}</td><td class="text">${mode === 'logprobs' ? esc(probability) : esc(m.raw)}</td></tr>`;
    })
    .join('')}</tbody></table></div>`;
}

export async function reliabilityItemPage(recs: Readonly<Record<string, Record<string, unknown>>>, ctx: ItemPageContext): Promise<string> {
  const row = ctx.item;
  const ask = recs.ask ?? recs.records ?? {};
  const judged = recs.judge ?? recs.records ?? {};
  const cons = recs.consistency as Record<string, unknown> | undefined;
  const parts: string[] = [];
  parts.push(
    `<p class="muted">${esc(ctx.runLabel)} · ${esc(ctx.setting)} · ${esc(row.dataset)} · source ${esc(row.source)}${row.answerType ? ` · answer type ${esc(row.answerType)}` : ''}</p>`,
  );
  parts.push(`<h2>Question</h2>${pre(row.question, 'question')}`);
  const answers = (judged.answers ?? ask.answers) as string[] | undefined;
  if (answers?.length) parts.push(`<p><strong>Accepted answers</strong>: ${answers.map((a) => `<span class="answer">${esc(a)}</span>`).join(' · ')}</p>`);
  parts.push(promptSection(ctx, ask));
  const raw = (ask.rawResponse ?? judged.rawResponse) as string | undefined;
  parts.push(
    `<h2>Response</h2><div class="two"><div><h4>Cut (what was judged)</h4>${pre(row.response, 'response')}</div>${raw !== undefined ? `<div><h4>Raw (everything generated)</h4>${pre(raw, 'response raw')}</div>` : ''}</div>`,
  );
  if (ask.finishReason)
    parts.push(
      `<p class="muted small">finish reason ${esc(ask.finishReason)}${ask.shotsDropped ? ` · ${esc(ask.shotsDropped)} shot(s) dropped to fit` : ''}</p>`,
    );
  // Why it got its label.
  const decision = judged.decision as { by?: string; detail?: string; replies?: string[]; callKeys?: string[] } | undefined;
  if (row.label) {
    parts.push(`<h2>Why "${esc(row.label)}"${row.subtype ? ` (${esc(row.subtype)})` : ''}</h2>`);
    parts.push(
      `<p>Decided by <code>${esc(decision?.by ?? row.judgedBy ?? '?')}</code>${decision?.detail ? `: ${esc(decision.detail)}` : ''}${judged.approximate ? ' <span class="badge approx">approximate</span>' : ''}</p>`,
    );
    const keys = decision?.callKeys ?? [];
    if (keys.length) parts.push(`<h3>Judge exchange</h3>${keys.map((k) => ctx.exchange(k)).join('')}`);
    else if (decision?.replies?.length) parts.push(`<h3>Judge replies</h3>${decision.replies.map((r) => pre(r)).join('')}`);
  }
  // Consistency: distractors and every MCQ.
  if (cons || (row.consistency !== null && row.consistency !== undefined)) {
    parts.push(`<h2>Consistency ${typeof row.consistency === 'number' ? `Cons = ${esc(row.consistency.toFixed(2))}` : ''}</h2>`);
    const distractors = cons?.distractors as { distractors?: string[]; source?: string; toppedUp?: number } | undefined;
    if (distractors?.distractors)
      parts.push(
        `<h3>Distractors <span class="muted small">(${esc(distractors.source)}${distractors.toppedUp ? `, ${esc(distractors.toppedUp)} from the answer pool` : ''})</span></h3><ol class="distractors">${distractors.distractors.map((d) => `<li>${esc(d)}</li>`).join('')}</ol>`,
      );
    const mcqs = cons?.mcqs as Array<Record<string, unknown>> | undefined;
    if (mcqs?.length)
      parts.push(
        `<h3>MCQs (${mcqs.length}, ${esc(cons?.mode ?? '')})</h3>${mcqPromptSection(ctx, mcqs[0]!, typeof row.question === 'string' ? row.question : '', Array.isArray(ask.shots) && ask.shots.length > 0)}${mcqTable(mcqs, cons?.mode as string | undefined)}`,
      );
    else if (judged.consistencyDetail)
      parts.push(
        `<p class="muted">The records file keeps only the counts: ${esc(JSON.stringify(judged.consistencyDetail))}. The MCQs are in the run store.</p>`,
      );
  }
  return parts.join('\n');
}
