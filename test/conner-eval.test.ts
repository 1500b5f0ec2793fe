/**
 * `llmkb eval --method conner`: CONNER end to end through the generic runner, like the
 * reliability method. A scripted generator, the GGUF test model as answerer and reference LM,
 * scripted NLI, relevance and coherence on loopback TEI servers, every role from the config. The
 * run writes the paper's metrics with their protocol, resumes without a call, samples `--limit`
 * as `conner generate --limit` does, and refuses what it cannot run before any model loads.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { llmkb } from './support/run-cli.js';
import { startScorerServer, type ScorerServer } from './support/scorer-server.js';
import { tempDir } from './support/temp-dir.js';

const gguf = process.env.LLMKB_TEST_GGUF;
const dataDir = process.env.LLMKB_DATA_DIR;
const skip = !gguf || !dataDir ? 'needs LLMKB_TEST_GGUF and LLMKB_DATA_DIR' : false;

interface Summary {
  method: { id: string };
  model: string;
  setting: string;
  counts: Record<string, number>;
  metrics: Record<string, number | null>;
  protocol: { entries: Record<string, { choice: string; status: string }> };
  breakdowns: { task: string; answerers: string[] };
}

describe('llmkb eval --method conner', { skip }, () => {
  let servers: ScorerServer[];
  let dir: string;
  let nq: string;
  before(async () => {
    servers = await Promise.all((['nli', 'relevance', 'coherence'] as const).map((serves) => startScorerServer({ serves })));
    const [nli, relevance, coherence] = servers;
    dir = tempDir('llmkb-conner-eval-');
    nq = join(dataDir!, 'conner', 'nq_test_random_testset.txt');
    writeFileSync(join(dir, 'gen.jsonl'), `${JSON.stringify({ default: true, reply: ' The river is long. It flows to the sea.\nTopic: next' })}\n`);
    writeFileSync(
      join(dir, 'llmkb.config.json'),
      JSON.stringify({
        model: 'mock:gen.jsonl',
        answerer: `gguf:${gguf}`,
        scorer: `gguf:${gguf}`,
        nli: { spec: `tei:${nli!.url}/cross-encoder/nli-deberta-v3-base`, task: 'nli' },
        relevance: `tei:${relevance!.url}/cross-encoder/ms-marco-MiniLM-L-6-v2`,
        coherence: { spec: `tei:${coherence!.url}/coherence-scorer`, task: 'coherence' },
      }),
    );
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('refuses a run it cannot make with the option named, before any model loads', async () => {
    const none = await llmkb(['eval', '--method', 'conner', '--settings', 'zero-shot'], { cwd: dir });
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /method "conner" needs option "input" \(--input on the command line\)/);
    const foreign = await llmkb(['eval', '--method', 'conner', '--input', nq, '--mcqs', '3'], { cwd: dir });
    assert.equal(foreign.code, 2);
    assert.match(foreign.stderr, /method "conner" has no --mcqs/);
    const prompt = await llmkb(['eval', '--method', 'conner', '--input', nq, '--prompt', '5'], { cwd: dir });
    assert.equal(prompt.code, 2);
    assert.match(prompt.stderr, /option "prompt" must be a whole number from 1 to 4 \(got 5\)/);
    for (const r of [none, foreign, prompt]) assert.doesNotMatch(r.stderr, /in-process on|at .*\.js:\d+/, 'no model loaded, no stack trace');
  });

  it("scores knowledge on the paper's metrics, its protocol recorded, and resumes without a call", { timeout: 1_800_000 }, async () => {
    const args = [
      'eval',
      '--method',
      'conner',
      '--name',
      'scripted',
      '--input',
      nq,
      '--settings',
      'zero-shot',
      '--limit',
      '4',
      '--negatives',
      '2',
      '--answer-shots',
      '1',
      '--out',
      'res',
    ];
    const first = await llmkb(args, { cwd: dir });
    assert.equal(first.code, 0, first.stderr);
    assert.match(
      first.stdout,
      /Model +Setting +n +Fact-cons\. +Non-verif\. .* +Helpful\. raw +Validity +S_fact\n/,
      "the paper's table in the terminal (Fact-cons. is Table 16's Fact.)",
    );
    assert.match(first.stdout, /Protocol \(each choice and what it means/);
    const files = readdirSync(join(dir, 'res')).sort();
    assert.deepEqual(files, [
      'scripted.limit-4.report.html',
      'scripted.zero-shot.limit-4.records.jsonl',
      'scripted.zero-shot.limit-4.run.json',
      'scripted.zero-shot.limit-4.summary.json',
    ]);
    const summary = JSON.parse(readFileSync(join(dir, 'res', 'scripted.zero-shot.limit-4.summary.json'), 'utf8')) as Summary;
    assert.deepEqual(
      [summary.method.id, summary.model, summary.setting, summary.counts.items, summary.breakdowns.task],
      ['conner', 'scripted', 'zero-shot', 4, 'qa'],
    );
    for (const m of [
      'factuality',
      'fact_consistent',
      'relevance',
      'coherence_sentence',
      'coherence_paragraph',
      'informativeness',
      'helpfulness',
      'helpfulness_raw',
      'validity',
    ]) {
      assert.equal(typeof summary.metrics[m], 'number', `${m} scored`);
      assert.equal(summary.counts[m], 4, `${m} over every query`);
    }
    const entry = (id: string) => [summary.protocol.entries[id]?.status, summary.protocol.entries[id]?.choice];
    assert.deepEqual(entry('answerer'), ['approximation', `llama:${gguf}`], "one fixed answerer, not the generator; a stand-in for the paper's LLaMA-65B");
    assert.deepEqual(
      entry('coherence-model'),
      ['approximation', 'tei:coherence-scorer'],
      "a stand-in for the paper's Coherence-Momentum, from the eval run's own parameters",
    );
    assert.deepEqual(entry('coherence-paragraph'), ['approximation', 'classifier score, sigmoid per item']);
    assert.deepEqual(entry('limit'), ['approximation', 'sample of 4']);
    assert.deepEqual(summary.breakdowns.answerers, [`llama:${gguf}`]);

    // The same four queries `conner generate --limit 4` reads.
    const records = readFileSync(join(dir, 'res', 'scripted.zero-shot.limit-4.records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; answerer: string });
    const gen = await llmkb(['conner', 'generate', nq, '--limit', '4', '--answer-shots', '1', '-o', 'k.jsonl'], { cwd: dir });
    assert.equal(gen.code, 0, gen.stderr);
    const generated = readFileSync(join(dir, 'k.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    assert.deepEqual(
      records.map((r) => r.id),
      generated,
    );

    const report = readFileSync(join(dir, 'res', 'scripted.limit-4.report.html'), 'utf8');
    assert.match(report, /CONNER: automatic evaluation, open-domain QA/);

    const again = await llmkb(args, { cwd: dir });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /model calls: 0 \(0 made, 0 from the cache\)/, 'a finished run is read back from the store');
    assert.equal(
      readFileSync(join(dir, 'res', 'scripted.zero-shot.limit-4.summary.json'), 'utf8'),
      JSON.stringify(summary, null, 2) + '\n',
      'the same summary, byte for byte',
    );
  });
});
