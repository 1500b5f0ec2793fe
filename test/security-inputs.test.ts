/**
 * Issue 37's security findings on inputs and outputs, each against the built CLI or real servers
 * on 127.0.0.1: a query string in a base URL (a key in `?api-key=`) refused like `user:pass@`;
 * every part and encoding of a credential that was read redacted from what a server echoes; a
 * password with a tab redacted in the refusal; control characters from an input shown escaped in
 * the error; CSV cells that a spreadsheet would run as formulas neutralised; a reply body over
 * the size cap abandoned with an error naming the limit.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import { toCsv } from '../src/methods/run-tables.js';
import { loadConfig } from '../src/config/config.js';
import { OpenSearchRetriever } from '../src/corpus/opensearch-retriever.js';
import { InputFileError, LlmkbError, ModelCallError, ModelSpecError } from '../src/errors.js';
import { requestJson } from '../src/providers/openai-compatible/http-client.js';
import { parseModelSpec } from '../src/providers/model-spec.js';
import { authorizationValue, redactSecrets } from '../src/secrets.js';
import { loadStudy } from '../src/sweep/study.js';
import { escapeControls } from '../src/terminal-text.js';
import { llmkb } from './support/run-cli.js';
import { paperSummaries } from './support/summaries.js';
import { tempDir } from './support/temp-dir.js';

const dir = tempDir('llmkb-security-inputs-');
after(() => rmSync(dir, { recursive: true, force: true }));

/** Every file under `root` whose bytes hold `needle`. */
function filesHolding(root: string, needle: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => readFileSync(file).includes(needle));
}

