/**
 * CONNER with a real model as the answerer and the scorer ($LLMKB_TEST_GGUF, a 2,048-token
 * context), scripted NLI and relevance on loopback TEI servers, through the built CLI: `conner
 * generate` on CONNER's NQ file with the default four answer demonstrations (whose gold passages
 * overflow that context: they are dropped until the prompt fits, and recorded), then `conner score
 * --out`, whose helpfulness a reader recomputes from the records' losses alone.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startScorerServer, type ScorerServer } from './support/scorer-server.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const gguf = process.env.LLMKB_TEST_GGUF;
const dataDir = process.env.LLMKB_DATA_DIR;
const skip = !gguf || !dataDir ? 'needs LLMKB_TEST_GGUF and LLMKB_DATA_DIR' : false;

interface Scored {
  id: string;
  answerer: string;
  helpfulness: { loss: number; baselineLosses: number[]; negatives: string[] } | null;
}

describe('conner generate -> score with the GGUF test model as answerer and scorer', { skip }, () => {
  let nli: ScorerServer;
  let relevance: ScorerServer;
  before(async () => {
    nli = await startScorerServer({ serves: 'nli' });
    relevance = await startScorerServer({ serves: 'relevance' });
  });
  after(async () => {
    await nli?.close();
    await relevance?.close();
  });

  it("fits the answer demonstrations to the answerer's context; helpfulness is recomputed from the records' losses", { timeout: 1_800_000 }, async () => {
    const dir = tempDir('llmkb-conner-gguf-');
    const nq = join(dataDir!, 'conner', 'nq_test_random_testset.txt');
    // Knowledge that differs per query (the first 40 words of its gold passage, or a line of its own), so
    // L(q,k,a) differs from L(q,k^-,a) and the set's ratio from the mean of per-item ratios.
    const rules = readFileSync(nq, 'utf8')
      .trim()
      .split('\n')
      .map((line, i) => {
        const [, query, passage] = line.split('\t');
        const knowledge = i % 2 === 0 ? passage!.split(/\s+/).slice(0, 40).join(' ') : `Line ${i} says nothing of it.`;
        return JSON.stringify({ contains: `Question: ${query}\n`, reply: ` ${knowledge}\nTopic: next` });
      });
    writeFileSync(
      join(dir, 'gen.jsonl'),
      `${rules.join('\n')}\n${JSON.stringify({ default: true, reply: ' The topic has a long history. Many people know it.\nTopic: next' })}\n`,
    );
    writeFileSync(
      join(dir, 'llmkb.config.json'),
      JSON.stringify({
        model: 'mock:gen.jsonl',
        answerer: `gguf:${gguf}`,
        scorer: `gguf:${gguf}`,
        nli: { spec: `tei:${nli.url}/cross-encoder/nli-deberta-v3-base`, task: 'nli' },
        relevance: `tei:${relevance.url}/cross-encoder/ms-marco-MiniLM-L-6-v2`,
      }),
    );
    const gen = await llmkb(['conner', 'generate', nq, '--limit', '6', '-o', 'k.jsonl'], { cwd: dir });
    assert.equal(gen.code, 0, gen.stderr);
    const knowledge = readFileSync(join(dir, 'k.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { knowledge: string; answerer: string; answerDemos: string[]; answerShotsDropped?: number });
    assert.equal(knowledge.length, 6);
    assert.equal(new Set(knowledge.map((k) => k.knowledge)).size, 6, 'each query its own knowledge');
    assert.ok(knowledge.every((k) => k.answerer === `llama:${gguf}`));
    assert.ok(
      knowledge.every((k) => k.answerDemos.length + (k.answerShotsDropped ?? 0) === 4),
      'four drawn: kept + dropped',
    );
    const fitted = knowledge.filter((k) => (k.answerShotsDropped ?? 0) > 0).length;
    assert.ok(fitted > 0, "NQ's gold passages overflow 2,048 tokens with four demonstrations");
    assert.match(gen.stderr, new RegExp(`demonstrations left out to fit the context: 0 knowledge prompts, ${fitted} answer prompts`));

    const score = await llmkb(['conner', 'score', 'k.jsonl', '--negatives', '2', '--resamples', '50', '--out', 'res'], { cwd: dir });
    assert.equal(score.code, 0, score.stderr);
    const files = readdirSync(join(dir, 'res'));
    const summary = JSON.parse(readFileSync(join(dir, 'res', files.find((f) => f.endsWith('.summary.json'))!), 'utf8')) as {
      metrics: Record<string, number>;
      counts: Record<string, number>;
      protocol: { entries: Record<string, { choice: string; status: string; note: string }> };
    };
    const records = readFileSync(join(dir, 'res', files.find((f) => f.endsWith('.records.jsonl'))!), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Scored);

    // A reader's recomputation, from the records alone: 1 - mean_q L(q,k,a) / mean_q (mean_i L(q,k_i^-,a)).
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    const losses = records.map((r) => r.helpfulness!);
    assert.ok(losses.every((h) => h.baselineLosses.length === 2 && h.negatives.length === 2));
    const raw = 1 - mean(losses.map((h) => h.loss)) / mean(losses.map((h) => mean(h.baselineLosses)));
    // The forms a mistake would give are other numbers here: the mean of per-item values, the ratio swapped.
    const perItem = mean(losses.map((h) => 1 - h.loss / mean(h.baselineLosses)));
    const swapped = 1 - mean(losses.map((h) => mean(h.baselineLosses))) / mean(losses.map((h) => h.loss));
    assert.ok(Math.abs(raw - perItem) > 1e-6 && Math.abs(raw - swapped) > 1e-6, `${raw} ${perItem} ${swapped}`);
    assert.ok(Math.abs(summary.metrics.helpfulness_raw! - raw) < 1e-12, `${summary.metrics.helpfulness_raw} vs ${raw}`);
    assert.ok(Math.abs(summary.metrics.helpfulness! - Math.max(0, raw)) < 1e-12);
    assert.equal(summary.counts.helpfulness, 6);
    // One fixed answerer that scores its own answers, as the paper's LLaMA-65B does; stories260K stands in for it.
    assert.deepEqual([summary.protocol.entries.answerer!.status, summary.protocol.entries.answerer!.choice], ['approximation', `llama:${gguf}`]);
    assert.match(summary.protocol.entries.answerer!.note, /a stand-in for the paper's LLaMA-65B/);
    assert.deepEqual(
      [summary.protocol.entries['helpfulness-scorer']!.status, summary.protocol.entries['helpfulness-scorer']!.choice],
      ['approximation', `llama:${gguf}`],
    );
    assert.match(summary.protocol.entries['helpfulness-scorer']!.note, /the answerer's .* a stand-in for LLaMA-65B/);
    assert.deepEqual([summary.protocol.entries['scorer-model']!.status, summary.protocol.entries['scorer-model']!.choice], ['approximation', `llama:${gguf}`]);
    assert.match(summary.protocol.entries['shots-fitted']!.note, new RegExp(`0 of 6 knowledge prompts and ${fitted} answer prompts had fewer than drawn`));
    assert.equal(summary.protocol.entries.demonstrations!.choice, 'drawn from the scored file', 'the default pool is the input file itself');
  });
});
