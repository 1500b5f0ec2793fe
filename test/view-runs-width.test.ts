/**
 * The viewer's runs list from a results folder (`llmkb view FOLDER`, no store): a run's warning
 * badge and confidence intervals as from the store, and at 1,400 px every column visible (a model
 * identity's hash is cut short, whole on hover), with a screenshot kept in test-artifacts/.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { startViewServer } from '../src/view/view-server.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const CHROMIUM = process.env.LLMKB_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const ARTIFACTS = resolve(process.env.LLMKB_TEST_ARTIFACTS ?? 'test-artifacts');

describe('the runs list of a results folder at 1,400 px', { skip: hasChromium ? false : `no Chromium at ${CHROMIUM}` }, () => {
  const dir = tempDir('llmkb-view-width-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('shows the warning badge and CIs, a short model identity, and IUR, Stages and Updated inside the window', async () => {
    const qa = Array.from({ length: 8 }, (_, i) =>
      JSON.stringify({
        id: `q${i}`,
        dataset: i < 4 ? 'seen' : 'unseen',
        source: 'mine',
        question: `What is the capital number ${i}?`,
        answers: i < 4 ? ['Paris'] : [],
      }),
    );
    writeFileSync(join(dir, 'q.jsonl'), `${qa.join('\n')}\n`);
    // Every MCQ answered with a letter that is no option: the run's summary warns about its consistency metrics.
    writeFileSync(
      join(dir, 'm.jsonl'),
      `${JSON.stringify({ contains: 'multi-choice', reply: ' Z' })}\n${JSON.stringify({ default: true, reply: ' Paris' })}\n`,
    );
    const r = await llmkb(
      ['--store', join(dir, 's.sqlite'), 'eval', '--model', 'mock:m.jsonl', '--input', 'q.jsonl', '--settings', 'zero-shot', '--mcqs', '2', '--out', 'res'],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
    const view = await startViewServer({ resultsDir: join(dir, 'res'), port: 0 });
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 700 } });
      await page.goto(`${view.url}/`);
      const row = page.locator('table.runs tbody tr');
      assert.equal(await row.count(), 1);
      assert.equal(await row.locator('.badge.warning').count(), 1, 'the warning badge, read from the summary file');
      assert.ok((await row.locator('.ci').count()) >= 6, 'a confidence interval under each headline metric');
      const identity = row.locator('.identity');
      assert.match(await identity.innerText(), /^mock:sha256=[0-9a-f]{12}…$/);
      assert.match((await identity.getAttribute('title')) ?? '', /^mock:sha256=[0-9a-f]{64}$/, 'the whole identity on hover');
      for (const name of ['IUR', 'Stages', 'Updated']) {
        const box = await page.locator('table.runs thead th', { hasText: name }).boundingBox();
        assert.ok(box && box.x + box.width <= 1400, `${name} column inside the 1,400 px window (${JSON.stringify(box)})`);
      }
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'view-runs-1400.png'), fullPage: true });
    } finally {
      await browser.close();
      await view.close();
    }
  });
});
