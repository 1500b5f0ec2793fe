/**
 * CONNER's language-model metrics on a real model (stories260K.gguf): sentence coherence (Eq. 3),
 * paragraph coherence's fallback, informativeness (Eq. 5) and helpfulness (Eq. 6) as computed by
 * llmkb (through the executor and the GGUF scorer) equal the same formulas worked out here from
 * the model's own next-token distributions, read by a separate code path: a fresh sequence
 * evaluates each prefix and the target token's probability is read from the full distribution.
 */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { Llama, LlamaModel as NativeLlamaModel } from 'node-llama-cpp';
import { ModelExecutor, type ExecutableModel } from '../src/executor/model-executor.js';
import { answerExample } from '../src/methods/conner/generation/conner-prompts.js';
import { paragraphCoherence, sentenceCoherence } from '../src/methods/conner/scoring/coherence.js';
import { executorTokenScorer } from '../src/methods/conner/scoring/executor-scorers.js';
import { scoreHelpfulness } from '../src/methods/conner/scoring/helpfulness.js';
import { informativenessContext, scoreInformativeness } from '../src/methods/conner/scoring/informativeness.js';
import type { TokenScorer } from '../src/methods/conner/scoring/scorers.js';
import { LlamaModel } from '../src/providers/llama/llama-model.js';
import { CallCache } from '../src/store/call-cache.js';
import { openDatabase } from '../src/store/database.js';
import { referenceLogprobs } from './support/gguf-reference-logprobs.js';

const gguf = process.env.LLMKB_TEST_GGUF;
if (!gguf) process.stderr.write('SKIPPED: CONNER GGUF tests need LLMKB_TEST_GGUF (e.g. ../shared/models/stories260K.gguf)\n');

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Probabilities are float32 and two code paths evaluate them: 1e-4 on values in [0, 1]; a wrong formula is off by far more. */
const close = (a: number, b: number, what: string): void => assert.ok(Math.abs(a - b) < 1e-4, `${what}: ${a} vs ${b}`);

describe('CONNER language-model metrics on $LLMKB_TEST_GGUF', { skip: gguf ? false : 'LLMKB_TEST_GGUF is not set' }, () => {
  let provider: LlamaModel;
  let llama: Llama;
  let model: NativeLlamaModel;
  let scorer: TokenScorer;
  const q = { task: 'qa' as const, topic: 'Lily', query: 'where did Lily go with her mom' };
  const knowledge = 'Lily went to the park with her mom. They saw a big tree. The sun was warm.';
  const others = ['Tom had a red ball. He liked to play with it.', 'The cat sat on the mat and purred.', 'Once upon a time there was a little boat.'];

  before(async () => {
    provider = await LlamaModel.load({ model: gguf!, modelsDir: tmpdir(), sequences: 1, threads: 1 });
    const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
    llama = await getLlama({ gpu: false, maxThreads: 1, logLevel: LlamaLogLevel.error, progressLogs: false });
    model = await llama.loadModel({ modelPath: gguf! });
    scorer = executorTokenScorer(new ModelExecutor(provider, { cache: new CallCache(openDatabase(':memory:')) }) as unknown as ModelExecutor<ExecutableModel>);
  });
  after(async () => {
    await provider.close();
    await model.dispose();
  });

  it('sentence coherence (Eq. 3) is the mean of 1/PPL(s_i) = exp(mean ln P)', async () => {
    const sentences = ['Lily went to the park with her mom.', 'They saw a big tree.', 'The sun was warm.'];
    const r = await sentenceCoherence(sentences, scorer);
    const expected: number[] = [];
    for (const s of sentences) expected.push(Math.exp(mean(await referenceLogprobs(model, '', s))));
    expected.forEach((v, i) => close(r.perSentence[i]!, v, `1/PPL of sentence ${i}`));
    close(r.value!, mean(expected), 'S_coh_sent');
    assert.ok(r.value! > 0 && r.value! < 1);
    const p = await paragraphCoherence(knowledge, { fallback: scorer });
    close(p.value!, Math.exp(mean(await referenceLogprobs(model, '', knowledge))), 'paragraph 1/PPL');
  });

  it('informativeness (Eq. 5) is 1 - exp(mean ln P(k_t | k_<t, q))', async () => {
    const r = await scoreInformativeness(q, knowledge, scorer);
    const lp = await referenceLogprobs(model, informativenessContext(q), ` ${knowledge}`);
    assert.ok(lp.length > 10);
    close(r.value!, 1 - Math.exp(mean(lp)), 'S_info');
  });

  it('helpfulness (Eq. 6) is max(0, 1 - L(q,k,a) / mean_i L(q,k_i^-,a)) with per-token mean losses', async () => {
    const answer = 'the park';
    const loss = async (k: string): Promise<number> => -mean(await referenceLogprobs(model, answerExample('qa', q.topic, k, q.query), ` ${answer}`));
    const own = await loss(knowledge);
    const baseline = mean(await Promise.all(others.map(loss)));
    const r = await scoreHelpfulness(
      q,
      knowledge,
      answer,
      others.map((k, i) => ({ id: `n${i}`, knowledge: k })),
      scorer,
    );
    assert.ok(r.helpfulness);
    close(r.helpfulness.loss, own, 'L(q,k,a)');
    close(r.helpfulness.raw, 1 - own / baseline, '1 - L / mean L-');
    close(r.helpfulness.value, Math.max(0, 1 - own / baseline), 'S_help');
    assert.deepEqual(r.helpfulness.negatives, ['n0', 'n1', 'n2']);
  });
});
