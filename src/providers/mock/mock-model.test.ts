import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InputFileError, ModelCallError, ModelSpecError, UnsupportedCapabilityError } from '../../errors.js';
import { ModelExecutor } from '../../executor/model-executor.js';
import { CallCache } from '../../store/call-cache.js';
import { openDatabase } from '../../store/database.js';
import { createLanguageModel } from '../create-language-model.js';
import { parseModelSpec } from '../model-spec.js';
import { MockModel } from './mock-model.js';
import { tempDir } from '#test-support/temp-dir.js';

function repliesFile(lines: unknown[]): string {
  const dir = tempDir('llmkb-mock-');
  const file = join(dir, 'replies.jsonl');
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
  return file;
}

describe('mock: scripted models', () => {
  it("sampled calls get one of the rule's samples, picked by the draw's seed; greedy calls get the reply", async () => {
    const samples = [' alpha', ' beta', ' gamma', ' delta'];
    const model = new MockModel({ replies: [{ default: true, reply: ' greedy', samples }] });
    const draw = async (seed: number, sample: number) =>
      (await model.complete({ prompt: 'q', maxTokens: 5, sampling: { temperature: 1, topP: 0.9, seed, sample } })).text;
    assert.equal((await model.complete({ prompt: 'q', maxTokens: 5 })).text, ' greedy');
    const texts = await Promise.all(Array.from({ length: 12 }, (_, i) => draw(1000 + i, i)));
    assert.ok(
      texts.every((t) => samples.includes(t)),
      texts.join('|'),
    );
    assert.ok(new Set(texts).size >= 3, `draws differ: ${texts.join('|')}`);
    assert.deepEqual(await Promise.all(Array.from({ length: 12 }, (_, i) => draw(1000 + i, i))), texts, 'same seed, same text');
    assert.deepEqual(model.calls[1]!.sampling, { temperature: 1, topP: 0.9, seed: 1000, sample: 0 }, 'a responder function sees the sampling settings');
    const only = new MockModel({ replies: [{ default: true, reply: ' greedy' }] });
    assert.equal(
      (await only.complete({ prompt: 'q', maxTokens: 5, sampling: { temperature: 1, topP: 0.9, seed: 3, sample: 0 } })).text,
      ' greedy',
      'no samples: the reply',
    );
    const file = repliesFile([{ default: true, samples: [' x', ' y'] }]);
    const fromFile = (await createLanguageModel(`mock:${file}`, { cacheDir: tmpdir() })) as MockModel;
    assert.match((await fromFile.complete({ prompt: 'q', maxTokens: 5, sampling: { temperature: 1, topP: 0.9, seed: 9, sample: 0 } })).text, /^ [xy]$/);
    await assert.rejects(fromFile.complete({ prompt: 'q', maxTokens: 5 }), (e: unknown) => e instanceof ModelCallError && /no "reply"/.test(e.message));
  });

  it('answers by the first matching rule (exact prompt, substring, regex), else the default; cuts at maxTokens and stop strings', async () => {
    const model = new MockModel({
      replies: [
        { prompt: 'exact', reply: ' one' },
        { contains: 'capital of France', reply: ' Paris\nQUESTION: next' },
        { regex: '^judge:', flags: 'i', reply: ' yes' },
        { contains: 'capital', reply: ' never reached for France' },
        { default: true, reply: ' a b c d e f' },
      ],
    });
    assert.equal((await model.complete({ prompt: 'exact', maxTokens: 5 })).text, ' one');
    const paris = await model.complete({ prompt: 'What is the capital of France?', maxTokens: 50, stop: ['\nQUESTION:'] });
    assert.deepEqual([paris.text, paris.finishReason], [' Paris', 'stop']);
    assert.equal((await model.chat({ messages: [{ role: 'user', content: 'JUDGE: is it?' }], maxTokens: 5 })).text, ' yes');
    const cut = await model.complete({ prompt: 'anything else', maxTokens: 3 });
    assert.deepEqual([cut.text, cut.finishReason, cut.usage.completionTokens], [' a b c', 'length', 3]);
    assert.equal(model.calls.length, 4);
    assert.equal(model.nextTokenLogprobs, undefined, 'no rule gives log-probabilities: the model does not offer them');
  });

  it('gives scripted next-token log-probabilities, and a clear error for a prompt no rule matches', async () => {
    const model = new MockModel({ replies: [{ contains: 'MCQ', logprobs: { A: -0.1, B: -2.5 } }] });
    const lp = await model.nextTokenLogprobs!({ prompt: 'an MCQ', candidates: ['A', 'B', 'C'] });
    assert.deepEqual(lp.logprobs, { A: -0.1, B: -2.5, C: null });
    await assert.rejects(
      model.complete({ prompt: 'nothing matches', maxTokens: 3 }),
      (e: unknown) => e instanceof ModelCallError && !e.retryable && /no scripted reply matches/.test(e.message),
    );
  });

  it("runs from a replies file through the executor: cached by the rules' hash, text generation only", async () => {
    const file = repliesFile([
      { contains: 'France', reply: ' Paris' },
      { default: true, reply: ' unsure' },
    ]);
    assert.deepEqual(parseModelSpec(`mock:${file}`), { provider: 'mock', file });
    const model = await createLanguageModel(`mock:${file}`, { cacheDir: tmpdir() });
    assert.match(model.cacheIdentity, /^mock:sha256=[0-9a-f]{64}$/);
    const executor = new ModelExecutor(model, { cache: new CallCache(openDatabase(':memory:')) });
    const first = await executor.complete({ prompt: 'capital of France?', maxTokens: 5 });
    const again = await executor.complete({ prompt: 'capital of France?', maxTokens: 5 });
    assert.deepEqual([first.value.text, first.cached, again.cached, again.key], [' Paris', false, true, first.key]);
    await assert.rejects(executor.embed(['x']), UnsupportedCapabilityError);
    const edited = await createLanguageModel(`mock:${repliesFile([{ default: true, reply: ' other' }])}`, { cacheDir: tmpdir() });
    assert.notEqual(edited.cacheIdentity, model.cacheIdentity, 'edited replies never reuse old cache entries');
  });

  it('refuses a bad replies file naming the line and field, and a spec without a file', async () => {
    await assert.rejects(
      createLanguageModel(`mock:${repliesFile([{ default: true, reply: ' a' }, { contains: 'x' }])}`, { cacheDir: tmpdir() }),
      (e: unknown) => e instanceof InputFileError && e.line === 2 && /"reply", "samples" or "logprobs"/.test(e.message),
    );
    await assert.rejects(
      createLanguageModel(`mock:${repliesFile([{ regex: '(', reply: 'x' }])}`, { cacheDir: tmpdir() }),
      (e: unknown) => e instanceof InputFileError && e.line === 1 && e.field === 'regex',
    );
    await assert.rejects(
      createLanguageModel(
        `mock:${repliesFile([
          { default: true, reply: 'a' },
          { default: true, reply: 'b' },
        ])}`,
        { cacheDir: tmpdir() },
      ),
      /2 default rules/,
    );
    assert.throws(() => parseModelSpec('mock:'), ModelSpecError);
  });
});
