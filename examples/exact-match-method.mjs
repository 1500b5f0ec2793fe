/**
 * The evaluation method of docs/method.md in plain JavaScript (node loads it with no loader):
 * exact-match accuracy of a QA set, written only against llmkb's public API. The same code with
 * its types is test/fixtures/exact-match-method/exact-match-method.ts, which the page walks
 * through; test/exact-match-example.test.ts keeps the two alike.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { METHOD_INTERFACE_VERSION, SUMMARY_SCHEMA, VERSION, normalizeAnswer, readJsonl, runStoredStage } from 'llmkb';

/** An item: a question and its accepted answers. */
const questionSchema = z.object({ id: z.string().min(1), question: z.string().min(1), answers: z.array(z.string()).min(1) });

/** Stage 1: ask every question (greedy, one line), resumably. */
async function answer(ctx) {
  const model = ctx.roles.model;
  await runStoredStage({
    run: ctx.run, stage: 'answer', items: ctx.items, idOf: (q) => q.id, concurrency: model.concurrency, ...(ctx.progress ? { progress: ctx.progress } : {}),
    work: async (q) => {
      const r = await model.complete({ prompt: `Q: ${q.question}\nA:`, maxTokens: 16, stop: ['\n'] });
      return { record: { ...q, response: r.value.text.trim(), callKey: r.key }, cached: r.cached };
    },
  });
}

/** Stage 2: SQuAD-normalised exact match, reading stage 1's records from the run store by id. */
async function score(ctx) {
  const run = ctx.run;
  await runStoredStage({
    run, stage: 'score', items: { ids: ctx.items.map((i) => i.id), load: (id) => run.record('answer', id) }, concurrency: 1, ...(ctx.progress ? { progress: ctx.progress } : {}),
    work: async (a) => ({ record: { ...a, correct: a.answers.some((g) => normalizeAnswer(g) === normalizeAnswer(a.response)) } }),
  });
}

function* scoredRecords(run) {
  for (const [, r] of run.entries('score')) yield r;
}

const presentation = {
  resultTable: (summaries) => summaries.map((s) => `${s.setting}: EM ${((s.metrics.EM ?? 0) * 100).toFixed(2)} (${s.counts.correct}/${s.counts.questions})`).join('\n'),
  view: {
    *items(run) {
      for (const { itemId, seq, fields } of run.project('score', { correct: '$.correct', question: '$.question', response: '$.response' })) yield { itemId, seq, label: fields.correct ? 'correct' : 'wrong', question: fields.question, response: fields.response };
    },
    itemOf: (r, seq) => ({ itemId: String(r.id ?? seq), seq, label: r.correct ? 'correct' : 'wrong', question: String(r.question ?? ''), response: String(r.response ?? '') }),
    itemTitles: { label: 'exact match', question: 'Question', response: 'Response', source: null, subtype: null, answerType: null, dataset: null, consistency: null },
    async itemPage(records, ctx) {
      const r = records.score ?? records.records ?? {};
      const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      return `<h2>Accepted answers</h2><p>${(r.answers ?? []).map(esc).join(' · ')}</p>${r.callKey ? `<h2>Call</h2>${ctx.exchange(r.callKey)}` : ''}`;
    },
  },
};

export const exactMatchMethod = {
  interfaceVersion: METHOD_INTERFACE_VERSION,
  id: 'exact-match',
  version: '1',
  title: 'Exact-match accuracy of a QA set',
  paper: 'none: a test fixture for the method seam',
  roles: [{ id: 'model', kind: 'text-generation', required: true, description: 'answers the questions' }],
  options: [{ key: 'questions', flags: '--questions <file>', type: 'string', path: 'input-file', required: true, description: 'the QA set (JSONL: id, question, answers)' }],
  stages: [
    { id: 'answer', description: 'ask every question (greedy, one line)', run: answer },
    { id: 'score', description: 'SQuAD-normalised exact match against the gold answers', run: score },
  ],
  metricDefs: [
    { id: 'EM', label: 'exact match', description: 'questions answered exactly right, over all questions', range: [0, 1], better: 'higher', format: 'percent', headline: true },
    { id: 'answered', label: 'answered', description: 'questions with a non-empty response', range: [0, 1], better: 'higher', format: 'percent' },
  ],
  async prepare(ctx) {
    const file = ctx.options.questions; // required: checked with the options, before prepare
    return { items: readJsonl(file, questionSchema, 'question', { uniqueIds: true }), datasets: { questions: createHash('sha256').update(readFileSync(file)).digest('hex') } };
  },
  runParams: () => ({ maxTokens: 16 }),
  outputRecords: async (run) => scoredRecords(run),
  async summarize(ctx) {
    let n = 0;
    let correct = 0;
    let answered = 0;
    for (const r of ctx.records) {
      n++;
      if (r.correct) correct++;
      if (r.response !== '') answered++;
    }
    return {
      summary: {
        schema: SUMMARY_SCHEMA, method: { id: 'exact-match', version: '1' }, llmkbVersion: VERSION, model: ctx.model, modelIdentity: ctx.modelIdentity, setting: ctx.setting,
        approximate: false, datasetChecksums: ctx.datasetChecksums, counts: { questions: n, correct, answered }, metricDefs: exactMatchMethod.metricDefs.map((d) => ({ ...d })),
        metrics: { EM: n ? correct / n : null, answered: n ? answered / n : null }, intervals: { EM: null, answered: null }, runId: ctx.runId,
      },
    };
  },
  presentation: async () => presentation,
};

export default exactMatchMethod;
