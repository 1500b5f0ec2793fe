/**
 * `llmkb corpus add-remote`: an OpenSearch index registered by name, searched through the built
 * binary against a loopback server speaking `_search` (test/support/opensearch-server.ts), and
 * as CONNER's evidence source (`conner score --corpus NAME` takes the same source). Credentials
 * come from the variable named at registration and never reach the store or the output.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { corpusEvidence } from '../src/methods/conner/evidence/evidence-source.js';
import { openDatabase } from '../src/store/database.js';
import { startOpenSearchServer, type OpenSearchTestServer } from './support/opensearch-server.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const SECRET = 'reader:s3cret-Xq9';
const dir = tempDir('llmkb-corpus-remote-');
const store = join(dir, 'store.sqlite');
const run = (args: string[], env: NodeJS.ProcessEnv = {}) => llmkb(['--store', store, 'corpus', ...args], { env });

describe('llmkb corpus add-remote (OpenSearch over a loopback server)', () => {
  let server: OpenSearchTestServer;
  before(async () => {
    server = await startOpenSearchServer(
      {
        passages: [
          { id: 'p1', source: { text: 'The remaining land-birds form a most singular group of finches.', doc: 'galapagos.md', page: 2, start: 10, end: 72 } },
          {
            id: 'p2',
            source: { text: 'A struggle for existence inevitably follows from the high rate of increase.', doc: 'origin.txt', page: 5, start: 0, end: 75 },
          },
          { id: 'p3', source: { text: 'Finches and mocking-thrushes differ between the islands.', doc: 'galapagos.md', page: 3, start: 200, end: 256 } },
        ],
      },
      { authorization: `Basic ${Buffer.from(SECRET).toString('base64')}` },
    );
  });
  after(() => server.close());

  it('registers the index, searches it with credentials from the named variable, lists and removes it', async () => {
    const add = await run([
      'add-remote',
      'galapagos',
      '--opensearch',
      server.url,
      '--index',
      'passages',
      '--doc-id-field',
      'doc',
      '--page-field',
      'page',
      '--start-field',
      'start',
      '--end-field',
      'end',
      '--auth-env',
      'TEST_OS_AUTH',
    ]);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /corpus "galapagos": OpenSearch index passages at http:\/\/127\.0\.0\.1:\d+ \(credentials from \$TEST_OS_AUTH\)/);

    const search = await run(['search', 'galapagos', 'finches islands', '-k', '2'], { TEST_OS_AUTH: SECRET });
    assert.equal(search.code, 0, search.stderr);
    assert.match(
      search.stdout,
      /^OpenSearch index passages at http:\/\/127\.0\.0\.1:\d+\n1\. score 3\.000 {2}galapagos\.md {2}p\. 3 {2}chars 200-256\n {3}Finches and mocking-thrushes differ between the islands\.\n2\. score 1\.500 {2}galapagos\.md {2}p\. 2 {2}chars 10-72\n/,
    );
    const sent = server.requests.at(-1)!;
    assert.equal(sent.path, '/passages/_search');
    assert.deepEqual(sent.body, { size: 2, query: { match: { text: 'finches islands' } } });
    assert.equal(sent.authorization, `Basic ${Buffer.from(SECRET).toString('base64')}`);

    const json = await run(['search', 'galapagos', 'struggle', '--json', '-k', '1'], { TEST_OS_AUTH: SECRET });
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(
      (JSON.parse(json.stdout) as { docId: string; page: number }[]).map((h) => [h.docId, h.page]),
      [['origin.txt', 5]],
    );

    const list = await run(['list']);
    assert.match(list.stdout, /^galapagos {2}OpenSearch index passages at http:\/\/127\.0\.0\.1:\d+ \(credentials from \$TEST_OS_AUTH\)$/m);
    const stats = await run(['stats', 'galapagos']);
    assert.equal(stats.code, 0, stats.stderr);
    assert.match(stats.stdout, /OpenSearch index passages/);

    // CONNER's evidence source over the same registration (what `conner score --corpus galapagos` uses).
    const db = openDatabase(store);
    const previous = process.env.TEST_OS_AUTH;
    try {
      delete process.env.TEST_OS_AUTH;
      assert.throws(() => corpusEvidence(db, 'galapagos', 1), /TEST_OS_AUTH \(OpenSearch credentials\) is not set/, 'fails before any model call');
      process.env.TEST_OS_AUTH = SECRET;
      const evidence = corpusEvidence(db, 'galapagos', 1);
      assert.match(evidence.id, /^corpus:galapagos \(OpenSearch index passages at http:\/\/127\.0\.0\.1:\d+, top 1\)$/);
      try {
        assert.deepEqual(await evidence.retrieve('struggle for existence', []), [
          { source: 'corpus:galapagos/origin.txt', text: 'A struggle for existence inevitably follows from the high rate of increase.' },
        ]);
      } finally {
        if (previous === undefined) delete process.env.TEST_OS_AUTH;
        else process.env.TEST_OS_AUTH = previous;
      }
    } finally {
      db.close();
    }

    for (const r of [add, search, json, list, stats])
      assert.ok(
        !`${r.stdout}${r.stderr}`.includes('s3cret') && !`${r.stdout}${r.stderr}`.includes(Buffer.from(SECRET).toString('base64')),
        'credentials never printed',
      );
    assert.ok(!readFileSync(store).includes('s3cret'), 'credentials never stored');

    const removed = await run(['remove', 'galapagos']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /the index itself is not touched/);
    assert.equal((await run(['search', 'galapagos', 'finches'])).code, 2, 'gone');
  });

  it('refuses credentials in the URL, dense search of a remote index, and a search without the variable', async () => {
    const inUrl = await run(['add-remote', 'x', '--opensearch', `http://reader:s3cret@127.0.0.1:9`, '--index', 'passages']);
    assert.equal(inUrl.code, 2);
    assert.match(inUrl.stderr, /the OpenSearch URL holds credentials/);
    assert.match(inUrl.stderr, /--auth-env/);
    assert.ok(!inUrl.stderr.includes('s3cret'));
    const badIndex = await run(['add-remote', 'x', '--opensearch', server.url, '--index', 'a/b']);
    assert.equal(badIndex.code, 2);
    assert.match(badIndex.stderr, /invalid index name "a\/b"/);

    assert.equal((await run(['add-remote', 'idx', '--opensearch', server.url, '--index', 'passages', '--auth-env', 'TEST_OS_AUTH_UNSET'])).code, 0);
    const dense = await run(['search', 'idx', 'finches', '--mode', 'dense']);
    assert.equal(dense.code, 2);
    assert.match(dense.stderr, /is an OpenSearch index: search mode "dense" is not available/);
    const unset = await run(['search', 'idx', 'finches'], { TEST_OS_AUTH_UNSET: '' });
    assert.equal(unset.code, 2);
    assert.match(unset.stderr, /TEST_OS_AUTH_UNSET \(OpenSearch credentials\) is not set/);
    const wrong = await run(['search', 'idx', 'finches'], { TEST_OS_AUTH_UNSET: 'reader:wrong' });
    assert.equal(wrong.code, 3);
    assert.match(wrong.stderr, /HTTP 401: security_exception/);
    const local = await run(['add', 'idx', join(dir, 'none.txt')]);
    assert.equal(local.code, 2);
    assert.match(local.stderr, /is a remote index/);
  });
});

describe('llmkb corpus search on an OpenSearch index that answers in an unexpected shape', () => {
  it('names the field of a hit with a numeric _id in one line, not a raw validation dump', async () => {
    const odd = await startOpenSearchServer({ passages: [{ id: 7 as unknown as string, source: { text: 'Finches differ between the islands.' } }] });
    try {
      assert.equal((await run(['add-remote', 'odd', '--opensearch', odd.url, '--index', 'passages'])).code, 0);
      const r = await run(['search', 'odd', 'finches']);
      assert.equal(r.code, 3);
      assert.match(
        r.stderr,
        /^llmkb: error: OpenSearch _search on index passages returned an unexpected body: hits\.hits\[0\]\._id: Invalid input: expected string, received number\n {2}hint: Check that the URL/,
      );
      assert.equal(r.stderr.split('\n').filter((l) => l.startsWith('llmkb: error:')).length, 1);
      assert.doesNotMatch(r.stderr, /"code"|"expected"|"path"/, 'no zod issue array');
    } finally {
      await odd.close();
    }
  });
});
