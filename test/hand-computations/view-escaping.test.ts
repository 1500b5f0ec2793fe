/**
 * Every page of `llmkb view` that shows model or user text, driven through its HTTP server with
 * hostile text in every field (questions, answers, responses, raw output, judge exchanges,
 * distractors, MCQ options, labels, settings, model names, sources, answer types, sub-types,
 * item ids, file names, protocol notes, CONNER queries, knowledge, evidence and answers): no
 * page carries raw markup from that text, and each page shows each of its fields escaped, cell
 * by cell, so a missing escape anywhere is seen.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startViewServer, type ViewServer } from '../../src/view/view-server.js';
import { escaped, hostile, hostileFileName, RAW_MARKUP, writeHostileResults, writeHostileStore, type HostileStore } from '../support/hostile-runs.js';
import { tempDir } from '../support/temp-dir.js';

interface ApiRun {
  key: string;
  label: string;
  method: string;
  kind: string;
}

describe('llmkb view escapes every piece of model and user text', () => {
  let view: ViewServer;
  let store: HostileStore;
  let apiRuns: ApiRun[];
  const visited: string[] = [];

  before(async () => {
    const dir = tempDir('llmkb-hostile-view-');
    store = await writeHostileStore(join(dir, 'store.sqlite'));
    writeHostileResults(join(dir, 'results'));
    view = await startViewServer({ store: join(dir, 'store.sqlite'), resultsDir: join(dir, 'results'), port: 0, pageSize: 50 });
    apiRuns = (await (await fetch(`${view.url}/api/runs`)).json()) as ApiRun[];
  });
  after(() => view?.close());

  /** A page: its status as expected, no raw markup from the hostile text, and these fields shown escaped. */
  async function page(path: string, fields: readonly string[], status = 200): Promise<string> {
    const res = await fetch(`${view.url}${path}`);
    const body = await res.text();
    assert.equal(res.status, status, `${path}: ${body.slice(0, 300)}`);
    for (const raw of RAW_MARKUP) {
      const at = body.search(raw);
      assert.equal(at, -1, `${path} has raw markup from model or user text: …${body.slice(Math.max(0, at - 200), at + 80)}…`);
    }
    for (const f of fields) assert.ok(body.includes(escaped(hostile(f))), `${path} does not show the field "${f}" (escaped)`);
    visited.push(path);
    return body;
  }

  const runByLabel = (label: string): ApiRun => {
    const r = apiRuns.find((x) => x.label === label);
    assert.ok(r, `no run labelled ${label}: ${apiRuns.map((x) => x.label).join(' | ')}`);
    return r;
  };
  const key = (r: ApiRun) => encodeURIComponent(r.key);
  const storeRun = (side: 'A' | 'B') => runByLabel(hostile(`label-${side}`));

  it('the runs list: labels, model names, settings, file names, protocol notes', async () => {
    const body = await page('/', [
      'label-A',
      'label-B',
      'model-A',
      'model-B',
      'setting-A',
      'setting-B',
      'summary-model',
      'summary-setting',
      'choice',
      'choice-value',
      'generator',
      'conner-setting',
    ]);
    assert.ok(body.includes(escaped(hostileFileName('file-name'))), 'the records file named by its hostile file name');
  });

  it("a store run's page: label, setting, model, its sources, answer types and sub-types in the breakdowns", async () => {
    await page(`/runs/${key(storeRun('A'))}`, ['label-A', 'setting-A', 'model-A', 'source-0', 'source-1', 'source-2', 'type-0', 'type-2', 'subtype-A']);
  });

  it('the item list: questions, responses, sources, answer types, sub-types, and the filters a user typed', async () => {
    const run = storeRun('A');
    await page(`/runs/${key(run)}/items`, [
      'label-A',
      'setting-A',
      'question-0',
      'question-1',
      'question-2',
      'response-A-0',
      'response-A-1',
      'source-0',
      'type-1',
      'subtype-A',
    ]);
    const q = encodeURIComponent(hostile('search'));
    await page(`/runs/${key(run)}/items?q=${q}&label=${encodeURIComponent(hostile('label-filter'))}`, ['search']);
    await page(`/runs/${key(run)}/items?source=${encodeURIComponent(hostile('source-0'))}&answerType=${encodeURIComponent(hostile('type-0'))}`, [
      'question-0',
      'source-0',
      'type-0',
    ]);
  });

  it("an item page: id, question, answers, response and raw output, the judge's decision and exchange, shots, distractors, every MCQ", async () => {
    const run = storeRun('A');
    await page(`/runs/${key(run)}/items/${encodeURIComponent(store.items[0]!)}`, [
      'item-id',
      'label-A',
      'setting-A',
      'question-0',
      'answer-0',
      'response-A-0',
      'raw-A-0',
      'source-0',
      'type-0',
      'finish',
      'dropped',
      'shot',
      'decided-by-A',
      'detail-A-0',
      'judge-prompt-A-0',
      'judge-reply-A-0',
      'judge-model',
      'distractor-source',
      'option-1',
      'option-3',
      'option-4',
      'mode',
      'mcq-raw-A',
      'parse',
    ]);
    await page(`/runs/${key(run)}/items/unseen-3`, ['question-2', 'response-A-2', 'subtype-A', 'decided-by-A', 'detail-A-2']);
  });

  it("the compare page: run labels and settings, every cell of the side-by-side table (question, source, each run's response and sub-type)", async () => {
    const [a, b] = [storeRun('A'), storeRun('B')];
    const body = await page(`/compare?runs=${key(a)},${key(b)}`, [
      'label-A',
      'label-B',
      'setting-A',
      'setting-B',
      'question-0',
      'question-2',
      'source-0',
      'response-A-0',
      'response-B-0',
      'response-A-1',
      'response-B-1',
      'subtype-A',
      'subtype-B',
    ]);
    // Cell by cell: the row of item 0 has A's response in its fourth cell and B's in its sixth.
    const row = body.split('<tr').find((r) => r.includes(escaped(hostile('question-0'))) && r.includes('class="text response"'));
    assert.ok(row, 'the side-by-side row of item 0');
    const cells = row.split('<td').slice(1);
    assert.ok(cells[0]!.includes(escaped(hostile('question-0'))), 'question cell');
    assert.ok(cells[1]!.includes(escaped(hostile('source-0'))), 'source cell');
    assert.ok(cells[3]!.includes(escaped(hostile('response-A-0'))), "A's response cell");
    assert.ok(cells[5]!.includes(escaped(hostile('response-B-0'))), "B's response cell");
    await page(`/compare?runs=${key(a)},${key(b)}&only=1`, ['question-0', 'response-A-0', 'response-B-0']);
    await page(`/compare?run=${key(a)}&run=${key(b)}&page=2`, ['label-A', 'label-B']);
  });

  it('result files: a records file under a hostile file name, a summary with hostile names and protocol notes', async () => {
    const file = apiRuns.find((r) => r.label.startsWith(hostileFileName('file-name')))!;
    assert.ok(file, 'the records file is a run');
    await page(`/runs/${key(file)}`, ['file-source']);
    await page(`/runs/${key(file)}/items`, ['file-question-0', 'file-response-0', 'file-source', 'file-type']);
    await page(`/runs/${key(file)}/items/${encodeURIComponent(hostile('file-id-0'))}`, [
      'file-id-0',
      'file-question-0',
      'file-answer-0',
      'file-response-0',
      'file-judged-by',
      'file-detail',
    ]);
    const summarised = runByLabel(hostile('summary-model'));
    await page(`/runs/${key(summarised)}`, ['summary-model', 'summary-setting', 'choice', 'choice-value', 'choice-note']);
    await page(`/compare?runs=${key(storeRun('A'))},${key(file)}`, ['label-A']);
  });

  it('a CONNER run: the generator, queries, knowledge, sentences, evidence, answers, scorers and notes', async () => {
    const conner = runByLabel(hostile('generator'));
    assert.equal(conner.method, 'conner');
    await page(`/runs/${key(conner)}`, ['generator', 'conner-setting']);
    await page(`/runs/${key(conner)}/items`, ['query-0', 'knowledge-0', 'topic']);
    await page(`/runs/${key(conner)}/items/${encodeURIComponent(hostile('conner-id-0'))}`, [
      'conner-id-0',
      'generator',
      'conner-setting',
      'topic',
      'query-0',
      'knowledge-0',
      'sentence-0',
      'evidence-source',
      'evidence-text',
      'gold',
      'answer-with',
      'answer-without',
      'validity-source',
      'validity-text',
      'negative',
      'note',
      'scorer-relevance',
      'scorer-factuality',
    ]);
  });

  it('not-found pages name what was asked for, escaped', async () => {
    await page(`/runs/${encodeURIComponent(hostile('missing-run'))}`, ['missing-run'], 404);
    await page(`/runs/${key(storeRun('A'))}/items/${encodeURIComponent(hostile('missing-item'))}`, ['missing-item'], 404);
  });

  it('every link on the pages above leads to a page without raw markup', async () => {
    const seen = new Set(visited);
    const queue = [...visited];
    let followed = 0;
    while (queue.length > 0 && followed < 300) {
      const path = queue.shift()!;
      const body = await (await fetch(`${view.url}${path}`)).text();
      for (const m of body.matchAll(/href="([^"]+)"/g)) {
        const href = m[1]!
          .replace(/&amp;/g, '&')
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>');
        if (!href.startsWith('/') || href.startsWith('/assets/') || seen.has(href)) continue;
        seen.add(href);
        queue.push(href);
        followed++;
        await page(href, []);
      }
    }
    assert.ok(followed > 20, `${followed} linked pages checked`);
  });
});
