/**
 * `llmkb view` in headless Chromium: navigation, filters, an item page, a comparison, a hostile
 * response, and a screenshot of each page (kept in test-artifacts/ as a CI artifact).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startViewServer, type ViewServer } from '../src/view/view-server.js';
import { connerRecords, writeConnerResults } from './support/conner-fixture.js';
import { HOSTILE, writeFixtureResults, writeFixtureStore, type FixtureRun } from './support/view-fixture.js';
import { tempDir } from './support/temp-dir.js';

const CHROMIUM = process.env.LLMKB_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) process.stderr.write(`SKIPPED: view browser tests need Chromium at ${CHROMIUM} (Debian package "chromium", installed by .ci/run)\n`);
const ARTIFACTS = resolve(process.env.LLMKB_TEST_ARTIFACTS ?? 'test-artifacts');

describe('llmkb view in headless Chromium', { skip: hasChromium ? false : `no Chromium at ${CHROMIUM}` }, () => {
  let browser: Browser;
  let view: ViewServer;
  let connerView: ViewServer;
  let runs: FixtureRun[];
  const problems: string[] = [];
  const foreign: string[] = [];

  before(async () => {
    const dir = tempDir('llmkb-view-');
    runs = await writeFixtureStore(join(dir, 'store.sqlite'), {
      runs: [
        { label: 'model-a', setting: 'zero-shot', seed: 1, correctShare: 0.5 },
        { label: 'model-b', setting: 'zero-shot', seed: 2, correctShare: 0.3 },
      ],
      items: 240,
      hostileItem: true,
    });
    writeFixtureResults(join(dir, 'results'), 'file-model', 'four-shot', 120);
    view = await startViewServer({ store: join(dir, 'store.sqlite'), resultsDir: join(dir, 'results'), port: 0, pageSize: 25 });
    // CONNER runs as `llmkb conner score --out` writes them: two generators over the same 60 queries.
    writeConnerResults(
      join(dir, 'conner'),
      connerRecords(
        60,
        [
          ['gen-a', 0.8],
          ['gen-b', 0.4],
        ],
        { hostile: true },
      ),
    );
    connerView = await startViewServer({ resultsDir: join(dir, 'conner'), port: 0, pageSize: 25 });
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
  });
  after(async () => {
    await browser?.close();
    await view?.close();
    await connerView?.close();
  });

  async function page(): Promise<Page> {
    const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    p.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    p.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    p.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    p.on('request', (r) => {
      if (!r.url().startsWith(view.url) && !r.url().startsWith(connerView.url)) foreign.push(r.url());
    });
    return p;
  }

  const shot = (p: Page, name: string) => p.screenshot({ path: join(ARTIFACTS, `view-${name}.png`), fullPage: true });

  it('binds 127.0.0.1 by default', () => {
    assert.match(view.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('runs list: every run with headline metrics and CIs, badges, stages; selecting two enables compare', async () => {
    const p = await page();
    await p.goto(`${view.url}/`);
    const rows = p.locator('table.runs tbody tr');
    assert.equal(await rows.count(), 3, 'two store runs and one results file');
    assert.match(await p.locator('table.runs thead').innerText(), /NCCR\s*↑/);
    assert.ok((await p.locator('table.runs .ci').count()) > 0, 'confidence intervals shown');
    assert.ok((await p.locator('.badge.approx').count()) >= 1, 'the lexical-rule run carries the approximation badge');
    assert.match(await p.locator('table.runs').innerText(), /judge 240/);
    assert.equal(await p.locator('#compare-button').isDisabled(), true);
    await p.locator(`input[value="${runs[0]!.id}"]`).check();
    await p.locator(`input[value="${runs[1]!.id}"]`).check();
    assert.equal(await p.locator('#compare-button').isDisabled(), false);
    await shot(p, 'runs');
    await Promise.all([p.waitForURL(/\/compare\?/), p.locator('#compare-button').click()]);
    assert.match(await p.locator('h1').innerText(), /Compare 2 runs/);
    await p.close();
  });

  it('a run: metrics, charts, breakdowns whose counts link to the items behind them', async () => {
    const p = await page();
    await p.goto(`${view.url}/`);
    await Promise.all([p.waitForURL(/\/runs\/[0-9a-f]+$/), p.getByRole('link', { name: 'model-a' }).click()]);
    assert.match(await p.locator('h1').innerText(), /model-a/);
    assert.ok((await p.locator('table.metrics tbody tr').count()) >= 12, 'every metric of the method');
    assert.ok((await p.locator('figure.chart svg').count()) >= 2);
    await shot(p, 'run');
    // The "nq" row's count of wrong seen items links to exactly those items.
    const link = p
      .locator('table.counts')
      .first()
      .locator('tr', { has: p.locator('th', { hasText: /^nq$/ }) })
      .locator('a[href*="dataset=seen&label=wrong"]');
    const n = Number(await link.innerText());
    await Promise.all([p.waitForURL(/\/items\?/), link.click()]);
    assert.match(await p.locator('.pager').first().innerText(), new RegExp(`^${n} item\\(s\\)`));
    const labels = await p.locator('table.items tbody tr td:nth-child(4) .label').allInnerTexts();
    assert.ok(labels.length > 0 && labels.every((l) => l === 'wrong'));
    const sources = await p.locator('table.items tbody tr td:nth-child(5)').allInnerTexts();
    assert.ok(sources.every((s) => s === 'nq'));
    await p.close();
  });

  it('items: filters by label, uninformative type, consistency range and text; pages', async () => {
    const p = await page();
    await p.goto(`${view.url}/runs/${runs[0]!.id}/items`);
    assert.match(await p.locator('.pager').first().innerText(), /^240 item\(s\), page 1 of 10/);
    assert.equal(await p.locator('table.items tbody tr').count(), 25);
    await Promise.all([p.waitForURL(/page=2/), p.locator('a[rel="next"]').first().click()]);
    assert.equal(await p.locator('table.items tbody tr td:first-child').first().innerText(), '26');
    // A select applies at once.
    await p.goto(`${view.url}/runs/${runs[0]!.id}/items`);
    await Promise.all([p.waitForURL(/subtype=repetition/), p.locator('select[name="subtype"]').selectOption('repetition')]);
    const subtypes = await p.locator('table.items tbody tr td:nth-child(4)').allInnerTexts();
    assert.ok(subtypes.length > 0 && subtypes.every((t) => /uninformative\s+repetition/.test(t)), subtypes.join('|'));
    // Consistency range.
    await p.goto(`${view.url}/runs/${runs[0]!.id}/items?cmin=0.6&cmax=1`);
    const cons = (await p.locator('table.items tbody tr td:nth-child(7)').allInnerTexts()).map(Number);
    assert.ok(cons.length > 0 && cons.every((c) => c >= 0.6 && c <= 1), cons.join(','));
    // Text search over the question and the response (FTS5).
    await p.goto(`${view.url}/runs/${runs[0]!.id}/items`);
    await p.locator('input[name="q"]').fill('rivers');
    await Promise.all([p.waitForURL(/q=rivers/), p.locator('form.filters button[type="submit"]').click()]);
    const questions = await p.locator('table.items tbody tr td:nth-child(2)').allInnerTexts();
    assert.ok(questions.length > 0 && questions.every((q) => q.includes('rivers')));
    await p.locator('select[name="label"]').selectOption('correct');
    await p.waitForURL(/label=correct/);
    assert.match(p.url(), /q=rivers/, 'filters combine');
    await shot(p, 'items');
    await p.close();
  });

  it('an item: the exact prompt from the call cache, raw and cut response, the judge exchange, distractors and MCQs with the chosen option and its probability', async () => {
    const p = await page();
    // Item seen-0: its QA call is in the cache.
    await p.goto(`${view.url}/runs/${runs[0]!.id}/items/seen-0`);
    const text = await p.locator('main').innerText();
    assert.match(text, /Prompt sent/);
    assert.match(text, /INSTRUCTION: Please answer knowledge-related questions directly/);
    assert.match(text, /Raw \(everything generated\)[\s\S]*QUESTION: and another question/);
    // A wrong seen item decided by the judge LLM, with its exchange.
    await p.goto(`${view.url}/runs/${runs[0]!.id}/items?label=wrong&dataset=seen&source=nq`);
    const href = await p.locator('table.items tbody tr td:nth-child(2) a').first().getAttribute('href');
    await p.goto(`${view.url}${href}`);
    const item = await p.locator('main').innerText();
    assert.match(item, /Decided by llm:fixture-judge/);
    assert.match(item, /Judge exchange[\s\S]*You need to check whether the prediction/);
    assert.match(item, /Distractors/);
    // The exact prompt of an MCQ, with its instruction line (issue 40, item 5).
    assert.match(item, /Prompt of MCQ 1[\s\S]*INSTRUCTION: Please answer knowledge-related multi-choice questions directly/);
    assert.equal(await p.locator('table.mcqs tbody tr').count(), 3);
    assert.match(await p.locator('table.mcqs').innerText(), /chosen/);
    assert.match(await p.locator('table.mcqs').innerText(), /0\.\d{3} \(0\.\d{3} among the letters\)/);
    await shot(p, 'item');
    await p.close();
  });

  it('a hostile response is shown as text and never runs', async () => {
    const p = await page();
    await p.goto(`${view.url}/runs/${runs[0]!.id}/items/unseen-1`);
    assert.equal(await p.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined);
    assert.equal(await p.locator('main img').count(), 0);
    assert.ok((await p.getByText(HOSTILE, { exact: false }).count()) > 0, 'the markup is visible as text');
    await p.goto(`${view.url}/runs/${runs[0]!.id}/items?q=pwned`);
    assert.equal(await p.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined);
    assert.ok((await p.locator('table.items tbody tr').count()) >= 1, 'found by text search');
    await shot(p, 'hostile');
    await p.close();
  });

  it('compare: paired differences with CIs; items where the runs disagree first', async () => {
    const p = await page();
    await p.goto(`${view.url}/compare?runs=${runs[0]!.id},${runs[1]!.id}`);
    const paired = p.locator('table.paired');
    assert.equal(await paired.count(), 1);
    assert.match(await paired.innerText(), /NCCR[\s\S]*\[-?\d+\.\d+, -?\d+\.\d+\]/);
    const summary = await p.locator('main p', { hasText: 'shared item' }).innerText();
    const disagreements = Number(/(\d+) with different labels/.exec(summary)![1]);
    assert.ok(disagreements > 0);
    const rows = p.locator('table.side-by-side tbody tr');
    assert.equal(await rows.count(), 25);
    assert.equal(await rows.first().getAttribute('class'), 'differ', 'disagreements come first');
    await shot(p, 'compare');
    await Promise.all([p.waitForURL(/only=1/), p.getByRole('link', { name: 'only disagreements' }).click()]);
    assert.match(await p.locator('.pager').innerText(), new RegExp(`of ${Math.ceil(disagreements / 25)}`));
    await p.close();
  });

  it('a run that exists only as result files is imported from its JSONL', async () => {
    const p = await page();
    await p.goto(`${view.url}/`);
    await Promise.all([p.waitForURL(/\/runs\/f-/), p.getByRole('link', { name: 'file-model' }).click()]);
    await Promise.all([p.waitForURL(/\/items$/), p.getByRole('link', { name: /All 120 items/ }).click()]);
    assert.match(await p.locator('.pager').first().innerText(), /^120 item\(s\)/);
    await p.locator('table.items tbody tr td:nth-child(2) a').first().click();
    await p.waitForURL(/\/items\/file-0$/);
    assert.match(await p.locator('main').innerText(), /The records file keeps only the counts/);
    await p.close();
  });

  it("CONNER: runs with the paper's metrics, items filtered by factuality label and text, an item with its sentences, evidence, NLI verdicts, scores and scorers", async () => {
    const p = await page();
    await p.goto(`${connerView.url}/`);
    assert.equal(await p.locator('table.runs tbody tr').count(), 2);
    assert.match(await p.locator('table.runs thead').innerText(), /Fact-cons\.\s*↑[\s\S]*Validity\s*↑/);
    assert.ok((await p.locator('table.runs .ci').count()) > 0, 'bootstrap CIs');
    await Promise.all([p.waitForURL(/\/runs\/f-/), p.getByRole('link', { name: 'gen-b' }).click()]);
    assert.match(await p.locator('main').innerText(), /Items by factuality/);
    await Promise.all([p.waitForURL(/\/items$/), p.getByRole('link', { name: /All 60 items/ }).click()]);
    assert.match(await p.locator('.pager').first().innerText(), /^60 item\(s\), page 1 of 3/);
    assert.deepEqual(
      await p.locator('table.items thead th').allInnerTexts(),
      ['#', 'Query', 'Knowledge', 'Factuality', 'Topic', 'S_fact', 'Relev.', 'Coh-s.', 'Coh-p.', 'Inform.', 'Helpful.', 'Valid.'],
      'its per-item scores: columns of their own',
    );
    assert.equal(await p.locator('select[name="subtype"]').count(), 0, 'no reliability-only filter');
    await Promise.all([p.waitForURL(/label=non-verified/), p.locator('select[name="label"]').selectOption('non-verified')]);
    const labels = await p.locator('table.items tbody tr td:nth-child(4)').allInnerTexts();
    assert.ok(labels.length > 0 && labels.every((l) => l === 'non-verified'), labels.join('|'));
    // gen-a's items (its third has hostile knowledge), searched by text.
    await p.goto(`${connerView.url}/`);
    await Promise.all([p.waitForURL(/\/runs\/f-/), p.getByRole('link', { name: 'gen-a' }).click()]);
    await Promise.all([p.waitForURL(/\/items$/), p.getByRole('link', { name: /All 60 items/ }).click()]);
    await p.locator('input[name="q"]').fill('everest');
    await Promise.all([p.waitForURL(/q=everest/), p.locator('form.filters button[type="submit"]').click()]);
    const queries = await p.locator('table.items tbody tr td:nth-child(2)').allInnerTexts();
    assert.ok(queries.length === 12 && queries.every((q) => q.includes('mount everest')), queries.join('|'));
    await shot(p, 'conner-items');
    await Promise.all([p.waitForURL(/\/items\/nq%3A3$/), p.locator('table.items tbody tr td:nth-child(2) a').first().click()]);
    const main = await p.locator('main').innerText();
    assert.match(main, /what is known about mount everest \(2\)/);
    assert.match(main, /Hostile <script>window\.__pwned = 3<\/script>/, 'the hostile knowledge is shown as text');
    assert.equal(await p.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined);
    assert.equal(await p.locator('table.sentences tbody tr').count(), 2);
    assert.match(
      await p.locator('table.sentences tbody tr').first().innerText(),
      /Reference passage on Mount Everest, sentence 1\.[\s\S]*(entailment|neutral|contradiction)/,
    );
    assert.match(await p.locator('table.conner-scores').innerText(), /Relevance[\s\S]*mock:ranker[\s\S]*Inform\.[\s\S]*gguf:stories260K/);
    assert.match(await p.locator('table.answers').innerText(), /Gold answer\s+gold 2[\s\S]*with the knowledge\s+answer 2[\s\S]*without it\s+guess 2/);
    await shot(p, 'conner-item');
    await p.close();
  });

  it('no console errors, no request leaves the server', () => {
    assert.deepEqual(problems, []);
    assert.deepEqual(foreign, []);
  });
});

describe('llmkb view on the command line', () => {
  it('listens on another host only when asked, with a warning', { skip: existsSync('dist/cli/main.js') ? false : 'needs npm run build' }, async () => {
    const dir = tempDir('llmkb-view-cli-');
    writeFixtureResults(join(dir, 'results'), 'm', 'zero-shot', 10);
    const child = spawn(
      process.execPath,
      [resolve('bin/llmkb.js'), '--store', join(dir, 'none.sqlite'), 'view', join(dir, 'results'), '--host', '0.0.0.0', '--port', '0'],
      { cwd: dir },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const deadline = Date.now() + 20_000;
    while (!/llmkb view: http/.test(stdout) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    assert.match(stderr, /warning: llmkb view listens on 0\.0\.0\.0/);
    assert.match(stdout, /llmkb view: http:\/\/0\.0\.0\.0:\d+\//);
  });
});

describe('llmkb view: another method’s runs from their metric definitions', () => {
  it('shows each generator and setting of `conner score --out` as a run with its metrics and CIs, its items by factuality label', async () => {
    const dir = tempDir('llmkb-view-conner-');
    const summaries = writeConnerResults(dir, connerRecords(10));
    const view = await startViewServer({ resultsDir: dir, indexFile: join(dir, 'index.sqlite'), port: 0 });
    try {
      const runs = (await (await fetch(`${view.url}/api/runs`)).json()) as Array<{ key: string; label: string; method: string }>;
      assert.deepEqual(runs.map((r) => [r.label, r.method]).sort(), [
        ['gen-a', 'conner'],
        ['gen-b', 'conner'],
      ]);
      const list = await (await fetch(`${view.url}/`)).text();
      assert.match(list, /gen-a/);
      const key = runs.find((r) => r.label === 'gen-b')!.key;
      const page = await fetch(`${view.url}/runs/${key}`);
      assert.equal(page.status, 200);
      const html = await page.text();
      const b = summaries.find((s) => s.model === 'gen-b')!;
      const def = b.metricDefs.find((d) => d.id === 'fact_consistent')!;
      assert.ok(html.includes(def.label), `the run page shows ${def.label}`);
      assert.ok(html.includes((100 * b.metrics.fact_consistent!).toFixed(2)), 'gen-b: its share of factual-consistent knowledge');
      assert.match(html, /Items by factuality/);
      const items = await (await fetch(`${view.url}/runs/${key}/items?label=non-verified`)).text();
      const nonVerified = (b.breakdowns!.factualityLabels as Record<string, number>)['non-verified']!;
      assert.ok(nonVerified > 0);
      assert.ok(items.includes(`<p class="pager">${nonVerified} item(s)`), 'the filter by factuality label');
    } finally {
      await view.close();
    }
  });
});
