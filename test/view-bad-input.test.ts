/**
 * `llmkb view` over bad input: page numbers no page has (huge, 1e308, negative, not a number)
 * give a page (the first or the last), never a 500 or SQLite's text; a results folder whose
 * records file has a bad line, whose summary is cut short, or whose records file is binary data
 * shows that run with the file and the line it could not read, on the runs list and the run page.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startViewServer, type ViewServer } from '../src/view/view-server.js';
import { writeFixtureResults } from './support/view-fixture.js';
import { tempDir } from './support/temp-dir.js';

const ITEMS = 10;
const PAGE_SIZE = 3; // 10 items: pages 1 to 4

describe('llmkb view over bad page numbers and bad result files', () => {
  const dir = tempDir('llmkb-view-bad-');
  const badLineFile = join(dir, 'badline.zero-shot.records.jsonl');
  const truncatedFile = join(dir, 'cut.zero-shot.summary.json');
  const binaryFile = join(dir, 'binary.zero-shot.records.jsonl');
  let view: ViewServer;
  let keys: Record<string, string>;

  async function get(path: string): Promise<{ status: number; body: string }> {
    const res = await fetch(`${view.url}${path}`);
    return { status: res.status, body: await res.text() };
  }

  before(async () => {
    writeFixtureResults(dir, 'good', 'zero-shot', ITEMS);
    // Line 3 of the records file is cut in the middle of an object.
    writeFixtureResults(dir, 'badline', 'zero-shot', ITEMS);
    const lines = readFileSync(badLineFile, 'utf8').split('\n');
    lines[2] = lines[2]!.slice(0, 40);
    writeFileSync(badLineFile, lines.join('\n'));
    // The summary cut short (a write interrupted) right after a key on its line 7: JSON.parse says
    // only "Unexpected end of JSON input", with no position to count lines from.
    writeFixtureResults(dir, 'cut', 'zero-shot', ITEMS);
    const summaryText = readFileSync(truncatedFile, 'utf8');
    const lineSeven = summaryText.split('\n').slice(0, 6).join('\n').length + 1;
    const cutAt = summaryText.indexOf(': ', lineSeven) + 2;
    assert.ok(cutAt > lineSeven && cutAt < summaryText.indexOf('\n', lineSeven), 'line 7 has a key');
    truncateSync(truncatedFile, cutAt);
    assert.throws(() => JSON.parse(readFileSync(truncatedFile, 'utf8')), /Unexpected end of JSON input/);
    assert.equal(readFileSync(truncatedFile, 'utf8').split('\n').length, 7, 'the cut summary has 7 lines');
    assert.ok(statSync(truncatedFile).size < summaryText.length, 'the summary is cut');
    // A records file that is binary data (a PNG header and NULs), without a summary beside it.
    writeFileSync(binaryFile, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0xfe]));
    view = await startViewServer({ resultsDir: dir, port: 0, pageSize: PAGE_SIZE });
    const runs = (await (await fetch(`${view.url}/api/runs`)).json()) as Array<{ key: string; label: string }>;
    keys = Object.fromEntries(runs.map((r) => [r.label, r.key]));
    // A run without a readable summary is labelled by its file name.
    for (const label of ['good', 'badline', 'cut.zero-shot', 'binary.zero-shot'])
      assert.ok(keys[label], `run ${label} listed (${Object.keys(keys).join(', ')})`);
  });
  after(() => view.close());

  it('?page= too large, 1e308, negative or not a number: 200 with the last or the first page, no SQLite text', async () => {
    const cases: Array<[string, number]> = [
      ['99999999999999999999', 4],
      ['1e308', 4],
      ['Infinity', 1],
      ['-5', 1],
      ['0', 1],
      ['abc', 1],
      ['', 1],
      ['2', 2],
    ];
    for (const [page, shown] of cases) {
      const r = await get(`/runs/${keys.good}/items?page=${encodeURIComponent(page)}`);
      assert.equal(r.status, 200, `page=${page}: ${r.body.slice(0, 300)}`);
      assert.match(r.body, new RegExp(`page ${shown} of 4\\b`), `page=${page} shows page ${shown}`);
      assert.doesNotMatch(r.body, /sqlite|datatype mismatch|SQL logic|too big|RangeError/i, `page=${page}`);
    }
    // The compare page pages the same way.
    const r = await get(`/compare?runs=${keys.good},${keys.badline}&page=1e308`);
    assert.equal(r.status, 200, r.body.slice(0, 300));
    assert.doesNotMatch(r.body, /sqlite|datatype mismatch|RangeError/i);
  });

  it('a records file with a bad line: the run page names the file and the line', async () => {
    const r = await get(`/runs/${keys.badline}`);
    assert.equal(r.status, 200);
    assert.match(r.body, /Not everything could be read/);
    assert.ok(r.body.includes(`${badLineFile}, line 3: not valid JSON`), `names ${badLineFile}, line 3:\n${r.body.slice(0, 2000)}`);
    // The other lines are still shown.
    assert.match(r.body, new RegExp(`All ${ITEMS - 1} items`));
  });

  it('a records file with a bad line has the runs list badge, as a cut summary has; a good run has none', async () => {
    const list = await get('/');
    assert.equal(list.status, 200);
    const row = (label: string) => {
      const m = new RegExp(`<tr data-run="${keys[label]}">[\\s\\S]*?</tr>`).exec(list.body);
      assert.ok(m, `a row for ${label}`);
      return m[0];
    };
    assert.match(row('badline'), /a result file could not be read/, 'badge for the bad records line');
    assert.ok(row('badline').includes(`${badLineFile}, line 3`), 'its tooltip names the file and line');
    assert.match(row('cut.zero-shot'), /a result file could not be read/, 'badge for the cut summary');
    assert.doesNotMatch(row('good'), /could not be read/, 'no badge on a good run');
  });

  it('a summary cut short: the runs list and the run page name the file and its line 7', async () => {
    const expected = `${truncatedFile}, line 7: not valid JSON`;
    const list = await get('/');
    assert.ok(list.body.includes(expected), `runs list names ${expected}`);
    const r = await get(`/runs/${keys['cut.zero-shot']}`);
    assert.equal(r.status, 200);
    assert.match(r.body, /Not everything could be read/);
    assert.ok(r.body.includes(expected), `run page names ${expected}:\n${r.body.slice(0, 2000)}`);
  });

  it('a binary records file: named with its lines on the runs list (before the run is opened) and the run page, not shown as an empty run', async () => {
    const list = await get('/');
    const row = new RegExp(`<tr data-run="${keys['binary.zero-shot']}">[\\s\\S]*?</tr>`).exec(list.body)?.[0] ?? '';
    assert.match(row, /a result file could not be read/, 'badge on the runs list');
    assert.ok(row.includes(`${binaryFile}, line 1: not valid JSON`), 'its tooltip names the file and line 1');
    const r = await get(`/runs/${keys['binary.zero-shot']}`);
    assert.equal(r.status, 200);
    assert.match(r.body, /Not everything could be read/);
    assert.ok(r.body.includes(`${binaryFile}, line 1: not valid JSON`), `names ${binaryFile}, line 1:\n${r.body.slice(0, 2000)}`);
    assert.ok(r.body.includes(`${binaryFile}, line 2: not valid JSON`), 'and its line 2');
  });
});
