/**
 * `npm run bench:report`: the page weight and build time of `llmkb report` for the paper's 26 models x 3
 * settings (75 runs, N = L = 3,000 synthetic questions each, rebuilt from the published rates), with
 * records (significance marks, example responses) and without.
 */
import { renderReport } from '../src/report/html-report.js';
import { scored } from '../test/support/summaries.js';
import { paperRows, syntheticRecords } from '../test/support/paper-tables.js';
import { summarizeRun } from '../src/methods/reliability/metrics/summarize-run.js';
const rows = paperRows().filter((r) => r.C_correct !== null && r.UR !== null && r.CR !== null);
const records = rows.map((r) =>
  scored(syntheticRecords(r)).map((x) => ({ ...x, question: `Question ${x.id}?`, response: `answer ${x.id}`, answers: [`gold ${x.id}`] })),
);
const summaries = rows.map((r, i) =>
  summarizeRun(records[i]!, {
    model: r.model,
    setting: r.setting,
    resamples: 20,
    meta: { paramsB: Number.parseFloat(r.params) || 175, fineTuned: /chat|Instruct|Flan|GPT/.test(r.family) },
  }),
);
const t = performance.now();
const html = await renderReport(summaries, { records });
console.log(
  `${summaries.length} runs with records (${records[0]!.length} items each): ${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB, built in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);
const html2 = await renderReport(summaries);
console.log(`without records: ${(Buffer.byteLength(html2) / 1024).toFixed(0)} KiB`);
// CONNER: 3 generators x 2 settings over the same 500 queries, with their records (paired differences, examples).
const { connerRecord } = await import('../test/support/conner-fixture.js');
const { connerRunSummaries } = await import('../src/methods/conner/summary/conner-summary.js');
const { CONNER_FIXTURE_RUN } = await import('../test/support/conner-fixture.js');
const connerRecs = (
  [
    ['gen-a', 0.8],
    ['gen-b', 0.5],
    ['gen-c', 0.3],
  ] as const
).flatMap(([g, q]) => ['zero-shot', 'few-shot'].flatMap((setting) => Array.from({ length: 500 }, (_, i) => connerRecord(i, g, q, { setting }))));
const connerSummaries = connerRunSummaries(connerRecs, { resamples: 200, seed: 0, run: CONNER_FIXTURE_RUN });
const t3 = performance.now();
const html3 = await renderReport(connerSummaries, {
  records: connerSummaries.map((s) => connerRecs.filter((r) => r.generator === s.model && r.setting === s.setting)),
});
console.log(
  `CONNER: ${connerSummaries.length} runs with records (500 items each): ${(Buffer.byteLength(html3) / 1024).toFixed(0)} KiB, built in ${((performance.now() - t3) / 1000).toFixed(1)} s`,
);
