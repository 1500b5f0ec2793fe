import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ModelSpecError } from '../errors.js';
import { parseModelSpec } from './model-spec.js';

describe('parseModelSpec', () => {
  it('reads local GGUF paths, with or without the gguf: prefix', () => {
    assert.deepEqual(parseModelSpec('gguf:./models/a.gguf'), { provider: 'llama', model: './models/a.gguf' });
    assert.deepEqual(parseModelSpec('/abs/path/Model-Q4_K_M.gguf'), { provider: 'llama', model: '/abs/path/Model-Q4_K_M.gguf' });
  });

  it('keeps hf: URIs whole for node-llama-cpp to resolve', () => {
    assert.deepEqual(parseModelSpec('hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M'), { provider: 'llama', model: 'hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M' });
    assert.deepEqual(parseModelSpec('hf:owner/repo/file.gguf'), { provider: 'llama', model: 'hf:owner/repo/file.gguf' });
    assert.throws(() => parseModelSpec('hf:justaname'), ModelSpecError);
  });

  it('maps openai: to the hosted chat API with its key variable', () => {
    const spec = parseModelSpec('openai:gpt-4o-mini');
    assert.equal(spec.provider, 'openai-compatible');
    if (spec.provider !== 'openai-compatible') return;
    assert.deepEqual(spec.baseURLs, ['https://api.openai.com/v1']);
    assert.equal(spec.model, 'gpt-4o-mini');
    assert.equal(spec.apiKeyEnv, 'OPENAI_API_KEY');
    assert.equal(spec.api, 'chat');
  });

  it('splits vllm: into base URLs and a model name that may contain slashes', () => {
    const spec = parseModelSpec('vllm:http://gpu1:8000/v1,http://gpu2:8000/v1/meta-llama/Llama-3-8B');
    assert.equal(spec.provider, 'openai-compatible');
    if (spec.provider !== 'openai-compatible') return;
    assert.deepEqual(spec.baseURLs, ['http://gpu1:8000/v1', 'http://gpu2:8000/v1']);
    assert.equal(spec.model, 'meta-llama/Llama-3-8B');
    assert.equal(spec.api, 'completions');
    assert.equal(spec.echo, true);
  });

  it('points ollama: at $OLLAMA_HOST or the default port', () => {
    const a = parseModelSpec('ollama:llama3.1', {});
    const b = parseModelSpec('ollama:llama3.1', { OLLAMA_HOST: 'gpu-box:11434' });
    assert.ok(a.provider === 'openai-compatible' && b.provider === 'openai-compatible');
    if (a.provider !== 'openai-compatible' || b.provider !== 'openai-compatible') return;
    assert.deepEqual(a.baseURLs, ['http://127.0.0.1:11434/v1']);
    assert.deepEqual(b.baseURLs, ['http://gpu-box:11434/v1']);
  });

  it('rejects unknown and malformed specs with a hint listing the forms', () => {
    for (const bad of ['', 'claude:foo', 'llama3', 'vllm:localhost:8000/model', 'vllm:http://h:8000/v1/', 'openai:']) {
      const error = (() => {
        try {
          parseModelSpec(bad);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      assert.ok(error instanceof ModelSpecError, `"${bad}" should be rejected`);
      assert.ok(error.hint, `"${bad}" error has a hint`);
    }
  });
});
