import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { renderReport } from '../src/report/html-report.js';
import { paperSummaries } from './support/summaries.js';

const CHROMIUM = process.env.LLMKB_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) process.stderr.write(`SKIPPED: report browser tests need Chromium at ${CHROMIUM} (Debian package "chromium", installed by .ci/run)\n`);

/** Screenshots are kept as CI artifacts here. */
const ARTIFACTS = resolve(process.env.LLMKB_TEST_ARTIFACTS ?? 'test-artifacts');

describe('HTML report in headless Chromium', { skip: hasChromium ? false : `no Chromium at ${CHROMIUM}` }, () => {
  let browser: Browser;
  before(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'] });
    mkdirSync(ARTIFACTS, { recursive: true });
    process.stdout.write(`report screenshots: ${ARTIFACTS}\n`);
  });
  after(() => browser?.close());

  async function open(html: string, name: string) {
    const file = join(mkdtempSync(join(tmpdir(), 'llmkb-report-')), `${name}.html`);
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
    assert.ok(titles.every((w) => w > 200), 'charts have a size');
    await page.close();
  });

  it('stays small and fast for 30 models x 3 settings', async () => {
    const base = paperSummaries(['zero-shot', 'four-shot', 'four-shot-2'], 10);
    const summaries = [...base];
    for (let i = 0; summaries.length < 90; i++) summaries.push({ ...base[i % base.length]!, model: `extra-model-${i % 10}`, setting: base[i % base.length]!.setting });
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
