import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ggufEmbeddingLength, writeGgufReranker } from '#test-support/gguf-reranker.js';
import { ContextOverflowError, ModelFileError, ModelSpecError } from '../../errors.js';
import { ModelExecutor } from '../../executor/model-executor.js';
import { CallCache } from '../../store/call-cache.js';
import { openDatabase } from '../../store/database.js';
import { createScorerModel } from '../create-scorer-model.js';
import { requireKind, type ClassificationModel } from '../model-kinds.js';
import { resolveModelSpec } from '../provider-registry.js';
import { sharedLlama } from './gguf-loading.js';
import { LlamaReranker } from './llama-reranker.js';
import { llamaRerankerProvider, parseLlamaRerankerSpec } from './llama-reranker-provider.js';
import { tempDir } from '#test-support/temp-dir.js';

const gguf = process.env.LLMKB_TEST_GGUF;
const skip = gguf ? false : 'LLMKB_TEST_GGUF is not set (the tiny reranker is made from it)';
const dir = tempDir('llmkb-rerank-');
after(() => rmSync(dir, { recursive: true, force: true }));

const PAIRS = [
  { text: 'Once upon a time', textPair: 'there was a little girl named Lily.' },
  { text: 'Once upon a time', textPair: 'The dog ran to the park.' },
  { text: 'Who was happy?', textPair: 'Tom was very happy and he smiled.' },
];

/**
 * The expected relevance by hand: llama.cpp's rank pooling for qwen3 is softmax(cls · h)[0] over
 * the two outputs, i.e. sigmoid((yes - no) · h), with h the last token's output-normed hidden
 * state. h comes from the same network written with pooling "last" (its embedding), evaluated on
 * the input node-llama-cpp builds: [BOS] query [EOS] document [EOS] (this vocabulary has no SEP).
 */
async function expectedRelevance(lastPoolingFile: string, yes: number[], no: number[]): Promise<number[]> {
  return (await expectedHead(lastPoolingFile, [yes, no])).map((p) => p[0]!);
}

/** softmax(cls · h) for every pair, by hand (see expectedRelevance). */
async function expectedHead(lastPoolingFile: string, rows: number[][]): Promise<number[][]> {
  const llama = await sharedLlama(1, false);
  const model = await llama.loadModel({ modelPath: lastPoolingFile });
  const context = await model.createEmbeddingContext({ contextSize: 256, threads: 1 });
  try {
    assert.equal(model.tokens.sep, null);
    const out: number[][] = [];
    for (const p of PAIRS) {
      const input = [
        model.tokens.bos!,
        ...model.tokenize(p.text, false, 'trimLeadingSpace'),
        model.tokens.eos!,
        ...model.tokenize(p.textPair, false, 'trimLeadingSpace'),
        model.tokens.eos!,
      ];
      const h = (await context.getEmbeddingFor(input)).vector;
      assert.equal(h.length, rows[0]!.length);
      const logits = rows.map((row) => h.reduce((s, v, i) => s + v * Math.fround(row[i]!), 0));
      const max = Math.max(...logits);
      const exps = logits.map((l) => Math.exp(l - max));
      out.push(exps.map((e) => e / exps.reduce((a, b) => a + b, 0)));
    }
    return out;
  } finally {
    await context.dispose();
    await model.dispose();
  }
}

