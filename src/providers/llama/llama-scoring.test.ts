import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { Llama, LlamaModel as NativeLlamaModel } from 'node-llama-cpp';
import { referenceLogprobs } from '#test-support/gguf-reference-logprobs.js';
import { ModelExecutor } from '../../executor/model-executor.js';
import { CallCache } from '../../store/call-cache.js';
import { openDatabase } from '../../store/database.js';
import { LlamaModel } from './llama-model.js';

const gguf = process.env.LLMKB_TEST_GGUF;
if (!gguf) process.stderr.write('SKIPPED: GGUF scoring tests need LLMKB_TEST_GGUF (e.g. ../shared/models/stories260K.gguf)\n');

describe('LlamaModel.scoreTokens on $LLMKB_TEST_GGUF', { skip: gguf ? false : 'LLMKB_TEST_GGUF is not set' }, () => {
  let provider: LlamaModel;
  let llama: Llama;
  let reference: NativeLlamaModel;
  before(async () => {
    provider = await LlamaModel.load({ model: gguf!, modelsDir: tmpdir(), sequences: 1, threads: 1 });
    const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
    llama = await getLlama({ gpu: false, maxThreads: 1, logLevel: LlamaLogLevel.error, progressLogs: false });
    reference = await llama.loadModel({ modelPath: gguf! });
  });
  after(async () => {
    await provider.close();
    await reference.dispose();
  });

  it('is a scoring model', () => {
    assert.ok(provider.kinds.includes('scoring'));
  });

  for (const [context, continuation] of [
    ['Once upon a time', ' there was a little girl named Lily.'],
    ['Tom had a red ball. ', 'He liked to play with it every day.'],
    ['', 'The cat sat on the mat.'],
  ] as const) {
    it(`per-token log-probabilities equal the model's own log-softmax (context ${JSON.stringify(context)})`, async () => {
      const r = await provider.scoreTokens({ context, continuation });
      const expected = await referenceLogprobs(reference, context, continuation);
      assert.equal(r.tokenLogprobs.length, expected.length);
      assert.ok(r.tokenLogprobs.length >= 5);
      for (const [i, v] of r.tokenLogprobs.entries())
        assert.ok(Math.abs(v - expected[i]!) < 1e-4, `token ${i} (${JSON.stringify(r.tokens[i])}): ${v} vs ${expected[i]}`);
      assert.ok(Math.abs(r.logLikelihood - r.tokenLogprobs.reduce((a, b) => a + b, 0)) < 1e-9);
      // The tokens spell the continuation (the first may carry the space that joins it to the context).
      assert.equal(r.tokens.join('').trim(), continuation.trim());
      // continuationLogLikelihood is the same sum.
      const ll = await provider.continuationLogLikelihood({ context, continuation });
      assert.ok(Math.abs(ll.logLikelihood - r.logLikelihood) < 1e-4);
      assert.equal(ll.tokens, r.tokens.length);
    });
  }

  it('reuses the evaluated prefix: the same context with other continuations evaluates only what follows it', async () => {
    const context = 'Question: where did Lily go?\nKnowledge: Lily went to the park with her mom and saw a big tree.\n';
    const continuations = ['Answer: the park', 'Answer: the store', 'Answer: home'];
    await provider.scoreTokens({ context: 'Something else entirely. ', continuation: 'x' });
    const first = await provider.scoreTokens({ context, continuation: continuations[0]! });
    // Only BOS is shared with the unrelated call before.
    assert.ok(first.usage.evaluatedTokens >= first.usage.promptTokens - 1);
    for (const continuation of continuations.slice(1)) {
      const r = await provider.scoreTokens({ context, continuation });
      const contextTokens = provider.tokenize(context).length;
      assert.ok(r.usage.evaluatedTokens <= r.usage.promptTokens - contextTokens + 2, `evaluated ${r.usage.evaluatedTokens} of ${r.usage.promptTokens}`);
      const expected = await referenceLogprobs(reference, context, continuation);
      for (const [i, v] of r.tokenLogprobs.entries()) assert.ok(Math.abs(v - expected[i]!) < 1e-4);
    }
  });

  it('goes through the executor: cached by (context, continuation)', async () => {
    const ex = new ModelExecutor(provider, { cache: new CallCache(openDatabase(':memory:')) });
    const a = await ex.scoreTokens({ context: 'Once upon a time', continuation: ' there was a dog.' });
    const b = await ex.scoreTokens({ context: 'Once upon a time', continuation: ' there was a dog.' });
    assert.equal(b.cached, true);
    assert.deepEqual(b.value, a.value);
    assert.equal(ex.accounting.requests, 1);
  });
});
