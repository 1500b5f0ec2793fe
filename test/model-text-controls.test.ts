/**
 * Model text holding bidirectional overrides and NUL bytes (issue 37: 27 U+202E on one item page,
 * NULs in report.html): the report and every viewer page that shows it carry neither raw; each is
 * shown as a visible sign (NUL as ␀, an override as \u202e), and the pages' style isolates text
 * containers (`unicode-bidi`), the viewer's <pre> blocks also with dir="auto".
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { summarizeRun } from '../src/methods/reliability/metrics/summarize-run.js';
import { escapeHtml } from '../src/methods/html-parts.js';
import { renderReport } from '../src/report/html-report.js';
import { startViewServer } from '../src/view/view-server.js';
import { hostileRecords } from './support/hostile-runs.js';
import { tempDir } from './support/temp-dir.js';

const dir = tempDir('llmkb-model-text-');
after(() => rmSync(dir, { recursive: true, force: true }));

/** A response that reverses what follows it, with a NUL, a bell and an escape sequence. */
const TRICK = (field: string) => `\u202Eevil-${field}\u202C and\0nul\x07bell\x1b[31mred\x85next\u2066iso\u2069`;
/** Raw characters none of the pages may carry. */
const RAW = /[\0\x07\x1b\x85\u202a-\u202e\u2066-\u2069]/;

function records() {
  return hostileRecords('bidi', 4).map((r, i) => ({ ...r, id: `bidi-${i}`, question: TRICK(`question-${i}`), response: TRICK(`response-${i}`) }));
}

describe('control characters and bidirectional overrides in model text are shown, not obeyed', () => {
  it('escapeHtml: NUL and C0 as U+2400 symbols, C1 and the bidi controls as \\u escapes; tab and line breaks kept', () => {
    assert.equal(escapeHtml('a\0b\x07c\x1bd\x7fe\x85f\u202Eg\u2067h\ti\nj\rk'), 'a␀b␇c␛d␡e\\u0085f\\u202eg\\u2067h\ti\nj\rk');
  });

  it('the report: no raw NUL or override, each shown visibly, the style isolating text', async () => {
    const recs = records();
    const summary = summarizeRun(recs, { model: `model\u202Eledom\0`, setting: 'zero-shot', resamples: 20 });
    const html = await renderReport([summary], { records: [recs] });
    const at = html.search(RAW);
    assert.equal(at, -1, `raw control at …${JSON.stringify(html.slice(Math.max(0, at - 80), at + 40))}…`);
    assert.ok(html.includes('\\u202eevil-response-0\\u202c and␀nul␇bell␛[31mred\\u0085next\\u2066iso\\u2069'), 'the response shown with visible signs');
    assert.ok(html.includes('model\\u202eledom␀'), 'the model name too');
    assert.match(html, /unicode-bidi:plaintext/);
  });

  it('the viewer: run, items and item pages carry no raw control; the stylesheet isolates text; <pre> has dir="auto"', async () => {
    const results = join(dir, 'results');
    mkdirSync(results);
    const recs = records();
    writeFileSync(join(results, 'm.zero-shot.records.jsonl'), `${recs.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const view = await startViewServer({ store: join(dir, 'store.sqlite'), resultsDir: results, port: 0 });
    try {
      const runs = (await (await fetch(`${view.url}/api/runs`)).json()) as Array<{ key: string }>;
      assert.equal(runs.length, 1);
      const run = encodeURIComponent(runs[0]!.key);
      for (const path of [`/runs/${run}`, `/runs/${run}/items`, `/runs/${run}/items?q=evil`, `/runs/${run}/items/bidi-0`]) {
        const res = await fetch(`${view.url}${path}`);
        const body = await res.text();
        assert.equal(res.status, 200, `${path}: ${body.slice(0, 200)}`);
        const at = body.search(RAW);
        assert.equal(at, -1, `${path}: raw control at …${JSON.stringify(body.slice(Math.max(0, at - 80), at + 40))}…`);
        if (path.endsWith('bidi-0')) {
          assert.ok(body.includes('\\u202eevil-response-0'), `${path} shows the override visibly`);
          assert.match(body, /<pre class="[^"]*" dir="auto">/);
        }
      }
      assert.match(await (await fetch(`${view.url}/assets/view.css`)).text(), /unicode-bidi:plaintext/);
    } finally {
      await view.close();
    }
  });
});
