/**
 * A study of the CONNER method through `llmkb sweep`, as a reliability study runs: `--batch`
 * sends the answerer's calls (the method marks the role batchable) through the Batch API, with
 * the answer prompts' token budget and stop strings as they are, while the answerer's scoring
 * calls (helpfulness's answer losses) stay live; a rerun without --batch finds every answer in
 * the cache. Run as two shards and merged, the study gives byte for byte what one machine gives.
 * Scripted generators and answerer (`mock:`), scripted relevance on a loopback TEI server.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startBatchServer, type BatchServer } from './support/batch-server.js';
import { llmkb } from './support/run-cli.js';
import { startScorerServer, type ScorerServer } from './support/scorer-server.js';
import { tempDir } from './support/temp-dir.js';

const dataDir = process.env.LLMKB_DATA_DIR;
const skip = dataDir ? false : 'needs LLMKB_DATA_DIR';

/** Every file under a folder, by its path relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
}

/** A report without the rows that say when and how a run ran (times, command line, calls made). */
function withoutExecution(html: string): string {
  return html.replace(/<tr><th scope="row">(command|ran|calls: [^<]*)<\/th>.*?<\/tr>/g, '');
}

describe('a CONNER study through sweep: --batch, shards and merge', { skip }, () => {
  let relevance: ScorerServer;
  let answerer: BatchServer;
  let dir: string;
  /** A study of two scripted generators on three NQ queries, one setting; `roles`: YAML lines of the answerer and the scorers. */
  const study = (name: string, roles: string[]): string => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(
      file,
      [
        `name: ${name}`,
        'models:',
        // One call at a time: its queries still wait for the answerer in the same batches.
        '  - { label: plain, spec: "mock:plain.jsonl", params: 1, concurrency: 1 }',
        '  - { label: wordy, spec: "mock:wordy.jsonl", params: 7 }',
        'methods:',
        `  - { id: conner, settings: [zero-shot], options: { input: "${join(dataDir!, 'conner', 'nq_test_random_testset.txt')}" } }`,
        `relevance: "tei:${relevance.url}/cross-encoder/ms-marco-MiniLM-L-6-v2"`,
        ...roles,
        'limit: 3',
        'answerShots: 1',
        'answerMaxTokens: 9',
        'negatives: 1',
        '',
      ].join('\n'),
    );
    return file;
  };
  before(async () => {
    relevance = await startScorerServer({ serves: 'relevance' });
    answerer = await startBatchServer({ reply: (body) => (/Passage:\n[^\n]*\n[^\n]*:$/.test(String(body.prompt)) ? ' Lyon' : ' Paris') });
    dir = tempDir('llmkb-conner-sweep-');
    writeFileSync(join(dir, 'plain.jsonl'), `${JSON.stringify({ default: true, reply: ' The river is long. It flows to the sea.' })}\n`);
    writeFileSync(
      join(dir, 'wordy.jsonl'),
      `${JSON.stringify({ default: true, reply: ' Paris is the capital of France. The Seine flows through it. It is large.' })}\n`,
    );
    writeFileSync(join(dir, 'answers.jsonl'), `${JSON.stringify({ default: true, reply: ' Paris' })}\n`);
  });
  after(async () => {
    await relevance?.close();
    await answerer?.close();
  });

  it("--batch: the answerer's calls go through the Batch API as they are; a rerun without --batch makes no answerer request", {
    timeout: 300_000,
  }, async () => {
    const file = study('batched', [`answerer: { spec: "vllm:${answerer.baseURL}/answerer", price: { input: 2, output: 8 } }`]);
    const args = ['--store', 'batched.sqlite', 'sweep', file, '--out', 'batched-out'];
    // Long enough a gathering that every answer a query can ask at once is in the same batch.
    const env = { LLMKB_BATCH_POLL_MS: '5', LLMKB_BATCH_GATHER_MS: '500' };
    const batched = await llmkb([...args, '--batch'], { cwd: dir, env });
    assert.equal(batched.code, 0, batched.stderr);
    assert.match(batched.stdout, /batch batch_0 \(answerer\): \d+ requests, completed/);
    // Per query, the answer with each generator's knowledge, and one without any (the same prompt for both): 9 requests over the batches.
    const lines = [...answerer.files.values()]
      .filter((f) => f.purpose === 'batch')
      .flatMap((f) =>
        f.content
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { url: string; body: { max_tokens: number; stop?: string[]; temperature: number; prompt: string } }),
      );
    assert.equal(lines.length, 9);
    for (const l of lines) {
      assert.equal(l.url, '/v1/completions');
      assert.deepEqual([l.body.max_tokens, l.body.stop, l.body.temperature], [9, ['\n'], 0], "the answer prompt's budget and stop strings, greedy");
    }
    // Helpfulness's answer losses are the answerer's own, scored live (no batch carries them).
    assert.ok(answerer.echoed.length > 0, 'the answerer scored prompts live');
    const records = readFileSync(join(dir, 'batched-out', 'wordy', 'wordy.zero-shot.limit-3.records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { answer: string; answerWithoutKnowledge: string; scorers: { helpfulness?: string } });
    assert.deepEqual(
      records.map((r) => [r.answer, r.answerWithoutKnowledge]),
      Array(3).fill(['Paris', 'Lyon']),
      'the answers from the batch output',
    );
    assert.ok(
      records.every((r) => r.scorers.helpfulness?.startsWith('openai-compatible:answerer')),
      "helpfulness's answer losses by the answerer",
    );
    const summary = JSON.parse(readFileSync(join(dir, 'batched-out', 'wordy', 'wordy.zero-shot.limit-3.summary.json'), 'utf8')) as {
      metrics: Record<string, number | null>;
    };
    assert.equal(typeof summary.metrics.helpfulness, 'number');
    const record = JSON.parse(readFileSync(join(dir, 'batched-out', 'sweep.json'), 'utf8')) as {
      tokens: Record<string, { requests: number; promptTokens: number; completionTokens: number }>;
      tokensHere: Record<string, { requests: number }>;
      cost: Record<string, { money: number }>;
      batches: Array<{ model: string; requests: number }>;
    };
    assert.ok(record.batches.length > 0 && record.batches.every((b) => b.model === 'answerer'));
    // The answers with knowledge of every query of both runs in one batch, those without in the next:
    // the generator that makes one call at a time does not hold its queries to a batch round trip each.
    assert.deepEqual(
      record.batches.map((b) => b.requests),
      [6, 3],
    );
    assert.ok(record.tokens.answerer!.requests >= 9);

    const plain = await llmkb(args, { cwd: dir });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /answerer: \d+ calls now \(0 made/);
    const again = JSON.parse(readFileSync(join(dir, 'batched-out', 'sweep.json'), 'utf8')) as typeof record;
    assert.equal(again.tokensHere?.answerer?.requests ?? 0, 0);
  });

  it('run as two shards and merged (with --from-store), gives byte for byte the results of one machine', { timeout: 300_000 }, async () => {
    const file = study('sharded', ['answerer: "mock:answers.jsonl"']);
    const single = await llmkb(['--store', 'single.sqlite', 'sweep', file, '--out', 'single'], { cwd: dir });
    assert.equal(single.code, 0, single.stderr);
    for (const i of [1, 2]) {
      const shard = await llmkb(['--store', `shard${i}.sqlite`, 'sweep', file, '--shard', `${i}/2`, '--out', `shard${i}`], { cwd: dir });
      assert.equal(shard.code, 0, shard.stderr);
      assert.match(shard.stdout, /1 of 2 runs done here \(shard \d\/2; 1 on other shards\)/);
    }
    const m = await llmkb(
      ['--store', 'merged.sqlite', 'merge', 'shard1', 'shard2', '--out', 'merged', '--from-store', 'shard1.sqlite', '--from-store', 'shard2.sqlite'],
      { cwd: dir },
    );
    assert.equal(m.code, 0, m.stderr);
    assert.match(m.stdout, /merged 2 runs from 2 folders/);
    const results = files(join(dir, 'single')).filter((f) => !/^sweep.*\.json$/.test(f) && !f.endsWith('.run.json'));
    assert.ok(results.some((f) => f.endsWith('.records.jsonl')) && results.includes('report.html'));
    assert.deepEqual(
      files(join(dir, 'merged')).filter((f) => !f.endsWith('.run.json')),
      results,
    );
    for (const f of results) {
      const a = readFileSync(join(dir, 'single', f), 'utf8');
      const b = readFileSync(join(dir, 'merged', f), 'utf8');
      if (f.endsWith('.html')) assert.equal(withoutExecution(b), withoutExecution(a), f);
      else assert.equal(b, a, f);
    }
    // The merged store holds both runs, finished: the study is done there.
    const plan = await llmkb(['--store', 'merged.sqlite', 'sweep', file, '--plan'], { cwd: dir });
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /runs: 2 done \(cached\), 0 partly done, 0 new/);
  });
});
