import assert from 'node:assert/strict';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { renderReport } from '../src/report/html-report.js';
import { paperSummaries, scored } from './support/summaries.js';
import { paperRows, syntheticRecords } from './support/paper-tables.js';
import { summarizeRun } from '../src/methods/reliability/metrics/summarize-run.js';
import { tempDir } from './support/temp-dir.js';

const CHROMIUM = process.env.LLMKB_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) process.stderr.write(`SKIPPED: report browser tests need Chromium at ${CHROMIUM} (Debian package "chromium", installed by .ci/run)\n`);

/** Screenshots are kept as CI artifacts here. */
const ARTIFACTS = resolve(process.env.LLMKB_TEST_ARTIFACTS ?? 'test-artifacts');

/**
 * A sweep's runs as a first-time user makes them: one model file under two labels (tiny-a and
 * tiny-b, the same numbers), and a model labelled by its whole spec, in the three settings.
 */
function sweepSummaries() {
  const rows = paperSummaries(['zero-shot', 'four-shot', 'four-shot-2']);
  const of = (model: string) => rows.filter((s) => s.model === model);
  return [
    ...of('Llama3 8B').map((s) => ({ ...s, model: 'tiny-a', meta: { paramsB: 0.0003 } })),
    ...of('Llama3 8B').map((s) => ({ ...s, model: 'tiny-b', meta: { paramsB: 0.0003 } })),
    ...of('Gemma 7B').map((s) => ({ ...s, model: 'gguf:/work/shared/models/some-much-longer-model-name.Q4_K_M.gguf', meta: { paramsB: 7 } })),
  ];
}

