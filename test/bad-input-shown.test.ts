/**
 * What pages show of hostile inputs (issue 37): a 10 MB question does not make a 40 MB item
 * page, nor a 5 MB run name a 100 MB report (each text is cut with "… (N more characters)");
 * malformed percent-encoding in a viewer path is the client's error (400), not a 500.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startViewServer, type ViewServer } from '../src/view/view-server.js';
import { writeFixtureResults } from './support/view-fixture.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const BIG = 3_000_000;

describe('the viewer over a 3 MB question, and malformed paths', () => {
  const dir = tempDir('llmkb-shown-');
  let view: ViewServer;
  let key: string;

  before(async () => {
    writeFixtureResults(dir, 'big', 'zero-shot', 4);
    const file = join(dir, 'big.zero-shot.records.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const first = JSON.parse(lines[0]!) as { question: string };
    first.question = `Q${'x'.repeat(BIG)}`;
    lines[0] = JSON.stringify(first);
    writeFileSync(file, `${lines.join('\n')}\n`);
    view = await startViewServer({ resultsDir: dir, port: 0 });
    const runs = (await (await fetch(`${view.url}/api/runs`)).json()) as Array<{ key: string; label: string }>;
    key = runs.find((r) => r.label === 'big')!.key;
  });
  after(async () => {
    await view.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the item page shows the question cut, with how much was left out', async () => {
    const res = await fetch(`${view.url}/runs/${key}/items/file-0`);
    const body = await res.text();
    assert.equal(res.status, 200, body.slice(0, 300));
    assert.ok(body.length < 500_000, `the page is ${body.length} characters`);
    assert.match(body, /… \(2980001 more characters\)/);
  });

  it('/runs/% and a cut escape in an item id answer 400', async () => {
    for (const path of ['/runs/%', `/runs/${key}/items/%E0%A4%A`, '/runs/%zz/items']) {
      const res = await fetch(`${view.url}${path}`);
      assert.equal(res.status, 400, path);
      assert.match(await res.text(), /malformed percent-encoding/);
    }
  });
});

describe('a report over a run with a 3 MB name', () => {
  it('stays small, the name cut', async () => {
    const dir = tempDir('llmkb-shown-report-');
    try {
      writeFixtureResults(dir, 'run', 'zero-shot', 4);
      const summaryFile = join(dir, 'run.zero-shot.summary.json');
      const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as { model: string };
      summary.model = `M${'n'.repeat(BIG)}`;
      writeFileSync(summaryFile, JSON.stringify(summary));
      const r = await llmkb(['report', summaryFile, '-o', join(dir, 'report.html')], { cwd: dir });
      assert.equal(r.code, 0, r.stderr);
      const size = statSync(join(dir, 'report.html')).size;
      assert.ok(size < 2_000_000, `the report is ${size} bytes`);
      assert.match(readFileSync(join(dir, 'report.html'), 'utf8'), /more characters\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