/** A server on 127.0.0.1 answering every request with `handler`. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const policy = (apiKey: string | undefined) => ({
  apiKey,
  retryableStatus: new Set<number>(),
  isContextOverflow: () => false,
  unreachableHint: () => '',
  shapeHint: '',
});

describe('a query string in a base URL is refused (exit 2), its values not shown', () => {
  it('every spec form: a credential-like parameter (any case, - or _) named, a plain query refused too', () => {
    const keyed = [
      'vllm:http://127.0.0.1:9/ok?api-key=SECRET-Q1/v1/m',
      'vllm:http://127.0.0.1:9/v1/m?api_key=SECRET-Q1',
      'llamacpp:http://127.0.0.1:9/v1?Token=SECRET-Q1/m',
      'tei:http://127.0.0.1:9/x?ACCESS_TOKEN=SECRET-Q1',
      'vllm-score:http://127.0.0.1:9/v1/x?sig=SECRET-Q1&a=b',
      'openai-compatible:http://127.0.0.1:1/v1,http://127.0.0.1:2/v1?Password=SECRET-Q1/m',
      'llm-relevance:vllm:http://127.0.0.1:9/v1/m?apikey=SECRET-Q1',
    ];
    for (const spec of keyed) {
      assert.throws(
        () => parseModelSpec(spec),
        (e: unknown) =>
          e instanceof ModelSpecError &&
          e.exitCode === 2 &&
          !e.message.includes('SECRET-Q1') &&
          /holds a credential in a URL's query string/.test(e.message) &&
          /apiKeyEnv/.test(e.hint ?? ''),
        spec,
      );
    }
    assert.throws(
      () => parseModelSpec('vllm:http://127.0.0.1:9/v1?api-version=2024-01/m'),
      (e: unknown) => e instanceof ModelSpecError && /has a query string/.test(e.message) && e.message.includes('?api-version=***'),
    );
    assert.throws(
      () => parseModelSpec('ollama:llama3.1', { OLLAMA_HOST: '127.0.0.1:11434/?key=SECRET-Q1' }),
      (e: unknown) => e instanceof ModelSpecError && /OLLAMA_HOST/.test(e.message) && !e.message.includes('SECRET-Q1'),
    );
  });

  it('a config entry and a study (spec and endpoint): refused naming the file and field', () => {
    const config = join(dir, 'q.config.json');
    writeFileSync(config, JSON.stringify({ judge: { spec: 'vllm:http://127.0.0.1:9/v1/judge?key=SECRET-Q2' } }));
    assert.throws(
      () => loadConfig(config),
      (e: unknown) => e instanceof LlmkbError && e.exitCode === 2 && e.message.includes(`${config} (field "judge.spec")`) && !e.message.includes('SECRET-Q2'),
    );
    const study = join(dir, 'q.yaml');
    writeFileSync(study, 'models:\n  - label: a\n    spec: vllm:http://127.0.0.1:9/v1/m\n    endpoints:\n      - http://127.0.0.1:10/v1?secret=SECRET-Q2\n');
    assert.throws(
      () => loadStudy(study),
      (e: unknown) => e instanceof InputFileError && e.field === 'models.0.endpoints.0' && e.exitCode === 2 && !e.message.includes('SECRET-Q2'),
    );
  });

  it('the CLI: complete and corpus add-remote --opensearch exit 2; no output and no file holds the key', async () => {
    const cwd = mkdtempSync(join(dir, 'cli-'));
    const complete = await llmkb(['--store', 'store.sqlite', 'complete', '--model', 'vllm:http://127.0.0.1:9/ok?api-key=SECRET-Q3/v1/m', 'hi'], { cwd });
    assert.equal(complete.code, 2, complete.stderr);
    const remote = await llmkb(
      ['--store', 'store.sqlite', 'corpus', 'add-remote', 'w2', '--opensearch', 'http://127.0.0.1:9/os?api_key=SECRET-Q3', '--index', 'p'],
      { cwd },
    );
    assert.equal(remote.code, 2, remote.stderr);
    assert.match(remote.stderr, /query string \("api_key"\)/);
    for (const r of [complete, remote]) assert.ok(!`${r.stdout}${r.stderr}`.includes('SECRET-Q3'), r.stderr);
    assert.deepEqual(filesHolding(cwd, 'SECRET-Q3'), []);
  });
});

describe('every part and encoding of a credential that was read is redacted', () => {
  it('a server echoing the user, the password, the decoded Basic value and URL-encoded forms: none reaches the message', async () => {
    const server = await serve((req, res) => {
      req.resume();
      const header = req.headers.authorization ?? '';
      const decoded = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8');
      const [user, password] = [decoded.slice(0, decoded.indexOf(':')), decoded.slice(decoded.indexOf(':') + 1)];
      res.writeHead(401, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: {
            message: `user [${user}] password [${password}] decoded=${decoded} enc=${encodeURIComponent(password)} both=${encodeURIComponent(user)}:${encodeURIComponent(password)}`,
          },
        }),
      );
    });
    try {
      const password = 'Pw Echo/31:x@y';
      for (const credential of [`svcuser:${password}`, `Basic ${Buffer.from(`svcuser2:${password}2`).toString('base64')}`]) {
        const error = await requestJson(
          `${server.url}/v1`,
          '/completions',
          {},
          z.object({}),
          {},
          policy(credential.startsWith('Basic') ? credential : authorizationValue(credential, 'Basic')),
        ).catch((e: unknown) => e);
        assert.ok(error instanceof ModelCallError);
        for (const part of ['svcuser', 'Pw Echo', 'Pw%20Echo', encodeURIComponent(password)])
          assert.ok(!error.message.includes(part), `${part} in ${error.message}`);
        assert.match(error.message, /user \[\*\*\*\] password \[\*\*\*\] decoded=\*\*\*/);
      }
      // The user name is redacted as a word, not inside other words.
      assert.equal(redactSecrets('svcusers and svcuser'), 'svcusers and ***');
    } finally {
      await server.close();
    }
  });

  it('a key in an echoed query string is redacted whatever its origin', () => {
    assert.equal(redactSecrets('GET /os/_search?api_key=k-991234&size=3 failed'), 'GET /os/_search?api_key=***&size=3 failed');
  });

  it('a password with a tab (or another control character) in a model URL: refused, shown as ***', async () => {
    for (const spec of ['vllm:http://alice:pa\tSECRET-T4@127.0.0.1:9/v1/m', 'vllm:http://alice:pa\x01SECRET-T4@127.0.0.1:9/v1/m']) {
      assert.throws(
        () => parseModelSpec(spec),
        (e: unknown) => e instanceof ModelSpecError && !e.message.includes('SECRET-T4') && e.message.includes('http://***@127.0.0.1:9'),
        JSON.stringify(spec),
      );
    }
    const r = await llmkb(['--store', join(dir, 'tab.sqlite'), 'complete', '--model', 'vllm:http://alice:pa\tSECRET-T4@127.0.0.1:9/v1/m', 'hi'], { cwd: dir });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(!r.stderr.includes('SECRET-T4'), r.stderr);
  });
});

