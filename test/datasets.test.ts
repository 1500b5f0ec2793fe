import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildRepositoryFiles, buildSeenQAFiles, buildUnseenQAFiles } from '../src/methods/reliability/data/build-datasets.js';
import { readQAItems } from '../src/methods/reliability/data/qa-item.js';
import { readDprTsv, readPopqaCollabJson } from '../src/methods/reliability/data/source-readers.js';
import { DataSourceError, resolveSourceFile } from '../src/methods/reliability/data/source-files.js';
import { templatesForCutoff } from '../src/methods/reliability/data/unseenqa.js';
import { InputFileError } from '../src/errors.js';
import { normalizeAnswer } from '../src/text/normalize-answer.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const dataDir = process.env.LLMKB_DATA_DIR;
if (!dataDir) process.stderr.write('SKIPPED: dataset build tests need LLMKB_DATA_DIR (e.g. ../shared/data)\n');

async function buildAll(outDir: string): Promise<void> {
  const options = { outDir, seed: 42, dataDir: dataDir!, cacheDir: tempDir('llmkb-cache-') };
  await buildSeenQAFiles({ ...options, perSource: 1000 });
  await buildUnseenQAFiles(options);
  await buildRepositoryFiles(options);
}

const tmp = () => tempDir('llmkb-data-');

