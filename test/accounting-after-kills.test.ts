/**
 * What a run's calls cost, counted over every process that worked on it: an `eval` (run.json),
 * a `sweep` (sweep.json) and a sweep of CONNER (its answerer, scorer and classifier roles) killed
 * with SIGKILL several times (before the first save of the counts, in the middle, near the end)
 * and resumed report the calls, requests and tokens per role of an uninterrupted run on a fresh
 * store. A call another run paid for stays a cache hit.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startOpenAICompatibleServer, type TestServer } from './support/openai-compatible-server.js';
import { llmkb } from './support/run-cli.js';
import { startScorerServer } from './support/scorer-server.js';
import { tempDir } from './support/temp-dir.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'llmkb.js');

type Totals = Record<string, { calls: number; cacheHits: number; requests: number; promptTokens: number; completionTokens: number }>;

function qaFile(dir: string, n: number): string {
  const qa = join(dir, 'qa.jsonl');
  writeFileSync(
    qa,
    `${Array.from({ length: n }, (_, i) => JSON.stringify({ id: `q${i}`, dataset: 'seen', source: 'nq', question: `what is the capital number ${i}?`, answers: ['Paris'] })).join('\n')}\n`,
  );
  return qa;
}

/** Starts `args` in a child process and kills it with SIGKILL once the servers have had `after` more requests. */
async function killAfter(args: string[], dir: string, server: TestServer | Array<{ requests: unknown[] }>, after: number): Promise<void> {
  const servers = Array.isArray(server) ? server : [server];
  const requests = () => servers.reduce((n, s) => n + s.requests.length, 0);
  const start = requests();
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: 'ignore', env: { ...process.env, CI: '1' } });
  const exited = new Promise((r) => child.on('exit', r));
  for (let waited = 0; requests() - start < after; waited += 10) {
    assert.ok(waited < 60_000, `only ${requests() - start} requests in 60 s`);
    assert.equal(child.exitCode, null, `the command ended before ${after} requests`);
    await new Promise((r) => setTimeout(r, 10));
  }
  child.kill('SIGKILL');
  await exited;
}

/** Requests to the model (not the health check / identity question). */
const modelRequests = (server: TestServer) => server.requests.filter((r) => r.path !== '/models').length;

function runJson(dir: string): { calls: Totals; callsHere: Totals } {
  const file = readdirSync(dir).find((f) => f.endsWith('.run.json'))!;
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as { calls: Totals; callsHere: Totals };
}

function serverScript() {
  return { complete: (prompt: string) => ` Paris ${prompt.length}\nQUESTION:`, nextToken: () => ({ ' A': 0.6, ' B': 0.4 }), delayMs: 15 };
}

