import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startOpenAICompatibleServer, type TestServer } from '#test-support/openai-compatible-server.js';
import { ModelCallError, UnsupportedCapabilityError } from '../../errors.js';
import { parseRetryAfter } from './http-client.js';
import { OpenAICompatibleModel, type OpenAICompatibleSettings } from './openai-compatible-model.js';

function provider(server: TestServer, overrides: Partial<OpenAICompatibleSettings> = {}): OpenAICompatibleModel {
  return new OpenAICompatibleModel({
    baseURLs: [server.baseURL],
    model: 'meta-llama/Llama-3-8B',
    api: 'completions',
    echo: true,
    topLogprobs: 20,
    flavor: 'vllm',
    concurrency: 8,
    ...overrides,
  });
}

describe('OpenAICompatibleModel against a loopback server', () => {
  let server: TestServer;
  before(async () => {
    server = await startOpenAICompatibleServer({
      complete: (prompt) => (prompt.endsWith('ANSWER:') ? ' Paris\nQUESTION: next' : ' something'),
      chat: (messages) => `chat says ${messages.length}`,
      nextToken: () => ({ ' A': 0.5, ' B': 0.2, A: 0.1, ' unsure': 0.15, ' C': 0.05 }),
    });
  });
  after(() => server.close());

  it('sends a raw greedy completion with stop sequences and parses text, finish reason and usage', async () => {
    const p = provider(server, { apiKey: 'sk-test-123456' });
    const r = await p.complete({ prompt: 'QUESTION: capital of France?\nANSWER:', maxTokens: 100, stop: ['\nQUESTION:'] });
    assert.equal(r.text, ' Paris');
    assert.equal(r.finishReason, 'stop');
    assert.ok(r.usage.promptTokens > 0);
    const sent = server.requests.at(-1)!;
    assert.equal(sent.path, '/completions');
    assert.deepEqual(sent.body, {
      model: 'meta-llama/Llama-3-8B',
      prompt: 'QUESTION: capital of France?\nANSWER:',
      max_tokens: 100,
      temperature: 0,
      stop: ['\nQUESTION:'],
    });
    assert.equal(sent.authorization, 'Bearer sk-test-123456');
  });

  it('routes complete() through /chat/completions when the model is configured as chat', async () => {
    const p = provider(server, { api: 'chat' });
    const r = await p.complete({ prompt: 'hi', maxTokens: 5 });
    assert.equal(r.text, 'chat says 1');
    assert.equal(server.requests.at(-1)!.path, '/chat/completions');
    assert.equal(server.requests.at(-1)!.authorization, undefined, 'no key configured: no Authorization header');
  });

  it('merges candidate-letter logprobs over spellings with and without a leading space (completions)', async () => {
    const r = await provider(server).nextTokenLogprobs({ prompt: 'Q\nANSWER:', candidates: ['A', 'B', 'C', 'D', 'E'] });
    assert.ok(Math.abs(Math.exp(r.logprobs.A!) - 0.6) < 1e-9, 'A = " A" + "A"');
    assert.ok(Math.abs(Math.exp(r.logprobs.B!) - 0.2) < 1e-9);
    assert.ok(Math.abs(Math.exp(r.logprobs.C!) - 0.05) < 1e-9);
    assert.equal(r.logprobs.D, null, 'not among the returned alternatives');
    const sent = server.requests.at(-1)!.body;
    assert.equal(sent.max_tokens, 1);
    assert.equal(sent.logprobs, 20);
  });

  it('reads chat top_logprobs for chat models', async () => {
    const r = await provider(server, { api: 'chat' }).nextTokenLogprobs({ prompt: 'Q', candidates: ['A', 'B'] });
    assert.ok(Math.abs(Math.exp(r.logprobs.A!) - 0.6) < 1e-9);
    assert.equal(server.requests.at(-1)!.body.top_logprobs, 20);
    assert.equal(server.requests.at(-1)!.body.logprobs, true);
  });

  it('scores a continuation from echoed prompt logprobs, counting only continuation tokens', async () => {
    const r = await provider(server).continuationLogLikelihood({ context: 'The capital of France is', continuation: ' Paris indeed' });
    // the test server gives each echoed token -0.5 * its length: "Paris" -2.5, "indeed" -3
    assert.equal(r.tokens, 2);
    assert.equal(r.logLikelihood, -5.5);
    assert.equal(server.requests.at(-1)!.body.echo, true);
  });

  it('refuses continuation log-likelihood without echo, with a hint', async () => {
    await assert.rejects(provider(server, { echo: false }).continuationLogLikelihood({ context: 'a', continuation: ' b' }), UnsupportedCapabilityError);
  });

  it('returns embeddings in input order', async () => {
    const r = await provider(server).embed({ texts: ['banana', 'kiwi'] });
    assert.deepEqual(r.embeddings, [
      [6, 3, 1],
      [4, 0, 1],
    ]);
  });
});

