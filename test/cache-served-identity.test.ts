/**
 * The call cache knows which checkpoint answered (issue 37): two servers that serve different
 * checkpoints under one model name do not share cached answers (vLLM's `/v1/models` root, Ollama's
 * digest, TEI's `/info` revision, or the `revision` a model entry declares); replicas of one
 * checkpoint still do; replicas that report different checkpoints are refused.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { generationCallKey } from '../src/executor/call-key.js';
import { ModelExecutor } from '../src/executor/model-executor.js';
import { OpenAICompatibleModel } from '../src/providers/openai-compatible/openai-compatible-model.js';
import { TeiClassifier } from '../src/providers/tei/tei-classifier.js';
import { CallCache } from '../src/store/call-cache.js';
import { openDatabase } from '../src/store/database.js';

interface Fake {
  baseURL: string;
  url: string;
  asked: number;
}

const servers: Server[] = [];
after(async () => {
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
});

/** A loopback server: `/v1/models` lists `model` with `entry`, chat answers `reply`; `/api/tags` and `/info` as Ollama and TEI do. */
async function fake(options: { entry?: Record<string, unknown>; reply: string; tags?: unknown; info?: unknown }): Promise<Fake> {
  const state = { asked: 0 };
  const server = createServer((req, res) => {
    const send = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      if (req.url === '/v1/models')
        return send({ object: 'list', data: [{ id: 'm', object: 'model', created: Math.floor(Date.now() / 1000), ...options.entry }] });
      if (req.url === '/api/tags' && options.tags !== undefined) return send(options.tags);
      if (req.url === '/info' && options.info !== undefined) return send(options.info);
      if (req.url === '/rerank') {
        state.asked += 1;
        return send([{ index: 0, score: options.reply.length }]);
      }
      if (req.url === '/v1/chat/completions') {
        state.asked += 1;
        return send({
          choices: [{ index: 0, message: { role: 'assistant', content: options.reply }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: 1 },
        });
      }
      res.writeHead(404);
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    get asked() {
      return state.asked;
    },
  } as Fake;
}

function vllm(baseURLs: string[], flavor = 'vllm'): OpenAICompatibleModel {
  return new OpenAICompatibleModel({ baseURLs, model: 'm', api: 'chat', echo: false, topLogprobs: 5, flavor, concurrency: 1 });
}

const ask = (executor: ModelExecutor) => executor.chat({ messages: [{ role: 'user', content: 'Who wrote Hamlet?' }], maxTokens: 4 });

describe('the call cache keys on the checkpoint the server reports', () => {
  it('vLLM: another root under the same name is asked; a replica with the same root is answered from the cache', async () => {
    const cache = new CallCache(openDatabase(':memory:'));
    const a = await fake({ entry: { root: '/ckpt/step-1000' }, reply: 'Shakespeare' });
    const b = await fake({ entry: { root: '/ckpt/step-2000' }, reply: 'Marlowe' });
    const a2 = await fake({ entry: { root: '/ckpt/step-1000' }, reply: 'never asked' });
    const first = await ask(new ModelExecutor(vllm([a.baseURL]), { cache }));
    assert.equal(first.value.text, 'Shakespeare');
    const other = await ask(new ModelExecutor(vllm([b.baseURL]), { cache }));
    assert.equal(other.cached, false, "another checkpoint does not reuse the first one's answer");
    assert.equal(other.value.text, 'Marlowe');
    const replica = await ask(new ModelExecutor(vllm([a2.baseURL]), { cache }));
    assert.equal(replica.cached, true);
    assert.equal(replica.value.text, 'Shakespeare');
    assert.equal(a2.asked, 0);
  });

  it('answers cached before the key had the served identity are not reused: said once, and counted by cache stats', async () => {
    const cache = new CallCache(openDatabase(':memory:'));
    const s = await fake({ entry: { root: '/ckpt/step-1000' }, reply: 'Shakespeare' });
    const model = vllm([s.baseURL]);
    // As an llmkb before served identities wrote it: keyed on the model's identity alone.
    const old = generationCallKey(model.cacheIdentity, 'chat', { messages: [{ role: 'user', content: 'Who wrote Hamlet?' }], maxTokens: 4 });
    await cache.put(old.key, model.cacheIdentity, 'chat', old.params, {
      response: { text: 'Marlowe', usage: { promptTokens: 3, completionTokens: 1, evaluatedTokens: 0 } },
      promptTokens: 3,
      completionTokens: 1,
      latencyMs: 1,
    });
    assert.deepEqual(
      cache.stats().byModel.map((r) => r.notReused),
      [0],
      'no entry keyed with a served identity yet: nothing known to be unreachable',
    );
    const notes: string[] = [];
    const executor = new ModelExecutor(model, { cache, log: (line) => notes.push(line) });
    const answer = await ask(executor);
    assert.equal(answer.cached, false, 'the old entry is not reused');
    assert.equal(answer.value.text, 'Shakespeare');
    await ask(new ModelExecutor(vllm([s.baseURL]), { cache, log: (line) => notes.push(line) }));
    assert.equal(notes.length, 1, notes.join('\n'));
    assert.match(
      notes[0]!,
      /answers cached before llmkb keyed calls on what the server serves \(here root=\/ckpt\/step-1000\) are not reused.*llmkb cache clear --model-identity 'openai-compatible:vllm:m:api=chat'/,
    );
    const stats = cache.stats();
    assert.deepEqual(
      stats.byModel.map((r) => [r.model, r.kind, r.entries, r.notReused]),
      [[model.cacheIdentity, 'chat', 2, 1]],
    );
  });

  it('Ollama: the digest of /api/tags tells two pulls apart', async () => {
    const cache = new CallCache(openDatabase(':memory:'));
    const one = await fake({ reply: 'one', tags: { models: [{ name: 'm:latest', model: 'm:latest', digest: 'sha256:111' }] } });
    const two = await fake({ reply: 'two', tags: { models: [{ name: 'm:latest', model: 'm:latest', digest: 'sha256:222' }] } });
    assert.equal((await ask(new ModelExecutor(vllm([one.baseURL], 'ollama'), { cache }))).value.text, 'one');
    assert.equal((await ask(new ModelExecutor(vllm([two.baseURL], 'ollama'), { cache }))).value.text, 'two');
  });

  it('a declared revision keys the answers without asking the server', async () => {
    const cache = new CallCache(openDatabase(':memory:'));
    const s = await fake({ reply: 'first' });
    await ask(new ModelExecutor(vllm([s.baseURL]), { cache, revision: 'r1' }));
    const again = await ask(new ModelExecutor(vllm([s.baseURL]), { cache, revision: 'r1' }));
    assert.equal(again.cached, true);
    const next = await ask(new ModelExecutor(vllm([s.baseURL]), { cache, revision: 'r2' }));
    assert.equal(next.cached, false);
  });

  it('replicas in one entry that report different checkpoints are refused', async () => {
    const a = await fake({ entry: { root: '/ckpt/a' }, reply: 'x' });
    const b = await fake({ entry: { root: '/ckpt/b' }, reply: 'y' });
    await assert.rejects(
      ask(new ModelExecutor(vllm([a.baseURL, b.baseURL]), { cache: new CallCache(openDatabase(':memory:')) })),
      /the replicas of m serve different models: .* reports root=\/ckpt\/a, .* reports root=\/ckpt\/b/,
    );
  });

  it('TEI: the /info revision tells two deployments of one model id apart', async () => {
    const cache = new CallCache(openDatabase(':memory:'));
    const one = await fake({ reply: 'a', info: { model_id: 'cross-encoder/x', model_sha: 'aaa' } });
    const two = await fake({ reply: 'bbb', info: { model_id: 'cross-encoder/x', model_sha: 'bbb' } });
    const request = { task: 'relevance' as const, pairs: [{ text: 'q', textPair: 'p' }] };
    const exec = (url: string) => new ModelExecutor(new TeiClassifier({ baseURLs: [url], model: 'cross-encoder/x', task: 'relevance' }), { cache });
    await exec(one.url).classify(request);
    await exec(two.url).classify(request);
    assert.equal(two.asked, 1, "the second deployment is asked, not answered from the first one's cache");
  });
});
