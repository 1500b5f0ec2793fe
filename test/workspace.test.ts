import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Workspace } from '../src/workspace.js';
import { tempDir } from './support/temp-dir.js';

describe('Workspace', () => {
  it('loads a model once when several roles name it, and keeps per-role executor settings', async () => {
    const dir = tempDir('llmkb-ws-');
    const ws = new Workspace({ store: join(dir, 'store.db'), env: { LLMKB_CACHE_DIR: dir } });
    try {
      const spec = 'vllm:http://127.0.0.1:9/v1/some/model';
      const model = await ws.executor(spec);
      const judge = await ws.executor({ spec, timeoutMs: 5_000, maxRetries: 0 });
      const other = await ws.executor({ spec, concurrency: 3 });
      assert.equal(judge.model, model.model, 'same spec, different executor settings: one model');
      assert.notEqual(other.model, model.model, 'a different provider setting is a different model');
      assert.notEqual(judge, model);
    } finally {
      await ws.close();
    }
  });

  it('shares one in-process GGUF between roles', { skip: process.env.LLMKB_TEST_GGUF ? false : 'LLMKB_TEST_GGUF is not set' }, async () => {
    const dir = tempDir('llmkb-ws-');
    const ws = new Workspace({ store: join(dir, 'store.db'), env: { LLMKB_CACHE_DIR: dir } });
    try {
      const spec = `gguf:${process.env.LLMKB_TEST_GGUF}`;
      const [a, b] = await Promise.all([ws.executor(spec), ws.executor(spec)]);
      assert.equal(a.model, b.model, 'loaded once even when asked for concurrently');
      const text = await b.complete({ prompt: 'Once upon a time', maxTokens: 3 });
      assert.ok(text.value.text.length > 0);
    } finally {
      await ws.close();
    }
  });
});