describe('OpenAICompatibleModel errors', () => {
  it('classifies 500 as retryable and 400 as not, with the server message and no API key', async () => {
    const server = await startOpenAICompatibleServer({
      fault: (i) =>
        i === 0
          ? { kind: 'status', status: 500, body: JSON.stringify({ object: 'error', message: 'engine died', code: 500 }) }
          : { kind: 'status', status: 400, body: JSON.stringify({ error: { message: 'bad key sk-secret-999 in request', type: 'invalid_request_error' } }) },
    });
    try {
      const p = provider(server, { apiKey: 'sk-secret-999' });
      const e500 = await p.complete({ prompt: 'x', maxTokens: 1 }).catch((e: unknown) => e);
      assert.ok(e500 instanceof ModelCallError);
      assert.equal(e500.retryable, true);
      assert.equal(e500.status, 500);
      assert.match(e500.message, /HTTP 500: engine died/);
      const e400 = await p.complete({ prompt: 'x', maxTokens: 1 }).catch((e: unknown) => e);
      assert.ok(e400 instanceof ModelCallError);
      assert.equal(e400.retryable, false);
      assert.doesNotMatch(e400.message, /sk-secret-999/, 'the key never appears in messages');
      assert.match(e400.message, /\*\*\*/);
    } finally {
      await server.close();
    }
  });

  it('reports a body that is not JSON as one clear, non-retryable error', async () => {
    const server = await startOpenAICompatibleServer({ fault: () => ({ kind: 'malformed' }) });
    try {
      const e = await provider(server)
        .complete({ prompt: 'x', maxTokens: 1 })
        .catch((err: unknown) => err);
      assert.ok(e instanceof ModelCallError);
      assert.equal(e.retryable, false);
      assert.match(e.message, /not JSON/);
      assert.match(e.hint ?? '', /\/v1/);
    } finally {
      await server.close();
    }
  });

  it('reports JSON of the wrong shape naming the missing field', async () => {
    const server = await startOpenAICompatibleServer({ fault: () => ({ kind: 'status', status: 200, body: JSON.stringify({ choices: [] }) }) });
    try {
      await assert.rejects(provider(server).complete({ prompt: 'x', maxTokens: 1 }), /unexpected shape: choices/);
    } finally {
      await server.close();
    }
  });

  it('reports an unreachable server as retryable with the URL and a hint', async () => {
    const closed = await startOpenAICompatibleServer();
    await closed.close();
    const p = new OpenAICompatibleModel({
      baseURLs: [closed.baseURL],
      model: 'm',
      api: 'completions',
      echo: false,
      topLogprobs: 5,
      flavor: 'vllm',
      concurrency: 1,
    });
    const e = await p.complete({ prompt: 'x', maxTokens: 1 }).catch((err: unknown) => err);
    assert.ok(e instanceof ModelCallError);
    assert.equal(e.retryable, true);
    assert.equal(e.message, `cannot reach ${closed.baseURL}/completions: ECONNREFUSED`);
    assert.match(e.hint ?? '', /Is the server running/);
  });

  it('parses Retry-After as seconds, HTTP date, or retry-after-ms', () => {
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '2' })), 2000);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after-ms': '150' })), 150);
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now), 3000);
    assert.equal(parseRetryAfter(new Headers({})), undefined);
  });
});
