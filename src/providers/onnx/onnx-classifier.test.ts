import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tinyClassifierIds, tinyClassifierLogits, writeTinyClassifier, type TinyClassifierWeights } from '#test-support/tiny-onnx-classifier.js';
import { ContextOverflowError, ModelFileError, ModelSpecError, UnsupportedCapabilityError } from '../../errors.js';
import { ModelExecutor } from '../../executor/model-executor.js';
import { CallCache } from '../../store/call-cache.js';
import { openDatabase } from '../../store/database.js';
import { sigmoid, softmax } from '../classification/labels.js';
import { createScorerModel } from '../create-scorer-model.js';
import { requireKind, type ClassificationModel } from '../model-kinds.js';
import { importTransformers, OnnxClassifier } from './onnx-classifier.js';
import { onnxProvider, parseOnnxSpec } from './onnx-provider.js';
import { tempDir } from '#test-support/temp-dir.js';

const root = tempDir('llmkb-onnx-');
after(() => rmSync(root, { recursive: true, force: true }));

const WORDS = ['paris', 'is', 'the', 'capital', 'of', 'france', 'not', 'berlin', 'germany', 'in'];
/** Deterministic, distinct embedding rows (4 special tokens + the words), dim 3. */
const EMBEDDINGS = Array.from({ length: 4 + WORDS.length }, (_, i) => [Math.sin(i + 1), Math.cos(2 * i + 1), (i % 3) - 1]);

const nliWeights: TinyClassifierWeights = {
  words: WORDS,
  embeddings: EMBEDDINGS,
  weights: [
    [1.5, -1, 0.5],
    [0.2, 0.9, -0.7],
    [2, 0.1, -1.2],
  ],
  bias: [0.1, -0.2, 0.05],
  // DeBERTa-v3 NLI cross-encoders' order: contradiction, entailment, neutral.
  labels: ['contradiction', 'entailment', 'neutral'],
};
const rankerWeights: TinyClassifierWeights = { words: WORDS, embeddings: EMBEDDINGS, weights: [[2.5], [-1.5], [0.75]], bias: [-0.3], labels: ['LABEL_0'] };

const close = (a: number, b: number): boolean => Math.abs(a - b) < 1e-5;

