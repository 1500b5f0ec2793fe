/**
 * Config files, environment and remote corpora as hostile users give them (issue 37):
 * `"judge": "none"` as the flag says it, `~` in the config's paths, an empty `LLMKB_STORE`,
 * `defaults` for `corpus add-remote` honoured, an OpenSearch hit with null text skipped with a
 * note naming `--text-field`, and a study entry named `..` refused with a message it breaks.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cacheDir, loadConfig, storePath } from '../src/config/config.js';
import { OpenSearchRetriever } from '../src/corpus/opensearch-retriever.js';
import { EXIT_CODES } from '../src/errors.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function workdir(): string {
  const dir = tempDir('llmkb-bad-config-');
  made.push(dir);
  return dir;
}

const QA = `${JSON.stringify({ id: 'q1', dataset: 'seen', source: 'mine', question: 'What is the capital of France?', answers: ['Paris'] })}\n`;

describe('the config', () => {
  it('"judge": "none" runs without a judge, as --judge none does', async () => {
    const cwd = workdir();
    writeFileSync(join(cwd, 'qa.jsonl'), QA);
    writeFileSync(join(cwd, 'r.jsonl'), `${JSON.stringify({ default: true, reply: ' Paris' })}\n`);
    writeFileSync(join(cwd, 'llmkb.config.json'), JSON.stringify({ model: 'mock:r.jsonl', judge: 'none' }));
    const r = await llmkb(['--store', 's.sqlite', 'eval', '--input', 'qa.jsonl', '--settings', 'zero-shot', '--mcqs', '2', '--out', 'o'], { cwd });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /departures from the paper's protocol: judge lexical-v\d+/);
  });

  it('~ in store, cacheDir and methods is the home folder', () => {
    const dir = workdir();
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ store: '~/x/llmkb.sqlite', cacheDir: '~/cache', methods: ['~/m.js'] }));
    const { config } = loadConfig(file);
    const home = process.env.HOME ?? '';
    assert.equal(storePath(config), join(home, 'x', 'llmkb.sqlite'));
    assert.equal(cacheDir(config), join(home, 'cache'));
    assert.deepEqual(config.methods, [join(home, 'm.js')]);
  });

  it('an empty LLMKB_STORE is unset: the default store, not the current folder', async () => {
    assert.equal(storePath({}, { LLMKB_STORE: '' }), storePath({}, {}));
    const cwd = workdir();
    const r = await llmkb(['runs'], { cwd, env: { LLMKB_STORE: '' } });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /is a folder/);
  });

  it("corpus add-remote takes --opensearch and --index from the config's defaults; without them it says which is missing", async () => {
    const cwd = workdir();
    writeFileSync(
      join(cwd, 'llmkb.config.json'),
      JSON.stringify({ defaults: { 'corpus add-remote': { opensearch: 'http://127.0.0.1:9', index: 'passages', textField: 'body' } } }),
    );
    const r = await llmkb(['--store', 's.sqlite', 'corpus', 'add-remote', 'w'], { cwd });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /OpenSearch index passages at http:\/\/127\.0\.0\.1:9/);
    const bare = workdir();
    const missing = await llmkb(['--store', 's.sqlite', 'corpus', 'add-remote', 'w', '--index', 'p'], { cwd: bare });
    assert.equal(missing.code, EXIT_CODES.usage, missing.stderr);
    assert.match(missing.stderr, /corpus add-remote needs --opensearch/);
  });
});

describe('an OpenSearch hit with null text', () => {
  it('is skipped with a note naming --text-field; when no hit has text, the error names --text-field', async () => {
    const hits = [
      { _index: 'p', _id: 'a', _score: 2, _source: { text: null } },
      { _index: 'p', _id: 'b', _score: 1, _source: { text: 'Paris is the capital of France.' } },
    ];
    let only = false;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ hits: { hits: only ? hits.slice(0, 1) : hits } }));
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const notes: string[] = [];
      const retriever = new OpenSearchRetriever({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        index: 'p',
        onNote: (line) => notes.push(line),
      });
      const found = await retriever.search('capital of France', 2);
      assert.deepEqual(
        found.map((h) => [h.rank, h.docId]),
        [[1, 'b']],
      );
      assert.equal(notes.length, 1);
      assert.match(notes[0]!, /hit a has no text in field "text" \(null\): skipped .*--text-field FIELD/);
      only = true;
      await assert.rejects(
        retriever.search('capital', 2),
        (e: Error & { hint?: string }) => /no text field "text"/.test(e.message) && /--text-field/.test(e.hint ?? ''),
      );
    } finally {
      await new Promise((done) => server.close(done));
    }
  });
});

describe('a study entry named ".."', () => {
  it('is refused with a message it does not satisfy', async () => {
    const cwd = workdir();
    writeFileSync(join(cwd, 'qa.jsonl'), QA);
    writeFileSync(
      join(cwd, 'study.json'),
      JSON.stringify({ models: [{ label: 'm', spec: 'mock:r.jsonl' }], methods: [{ id: 'reliability', name: '..' }], input: 'qa.jsonl' }),
    );
    const r = await llmkb(['--store', 's.sqlite', 'sweep', 'study.json', '--out', 'o'], { cwd });
    assert.equal(r.code, EXIT_CODES.usage, r.stderr);
    assert.match(r.stderr, /methods\.0\.name.*starting with a letter or digit/);
    assert.ok(!existsSync(join(cwd, 'o')) || readdirSync(join(cwd, 'o')).length === 0);
  });
});
