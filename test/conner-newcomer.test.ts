/**
 * CONNER's commands as a newcomer meets them, with the 1 MB test model: `generate --limit 3` then
 * `score` records the sample of 3 in the protocol; NLI and relevance prompted from the test model
 * through the config's label words score all six perspectives; `--pageviews` gives compare the
 * long-tail table (Fig. 2a); `best-of --answerer` equal to `-m` is not "no answerer";
 * `select-demos` says which of Q's terms rank.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const gguf = process.env.LLMKB_TEST_GGUF;
const dataDir = process.env.LLMKB_DATA_DIR;
const skip = !gguf || !dataDir ? 'set LLMKB_TEST_GGUF and LLMKB_DATA_DIR' : false;

describe('CONNER for a newcomer', { skip }, () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const scratch = (): string => {
    const dir = tempDir('llmkb-conner-new-');
    dirs.push(dir);
    writeFileSync(join(dir, 'gen.jsonl'), `${JSON.stringify({ default: true, reply: ' It is a river in South America. It is long.\nTopic: x' })}\n`);
    writeFileSync(join(dir, 'ans.jsonl'), `${JSON.stringify({ default: true, reply: ' a river' })}\n`);
    return dir;
  };
  const nq = (): string => join(dataDir!, 'conner', 'nq_test_random_testset.txt');

  it('generate --limit 3, then score: the protocol says a sample of 3; label words make the test model an NLI and relevance scorer, so all six perspectives are scored; --pageviews gives Fig. 2a', {
    timeout: 300_000,
  }, async () => {
    const dir = scratch();
    writeFileSync(
      join(dir, 'llmkb.config.json'),
      JSON.stringify({
        nli: { spec: `llm-nli:gguf:${gguf}`, labelWords: { entailment: ['Yes', 'The'], neutral: ['Maybe', 'He'], contradiction: ['No', 'She'] } },
        relevance: { spec: `llm-relevance:gguf:${gguf}`, labelWords: { relevant: ['Yes', 'The'], irrelevant: ['No', 'She'] } },
      }),
    );
    const gen = await llmkb(
      ['conner', 'generate', nq(), '--limit', '3', '--answer-shots', '1', '-m', 'mock:gen.jsonl', '--answerer', 'mock:ans.jsonl', '-o', 'k.jsonl'],
      { cwd: dir },
    );
    assert.equal(gen.code, 0, gen.stderr);
    const topics = readFileSync(join(dir, 'k.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { topic: string; limit?: unknown });
    assert.ok(
      topics.every((k) => JSON.stringify(k.limit) === '{"n":3,"seed":42}'),
      'each knowledge record says which sample it covers',
    );
    writeFileSync(join(dir, 'views.txt'), `${topics[0]!.topic}\t5075804\n${topics[1]!.topic}\t9000\n`);
    const score = await llmkb(
      [
        'conner',
        'score',
        'k.jsonl',
        '--scorer',
        `gguf:${gguf}`,
        '--answerer',
        `gguf:${gguf}`,
        '--negatives',
        '2',
        '--resamples',
        '20',
        '--pageviews',
        'views.txt',
        '--out',
        'res',
      ],
      { cwd: dir },
    );
    assert.equal(score.code, 0, score.stderr);
    assert.match(score.stderr, /1 of 3 knowledge texts have a topic without pageviews/);
    const file = readdirSync(join(dir, 'res')).find((f) => f.endsWith('.summary.json'))!;
    const summary = JSON.parse(readFileSync(join(dir, 'res', file), 'utf8')) as {
      metrics: Record<string, number | null>;
      protocol: { entries: Record<string, { choice: string; status: string; note: string }> };
    };
    assert.deepEqual([summary.protocol.entries.limit!.choice, summary.protocol.entries.limit!.status], ['sample of 3', 'approximation']);
    assert.match(summary.protocol.entries.limit!.note, /at most 3 queries/);
    for (const m of ['factuality', 'fact_consistent', 'relevance', 'coherence_sentence', 'coherence_paragraph', 'informativeness', 'helpfulness', 'validity'])
      assert.equal(typeof summary.metrics[m], 'number', `${m} is scored`);
    const cmp = await llmkb(['compare', join('res', file), '--resamples', '20'], { cwd: dir });
    assert.equal(cmp.code, 0, cmp.stderr);
    assert.match(cmp.stdout, /### Factuality by the pageviews of the topic \(Fig\. 2a\), open-domain QA/);
    assert.match(cmp.stdout, /\| mock:gen\.jsonl \(zero-shot\) \| 10\^3-10\^4 \| 1 \|/);
    assert.match(cmp.stdout, /\| mock:gen\.jsonl \(zero-shot\) \| 10\^6-10\^7 \| 1 \|/);
    assert.match(cmp.stdout, /1 items had no pageviews for their topic/);
  });

  it('best-of with --answerer equal to -m: the answerer is the generator, not "no answerer"; select-demos says which of Q\'s 4 terms rank', {
    timeout: 300_000,
  }, async () => {
    const dir = scratch();
    const best = await llmkb(
      [
        'conner',
        'best-of',
        nq(),
        '--limit',
        '2',
        '--samples',
        '2',
        '--answer-shots',
        '1',
        '-m',
        'mock:gen.jsonl',
        '--answerer',
        'mock:gen.jsonl',
        '--scorer',
        `gguf:${gguf}`,
        '-o',
        'best.jsonl',
      ],
      { cwd: dir },
    );
    assert.equal(best.code, 0, best.stderr);
    assert.doesNotMatch(best.stderr, /no answerer/);
    assert.match(best.stderr, /the answerer is the generator itself \(mock:gen\.jsonl\)/);
    const bare = await llmkb(
      [
        'conner',
        'best-of',
        nq(),
        '--limit',
        '2',
        '--samples',
        '2',
        '--answer-shots',
        '1',
        '-m',
        'mock:gen.jsonl',
        '--scorer',
        `gguf:${gguf}`,
        '-o',
        'best2.jsonl',
      ],
      { cwd: dir },
    );
    assert.equal(bare.code, 0, bare.stderr);
    assert.match(bare.stderr, /note: no answerer/);
    const demos = await llmkb(['conner', 'select-demos', nq(), '--candidates', '3', '--top', '2', '--scorer', `gguf:${gguf}`], { cwd: dir });
    assert.equal(demos.code, 0, demos.stderr);
    assert.match(
      demos.stdout,
      /Q ranks by 2 of its 4 terms \(coherence_paragraph, informativeness\); not scored, so 0 for every candidate: factuality, relevance/,
    );
  });
});