describe('onnx: classifiers through transformers.js', () => {
  const nliFolder = writeTinyClassifier(join(root, 'tiny-nli'), nliWeights);
  const rankerFolder = writeTinyClassifier(join(root, 'tiny-ranker'), rankerWeights);

  it('NLI: label probabilities are the softmax of the logits computed by hand from the weights, mapped by id2label', async () => {
    const model = requireKind(
      await createScorerModel({ spec: `onnx:${nliFolder}`, task: 'nli' }, { cacheDir: root }),
      'classification',
      'nli',
    ) as ClassificationModel;
    try {
      assert.equal(model.provider, 'onnx');
      assert.deepEqual(model.tasks, ['nli']);
      // Pairs of different lengths: one padded batch, so the mask must keep padding out of the mean.
      const pairs = [
        { text: 'Paris is the capital of France.', textPair: 'Paris is not the capital of France.' },
        { text: 'Berlin', textPair: 'Berlin is in Germany' },
        { text: 'Paris', textPair: 'unknown words here' },
      ];
      assert.deepEqual(tinyClassifierIds(nliWeights, pairs[2]!.text, pairs[2]!.textPair), [2, 4, 3, 1, 1, 1, 3]);
      const r = await model.classify({ task: 'nli', pairs });
      for (const [i, p] of pairs.entries()) {
        const [contradiction, entailment, neutral] = softmax(tinyClassifierLogits(nliWeights, p.text, p.textPair));
        const s = r.scores[i]!;
        assert.ok(
          close(s.entailment!, entailment!) && close(s.neutral!, neutral!) && close(s.contradiction!, contradiction!),
          `pair ${i}: ${JSON.stringify(s)} vs ${[entailment, neutral, contradiction].join(', ')}`,
        );
        assert.ok(close(s.entailment! + s.neutral! + s.contradiction!, 1));
      }
      const tokens = pairs.reduce((n, p) => n + tinyClassifierIds(nliWeights, p.text, p.textPair).length, 0);
      assert.deepEqual(r.usage, { promptTokens: tokens, completionTokens: 0, evaluatedTokens: tokens });
      // The same pair alone gives the same numbers as inside the padded batch.
      const alone = await model.classify({ task: 'nli', pairs: [pairs[1]!] });
      assert.ok(close(alone.scores[0]!.entailment!, r.scores[1]!.entailment!));
      assert.match(model.cacheIdentity, /^onnx:sha256=[0-9a-f]{64}:task=nli:scores=raw:truncate=false$/);
    } finally {
      await model.close();
      await model.close();
    }
  });

  it('relevance: sigmoid of a one-logit cross-encoder, through the executor and its cache', async () => {
    const model = await createScorerModel(`onnx:${rankerFolder}`, { cacheDir: root });
    try {
      const ex = new ModelExecutor(model, { cache: new CallCache(openDatabase(':memory:')) });
      const pairs = [
        { text: 'capital of france', textPair: 'Paris is the capital of France' },
        { text: 'capital of france', textPair: 'Berlin is in Germany' },
      ];
      const r = await ex.classify({ task: 'relevance', pairs });
      for (const [i, p] of pairs.entries())
        assert.ok(close(r.value.scores[i]!.relevant!, sigmoid(tinyClassifierLogits(rankerWeights, p.text, p.textPair)[0]!)), `pair ${i}`);
      assert.notEqual(r.value.scores[0]!.relevant, r.value.scores[1]!.relevant);
      assert.equal((await ex.classify({ task: 'relevance', pairs })).cached, true);
      await assert.rejects((model as ClassificationModel).classify({ task: 'nli', pairs }), /does relevance, not nli/);
    } finally {
      await model.close();
    }
  });

  it('LABEL_n names need the "labels" map for NLI; a multi-label model is refused for relevance; both at start-up', async () => {
    const folder = writeTinyClassifier(join(root, 'tiny-label-n'), { ...nliWeights, labels: ['LABEL_0', 'LABEL_1', 'LABEL_2'] });
    await assert.rejects(
      createScorerModel({ spec: `onnx:${folder}`, task: 'nli' }, { cacheDir: root }),
      (e: unknown) => e instanceof Error && /LABEL_0/.test(e.message) && /"labels"/.test((e as { hint?: string }).hint ?? ''),
    );
    const mapped = await createScorerModel(
      { spec: `onnx:${folder}`, task: 'nli', labels: { LABEL_0: 'contradiction', LABEL_1: 'entailment', LABEL_2: 'neutral' } },
      { cacheDir: root },
    );
    try {
      const r = await (mapped as ClassificationModel).classify({ task: 'nli', pairs: [{ text: 'paris', textPair: 'france' }] });
      assert.ok(close(r.scores[0]!.entailment!, softmax(tinyClassifierLogits(nliWeights, 'paris', 'france'))[1]!));
      assert.match(mapped.cacheIdentity, /:labels=/);
    } finally {
      await mapped.close();
    }
    await assert.rejects(
      createScorerModel(`onnx:${nliFolder}`, { cacheDir: root }),
      (e: unknown) => e instanceof ModelSpecError && /none of them is the "relevant" class/.test(e.message) && /"labels"/.test(e.hint ?? ''),
    );
  });

  it('relevance of a two-logit model (monoBERT): softmax, the output the labels map names; coherence of one text, no pair', async () => {
    const twoLogit = {
      ...rankerWeights,
      weights: rankerWeights.weights.map((row) => [-row[0]!, 0.5 * row[0]! + 0.1]),
      bias: [0.2, -0.1],
      labels: ['LABEL_0', 'LABEL_1'],
    };
    const folder = writeTinyClassifier(join(root, 'tiny-monobert'), twoLogit);
    await assert.rejects(
      createScorerModel({ spec: `onnx:${folder}`, task: 'relevance' }, { cacheDir: root }),
      (e: unknown) => e instanceof ModelSpecError && /"LABEL_1": "relevant"/.test(e.hint ?? ''),
    );
    const model = (await createScorerModel(
      { spec: `onnx:${folder}`, task: 'relevance', labels: { LABEL_1: 'relevant' } },
      { cacheDir: root },
    )) as ClassificationModel;
    try {
      const pairs = [
        { text: 'capital of france', textPair: 'Paris is the capital of France' },
        { text: 'capital of france', textPair: 'Berlin is in Germany' },
      ];
      const r = await model.classify({ task: 'relevance', pairs });
      for (const [i, p] of pairs.entries())
        assert.ok(close(r.scores[i]!.relevant!, softmax(tinyClassifierLogits(twoLogit, p.text, p.textPair))[1]!), `pair ${i}`);
      assert.match(model.cacheIdentity, /:labels=\[\["LABEL_1","relevant"\]\]/);
    } finally {
      await model.close();
    }
    const coherence = (await createScorerModel({ spec: `onnx:${rankerFolder}`, task: 'coherence' }, { cacheDir: root })) as ClassificationModel;
    try {
      assert.deepEqual(coherence.tasks, ['coherence']);
      const texts = ['Paris is the capital. Paris is in France.', 'Berlin'];
      const r = await coherence.classify({ task: 'coherence', pairs: texts.map((text) => ({ text, textPair: '' })) });
      for (const [i, text] of texts.entries()) assert.ok(close(r.scores[i]!.coherent!, sigmoid(tinyClassifierLogits(rankerWeights, text)[0]!)), `text ${i}`);
      assert.equal(
        r.usage.promptTokens,
        texts.reduce((n, t) => n + tinyClassifierIds(rankerWeights, t).length, 0),
        'one segment each: [CLS] text [SEP]',
      );
    } finally {
      await coherence.close();
    }
  });

  it('pairs over the tokenizer window are an error unless "truncate" is set', async () => {
    const model = await OnnxClassifier.load({ folder: rankerFolder, modelId: 'ranker', task: 'relevance' });
    const long = Array.from({ length: 70 }, () => 'paris').join(' ');
    try {
      await assert.rejects(model.classify({ task: 'relevance', pairs: [{ text: 'france', textPair: long }] }), ContextOverflowError);
    } finally {
      await model.close();
    }
    const cut = await OnnxClassifier.load({ folder: rankerFolder, modelId: 'ranker', task: 'relevance', truncate: true });
    try {
      const r = await cut.classify({ task: 'relevance', pairs: [{ text: 'france', textPair: long }] });
      assert.ok(r.usage.promptTokens <= 64);
      assert.match(cut.cacheIdentity, /truncate=true/);
    } finally {
      await cut.close();
    }
  });

  it('a folder without the model files, a changed model file, options that do not apply, a missing package', async () => {
    await assert.rejects(
      createScorerModel(`onnx:${join(root, 'nowhere')}`, { cacheDir: root }),
      (e: unknown) => e instanceof ModelFileError && /config\.json is missing/.test(e.message),
    );
    assert.throws(() => parseOnnxSpec('onnx:', ''), ModelSpecError);
    assert.deepEqual(parseOnnxSpec('onnx:./m', './m'), { provider: 'onnx', folder: './m' });
    assert.equal(onnxProvider.optionsSchema.safeParse({ task: 'nli', labels: { LABEL_0: 'entailment' }, truncate: true }).success, true);
    await assert.rejects(createScorerModel({ spec: `onnx:${rankerFolder}`, endpoint: 'predict' }, { cacheDir: root }), ModelSpecError);

    const before = await OnnxClassifier.load({ folder: rankerFolder, modelId: 'r', task: 'relevance' });
    await before.close();
    const copy = writeTinyClassifier(join(root, 'tiny-ranker-2'), { ...rankerWeights, bias: [0.4] });
    const changed = await OnnxClassifier.load({ folder: copy, modelId: 'r', task: 'relevance' });
    await changed.close();
    assert.notEqual(before.cacheIdentity, changed.cacheIdentity);
    writeFileSync(join(copy, 'onnx', 'model.onnx'), 'not a model');
    await assert.rejects(
      OnnxClassifier.load({ folder: copy, modelId: 'r', task: 'relevance' }),
      (e: unknown) => e instanceof ModelFileError && /could not load/.test(e.message),
    );

    const missing = Object.assign(new Error("Cannot find package '@huggingface/transformers'"), { code: 'ERR_MODULE_NOT_FOUND' });
    await assert.rejects(
      importTransformers(() => Promise.reject(missing)),
      (e: unknown) => e instanceof UnsupportedCapabilityError && /npm install @huggingface\/transformers/.test(e.hint ?? ''),
    );
  });
});
