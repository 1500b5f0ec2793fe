/**
 * A method's own item fields in `llmkb view` (issue 38, item 4), through the real HTTP server:
 * the fixture method of test/fixtures/exact-match-method/ declares a number field and a text
 * field of its items, and the viewer filters and sorts by them (and, in headless Chromium, by
 * its column header and range inputs); CONNER's per-item scores are sortable and filterable; the
 * reliability method's invalid MCQ answers are a filter, and metric values link to the items
 * behind them (issue 40, item 5). The runs list of a store imports no run's items (issue 40,
 * item 8): they are indexed when a run is first opened.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { ModelExecutor } from '../src/executor/model-executor.js';
import { registerMethod } from '../src/methods/registry.js';
import { runMethod } from '../src/methods/run-method.js';
import { MockModel } from '../src/providers/mock/mock-model.js';
import { CallCache } from '../src/store/call-cache.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { startViewServer, type ViewServer } from '../src/view/view-server.js';
import { exactMatchMethod } from './fixtures/exact-match-method/exact-match-method.js';
import { connerRecords, writeConnerResults } from './support/conner-fixture.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const CHROMIUM = process.env.LLMKB_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);

const get = async (url: string): Promise<string> => {
  const r = await fetch(url);
  assert.equal(r.status, 200, url);
  return r.text();
};
/** The cells of a declared field's column on an items page, in row order. */
const column = (html: string, field: string): string[] =>
  [...html.matchAll(new RegExp(`<td class="[^"]*" data-field="${field}">([^<]*)</td>`, 'g'))].map((m) => m[1]!);
const shown = (html: string): number => Number(/<p class="pager">(\d+) item\(s\)/.exec(html)?.[1]);

