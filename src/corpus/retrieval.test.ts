import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startOpenAICompatibleServer, type TestServer } from '#test-support/openai-compatible-server.js';
import { startOpenSearchServer, type OpenSearchTestServer } from '#test-support/opensearch-server.js';
import { ConfigError, LlmkbError, ModelCallError } from '../errors.js';
import { ModelExecutor } from '../executor/model-executor.js';
import { OpenAICompatibleModel } from '../providers/openai-compatible/openai-compatible-model.js';
import { CallCache } from '../store/call-cache.js';
import { openDatabase, type Db } from '../store/database.js';
import { Corpus } from './corpus.js';
import { EmbedderMismatchError, normalized, reciprocalRankFusion, RRF_K } from './dense-index.js';
import { OpenSearchRetriever } from './opensearch-retriever.js';
import { CorpusRetriever } from './corpus-retriever.js';
import type { Retriever } from './retriever.js';
import { tempDir } from '#test-support/temp-dir.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const dbs: Db[] = [];
after(() => dbs.forEach((d) => d.open && d.close()));

function fresh(): Db {
  const db = openDatabase(join(tempDir('llmkb-retrieval-'), 'store.sqlite'));
  dbs.push(db);
  return db;
}

/**
 * A deterministic bag-of-words embedding (256 hashed dimensions, plural "s" folded, a few
 * function words left out): texts that share content words are close, as with a real model.
 */
const IGNORED = new Set([
  'the',
  'of',
  'a',
  'and',
  'to',
  'in',
  'is',
  'are',
  'what',
  'which',
  'how',
  'do',
  'their',
  'on',
  'by',
  'with',
  'that',
  'it',
  'as',
  'for',
  'be',
  'or',
  'this',
]);
function bagOfWords(text: string): number[] {
  const v = new Array<number>(256).fill(0);
  for (const raw of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
    if (IGNORED.has(raw)) continue;
    const w = raw.length > 3 ? raw.replace(/s$/, '') : raw;
    let h = 2166136261;
    for (const ch of w) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    v[h % 256]! += 1;
  }
  return v;
}