describe('HTML report in headless Chromium', { skip: hasChromium ? false : `no Chromium at ${CHROMIUM}` }, () => {
  let browser: Browser;
  before(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    });
    mkdirSync(ARTIFACTS, { recursive: true });
    process.stdout.write(`report screenshots: ${ARTIFACTS}\n`);
  });
  after(() => browser?.close());

  async function open(html: string, name: string) {
    const file = join(tempDir('llmkb-report-'), `${name}.html`);
    writeFileSync(file, html);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(`file://${file}`);
    await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    return { page, problems, requests, file };
  }

  it("renders the paper's 26 models: tables and charts, no console errors, no network, model text escaped", async () => {
    const summaries = paperSummaries(['zero-shot']);
    summaries[0]!.model = '<script>alert("x")</script> & <img src=x onerror=alert(1)>';
    const { page, problems, requests } = await open(await renderReport(summaries), 'report-paper-zero-shot');
    assert.deepEqual(problems, []);
    assert.deepEqual(requests, []);
    assert.equal(await page.locator('script').count(), 0);
    assert.equal(await page.locator('img').count(), 0, 'the model name is text, not markup');
    assert.ok((await page.locator('figure.chart svg').count()) >= 6, 'scatter x3, rankings x2, heat map');
    assert.ok((await page.locator('figure.chart svg path, figure.chart svg rect').count()) > 50, 'the charts have marks');
    assert.match(await page.locator('h2').first().innerText(), /Table 9/);
    assert.ok((await page.getByText('<script>alert("x")</script>', { exact: false }).count()) > 0, 'shown as text');
    const titles = await page.locator('figure.chart svg').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
    assert.ok(
      titles.every((w) => w > 200),
      'charts have a size',
    );
    await page.close();
  });

  it('reads like the paper: grouped headers, CIs, significance marks, every figure or a note why not, examples, narrow screens scroll, prints', async () => {
    // Three models in two settings with their records: marks from the paired bootstrap.
    const rows = paperRows().filter((r) => ['Llama3 8B', 'Llama3Instruct 8B', 'Gemma 7B'].includes(r.model) && r.setting !== 'four-shot-2');
    const records = rows.map((r) =>
      scored(syntheticRecords(r, 600, 600)).map((x) => ({
        ...x,
        question: `Question ${x.id} of ${r.model}?`,
        response: x.label === 'uninformative' ? 'unsure' : `<b>answer</b> ${x.id}`,
        answers: [`gold ${x.id}`],
      })),
    );
    const summaries = rows.map((r, i) => summarizeRun(records[i]!, { model: r.model, setting: r.setting, resamples: 50 }));
    const { page, problems } = await open(await renderReport(summaries, { records }), 'report-three-models');
    assert.deepEqual(problems, []);
    // Grouped headers: a setting spans its four metrics.
    assert.deepEqual(await page.locator('#table9 thead tr').first().locator('th[colspan="4"]').allInnerTexts(), ['zero-shot', 'four-shot']);
    assert.ok((await page.locator('#table9 tbody .ci').count()) > 0, 'CIs in the tables');
    assert.ok((await page.locator('#table11 td.best').count()) >= 8, 'a best run per setting and column');
    assert.match(await page.locator('p.note').first().innerText(), /paired bootstrap/);
    // No size or type metadata: notes instead of empty charts.
    assert.equal(await page.locator('figure.empty').count(), 0, 'no empty figure box');
    const notes = await page.locator('#not-drawn').innerText();
    assert.match(notes, /Add --params to plot size/);
    assert.match(notes, /Add --fine-tuned/);
    assert.ok((await page.locator('#fig3c svg').count()) === 1, 'ICL drawn: the models ran in two settings');
    // UR's axis spans 0..100, NCR's -100..100 (their ranges).
    const ticks = await page.locator('#fig7a svg .role-axis-label text').evaluateAll((els) => els.map((e) => e.textContent ?? ''));
    const urAxis = ticks.slice(0, ticks.indexOf('100') + 1);
    assert.equal(urAxis[0], '0', `UR axis from 0: ${ticks.join(',')}`);
    assert.ok(
      urAxis.every((t) => !t.startsWith('−')),
      'the UR axis does not go below 0',
    );
    assert.ok(ticks.slice(urAxis.length).includes('−100'), 'the NCR axis spans -100..100');
    // Example responses, escaped.
    assert.ok((await page.locator('table.examples').count()) === summaries.length);
    assert.equal(await page.locator('table.examples b').count(), 0);
    // Narrow screen: the page does not overflow, the tables scroll.
    await page.setViewportSize({ width: 480, height: 900 });
    assert.ok((await page.locator('html').evaluate((e) => e.scrollWidth)) <= 500, 'no page-wide horizontal overflow');
    assert.ok(await page.locator('#table10').evaluate((t) => t.parentElement!.scrollWidth > t.parentElement!.clientWidth), 'Table 10 scrolls inside its box');
    await page.screenshot({ path: join(ARTIFACTS, 'report-narrow.png'), fullPage: false });
    const pdf = await page.pdf({ format: 'A4', landscape: true });
    writeFileSync(join(ARTIFACTS, 'report-print.pdf'), pdf);
    assert.ok(pdf.length > 10_000);
    await page.close();
  });

  /** Elements that scroll sideways at the page's width (the page itself, a table's box, a figure). */
  async function sideways(page: import('playwright-core').Page): Promise<string[]> {
    const out: string[] = [];
    const page_ = await page.locator('html').evaluate((e) => e.scrollWidth);
    if (page_ > page.viewportSize()!.width) out.push(`the page: ${page_} px`);
    const boxes = await page
      .locator('.scroll, figure')
      .evaluateAll((els) => els.map((el) => ({ name: el.id || el.querySelector('table')?.id || el.tagName, scroll: el.scrollWidth, client: el.clientWidth })));
    for (const b of boxes) if (b.scroll > b.client + 1) out.push(`${b.name}: ${b.scroll} > ${b.client} px`);
    return out;
  }

  it("at 1,400 px nothing scrolls sideways: the paper's 26 models in three settings, and a sweep with long labels and one model under two labels", async () => {
    const paper = paperSummaries(['zero-shot', 'four-shot', 'four-shot-2']);
    const { page } = await open(await renderReport(paper), 'report-1400-paper');
    await page.setViewportSize({ width: 1400, height: 900 });
    assert.deepEqual(await sideways(page), []);
    await page.screenshot({ path: join(ARTIFACTS, 'report-1400-paper.png'), fullPage: true });
    await page.close();
    const { page: sweep } = await open(await renderReport(sweepSummaries()), 'report-1400-sweep');
    await sweep.setViewportSize({ width: 1400, height: 900 });
    assert.deepEqual(await sideways(sweep), []);
    await sweep.screenshot({ path: join(ARTIFACTS, 'report-1400-sweep.png'), fullPage: true });
    // Table 10 shows its last setting whole.
    assert.match(await sweep.locator('#table10 thead').innerText(), /four-shot-2/);
    await sweep.close();
  });

  it("scatter labels clear of the axes: the paper's 26 models in two settings", async () => {
    const { page } = await open(await renderReport(paperSummaries(['zero-shot', 'four-shot'])), 'report-scatter-axes');
    for (const id of ['fig7a', 'fig7b', 'fig7c']) {
      const boxes = (selector: string) =>
        page.locator(`#${id} svg ${selector}`).evaluateAll((els) =>
          els.map((e) => ({
            text: e.textContent ?? '',
            left: e.getBoundingClientRect().left,
            right: e.getBoundingClientRect().right,
            top: e.getBoundingClientRect().top,
            bottom: e.getBoundingClientRect().bottom,
          })),
        );
      const plot = (await boxes('path.background')).sort((a, b) => (b.right - b.left) * (b.bottom - b.top) - (a.right - a.left) * (a.bottom - a.top))[0]!;
      const labels = await boxes('g.mark-text.role-mark text');
      assert.ok(labels.length > 5, `${id}: labels drawn`);
      // The axes are the plot's left and bottom edges: a label keeps clear of them (and of the other two edges).
      for (const l of labels)
        assert.ok(
          l.left > plot.left + 1 && l.bottom < plot.bottom - 1 && l.right < plot.right - 1 && l.top > plot.top + 1,
          `${id}: "${l.text}" touches the plot's edge: ${JSON.stringify({ l, plot })}`,
        );
    }
    await page.close();
  });

  it('scatter labels: one per place naming every run there, never over another label or a point, never outside the plot', async () => {
    const summaries = sweepSummaries();
    const { page } = await open(await renderReport(summaries), 'report-scatter-labels');
    for (const id of ['fig7a', 'fig7b', 'fig7c']) {
      // Boxes in the page (no named helper inside evaluate: the test's transpiler would wrap it in a function the page lacks).
      const boxes = (selector: string) =>
        page.locator(`#${id} svg ${selector}`).evaluateAll((els) =>
          els.map((e) => ({
            text: e.textContent ?? '',
            left: e.getBoundingClientRect().left,
            right: e.getBoundingClientRect().right,
            top: e.getBoundingClientRect().top,
            bottom: e.getBoundingClientRect().bottom,
          })),
        );
      const plot = (await boxes('path.background')).sort((a, b) => (b.right - b.left) * (b.bottom - b.top) - (a.right - a.left) * (a.bottom - a.top))[0]!;
      const labels = await boxes('g.mark-text.role-mark text');
      const points = await boxes('g.mark-symbol.role-mark path');
      const overlap = (a: typeof plot, b: typeof plot) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
      for (const l of labels) {
        assert.ok(
          l.left >= plot.left - 1 && l.right <= plot.right + 1 && l.top >= plot.top - 1 && l.bottom <= plot.bottom + 1,
          `${id}: "${l.text}" runs outside the plot`,
        );
        for (const p of points) assert.ok(!overlap(l, p), `${id}: "${l.text}" covers a point`);
      }
      labels.forEach((a, i) => labels.slice(i + 1).forEach((b) => assert.ok(!overlap(a, b), `${id}: "${a.text}" and "${b.text}" overlap`)));
      // Every run is named: on the plot (two labels of one model file at one place share one label) or in the caption.
      const caption = await page.locator(`#${id} figcaption`).innerText();
      const named = `${labels.map((l) => l.text).join(' | ')} ${caption}`;
      for (const model of new Set(summaries.map((s) => s.model))) assert.ok(named.includes(model), `${id}: ${model} is named nowhere: ${named}`);
      assert.ok(
        labels.some((l) => l.text === 'tiny-a, tiny-b'),
        `${id}: one label for the two labels of one model: ${labels.map((l) => l.text).join(' | ')}`,
      );
      assert.equal(labels.filter((l) => l.text === 'tiny-a').length, 0, 'no label of one of them alone over the other');
    }
    await page.close();
  });

  it('asks for --params only when some runs lack their size', async () => {
    const noteOf = async (summaries: Parameters<typeof renderReport>[0]) => {
      const html = await renderReport(summaries);
      return /<p class="note" id="not-drawn">.*?Figure 3\(a\): model size[^<]*<\/strong>: ([^<]*)/.exec(html)?.[1] ?? '';
    };
    const allSmall = sweepSummaries().map((s) => ({ ...s, meta: { paramsB: 1 } }));
    const note = await noteOf(allSmall);
    assert.match(note, /9 of 9 runs give their size, all small/);
    assert.doesNotMatch(note, /Add --params/);
    assert.match(await noteOf(allSmall.map((s, i) => (i === 0 ? { ...s, meta: {} } : s))), /8 of 9 runs give their size.*Add --params to plot size/);
  });

  it('stays small and fast for 30 models x 3 settings', async () => {
    const base = paperSummaries(['zero-shot', 'four-shot', 'four-shot-2'], 10);
    const summaries = [...base];
    for (let i = 0; summaries.length < 90; i++)
      summaries.push({ ...base[i % base.length]!, model: `extra-model-${i % 10}`, setting: base[i % base.length]!.setting });
    const started = performance.now();
    const html = await renderReport(summaries.slice(0, 90));
    const seconds = (performance.now() - started) / 1000;
    const { page, problems, file } = await open(html, 'report-90-runs');
    assert.deepEqual(problems, []);
    const bytes = statSync(file).size;
    process.stdout.write(`90-run report: ${(bytes / 1024).toFixed(0)} KiB, built in ${seconds.toFixed(1)} s\n`);
    assert.ok(bytes < 5 * 1024 * 1024, `${bytes} bytes`);
    assert.equal(await page.locator('details').count(), 90);
    await page.close();
  });
});
