import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startOpenAICompatibleServer, type ServerScript, type TestServer } from '#test-support/openai-compatible-server.js';
import { OpenAICompatibleModel } from '../providers/openai-compatible/openai-compatible-model.js';
import { EndpointPool } from './endpoint-pool.js';
import { ModelExecutor } from './model-executor.js';

const servers: TestServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function replicas(scripts: ServerScript[]): Promise<TestServer[]> {
  const started = await Promise.all(scripts.map((s) => startOpenAICompatibleServer(s)));
  servers.push(...started);
  return started;
}

function executorOver(urls: string[], options: { cooldownMs?: number; concurrency?: number } = {}): ModelExecutor {
  const model = new OpenAICompatibleModel({
    baseURLs: urls,
    model: 'm',
    api: 'completions',
    echo: true,
    topLogprobs: 5,
    flavor: 'vllm',
    concurrency: options.concurrency ?? 4,
  });
  return new ModelExecutor(model, {
    cache: null,
    baseBackoffMs: 1,
    maxBackoffMs: 4,
    maxRetries: 6,
    breaker: { failureThreshold: 3, cooldownMs: options.cooldownMs ?? 40, maxCooldownMs: 200 },
  });
}

const prompts = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} question ${i}`);

describe('many endpoints per model: least outstanding requests, a failing replica taken out and tried again', () => {
  it("three replicas, one failing mid-run: every call answered, the failing one taken out, each replica's calls counted", async () => {
    // The third replica answers its first 5 requests, then fails every one (500).
    const [a, b, c] = await replicas([{ delayMs: 3 }, { delayMs: 3 }, { delayMs: 3, fault: (i) => (i >= 5 ? { kind: 'status', status: 500 } : undefined) }]);
    const executor = executorOver([a!.baseURL, b!.baseURL, c!.baseURL]);
    const results = await Promise.all(prompts(240, 'x').map((prompt) => executor.complete({ prompt, maxTokens: 4 })));
    assert.equal(results.length, 240);
    const stats = executor.endpointStats();
    assert.deepEqual(
      stats.map((s) => s.url),
      [a!.baseURL, b!.baseURL, c!.baseURL],
    );
    assert.equal(
      stats.reduce((n, s) => n + s.served, 0),
      240,
      'every call answered once',
    );
    assert.equal(stats[2]!.served, 5);
    assert.ok(stats[2]!.trips >= 1, 'the failing replica was taken out');
    assert.equal(stats[2]!.failed, c!.requests.length - 5);
    // Taken out, it sees a handful of trial calls, not a third of the load.
    assert.ok(c!.requests.length < 30, `the failing replica got ${c!.requests.length} requests`);
    assert.ok(stats[0]!.served > 80 && stats[1]!.served > 80, JSON.stringify(stats));
  });

  it('a replica that recovers is put back after its cool-down', async () => {
    // Fails requests 3..8 (a restart), then answers again.
    const [a, b] = await replicas([{ delayMs: 4 }, { delayMs: 4, fault: (i) => (i >= 3 && i < 9 ? { kind: 'status', status: 503 } : undefined) }]);
    const executor = executorOver([a!.baseURL, b!.baseURL], { cooldownMs: 20 });
    // Its six failures trip it, and each failed trial call doubles the cool-down (20, 40, 80,
    // 160 ms): how many batches that takes depends on the machine's speed, so run batches until
    // it is back (bounded), then check it takes its share of the next one.
    let calls = 0;
    for (let round = 0; round < 40; round++) {
      await Promise.all(prompts(60, `y${round}`).map((prompt) => executor.complete({ prompt, maxTokens: 4 })));
      calls += 60;
      await new Promise((r) => setTimeout(r, 30));
      if (executor.endpointStats()[1]!.trips >= 1 && executor.endpointStats()[1]!.state === 'closed') break;
    }
    const [, before] = executor.endpointStats();
    assert.ok(before!.trips >= 1, 'the failing replica was taken out');
    assert.equal(before!.state, 'closed', 'back in service');
    await Promise.all(prompts(60, 'after').map((prompt) => executor.complete({ prompt, maxTokens: 4 })));
    calls += 60;
    const [sa, sb] = executor.endpointStats();
    // Two replicas of equal speed: about half each; a third is plenty to show it is back.
    assert.ok(sb!.served - before!.served >= 20, `served ${sb!.served - before!.served} of 60 after recovering`);
    assert.equal(sa!.served + sb!.served, calls);
  });

  it('least outstanding requests: a slow replica gets fewer calls than fast ones', async () => {
    // Slow enough that the difference holds on a loaded machine.
    const [fast1, fast2, slow] = await replicas([{ delayMs: 1 }, { delayMs: 1 }, { delayMs: 300 }]);
    const executor = executorOver([fast1!.baseURL, fast2!.baseURL, slow!.baseURL]);
    await Promise.all(prompts(150, 'z').map((prompt) => executor.complete({ prompt, maxTokens: 4 })));
    const [s1, s2, s3] = executor.endpointStats();
    assert.ok(s3!.served < s1!.served / 2 && s3!.served < s2!.served / 2, JSON.stringify(executor.endpointStats()));
  });

  it('the last replica in service is never taken out', () => {
    const pool = new EndpointPool(['http://a/v1'], 2, { failureThreshold: 1, cooldownMs: 60_000 });
    return pool.acquire().then((e) => {
      pool.release(e, 'error');
      assert.equal(pool.stats()[0]!.state, 'closed');
      assert.equal(pool.stats()[0]!.trips, 0);
    });
  });
});
