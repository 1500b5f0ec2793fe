/**
 * The README's screenshots (docs/screenshots/*.png): `llmkb view` over the test fixtures and
 * `llmkb report` over the paper's 26 models, in headless Chromium. Regenerate after changing a
 * page: `node --import tsx scripts/docs-screenshots.ts` (then `pngquant --ext .png --force` them).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { renderReport } from '../src/report/html-report.js';
import { startViewServer } from '../src/view/view-server.js';
import { paperSummaries } from '../test/support/summaries.js';
import { connerRecords, writeConnerResults } from '../test/support/conner-fixture.js';
import { writeFixtureResults, writeFixtureStore } from '../test/support/view-fixture.js';

const out = join(import.meta.dirname, '..', 'docs', 'screenshots');
mkdirSync(out, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'llmkb-shots-'));
const runs = await writeFixtureStore(join(dir, 'store.sqlite'), { runs: [{ label: 'model-a', setting: 'zero-shot', seed: 1, correctShare: 0.5 }, { label: 'model-b', setting: 'zero-shot', seed: 2, correctShare: 0.3 }], items: 240, hostileItem: true });
writeFixtureResults(join(dir, 'results'), 'file-model', 'four-shot', 120);
const view = await startViewServer({ store: join(dir, 'store.sqlite'), resultsDir: join(dir, 'results'), port: 0, pageSize: 25 });
const browser = await chromium.launch({ executablePath: process.env.LLMKB_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1100, height: 680 } });
const shots: Array<[string, string]> = [
  ['view-runs', '/'],
  ['view-run', `/runs/${runs[0]!.id}`],
  ['view-items', `/runs/${runs[0]!.id}/items?label=wrong`],
  ['view-item', `/runs/${runs[0]!.id}/items/seen-36`],
  ['view-compare', `/compare?runs=${runs[0]!.id},${runs[1]!.id}`],
];
for (const [name, path] of shots) {
  await page.goto(`${view.url}${path}`);
  await page.screenshot({ path: join(out, `${name}.png`) });
}
// A CONNER run as `llmkb conner score --out` writes it: its item page.
writeConnerResults(join(dir, 'conner'), connerRecords(60, [['gen-a', 0.8], ['gen-b', 0.4]]));
const connerView = await startViewServer({ resultsDir: join(dir, 'conner'), port: 0, pageSize: 25 });
const connerRun = ((await (await fetch(`${connerView.url}/api/runs`)).json()) as Array<{ key: string; label: string }>).find((r) => r.label === 'gen-b')!;
await page.goto(`${connerView.url}/runs/${connerRun.key}/items/nq%3A8`);
await page.screenshot({ path: join(out, 'view-conner-item.png'), fullPage: true });
await connerView.close();
const reportFile = join(dir, 'report.html');
writeFileSync(reportFile, await renderReport(paperSummaries(['zero-shot', 'four-shot', 'four-shot-2'], 20)));
await page.goto(`file://${reportFile}`);
await page.screenshot({ path: join(out, 'report-tables.png') });
await page.locator('#fig7a').scrollIntoViewIfNeeded();
await page.screenshot({ path: join(out, 'report-figures.png') });
await browser.close();
await view.close();
process.stdout.write(`screenshots in ${out}\n`);