describe("a fixture method's own item fields in the viewer", () => {
  registerMethod(exactMatchMethod);
  const dir = tempDir('llmkb-view-fields-');
  let view: ViewServer;
  let key: string;

  before(async () => {
    const questions = join(dir, 'qa.jsonl');
    const qa = [
      { id: 'q1', question: 'What is the capital of France?', answers: ['Paris'] },
      { id: 'q2', question: 'Who wrote Hamlet?', answers: ['Shakespeare'] },
      { id: 'q3', question: 'How many legs has a spider?', answers: ['eight'] },
      { id: 'q4', question: 'What colour is the sky?', answers: ['blue'] },
    ];
    writeFileSync(questions, `${qa.map((q) => JSON.stringify(q)).join('\n')}\n`);
    const answers: Record<string, string> = { France: 'Paris', Hamlet: 'The Shakespeare', spider: 'eight legs', sky: 'green' };
    const model = new MockModel({
      replies: ({ prompt }) => ` ${Object.entries(answers).find(([q]) => prompt.includes(q))?.[1] ?? ''}\n`,
      identity: 'fields-model',
      modelId: 'fields-model',
    });
    const db = openDatabase(join(dir, 'store.sqlite'));
    const result = await runMethod(exactMatchMethod, {
      roles: { model: new ModelExecutor(model, { cache: new CallCache(db) }) },
      options: { questions },
      runs: new RunStore(db),
    });
    key = result.runId;
    db.close();
    view = await startViewServer({ store: join(dir, 'store.sqlite'), port: 0 });
  });
  after(() => view?.close());

  it('shows its fields as columns and filters, filters a number field by range and a text field by value', async () => {
    const all = await get(`${view.url}/runs/${key}/items`);
    assert.match(all, /<th title="characters in the response"><a class="sort" href="[^"]*sort=response_chars">Chars<\/a><\/th>/, 'a column that sorts by it');
    assert.deepEqual(column(all, 'response_chars'), ['5', '15', '10', '5'], 'item order; the number of characters of each response');
    assert.match(
      all,
      /<select name="f\.normalised">[\s\S]*<option value="shakespeare">shakespeare \(1\)<\/option>/,
      "the text field's values with their counts (normalised: no article, lower case)",
    );
    const long = await get(`${view.url}/runs/${key}/items?f.response_chars.min=6`);
    assert.equal(shown(long), 2);
    assert.deepEqual(column(long, 'response_chars'), ['15', '10']);
    const range = await get(`${view.url}/runs/${key}/items?f.response_chars.min=6&f.response_chars.max=12`);
    assert.deepEqual(column(range, 'response_chars'), ['10']);
    const byText = await get(`${view.url}/runs/${key}/items?f.normalised=shakespeare`);
    assert.equal(shown(byText), 1);
    assert.match(byText, /Who wrote Hamlet\?/);
    const combined = await get(`${view.url}/runs/${key}/items?f.response_chars.max=5&label=wrong`);
    assert.equal(shown(combined), 1, 'with the fixed filters too: "green" for the sky');
    assert.match(combined, /What colour is the sky\?/);
    const undeclared = await get(`${view.url}/runs/${key}/items?f.nothing.min=3`);
    assert.equal(shown(undeclared), 4, 'a field the method does not declare filters nothing');
  });

  it('sorts by a field, ascending and descending, ties and missing values in item order, keeping the sort across pages', async () => {
    const up = await get(`${view.url}/runs/${key}/items?sort=response_chars`);
    assert.deepEqual(column(up, 'response_chars'), ['5', '5', '10', '15']);
    assert.match(up, /aria-sort="ascending"[^>]*><a class="sort" href="[^"]*sort=-response_chars">Chars ▲/, 'the header sorts the other way next');
    const down = await get(`${view.url}/runs/${key}/items?sort=-response_chars`);
    assert.deepEqual(column(down, 'response_chars'), ['15', '10', '5', '5']);
    assert.ok(down.indexOf('France') < down.indexOf('sky'), 'equal values in item order');
    const text = await get(`${view.url}/runs/${key}/items?sort=normalised`);
    assert.deepEqual(
      [...text.matchAll(/<td class="text"><a [^>]*>([^<]*)<\/a>/g)].map((m) => m[1]),
      ['How many legs has a spider?', 'What colour is the sky?', 'What is the capital of France?', 'Who wrote Hamlet?'],
      'by the normalised response: eight legs, green, paris, shakespeare',
    );
    const paged = await startViewServer({ store: join(dir, 'store.sqlite'), indexFile: join(dir, 'paged.sqlite'), port: 0, pageSize: 2 });
    try {
      const first = await get(`${paged.url}/runs/${key}/items?sort=-response_chars`);
      assert.deepEqual(column(first, 'response_chars'), ['15', '10']);
      const next = /<a rel="next" href="([^"]+)"/.exec(first)![1]!.replace(/&amp;/g, '&');
      assert.match(next, /sort=-response_chars/);
      assert.deepEqual(column(await get(`${paged.url}${next}`), 'response_chars'), ['5', '5']);
    } finally {
      await paged.close();
    }
  });

  it('in Chromium: the column header sorts, the range inputs filter', { skip: hasChromium ? false : `no Chromium at ${CHROMIUM}` }, async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
    try {
      const p = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await p.goto(`${view.url}/runs/${key}/items`);
      await Promise.all([p.waitForURL(/sort=response_chars/), p.getByRole('link', { name: 'Chars' }).click()]);
      assert.deepEqual(await p.locator('td[data-field="response_chars"]').allInnerTexts(), ['5', '5', '10', '15']);
      await Promise.all([p.waitForURL(/sort=-response_chars/), p.getByRole('link', { name: /Chars/ }).click()]);
      assert.deepEqual(await p.locator('td[data-field="response_chars"]').allInnerTexts(), ['15', '10', '5', '5']);
      await p.locator('input[name="f.response_chars.min"]').fill('6');
      await Promise.all([p.waitForURL(/f\.response_chars\.min=6/), p.locator('form.filters button[type="submit"]').click()]);
      assert.match(p.url(), /sort=-response_chars/, 'the filter keeps the sort');
      assert.deepEqual(await p.locator('td[data-field="response_chars"]').allInnerTexts(), ['15', '10']);
      await Promise.all([p.waitForURL(/f\.normalised=shakespeare/), p.locator('select[name="f.normalised"]').selectOption('shakespeare')]);
      assert.equal(await p.locator('table.items tbody tr').count(), 1);
    } finally {
      await browser.close();
    }
  });
});

