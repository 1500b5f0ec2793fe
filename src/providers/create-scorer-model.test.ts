import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { overlapNli, startScorerServer } from '#test-support/scorer-server.js';
import { loadConfig } from '../config/config.js';
import { UnsupportedCapabilityError } from '../errors.js';
import { Workspace } from '../workspace.js';
import { softmax } from './classification/labels.js';
import { createScorerModel } from './create-scorer-model.js';
import { hasKind, requireKind, type ClassificationModel } from './model-kinds.js';
import { tempDir } from '#test-support/temp-dir.js';

const gguf = process.env.LLMKB_TEST_GGUF;

describe('createScorerModel and Workspace.scorerExecutor', () => {
  it('builds each backend from its spec and config options', async () => {
    const tei = await createScorerModel({ spec: 'tei:http://127.0.0.1:9/cross-encoder/nli-deberta-v3-base', task: 'nli' }, { cacheDir: tmpdir() });
    assert.equal(tei.provider, 'tei');
    const score = await createScorerModel('vllm-score:http://127.0.0.1:9/v1/cross-encoder/ms-marco-MiniLM-L-6-v2', { cacheDir: tmpdir() });
    assert.equal(score.provider, 'vllm-pooling');
    const vllm = await createScorerModel('vllm:http://127.0.0.1:9/v1/gpt2', { cacheDir: tmpdir() });
    assert.ok(hasKind(vllm as { kinds: readonly ('scoring' | 'classification')[] }, 'scoring'));
    assert.throws(() => requireKind(tei as ClassificationModel, 'scoring', 'scorer'), UnsupportedCapabilityError);
  });

  it('a config with scorer options loads, and the workspace runs a cached classify over TEI', async () => {
    const server = await startScorerServer({ serves: 'nli' });
    const dir = tempDir('llmkb-scorer-');
    const configPath = join(dir, 'llmkb.config.json');
    writeFileSync(configPath, JSON.stringify({ model: { spec: `tei:${server.url}/cross-encoder/nli-deberta-v3-base`, task: 'nli', truncate: true } }));
    const ws = new Workspace({ configPath, store: join(dir, 'store.sqlite') });
    try {
      assert.equal(loadConfig(configPath).config.model !== undefined, true);
      const ex = await ws.scorerExecutor(ws.entryFor('model')!);
      const pair = { text: 'Paris is in France.', textPair: 'Paris is in France.' };
      const r = await ex.classify({ task: 'nli', pairs: [pair] });
      assert.ok(Math.abs(r.value.scores[0]!.entailment! - softmax(overlapNli(pair.text, pair.textPair))[1]!) < 1e-6);
      assert.equal(server.requests[0]!.body.truncate, true);
      const again = await (await ws.scorerExecutor(ws.entryFor('model')!)).classify({ task: 'nli', pairs: [pair] });
      assert.equal(again.cached, true);
    } finally {
      await ws.close();
      await server.close();
    }
  });

  it('llm-nli over a GGUF file', { skip: gguf ? false : 'LLMKB_TEST_GGUF is not set' }, async () => {
    const m = await createScorerModel(
      { spec: `llm-nli:gguf:${gguf}`, threads: 1, labelWords: { entailment: ['the'], neutral: ['a'], contradiction: ['he'] } },
      { cacheDir: tmpdir() },
    );
    try {
      assert.equal(m.provider, 'llm-classifier');
      assert.ok(hasKind(m as { kinds: readonly ('scoring' | 'classification')[] }, 'classification'));
    } finally {
      await m.close();
    }
  });
});