describe('control characters an input holds are shown escaped in messages', () => {
  it('escapeControls: C0 but tab and line feed, C1, bidi overrides', () => {
    assert.equal(escapeControls('a\x1b]0;PWNED\x07b\r\n\tc\x9b\u202ed\0'), 'a\\x1b]0;PWNED\\x07b\\x0d\n\tc\\x9b\\u202ed\\x00');
  });

  it('the CLI: a records line starting with a terminal title sequence does not reach the terminal raw', async () => {
    const cwd = mkdtempSync(join(dir, 'esc-'));
    writeFileSync(join(cwd, 'r.jsonl'), `${JSON.stringify({ default: true, reply: ' x' })}\n`);
    writeFileSync(join(cwd, 'bad.jsonl'), '\x1b]0;PWNED\x07{"id":1}\n');
    const r = await llmkb(['--store', 's.sqlite', 'eval', '--model', 'mock:r.jsonl', '--input', 'bad.jsonl', '--settings', 'zero-shot', '--out', 'o'], { cwd });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(r.stderr), JSON.stringify(r.stderr));
    assert.match(r.stderr, /\\x1b\]0;PWNED\\x07/);
  });

  it("a note that names an input file (CONNER's task taken from the file name) shows its control characters escaped", async () => {
    const cwd = mkdtempSync(join(dir, 'note-'));
    const name = 'nq_\x1b]0;PWNED\x07.txt';
    writeFileSync(join(cwd, name), 'Hamlet\twho wrote hamlet\tHamlet is a play by Shakespeare.\tShakespeare\n');
    writeFileSync(join(cwd, 'r.jsonl'), `${JSON.stringify({ default: true, reply: ' x' })}\n`);
    const r = await llmkb(['--store', 's.sqlite', 'conner', 'generate', name, '--model', 'mock:r.jsonl', '-o', 'k.jsonl'], { cwd });
    assert.match(r.stderr, /taken from the file name/, r.stderr);
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(r.stderr), JSON.stringify(r.stderr));
    assert.match(r.stderr, /nq_\\x1b\]0;PWNED\\x07\.txt/);
  });
});