describe('gguf-rerank: GGUF rerankers through node-llama-cpp', { skip }, () => {
  it("relevance equals the classification head applied by hand to the network's last hidden state", async () => {
    const n = ggufEmbeddingLength(gguf!);
    const yes = Array.from({ length: n }, (_, i) => 0.02 * Math.sin(i + 1));
    const no = Array.from({ length: n }, (_, i) => 0.02 * Math.cos(3 * i));
    const rerankFile = join(dir, 'tiny-reranker.gguf');
    writeGgufReranker(gguf!, rerankFile, { classifier: [yes, no], poolingType: 4 });
    writeGgufReranker(gguf!, join(dir, 'tiny-last.gguf'), { classifier: [yes, no], poolingType: 3 });
    const expected = await expectedRelevance(join(dir, 'tiny-last.gguf'), yes, no);

    const model = requireKind(
      await createScorerModel({ spec: `gguf-rerank:${rerankFile}`, threads: 1, contextSize: 64 }, { cacheDir: dir }),
      'classification',
      'relevance',
    ) as ClassificationModel;
    try {
      assert.equal(model.provider, 'llama-rerank');
      assert.deepEqual(model.tasks, ['relevance']);
      assert.match(model.cacheIdentity, /^llama-rerank:sha256=[0-9a-f]{64}:relevant="yes"$/);
      const ex = new ModelExecutor(model, { cache: new CallCache(openDatabase(':memory:')) });
      const r = await ex.classify({ task: 'relevance', pairs: PAIRS });
      for (const [i, e] of expected.entries()) {
        const got = r.value.scores[i]!.relevant!;
        assert.ok(Math.abs(got - e) / e < 1e-4, `pair ${i}: ${got} vs ${e} by hand`);
      }
      // The scores tell the pairs apart (the head is not a constant) and stay probabilities.
      assert.ok(new Set(r.value.scores.map((s) => s.relevant)).size === 3);
      assert.ok(r.value.usage.promptTokens > 3 * 5);
      assert.equal((await ex.classify({ task: 'relevance', pairs: PAIRS })).cached, true);
      // Deterministic: the same pair again, uncached, gives the same number.
      const again = await model.classify({ task: 'relevance', pairs: [PAIRS[1]!] });
      assert.equal(again.scores[0]!.relevant, r.value.scores[1]!.relevant);

      await assert.rejects(model.classify({ task: 'nli', pairs: PAIRS }), /scores relevance, not nli/);
      // llama.cpp rounds the context up (to 256 here): a passage longer than what it got.
      const window = (model as LlamaReranker).contextSize;
      const long = Array.from({ length: window }, () => 'girl').join(' ');
      await assert.rejects(
        model.classify({ task: 'relevance', pairs: [{ text: 'who', textPair: long }] }),
        (e: unknown) => e instanceof ContextOverflowError && e.message.includes(`${window}-token context`),
      );
    } finally {
      await model.close();
      await model.close();
    }
  });

  it('a head with several outputs: the one named "yes" or mapped "relevant" is read, wherever it is; none named: refused at load', async () => {
    const n = ggufEmbeddingLength(gguf!);
    const a = Array.from({ length: n }, (_, i) => 0.03 * Math.cos(i + 2));
    const b = Array.from({ length: n }, (_, i) => 0.02 * Math.sin(5 * i));
    // The relevant output second, as monoBERT's [not relevant, relevant]: `rank` alone would report the first.
    writeGgufReranker(gguf!, join(dir, 'no-yes.gguf'), { classifier: [a, b], poolingType: 4, labels: ['no', 'yes'] });
    writeGgufReranker(gguf!, join(dir, 'no-yes-last.gguf'), { classifier: [a, b], poolingType: 3, labels: ['no', 'yes'] });
    writeGgufReranker(gguf!, join(dir, 'label-n.gguf'), { classifier: [a, b], poolingType: 4, labels: ['LABEL_0', 'LABEL_1'] });
    const expected = (await expectedHead(join(dir, 'no-yes-last.gguf'), [a, b])).map((p) => p[1]!);
    for (const entry of [
      { spec: `gguf-rerank:${join(dir, 'no-yes.gguf')}` },
      { spec: `gguf-rerank:${join(dir, 'label-n.gguf')}`, labels: { LABEL_1: 'relevant' as const } },
    ]) {
      const model = (await createScorerModel({ ...entry, threads: 1, contextSize: 64 }, { cacheDir: dir })) as ClassificationModel;
      try {
        const r = await model.classify({ task: 'relevance', pairs: PAIRS });
        for (const [i, e] of expected.entries())
          assert.ok(Math.abs(r.scores[i]!.relevant! - e) / e < 1e-4, `${entry.spec} pair ${i}: ${r.scores[i]!.relevant} vs ${e} by hand`);
        assert.match(model.cacheIdentity, /:relevant="(yes|LABEL_1)"$/);
      } finally {
        await model.close();
      }
    }
    await assert.rejects(
      createScorerModel({ spec: `gguf-rerank:${join(dir, 'label-n.gguf')}`, threads: 1, contextSize: 64 }, { cacheDir: dir }),
      (e: unknown) => e instanceof ModelSpecError && /"LABEL_1": "relevant"/.test(e.hint ?? ''),
    );
  });

  it('a GGUF without a classification head is refused at load with a hint', async () => {
    await assert.rejects(
      LlamaReranker.load({ model: gguf!, modelsDir: dir, threads: 1, contextSize: 64 }),
      (e: unknown) => e instanceof ModelFileError && /not a reranker/.test(e.message) && /llm-relevance/.test(e.hint ?? ''),
    );
    await assert.rejects(LlamaReranker.load({ model: join(dir, 'missing.gguf'), modelsDir: dir }), ModelFileError);
  });
});

describe('gguf-rerank: spec', () => {
  it('takes what gguf: and hf: take; options are the in-process ones', () => {
    assert.deepEqual(parseLlamaRerankerSpec('gguf-rerank:./r.gguf', './r.gguf'), { provider: 'llama-rerank', model: './r.gguf' });
    assert.deepEqual(parseLlamaRerankerSpec('gguf-rerank:gguf:./r.gguf', 'gguf:./r.gguf'), { provider: 'llama-rerank', model: './r.gguf' });
    assert.deepEqual(resolveModelSpec('gguf-rerank:hf:gpustack/bge-reranker-v2-m3-GGUF:Q8_0').parsed, {
      provider: 'llama-rerank',
      model: 'hf:gpustack/bge-reranker-v2-m3-GGUF:Q8_0',
    });
    assert.throws(() => parseLlamaRerankerSpec('gguf-rerank:', ''), ModelSpecError);
    assert.throws(() => parseLlamaRerankerSpec('gguf-rerank:hf:nonsense', 'hf:nonsense'), ModelSpecError);
    assert.equal(llamaRerankerProvider.optionsSchema.safeParse({ threads: 2, contextSize: 512 }).success, true);
    assert.equal(llamaRerankerProvider.optionsSchema.safeParse({ task: 'nli' }).success, false);
  });
});