describe("CONNER's per-item scores in the viewer", () => {
  it('sorts by a perspective score and filters by its range', async () => {
    const dir = tempDir('llmkb-view-conner-fields-');
    const records = connerRecords(20, [['gen-a', 0.8]]);
    writeConnerResults(dir, records);
    const view = await startViewServer({ resultsDir: dir, port: 0 });
    try {
      const [run] = (await (await fetch(`${view.url}/api/runs`)).json()) as Array<{ key: string }>;
      const items = await get(`${view.url}/runs/${run!.key}/items?sort=-relevance`);
      for (const title of ['S_fact', 'Relev. ▼', 'Coh-s.', 'Coh-p.', 'Inform.', 'Helpful.', 'Valid.'])
        assert.ok(items.includes(`>${title}</a></th>`), `${title} column`);
      const relevance = column(items, 'relevance').map(Number);
      const expected = records
        .map((r) => r.scores.relevance!)
        .sort((a, b) => b - a)
        .map((v) => Number(v.toFixed(3)));
      assert.deepEqual(relevance, expected, 'every item, by relevance, highest first');
      const valid = await get(`${view.url}/runs/${run!.key}/items?f.validity.min=1`);
      assert.equal(shown(valid), records.filter((r) => r.scores.validity === 1).length);
      const band = await get(`${view.url}/runs/${run!.key}/items?f.informativeness.min=0.7&f.informativeness.max=0.8`);
      assert.equal(shown(band), records.filter((r) => r.scores.informativeness! >= 0.7 && r.scores.informativeness! <= 0.8).length);
      // A share of a factuality label links to the items of that label.
      const page = await get(`${view.url}/runs/${run!.key}`);
      assert.match(page, /<a class="metric" href="\/runs\/[^"]+\/items\?label=factual-consistent"/);
    } finally {
      await view.close();
    }
  });
});