describe('accounting after kill -9 and resume', () => {
  it('eval: run.json counts the calls, requests and tokens of an uninterrupted run after three kills', { timeout: 240_000 }, async () => {
    const dir = tempDir('llmkb-acct-eval-');
    const qa = qaFile(dir, 40);
    const server = await startOpenAICompatibleServer(serverScript());
    try {
      writeFileSync(join(dir, 'llmkb.config.json'), JSON.stringify({ model: { spec: `vllm:${server.baseURL}/m`, concurrency: 2 } }));
      const args = (store: string, out: string) => [
        '--store',
        join(dir, store),
        'eval',
        '--model',
        `vllm:${server.baseURL}/m`,
        '--judge',
        `vllm:${server.baseURL}/judge`,
        '--input',
        qa,
        '--settings',
        'zero-shot',
        '--mcqs',
        '1',
        '--out',
        out,
      ];
      const fresh = await llmkb(args('fresh.sqlite', 'fresh'), { cwd: dir });
      assert.equal(fresh.code, 0, fresh.stderr);
      const uninterrupted = runJson(join(dir, 'fresh')).calls;
      const paidFresh = modelRequests(server);
      assert.equal(uninterrupted.model!.requests + uninterrupted.judge!.requests, paidFresh, 'the uninterrupted run counts every request the server got');

      const before = modelRequests(server);
      // Before the first save of the counts, in the asking, in the consistency stage.
      for (const after of [5, 30, 30]) await killAfter(args('killed.sqlite', 'killed'), dir, server, after);
      const resumed = await llmkb(args('killed.sqlite', 'killed'), { cwd: dir });
      assert.equal(resumed.code, 0, resumed.stderr);
      const totals = runJson(join(dir, 'killed')).calls;
      process.stdout.write(
        `# eval: uninterrupted ${JSON.stringify(uninterrupted)}; after kills ${JSON.stringify(totals)}; server requests ${paidFresh} / ${modelRequests(server) - before}\n`,
      );
      assert.deepEqual(totals, uninterrupted);

      // Another run (another --mcqs) that asks the same questions: those calls are its cache hits, not paid again.
      const other = await llmkb(
        [
          '--store',
          join(dir, 'killed.sqlite'),
          'eval',
          '--model',
          `vllm:${server.baseURL}/m`,
          '--judge',
          `vllm:${server.baseURL}/judge`,
          '--input',
          qa,
          '--settings',
          'zero-shot',
          '--mcqs',
          '2',
          '--out',
          'other',
        ],
        { cwd: dir },
      );
      assert.equal(other.code, 0, other.stderr);
      const otherCalls = runJson(join(dir, 'other')).calls.model!;
      assert.ok(otherCalls.cacheHits >= 40, `the asking's 40 calls are cache hits of the other run: ${JSON.stringify(otherCalls)}`);
      assert.equal(otherCalls.calls - otherCalls.cacheHits, otherCalls.requests, 'only calls not in the cache are requests');
    } finally {
      await server.close();
    }
  });

  it('sweep: sweep.json counts the tokens of an uninterrupted sweep of two models after three kills', { timeout: 240_000 }, async () => {
    const dir = tempDir('llmkb-acct-sweep-');
    const qa = qaFile(dir, 40);
    const server = await startOpenAICompatibleServer(serverScript());
    try {
      writeFileSync(
        join(dir, 'study.yaml'),
        `models:\n  - { label: a, spec: "vllm:${server.baseURL}/m", concurrency: 2 }\n  - { label: b, spec: "vllm:${server.baseURL}/m2", concurrency: 2 }\nsettings: [zero-shot]\ninput: ${JSON.stringify(qa)}\nmcqs: 1\n`,
      );
      const args = (store: string, out: string) => ['--store', join(dir, store), 'sweep', 'study.yaml', '--out', out];
      const fresh = await llmkb(args('fresh.sqlite', 'fresh'), { cwd: dir });
      assert.equal(fresh.code, 0, fresh.stderr);
      const sweepJson = (out: string) => JSON.parse(readFileSync(join(dir, out, 'sweep.json'), 'utf8')) as { tokens: Totals };
      const uninterrupted = sweepJson('fresh').tokens;
      for (const after of [5, 60, 60]) await killAfter(args('killed.sqlite', 'killed'), dir, server, after);
      const resumed = await llmkb(args('killed.sqlite', 'killed'), { cwd: dir });
      assert.equal(resumed.code, 0, resumed.stderr);
      const totals = sweepJson('killed').tokens;
      process.stdout.write(`# sweep: uninterrupted ${JSON.stringify(uninterrupted)}; after kills ${JSON.stringify(totals)}\n`);
      assert.deepEqual(totals, uninterrupted);
    } finally {
      await server.close();
    }
  });

  const gguf = process.env.LLMKB_TEST_GGUF;
  const dataDir = process.env.LLMKB_DATA_DIR;
  it("sweep of CONNER (served generator and answerer, GGUF scorer, TEI NLI and relevance): every role's totals after three kills", {
    skip: gguf && dataDir ? false : 'needs LLMKB_TEST_GGUF and LLMKB_DATA_DIR',
    timeout: 300_000,
  }, async () => {
    const dir = tempDir('llmkb-acct-conner-');
    // Knowledge that names the prompt's last topic; a short answer.
    const script = (prompt: string) => {
      const topics = [...prompt.matchAll(/^Topic: (.*)$/gm)];
      const topic = topics[topics.length - 1]?.[1] ?? 'it';
      return /(Wikipedia|knowledge):$/.test(prompt)
        ? ` ${topic} is a subject with a long history. Many people know about ${topic}.\nTopic: next`
        : ` ${topic} is the answer.\nTopic: next`;
    };
    const server = await startOpenAICompatibleServer({ complete: script, delayMs: 20 });
    const nli = await startScorerServer({ serves: 'nli' });
    const relevance = await startScorerServer({ serves: 'relevance' });
    try {
      writeFileSync(
        join(dir, 'study.yaml'),
        [
          'models:',
          `  - { label: gen, spec: "vllm:${server.baseURL}/gen", concurrency: 2 }`,
          'methods:',
          `  - { id: conner, settings: [zero-shot], options: { input: ${JSON.stringify(join(dataDir!, 'conner', 'nq_test_random_testset.txt'))} } }`,
          `answerer: "vllm:${server.baseURL}/answerer"`,
          `scorer: "gguf:${gguf}"`,
          `nli: { spec: "tei:${nli.url}/cross-encoder/nli-deberta-v3-base", task: nli }`,
          `relevance: "tei:${relevance.url}/cross-encoder/ms-marco-MiniLM-L-6-v2"`,
          'limit: 8',
          'negatives: 2',
          '',
        ].join('\n'),
      );
      const args = (store: string, out: string) => ['--store', join(dir, store), 'sweep', 'study.yaml', '--out', out];
      const fresh = await llmkb(args('fresh.sqlite', 'fresh'), { cwd: dir });
      assert.equal(fresh.code, 0, fresh.stderr);
      const sweepJson = (out: string) => JSON.parse(readFileSync(join(dir, out, 'sweep.json'), 'utf8')) as { tokens: Totals };
      const uninterrupted = sweepJson('fresh').tokens;
      assert.deepEqual(Object.keys(uninterrupted).sort(), ['answerer', 'model', 'nli', 'relevance', 'scorer']);
      for (const after of [5, 12, 12]) await killAfter(args('killed.sqlite', 'killed'), dir, [server, nli, relevance], after);
      const resumed = await llmkb(args('killed.sqlite', 'killed'), { cwd: dir });
      assert.equal(resumed.code, 0, resumed.stderr);
      const totals = sweepJson('killed').tokens;
      process.stdout.write(`# conner sweep: uninterrupted ${JSON.stringify(uninterrupted)}; after kills ${JSON.stringify(totals)}\n`);
      assert.deepEqual(totals, uninterrupted);
    } finally {
      await server.close();
      await nli.close();
      await relevance.close();
    }
  });
});