describe('dense and hybrid retrieval through the executor (loopback OpenAI-compatible /v1/embeddings)', () => {
  let server: TestServer;
  before(async () => {
    server = await startOpenAICompatibleServer({ embed: bagOfWords });
  });
  after(() => server.close());

  function embedder(db: Db, model = 'bow-256'): ModelExecutor {
    const provider = new OpenAICompatibleModel({
      baseURLs: [server.baseURL],
      model,
      api: 'completions',
      echo: false,
      topLogprobs: 0,
      flavor: 'vllm',
      concurrency: 2,
    });
    return new ModelExecutor(provider, { cache: new CallCache(db) });
  }

  it('embeds every passage once (cached, resumable), finds hand-checked passages densely, and fuses rankings by RRF', async () => {
    const db = fresh();
    const corpus = Corpus.openOrCreate(db, 'darwin', { passageWords: 40, overlapWords: 5 });
    await corpus.add([join(FIXTURES, 'darwin.jsonl'), join(FIXTURES, 'texts')]);
    const passages = corpus.stats().passages;
    const e = embedder(db);
    const done = await corpus.embed(e);
    assert.deepEqual(done, { embedded: passages, total: passages });
    assert.deepEqual(await corpus.embed(e), { embedded: 0, total: 0 }, 'nothing left to embed');
    const stored = db.prepare(`SELECT vector FROM corpus_vec_${corpus.id} LIMIT 1`).get() as { vector: Buffer };
    assert.equal(stored.vector.byteLength, 256 * 4, 'a Float32 BLOB of 256 dimensions');

    // Hand-checked: the finches' beaks are in the Galapagos notes.
    const dense = await corpus.retrieve('the beaks of finches', { k: 3, mode: 'dense', embedder: e });
    assert.equal(dense[0]!.docId, 'galapagos.md');
    assert.match(dense[0]!.text, /finches/);
    assert.ok(dense[0]!.score <= 1 + 1e-6 && dense.every((h, i) => i === 0 || h.score <= dense[i - 1]!.score));
    // The cosine is the one of the two bag-of-words vectors.
    const q = normalized(bagOfWords('the beaks of finches'));
    const p = normalized(bagOfWords(dense[0]!.text));
    assert.ok(Math.abs(q.reduce((a, x, i) => a + x * p[i]!, 0) - dense[0]!.score) < 1e-5);

    const requestsBefore = server.requests.length;
    const again = await corpus.retrieve('the beaks of finches', { k: 3, mode: 'dense', embedder: embedder(db) });
    assert.deepEqual(
      again.map((h) => h.passageId),
      dense.map((h) => h.passageId),
    );
    assert.equal(server.requests.length, requestsBefore, 'the query embedding came from the call cache');

    const hybrid = await corpus.retrieve('struggle for existence', { k: 5, mode: 'hybrid', embedder: e });
    const bm25 = corpus.searchIds('struggle for existence', 100);
    const fused = reciprocalRankFusion([
      bm25,
      (await corpus.retrieve('struggle for existence', { k: 100, mode: 'dense', embedder: e })).map((h) => ({ id: h.passageId })),
    ]);
    assert.deepEqual(
      hybrid.map((h) => h.passageId),
      fused.slice(0, 5).map((f) => f.id),
    );
    assert.equal(hybrid[0]!.docId, 'origin-ch3-struggle');

    await assert.rejects(corpus.retrieve('x', { mode: 'dense' }), (e: unknown) => e instanceof LlmkbError && /needs an embedding model/.test(e.message));
    await assert.rejects(corpus.retrieve('x', { mode: 'dense', embedder: embedder(db, 'another-model') }), EmbedderMismatchError);
  });

  it('keeps vectors in step with the passages: a changed document is embedded again, a removed corpus leaves no vectors', async () => {
    const db = fresh();
    const dir = tempDir('llmkb-retrieval-docs-');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'a.txt'), 'Finches have beaks of many shapes on the islands.');
    writeFileSync(join(dir, 'b.txt'), 'Tortoises differ from island to island.');
    const corpus = Corpus.openOrCreate(db, 'small');
    await corpus.add([dir]);
    const e = embedder(db);
    await corpus.embed(e);
    const count = (): number => (db.prepare(`SELECT COUNT(*) AS n FROM corpus_vec_${corpus.id}`).get() as { n: number }).n;
    assert.equal(count(), 2);
    writeFileSync(join(dir, 'a.txt'), 'Pigeons were bred by fanciers in many breeds.');
    await corpus.add([dir]);
    assert.equal(count(), 1, 'the changed document took its vector with it');
    const hits = await corpus.retrieve('pigeon breeds', { k: 1, mode: 'dense', embedder: e });
    assert.match(hits[0]!.text, /Pigeons/, 'embedded again before the search');
    assert.equal(count(), 2);
    Corpus.remove(db, 'small');
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM sqlite_master WHERE name = ?').get(`corpus_vec_${corpus.id}`) as { n: number }).n, 0);
  });

  it('gives one Retriever interface over BM25, dense and hybrid', async () => {
    const db = fresh();
    const corpus = Corpus.openOrCreate(db, 'texts');
    await corpus.add([join(FIXTURES, 'texts')]);
    const e = embedder(db);
    const retrievers: Retriever[] = [
      new CorpusRetriever(corpus),
      new CorpusRetriever(corpus, { mode: 'dense', embedder: e }),
      new CorpusRetriever(corpus, { mode: 'hybrid', embedder: e }),
    ];
    for (const r of retrievers) {
      const hits = await r.search('pigeons bred by fanciers', 2);
      assert.ok(hits.length >= 1 && hits.length <= 2, r.description);
      assert.equal(hits[0]!.docId, join('notes', 'pigeons.txt'), r.description);
      assert.equal(typeof hits[0]!.start, 'number');
    }
    assert.deepEqual(
      retrievers.map((r) => r.description),
      ['corpus texts (bm25)', 'corpus texts (dense)', 'corpus texts (hybrid)'],
    );
  });
});