describe('reliability in the viewer: invalid MCQ answers, metric values as links, a runs list that imports no items', {
  skip: existsSync('dist/cli/main.js') ? false : 'needs npm run build',
}, () => {
  const dir = tempDir('llmkb-view-mcq-');
  let store: string;

  before(async () => {
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
    // The MCQs of questions 0 and 1 answered with a letter; every other MCQ answer names no option.
    const replies = [
      { regex: 'multi-choice[\\s\\S]*capital number [01]\\?', reply: ' A' },
      { contains: 'multi-choice', reply: ' Z' },
      { default: true, reply: ' Paris' },
    ];
    writeFileSync(join(dir, 'm.jsonl'), `${replies.map((r) => JSON.stringify(r)).join('\n')}\n`);
    store = join(dir, 's.sqlite');
    const r = await llmkb(
      ['--store', store, 'eval', '--model', 'mock:m.jsonl', '--input', 'q.jsonl', '--settings', 'zero-shot', '--mcqs', '2', '--out', 'res'],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
  });

  it("lists a store's runs from summaries without importing their items; a run is indexed when opened", async () => {
    const index = join(dir, 'list-index.sqlite');
    const view = await startViewServer({ store, indexFile: index, port: 0 });
    try {
      const list = await get(`${view.url}/`);
      assert.match(list, /CI: open the run/, 'metrics computed from the items, intervals when opened');
      assert.match(list, /class="badge approx warning" title="[^"]*invalid/, 'the warning of 12 invalid MCQ answers in 16, as the summary file has it');
      const items = () => (view.index.db.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n;
      assert.equal(items(), 0, 'no item indexed by the runs list');
      assert.equal((view.index.db.prepare('SELECT count(*) AS n FROM summaries').get() as { n: number }).n, 1, 'its summary kept for the next load');
      assert.equal(await get(`${view.url}/`), list, 'the next load: the same page');
      const [run] = view.index.runs();
      await get(`${view.url}/runs/${run!.key}`);
      assert.equal(items(), 8, 'opened: its items indexed');
    } finally {
      await view.close();
    }
  });

  it('filters the responses with an invalid MCQ answer; the invalid-answers table and every metric value link to their items', async () => {
    const view = await startViewServer({ store, resultsDir: join(dir, 'res'), port: 0 });
    try {
      const [run] = view.index.runs();
      const base = `${view.url}/runs/${run!.key}/items`;
      const invalid = await get(`${base}?f.mcq_invalid.min=1`);
      assert.equal(shown(invalid), 6, 'questions 2-7: both MCQ answers invalid');
      assert.deepEqual(column(invalid, 'mcq_invalid'), ['2', '2', '2', '2', '2', '2']);
      assert.match(invalid, /<label title="[^"]*">invalid MCQ answers <input type="number" name="f\.mcq_invalid\.min"/, 'a filter of the items page');
      assert.doesNotMatch(invalid, /capital number [01]\?/);
      const valid = await get(`${base}?f.mcq_invalid.max=0`);
      assert.equal(shown(valid), 2);
      const judged = await get(`${base}?f.judged_by=exact-match`);
      assert.equal(shown(judged), 4, 'who judged: a filter with no column');

      const page = await get(`${view.url}/runs/${run!.key}`);
      const href = (text: string) => (new RegExp(`<a href="([^"]+)" title="[^"]*">${text}</a>`).exec(page)?.[1] ?? '').replace(/&amp;/g, '&');
      const seenInvalid = href('4');
      assert.match(seenInvalid, /label=correct&dataset=seen&f\.mcq_invalid\.min=1$/, 'seen correct: 4 invalid answers (questions 2 and 3)');
      assert.equal(shown(await get(`${view.url}${seenInvalid}`)), 2);
      // NCR's value links to the seen questions, its denominator.
      const ncr = /<th scope="row">NCR<\/th><td class="num"><a class="metric" href="([^"]+)" title="the items behind NCR: ([^"]+)">100\.00<\/a>/.exec(page);
      assert.ok(ncr, 'NCR 100.00 as a link');
      assert.equal(ncr[2], 'the seen questions (CR - WR: both over them)');
      assert.equal(shown(await get(`${view.url}${ncr[1]!.replace(/&amp;/g, '&')}`)), 4);
      // An item page shows the exact prompts sent, with their instruction lines, from the call cache.
      const item = await get(`${view.url}/runs/${run!.key}/items/q2`);
      assert.match(
        item,
        /<h2>Prompt sent<\/h2><div class="exchange">[\s\S]*?INSTRUCTION: Please answer knowledge-related questions directly[\s\S]*?capital number 2\?/,
        'the free-form question',
      );
      assert.match(
        item,
        /<h4>Prompt of MCQ 1<\/h4><div class="exchange">[\s\S]*?INSTRUCTION: Please answer knowledge-related multi-choice questions directly[\s\S]*?capital number 2\?/,
        'its first MCQ',
      );
      // A group's value in the breakdowns links to that group's items behind it.
      const bySource = /<a href="([^"]+)" title="the items behind NCR in mine: [^"]*">100\.00<\/a>/.exec(page);
      assert.ok(bySource, 'NCR of source "mine" as a link');
      assert.match(bySource[1]!.replace(/&amp;/g, '&'), /items\?source=mine&dataset=seen$/);
      // The runs list's values link the same way.
      const list = await get(`${view.url}/`);
      const iur = [...list.matchAll(/<a class="metric" href="([^"]+)" title="the items behind IUR/g)];
      assert.equal(iur.length, 1);
      assert.match(iur[0]![1]!, /items\?dataset=unseen$/);
    } finally {
      await view.close();
    }
  });
});