describe('data sets built from $LLMKB_DATA_DIR', { skip: dataDir ? false : 'LLMKB_DATA_DIR is not set' }, () => {
  const first = tmp();
  const second = tmp();

  it('builds SeenQA (1,000 per source), UnseenQA (20 x 150), R_seen (280) and R_unseen (40)', async () => {
    await buildAll(first);
    const seen = readQAItems(join(first, 'seenqa.jsonl'));
    assert.equal(seen.length, 3000);
    for (const s of ['nq', 'triviaqa', 'popqa']) assert.equal(seen.filter((i) => i.source === s).length, 1000, s);
    const unseen = readQAItems(join(first, 'unseenqa.jsonl'));
    assert.equal(unseen.length, 3000);
    for (let t = 1; t <= 20; t++) assert.equal(unseen.filter((i) => i.source === `T${t}`).length, 150, `T${t}`);
    assert.ok(unseen.every((i) => i.answers.length === 0 && i.answerType));
    assert.equal(readQAItems(join(first, 'r_seen.jsonl')).length, 280);
    assert.equal(readQAItems(join(first, 'r_unseen.jsonl')).length, 40);
    for (const card of ['seenqa.card.md', 'unseenqa.card.md', 'r_seen.card.md', 'r_unseen.card.md']) assert.ok(existsSync(join(first, card)), card);
    // The machine-readable card says how SeenQA was built; an evaluation's protocol block reads it.
    const json = JSON.parse(readFileSync(join(first, 'seenqa.card.json'), 'utf8')) as {
      schema: string;
      items: number;
      timeFilter: { method: string; note: string };
    };
    assert.equal(json.schema, 'llmkb-dataset-card-v1');
    assert.equal(json.timeFilter.method, 'keyword-rule-v2');
    assert.match(json.timeFilter.note, /precision 0\.\d+, recall 0\.\d+ on \d+ labelled questions/);
    assert.match(readFileSync(join(first, 'seenqa.card.md'), 'utf8'), /f15567f38099f3615f5b8a685c0aef449c11ad90d3da3735e8d1b98115b40616/);
  });

  it('draws PopQA from the random sample only, as the paper does, and says how much of it is long-tail', () => {
    const popqa = readQAItems(join(first, 'seenqa.jsonl')).filter((i) => i.source.startsWith('popqa'));
    assert.ok(
      popqa.every((i) => i.source === 'popqa' && /^popqa:\d+$/.test(i.sourceId ?? '')),
      'only source popqa, PopQA ids kept',
    );
    const randomIds = new Set(readPopqaCollabJson(join(dataDir!, 'popqa_dev1000_test1000.model_collaboration.json')).map((q) => q.sourceId));
    assert.deepEqual(
      popqa.filter((i) => !randomIds.has(i.sourceId!)).map((i) => i.sourceId),
      [],
      'no row from outside the random sample',
    );
    const card = readFileSync(join(first, 'seenqa.card.md'), 'utf8');
    assert.match(card, /popqa: 106 of 1000 questions \(10\.6%\) are long-tail \(subject popularity < 100/);
    assert.match(card, /TriviaQA subset: .*does not say which questions belong to it/);
    assert.match(card, /keyword rule `keyword-rule-v2` .*precision 0\.86 and recall 0\.96/);
  });

  it('offers the long-tail subset as its own source, disjoint from the random sample', async () => {
    const out = tmp();
    const report = await buildSeenQAFiles({ outDir: out, seed: 42, dataDir: dataDir!, cacheDir: tmp(), perSource: 50, popqaLongtail: true });
    assert.deepEqual(report.sources, ['nq', 'triviaqa', 'popqa', 'popqa-longtail']);
    const items = readQAItems(join(out, 'seenqa.jsonl'));
    const tail = items.filter((i) => i.source === 'popqa-longtail');
    assert.equal(tail.length, 50);
    const ids = items.filter((i) => i.source === 'popqa').map((i) => i.sourceId);
    assert.deepEqual(
      tail.filter((i) => ids.includes(i.sourceId)),
      [],
    );
    assert.equal(report.stats['popqa-longtail']!.popularity!.longTail, 50, 'every long-tail row has popularity < 100');
  });

  it('shows canonical answers in R_seen: decoded, no disambiguation or other-script aliases, listed in the card', () => {
    const rSeen = readQAItems(join(first, 'r_seen.jsonl'));
    const shown = rSeen.map((i) => i.answers[0]!);
    assert.deepEqual(
      shown.filter((a) => /&(amp|quot|lt|gt|#\d+);|%22|\(|disambiguation/i.test(a)),
      [],
    );
    assert.deepEqual(
      shown.filter((a) => /[^\p{Script=Latin}\P{L}]/u.test(a)),
      [],
      'Latin script',
    );
    const card = readFileSync(join(first, 'r_seen.card.md'), 'utf8');
    for (const item of rSeen) assert.ok(card.includes(`| ${item.answers[0]!.replace(/\|/g, '\\|').replace(/\s+/g, ' ')} |`), item.answers[0]);
  });

  it('is byte-identical when built again with the same seed', async () => {
    await buildAll(second);
    for (const f of readdirSync(first)) assert.equal(readFileSync(join(second, f), 'utf8'), readFileSync(join(first, f), 'utf8'), f);
  });

  it('keeps R_seen disjoint from SeenQA and R_unseen disjoint from UnseenQA', () => {
    const q = (f: string) => new Set(readQAItems(join(first, f)).map((i) => normalizeAnswer(i.question)));
    const seen = q('seenqa.jsonl');
    const rSeen = q('r_seen.jsonl');
    const unseen = q('unseenqa.jsonl');
    const rUnseen = q('r_unseen.jsonl');
    assert.deepEqual(
      [...rSeen].filter((x) => seen.has(x)),
      [],
    );
    assert.deepEqual(
      [...rUnseen].filter((x) => unseen.has(x)),
      [],
    );
    const ids = new Set(readQAItems(join(first, 'seenqa.jsonl')).map((i) => i.sourceId));
    assert.deepEqual(
      readQAItems(join(first, 'r_seen.jsonl')).filter((i) => ids.has(i.sourceId)),
      [],
    );
  });

  it('applies every SeenQA filter: no why-questions, no long answers, no time-bound wording in the output', () => {
    const seen = readQAItems(join(first, 'seenqa.jsonl'));
    assert.deepEqual(
      seen.filter((i) => /\bwhy\b/i.test(i.question)),
      [],
    );
    assert.deepEqual(
      seen.filter((i) => Math.min(...i.answers.map((a) => a.trim().split(/\s+/).length)) > 5),
      [],
    );
    assert.deepEqual(
      seen.filter((i) => /\b(currently|latest)\b/i.test(i.question)),
      [],
    );
  });

  it('says which templates a later cutoff drops, through the CLI', async () => {
    const out = tmp();
    const r = await llmkb([
      '--store',
      join(out, 's.sqlite'),
      'data',
      'unseenqa',
      '--data-dir',
      dataDir!,
      '--out',
      out,
      '--cutoff',
      '2030-01-01',
      '--per-template',
      '10',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /UnseenQA: 170 questions from 17 templates/);
    assert.match(r.stdout, /dropped T1: .*2028-07-14/);
    assert.match(r.stdout, /dropped T5: /);
    assert.match(r.stdout, /dropped T7: /);
  });
});

describe('data sources and bad input', () => {
  it('downloads into the cache, verifies the checksum, then reuses the cached copy', async () => {
    const body = "who wrote hamlet\t['William Shakespeare']\n";
    let requests = 0;
    let serve = body;
    const server = createServer((_req, res) => {
      requests += 1;
      res.writeHead(200).end(serve);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/topics.txt`;
    try {
      const file = { name: 'tiny.tsv', url, sha256: createHash('sha256').update(body).digest('hex'), licence: 'test', description: 'test' };
      const cacheDir = tmp();
      const first = await resolveSourceFile(file, { cacheDir });
      assert.equal(first.origin, 'download');
      assert.deepEqual(
        readDprTsv(first.path, 'nq').map((q) => q.answers),
        [['William Shakespeare']],
      );
      const again = await resolveSourceFile(file, { cacheDir });
      assert.equal(again.origin, 'cache');
      assert.equal(requests, 1);
      // a truncated download fails the checksum, and nothing is written
      serve = body.slice(0, 10);
      const fresh = tmp();
      const error = await resolveSourceFile(file, { cacheDir: fresh }).catch((e: unknown) => e);
      assert.ok(error instanceof DataSourceError);
      assert.match(error.message, /corrupt or truncated: SHA-256 .* expected /);
      assert.ok(!existsSync(join(fresh, 'data', 'tiny.tsv')));
      // with a data directory nothing is downloaded
      await assert.rejects(resolveSourceFile(file, { cacheDir: fresh, dataDir: fresh }), /not found \(data directory given, so nothing is downloaded\)/);
      assert.equal(requests, 2);
    } finally {
      server.close();
    }
  });

  it('names file, line and field of a malformed row', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'bad.tsv'), "q one\t['a']\nq two\t['b', 3]\n");
    const e1 = (() => {
      try {
        readDprTsv(join(dir, 'bad.tsv'), 'nq');
      } catch (e) {
        return e;
      }
    })();
    assert.ok(e1 instanceof InputFileError);
    assert.equal(e1.line, 2);
    assert.equal(e1.field, 'answers');
    writeFileSync(
      join(dir, 'items.jsonl'),
      '{"id":"a","dataset":"seen","source":"nq","question":"q","answers":["x"]}\n{"id":"b","dataset":"seen","source":"nq","answers":["x"]}\n',
    );
    const e2 = (() => {
      try {
        readQAItems(join(dir, 'items.jsonl'));
      } catch (e) {
        return e;
      }
    })();
    assert.ok(e2 instanceof InputFileError);
    assert.equal(e2.line, 2);
    assert.equal(e2.field, 'question');
    writeFileSync(
      join(dir, 'dup.jsonl'),
      '{"id":"a","dataset":"unseen","source":"T1","question":"q","answers":[]}\n{"id":"a","dataset":"unseen","source":"T1","question":"r","answers":[]}\n',
    );
    assert.throws(() => readQAItems(join(dir, 'dup.jsonl')), /duplicate id "a"/);
    writeFileSync(join(dir, 'trunc.jsonl'), '{"id":"a","dataset":"unseen","source":"T1","question":"q","answers":[]}\n{"id":"b","datas');
    assert.throws(() => readQAItems(join(dir, 'trunc.jsonl')), /trunc\.jsonl:2: not valid JSON/);
  });

  it('refuses a cutoff that is not a date, and drops only future-event templates', () => {
    assert.throws(() => templatesForCutoff('last year'), /is not a date/);
    assert.deepEqual(templatesForCutoff('2024-04-13').dropped, []);
    assert.deepEqual(
      templatesForCutoff('2050-01-01').dropped.map((d) => d.id),
      ['T1', 'T2', 'T5', 'T6', 'T7'],
    );
    assert.equal(templatesForCutoff('2050-01-01').templates.length, 15);
  });
});