describe('reciprocalRankFusion', () => {
  it('sums 1 / (60 + rank) over the rankings (hand-computed)', () => {
    const fused = reciprocalRankFusion([
      [{ id: 1 }, { id: 2 }, { id: 3 }],
      [{ id: 3 }, { id: 1 }],
    ]);
    assert.equal(RRF_K, 60);
    assert.deepEqual(
      fused.map((f) => f.id),
      [1, 3, 2],
    );
    assert.ok(Math.abs(fused[0]!.score - (1 / 61 + 1 / 62)) < 1e-12);
    assert.ok(Math.abs(fused[1]!.score - (1 / 63 + 1 / 61)) < 1e-12);
    assert.ok(Math.abs(fused[2]!.score - 1 / 62) < 1e-12);
  });
});

describe('OpenSearchRetriever against a loopback server speaking the _search API', () => {
  let server: OpenSearchTestServer;
  const docs = [
    { id: 'p1', source: { text: 'The remaining land-birds form a most singular group of finches.', doc: 'galapagos.md', page: 2, start: 10, end: 72 } },
    {
      id: 'p2',
      source: { text: 'A struggle for existence inevitably follows from the high rate of increase.', doc: 'origin.txt', page: 5, start: 0, end: 75 },
    },
    { id: 'p3', source: { text: 'Finches and mocking-thrushes differ between the islands.', doc: 'galapagos.md', page: 3, start: 200, end: 256 } },
  ];
  before(async () => {
    server = await startOpenSearchServer({ passages: docs }, { authorization: `Basic ${Buffer.from('reader:s3cret').toString('base64')}` });
  });
  after(() => server.close());

  it('sends a match query of size k with credentials from the environment and maps hits to passages', async () => {
    const r = new OpenSearchRetriever({
      url: server.url,
      index: 'passages',
      docIdField: 'doc',
      pageField: 'page',
      startField: 'start',
      endField: 'end',
      authEnv: 'TEST_OS_AUTH',
      env: { TEST_OS_AUTH: 'reader:s3cret' },
    });
    const hits = await r.search('finches islands', 2);
    const sent = server.requests.at(-1)!;
    assert.equal(sent.method, 'POST');
    assert.equal(sent.path, '/passages/_search');
    assert.deepEqual(sent.body, { size: 2, query: { match: { text: 'finches islands' } } });
    assert.deepEqual(
      hits.map((h) => [h.docId, h.page, h.start, h.end, h.rank]),
      [
        ['galapagos.md', 3, 200, 256, 1],
        ['galapagos.md', 2, 10, 72, 2],
      ],
    );
    assert.equal(hits[0]!.score, 3);
    assert.equal(sent.authorization, `Basic ${Buffer.from('reader:s3cret').toString('base64')}`);
    assert.match(r.description, /OpenSearch index passages at http:\/\/127\.0\.0\.1:\d+/);
  });

  it('reports missing credentials, a missing index and an unset variable clearly', async () => {
    await assert.rejects(
      new OpenSearchRetriever({ url: server.url, index: 'passages' }).search('finches', 1),
      (e: unknown) => e instanceof ModelCallError && /HTTP 401: security_exception/.test(e.message) && /none were sent/.test(e.hint ?? ''),
    );
    await assert.rejects(
      new OpenSearchRetriever({ url: server.url, index: 'nope', authEnv: 'A', env: { A: 'reader:s3cret' } }).search('finches', 1),
      (e: unknown) => e instanceof ModelCallError && /HTTP 404: index_not_found_exception: no such index \[nope\]/.test(e.message),
    );
    assert.throws(() => new OpenSearchRetriever({ url: server.url, index: 'passages', authEnv: 'UNSET_VAR', env: {} }), ConfigError);
    assert.throws(() => new OpenSearchRetriever({ url: 'ftp://x', index: 'passages' }), ConfigError);
    const noText = new OpenSearchRetriever({
      url: server.url,
      index: 'passages',
      textField: 'body',
      authEnv: 'A',
      env: { A: 'Basic ' + Buffer.from('reader:s3cret').toString('base64') },
    });
    assert.deepEqual(await noText.search('finches', 1), [], 'no document has a "body" field to match');
  });
});
