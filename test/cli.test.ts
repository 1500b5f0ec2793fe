import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';
import { llmkb, type CliResult } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

function assertCleanError(r: CliResult, pattern: RegExp): void {
  assert.notEqual(r.code, 0, 'non-zero exit');
  assert.match(r.stderr, /^llmkb: error: /m);
  assert.match(r.stderr, pattern);
  assert.match(r.stderr, /hint: /);
  assert.doesNotMatch(r.stderr, /^\s+at .+:\d+:\d+\)?$/m, 'no stack trace');
}

function configWith(entry: unknown): string {
  const dir = tempDir('llmkb-cfg-');
  const path = join(dir, 'llmkb.config.json');
  writeFileSync(path, JSON.stringify({ model: entry }));
  return path;
}

describe('llmkb CLI: bad input ends with one clear message', () => {
  it('unknown model spec', async () => {
    const r = await llmkb(['complete', '--model', 'claude:opus', 'hi']);
    assert.equal(r.code, 2);
    assertCleanError(r, /unknown model spec "claude:opus"/);
  });

  it('missing API key variable, named', async () => {
    const r = await llmkb(['complete', '--model', 'openai:gpt-4o-mini', 'hi'], { env: { OPENAI_API_KEY: '' } });
    assertCleanError(r, /OPENAI_API_KEY is not set/);
  });

  it('unreachable server', async () => {
    const closed = await startOpenAICompatibleServer();
    await closed.close();
    const config = configWith({ spec: `vllm:${closed.baseURL}/m`, maxRetries: 0 });
    const r = await llmkb(['--config', config, 'complete', '--model', `vllm:${closed.baseURL}/m`, 'hi']);
    assert.equal(r.code, 3);
    assertCleanError(r, /cannot reach .*ECONNREFUSED/);
  });

  it('server answering malformed JSON', async () => {
    const server = await startOpenAICompatibleServer({ fault: () => ({ kind: 'malformed' }) });
    try {
      const r = await llmkb(['complete', '--model', `vllm:${server.baseURL}/m`, 'hi']);
      assertCleanError(r, /not JSON/);
      assert.equal(server.requests.length, 1, 'a malformed body is not retried');
    } finally {
      await server.close();
    }
  });

  it('GGUF path that does not exist, and a file that is not GGUF', async () => {
    const missing = await llmkb(['complete', '--model', 'gguf:/nowhere/model.gguf', 'hi']);
    assertCleanError(missing, /does not exist/);
    const dir = tempDir('llmkb-');
    writeFileSync(join(dir, 'x.gguf'), 'PK\u0003\u0004 a zip file');
    const notGguf = await llmkb(['complete', '--model', join(dir, 'x.gguf'), 'hi']);
    assertCleanError(notGguf, /is not a GGUF model file/);
  });

  it('a model URL that names nothing is bad input (2); a download source that fails is a model error (3)', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      res.statusCode = req.url === '/missing.gguf' ? 404 : 503;
      res.end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as { port: number }).port;
    try {
      const cwd = tempDir('llmkb-dl-');
      const env = { LLMKB_DOWNLOAD_TIMEOUT_MS: '3000' };
      const missing = await llmkb(['complete', '--model', `gguf:http://127.0.0.1:${port}/missing.gguf`, 'hi'], { cwd, env });
      assertCleanError(missing, /could not download .*404/);
      assert.equal(missing.code, 2);
      const down = await llmkb(['complete', '--model', `gguf:http://127.0.0.1:${port}/down.gguf`, 'hi'], { cwd, env });
      assert.equal(down.code, 3, down.stderr);
      assert.match(down.stderr, /^llmkb: error: (could not download|no progress downloading)/m);
    } finally {
      server.close();
    }
  });

  it('config file with an unknown field names the field', async () => {
    const dir = tempDir('llmkb-cfg-');
    writeFileSync(join(dir, 'llmkb.config.json'), JSON.stringify({ judge: { spec: 'openai:gpt-4o', apiKey: 'sk-123' } }));
    const r = await llmkb(['runs'], { cwd: dir });
    assertCleanError(r, /field "judge"/);
    assert.doesNotMatch(r.stderr, /sk-123/);
  });
});

describe('llmkb CLI: working calls', () => {
  it('completes against an OpenAI-compatible server, then answers from the cache', async () => {
    const server = await startOpenAICompatibleServer({ complete: () => ' Paris' });
    try {
      const cwd = tempDir('llmkb-cli-');
      const spec = `vllm:${server.baseURL}/meta-llama/Llama-3-8B`;
      const first = await llmkb(['complete', '--model', spec, 'QUESTION: capital of France?\nANSWER:'], { cwd });
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stdout, ' Paris\n');
      const second = await llmkb(['complete', '--model', spec, 'QUESTION: capital of France?\nANSWER:'], { cwd });
      assert.equal(second.stdout, ' Paris\n');
      assert.match(second.stderr, /^\(cached\) calls 1, cache hits 1, requests 0/);
      assert.equal(server.requests.length, 1);
      const stats = await llmkb(['cache', 'stats'], { cwd });
      assert.match(stats.stdout, /1 cached calls/);
      assert.match(stats.stdout, /openai-compatible:vllm:meta-llama\/Llama-3-8B:api=completions\s+complete\s+1 calls/);
    } finally {
      await server.close();
    }
  });

  it('reads --stop as one value, so the prompt after it stays the prompt', async () => {
    const server = await startOpenAICompatibleServer({ complete: () => ' Paris' });
    try {
      const cwd = tempDir('llmkb-cli-');
      const r = await llmkb(['complete', '--model', `vllm:${server.baseURL}/m`, '--stop', '\n', '--stop', '.', 'QUESTION: capital of France?'], { cwd });
      assert.equal(r.code, 0, r.stderr);
      const body = server.requests[0]!.body as { prompt: string; stop: string[] };
      assert.equal(body.prompt, 'QUESTION: capital of France?');
      assert.deepEqual(body.stop, ['\n', '.']);
    } finally {
      await server.close();
    }
  });

  it('completes with an in-process GGUF model', { skip: process.env.LLMKB_TEST_GGUF ? false : 'LLMKB_TEST_GGUF is not set' }, async () => {
    const r = await llmkb(['complete', '--model', `gguf:${process.env.LLMKB_TEST_GGUF}`, '--max-tokens', '8', 'Once upon a time']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.trim().length > 0);
  });
});