describe('CSV cells a spreadsheet would run as a formula are neutralised', () => {
  it('toCsv: = + - @ tab CR prefixed with a quote; numbers stay numbers', () => {
    const csv = toCsv({
      header: ['Model', 'r'],
      rows: [
        ['=HYPERLINK("http://x","y")', '-0.25'],
        ['+cmd', '+3'],
        ['@SUM(A1)', '1e-5'],
        ['\tx', '-12%'],
        ['\rx', '-'],
        ['-x', '0.5'],
        ['-1+1', '-12.50†'],
      ],
    });
    assert.equal(csv, `Model,r\n"'=HYPERLINK(""http://x"",""y"")",-0.25\n'+cmd,+3\n'@SUM(A1),1e-5\n'\tx,-12%\n"'\rx",-\n'-x,0.5\n'-1+1,-12.50†\n`);
  });

  it('compare --out: a label "=HYPERLINK(...)" is text in table9.csv, negative numbers stay numbers', async () => {
    const summaries = paperSummaries(['zero-shot']).slice(0, 6);
    summaries[0]!.model = '=HYPERLINK("http://evil.example/","click")';
    const files = summaries.map((s, i) => {
      const f = join(dir, `csv${i}.summary.json`);
      writeFileSync(f, JSON.stringify(s));
      return f;
    });
    const r = await llmkb(['compare', ...files, '--out', join(dir, 'csv-out')], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const table = readFileSync(join(dir, 'csv-out', 'table9.csv'), 'utf8');
    assert.ok(table.includes(`"'=HYPERLINK(""http://evil.example/"",""click"")`), table);
    for (const name of readdirSync(join(dir, 'csv-out')).filter((n) => n.endsWith('.csv'))) {
      for (const line of readFileSync(join(dir, 'csv-out', name), 'utf8').split('\n')) {
        for (const cell of line.split(',')) assert.ok(!/^"?[=@]/.test(cell), `${name}: ${line}`);
      }
    }
    // Table 11's NCCR is negative for these models: numbers stay numbers.
    const table11 = readFileSync(join(dir, 'csv-out', 'table11.csv'), 'utf8');
    assert.match(table11, /,-\d+\.\d+,/);
    assert.doesNotMatch(table11, /'-\d/);
  });
});

describe('a reply body is read up to a cap (LLMKB_MAX_REPLY_MB), never buffered whole', () => {
  /** A server streaming up to 200 MB of JSON-ish bytes, counting what it could write before the client hung up. */
  async function flood(declare: boolean): Promise<{ url: string; written: () => number; close(): Promise<void> }> {
    let written = 0;
    const server = await serve((req, res) => {
      req.resume();
      const chunk = Buffer.alloc(64 * 1024, 'a');
      res.writeHead(200, { 'content-type': 'application/json', ...(declare ? { 'content-length': String(200 * 1024 * 1024) } : {}) });
      const pump = (): void => {
        while (written < 200 * 1024 * 1024 && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => undefined);
      pump();
    });
    return { ...server, written: () => written };
  }

  it('OpenAI-compatible (and so TEI and vLLM pooling, which share its POST): over 2 MB, an error naming the limit and the variable; the server stopped early', async () => {
    process.env.LLMKB_MAX_REPLY_MB = '2';
    try {
      for (const declare of [false, true]) {
        const server = await flood(declare);
        try {
          const error = await requestJson(`${server.url}/v1`, '/completions', {}, z.object({}), {}, policy(undefined)).catch((e: unknown) => e);
          assert.ok(error instanceof ModelCallError, String(error));
          assert.equal(error.retryable, false);
          assert.match(error.message, /answered with a body larger than 2 MB, the limit on a reply's size/);
          assert.match(error.hint ?? '', /LLMKB_MAX_REPLY_MB=/);
          assert.ok(server.written() < 64 * 1024 * 1024, `the client read on: ${server.written()} bytes`);
        } finally {
          await server.close();
        }
      }
    } finally {
      delete process.env.LLMKB_MAX_REPLY_MB;
    }
  });

  it('the CLI: a reply over LLMKB_MAX_REPLY_MB is exit 3 naming the limit; a value that is no number is exit 2', async () => {
    const server = await flood(false);
    try {
      const cwd = mkdtempSync(join(dir, 'cap-'));
      const capped = await llmkb(['--store', 's.sqlite', 'complete', '--model', `vllm:${server.url}/v1/m`, 'hi'], { cwd, env: { LLMKB_MAX_REPLY_MB: '1' } });
      assert.equal(capped.code, 3, capped.stderr);
      assert.match(capped.stderr, /larger than 1 MB, the limit on a reply's size/);
      assert.ok(server.written() < 64 * 1024 * 1024, `no request read on, the probe of the served model's identity included: ${server.written()} bytes`);
      const bad = await llmkb(['--store', 's.sqlite', 'complete', '--model', `vllm:${server.url}/v1/m`, 'hi'], { cwd, env: { LLMKB_MAX_REPLY_MB: 'lots' } });
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /LLMKB_MAX_REPLY_MB="lots" is not a positive number of megabytes/);
    } finally {
      await server.close();
    }
  });

  it('OpenSearch: the same cap and error', async () => {
    const server = await flood(false);
    try {
      const retriever = new OpenSearchRetriever({ url: server.url, index: 'p', env: { LLMKB_MAX_REPLY_MB: '1' } });
      const error = await retriever.search('x', 3).catch((e: unknown) => e);
      assert.ok(error instanceof ModelCallError, String(error));
      assert.match(error.message, /larger than 1 MB/);
      assert.ok(server.written() < 64 * 1024 * 1024, `the client read on: ${server.written()} bytes`);
    } finally {
      await server.close();
    }
  });
});
