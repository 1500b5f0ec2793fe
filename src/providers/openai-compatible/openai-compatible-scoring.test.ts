import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startOpenAICompatibleServer } from '#test-support/openai-compatible-server.js';
import { ModelCallError, UnsupportedCapabilityError } from '../../errors.js';
import { ModelExecutor } from '../../executor/model-executor.js';
import { CallCache } from '../../store/call-cache.js';
import { openDatabase } from '../../store/database.js';
import { OpenAICompatibleModel } from './openai-compatible-model.js';

function provider(baseURL: string, echo = true): OpenAICompatibleModel {
  return new OpenAICompatibleModel({ baseURLs: [baseURL], model: 'gpt2', api: 'completions', echo, topLogprobs: 5, flavor: 'vllm', concurrency: 4 });
}

// The loopback server echoes the prompt as whitespace "tokens" whose log-probability is -0.5 x
// their length, with text offsets, and one generated token " x" (vLLM's echo shape).
describe('OpenAICompatibleModel.scoreTokens (vLLM /v1/completions echo + logprobs)', () => {
  it('returns the continuation tokens and their log-probabilities, not the generated token', async () => {
    const server = await startOpenAICompatibleServer();
    try {
      const r = await provider(server.baseURL).scoreTokens({ context: 'Question: who wrote Hamlet?', continuation: ' Shakespeare wrote it' });
      assert.deepEqual(r.tokens, [' Shakespeare', ' wrote', ' it']);
      assert.deepEqual(r.tokenLogprobs, [-5.5, -2.5, -1]);
      assert.equal(r.logLikelihood, -9);
      const body = server.requests[0]!.body;
      assert.equal(body.echo, true);
      assert.equal(body.logprobs, 1);
      assert.equal(body.max_tokens, 1);
      assert.equal(body.prompt, 'Question: who wrote Hamlet? Shakespeare wrote it');
    } finally {
      await server.close();
    }
  });

  it('counts a token that straddles the join of context and continuation as a continuation token', async () => {
    const server = await startOpenAICompatibleServer();
    try {
      const r = await provider(server.baseURL).scoreTokens({ context: 'Hello wor', continuation: 'ld again' });
      assert.deepEqual(r.tokens, [' world', ' again']);
      assert.deepEqual(r.tokenLogprobs, [-2.5, -2.5]);
      // An empty context: every prompt token but the first (which has no log-probability).
      const all = await provider(server.baseURL).scoreTokens({ context: '', continuation: 'one two three' });
      assert.deepEqual(all.tokens, [' two', ' three']);
    } finally {
      await server.close();
    }
  });

  it('fails clearly when the server returns no prompt log-probabilities (llama.cpp server)', async () => {
    const llamacppLike = JSON.stringify({
      id: 'c',
      object: 'text_completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, text: 'a b x', finish_reason: 'length', logprobs: { tokens: [' x'], token_logprobs: [-1], top_logprobs: null, text_offset: [3] } }],
      usage: { prompt_tokens: 2, completion_tokens: 1 },
    });
    const server = await startOpenAICompatibleServer({ fault: () => ({ kind: 'status', status: 200, body: llamacppLike }) });
    try {
      await assert.rejects(
        provider(server.baseURL).scoreTokens({ context: 'a', continuation: ' b' }),
        (e: unknown) => e instanceof ModelCallError && /no log-probabilities for the continuation/.test(e.message) && !e.retryable,
      );
    } finally {
      await server.close();
    }
  });

  it('is no scoring model without echo, and the executor says so before any request', async () => {
    const server = await startOpenAICompatibleServer();
    try {
      const p = provider(server.baseURL, false);
      assert.equal(p.kinds.includes('scoring'), false);
      await assert.rejects(new ModelExecutor(p, { cache: null }).scoreTokens({ context: 'a', continuation: 'b' }), UnsupportedCapabilityError);
      assert.equal(server.requests.length, 0);
    } finally {
      await server.close();
    }
  });

  it('through the executor: a 503 and a 429 are retried, then the answer is cached', async () => {
    const server = await startOpenAICompatibleServer({
      fault: (i) => (i === 0 ? { kind: 'status', status: 503 } : i === 1 ? { kind: 'status', status: 429, headers: { 'retry-after': '0.01' } } : undefined),
    });
    try {
      const ex = new ModelExecutor(provider(server.baseURL), { cache: new CallCache(openDatabase(':memory:')), baseBackoffMs: 1, maxBackoffMs: 5 });
      const r = await ex.scoreTokens({ context: 'The sky is', continuation: ' blue' });
      assert.deepEqual(r.value.tokenLogprobs, [-2]);
      assert.equal(ex.accounting.retries, 2);
      const again = await ex.scoreTokens({ context: 'The sky is', continuation: ' blue' });
      assert.equal(again.cached, true);
      assert.equal(server.requests.length, 3);
    } finally {
      await server.close();
    }
  });
});
