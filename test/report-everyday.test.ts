/**
 * The report a researcher reads every day (issue 40, item 6): a one-run report leaves out the
 * figures it cannot draw and names them in one line; "Read with care" says each warning once,
 * naming the runs it applies to; the departures box links to the docs page; the paper's tables
 * carry the Params column.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderReport } from '../src/report/html-report.js';
import { buildProtocol } from '../src/methods/reliability/protocol.js';
import { formatParams } from '../src/methods/reliability/across-runs/report-sections.js';
import { DOCS_URL_BASE } from '../src/docs-url.js';
import { placeLabels } from '../src/methods/reliability/across-runs/scatter-labels.js';
import { paperSummaries } from './support/summaries.js';

const three = () => paperSummaries(['zero-shot', 'four-shot', 'four-shot-2']).filter((s) => s.model === 'Llama3 8B');

describe('report for everyday use', () => {
  it('a one-run report draws no empty figure: the figures it cannot draw are named in one line with the reason', async () => {
    const html = await renderReport(three().slice(0, 1));
    assert.doesNotMatch(html, /not drawn\./, 'no "not drawn" box');
    assert.doesNotMatch(html, /<figure class="chart empty"/);
    const line = /<p class="note" id="not-drawn">(.*?)<\/p>/.exec(html)?.[1] ?? '';
    assert.match(line, /Ranking by NCCR, Ranking by IUR<\/strong>: A ranking needs two or more runs/, 'the two rankings share one reason');
    assert.match(line, /Figure 3\(c\): in-context learning.*more than one prompt setting/);
    assert.match(line, /Figure 3\(a\): model size/);
    assert.ok(!/id="fig3a"|id="rank-IUR"/.test(html), 'a figure not drawn has no element');
    assert.ok((html.match(/<figure class="chart"/g) ?? []).length >= 3, 'the scatter plots are drawn');
  });

  it("a scatter label keeps clear of the axes (the plot's left and bottom edges)", () => {
    const g = { x: [0, 100] as [number, number], y: [0, 100] as [number, number], width: 300, height: 300, fontSize: 8, pointRadius: 5 };
    // Points whose label, beside them, would end on the bottom edge (y = 5 px above it) or start on the left one.
    const points = [
      { x: 50, y: (5 / 300) * 100, text: 'near the x axis' },
      { x: 30, y: 50, text: 'a label long enough to go left' },
      { x: 99, y: 50, text: 'right edge' },
    ];
    const { labels } = placeLabels(points, g);
    const px = (x: number) => (x / 100) * 300;
    const py = (y: number) => 300 - (y / 100) * 300;
    for (const l of labels) {
      const w = l.text.length * 0.6 * g.fontSize;
      const h = g.fontSize + 2;
      assert.ok(py(l.y) + h / 2 <= 300 - 2, `"${l.text}" ends on the x axis: bottom ${py(l.y) + h / 2}`);
      assert.ok(px(l.x) >= 2 && px(l.x) + w <= 300 - 2, `"${l.text}" touches a side: ${px(l.x)}..${px(l.x) + w}`);
    }
    assert.equal(labels.length, 3);
  });

  it('"Read with care" names each warning once, with the runs it applies to', async () => {
    const runs = three().map((s) => ({ ...s, warnings: [{ message: 'only 30 questions: wide intervals', metrics: ['UR'] }] }));
    runs.push({
      ...runs[0]!,
      model: 'other',
      warnings: [
        { message: 'only 30 questions: wide intervals', metrics: ['UR'] },
        { message: 'its own', metrics: [] },
      ],
    });
    const html = await renderReport(runs);
    const box = /<section class="warn" id="warnings">(.*?)<\/section>/s.exec(html)?.[1] ?? '';
    assert.equal((box.match(/only 30 questions/g) ?? []).length, 1, box);
    assert.match(box, /<strong>all runs<\/strong>: only 30 questions/);
    assert.match(box, /<strong>other \(zero-shot\)<\/strong>: its own/);
    const some = await renderReport([...runs.slice(0, 2), { ...runs[2]!, warnings: [] }]);
    assert.match(some, /<strong>Llama3 8B \(zero-shot, four-shot\)<\/strong>: only 30 questions/);
  });

  it('the departures box links to the docs page, an absolute address with its anchor', async () => {
    const run = three()[0]!;
    const protocol = buildProtocol({
      setting: 'zero-shot',
      lexicalJudge: { id: 'lexical-v2', note: 'agrees with humans 90%' },
      shotSelector: 'bm25-v1',
      mode: 'logprobs',
      questions: { seen: 10, unseen: 10 },
      mcqs: 20,
      maxTokens: 100,
      computeBackend: 'cpu',
      datasets: {},
      seed: 1,
    });
    const html = await renderReport([{ ...run, protocol }]);
    const box = /<section class="warn" id="departures">(.*?)<\/section>/s.exec(html)?.[1] ?? '';
    assert.ok(DOCS_URL_BASE.startsWith('https://'));
    assert.ok(box.includes(`<a href="${DOCS_URL_BASE}reliability.md#how-close-to-the-paper-is-a-run">`), box);
    assert.doesNotMatch(box, /in the package/);
  });

  it("the paper's tables carry the Params column, '-' when a run does not give its size", async () => {
    const runs = three().slice(0, 1);
    const html = await renderReport([runs[0]!, { ...runs[0]!, model: 'unsized', meta: {} }]);
    for (const t of ['table9', 'table10', 'table11']) {
      const table = new RegExp(`<table class="paper" id="${t}">(.*?)</table>`, 's').exec(html)![1]!;
      assert.match(table, /<th rowspan="2" scope="col"[^>]*>Params<\/th>/);
      assert.match(table, /<tr><th scope="row">Llama3 8B<\/th><td>8B<\/td>/);
      assert.match(table, /<tr><th scope="row">unsized<\/th><td>-<\/td>/);
    }
    assert.deepEqual([formatParams(70), formatParams(0.00026), formatParams(0.35), formatParams(undefined)], ['70B', '260K', '350M', '-']);
  });
});
