/**
 * CONNER's commands as a user meets them, through the built CLI, with loopback servers (an
 * OpenAI-compatible generator and answerer, TEI NLI and relevance): the fixed answerer and what
 * the output says when there is none; demonstrations fitted to the answerer's context; `--limit`
 * as a seeded sample (seed 42 by default); and every bad input refused with its file, line and a
 * hint before any model call, never with a resume that could not help.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { limitItems } from '../src/sampling/limit-items.js';
import { startOpenAICompatibleServer, type TestServer } from './support/openai-compatible-server.js';
import { startScorerServer, type ScorerServer } from './support/scorer-server.js';
import { llmkb, type CliResult } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

/** The answerer's window, in words: a prompt longer than this is vLLM's 400 "maximum context length". */
const WINDOW = 400;
const words = (s: string): number => s.split(/\s+/).filter(Boolean).length;
const isKnowledgePrompt = (p: string): boolean => /(Wikipedia|knowledge):$/.test(p);

/** Ten queries whose gold passages are 120 words long: four of them as demonstrations overflow the window. */
function queries(): string {
  return (
    Array.from({ length: 10 }, (_, i) =>
      JSON.stringify({
        id: `q${i}`,
        task: 'qa',
        topic: `Topic ${i}`,
        query: `what is topic ${i}`,
        referenceKnowledge: Array.from({ length: 120 }, (_, w) => `w${i}x${w}`).join(' '),
        goldAnswer: `answer ${i}`,
      }),
    ).join('\n') + '\n'
  );
}

function refused(r: CliResult, pattern: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, pattern);
  assert.match(r.stderr, /^ {2}hint: \S/m);
  assert.doesNotMatch(r.stderr, /run the same command again|internal error|^\s+at /m);
}

describe('conner commands through the CLI (loopback servers)', () => {
  let generator: TestServer;
  let answerer: TestServer;
  let nli: ScorerServer;
  let relevance: ScorerServer;
  before(async () => {
    generator = await startOpenAICompatibleServer({
      complete: (p) => (isKnowledgePrompt(p) ? ' Generated knowledge here. It has a second sentence.\nTopic: next' : ' generator answer\nTopic'),
    });
    answerer = await startOpenAICompatibleServer({ complete: () => ' the answerer says so\nTopic', contextLimit: (p) => words(p) > WINDOW });
    nli = await startScorerServer({ serves: 'nli' });
    relevance = await startScorerServer({ serves: 'relevance' });
  });
  after(async () => {
    await Promise.all([generator?.close(), answerer?.close(), nli?.close(), relevance?.close()]);
  });

  function project(config: Record<string, unknown> = {}): string {
    const dir = tempDir('llmkb-conner-in-');
    writeFileSync(
      join(dir, 'llmkb.config.json'),
      JSON.stringify({
        model: `vllm:${generator.baseURL}/gen`,
        nli: { spec: `tei:${nli.url}/nli-model`, task: 'nli' },
        relevance: `tei:${relevance.url}/ranker`,
        ...config,
      }),
    );
    writeFileSync(join(dir, 'q.jsonl'), queries());
    return dir;
  }
  const scorerRequests = (): number => nli.requests.length + relevance.requests.length;
  const records = (file: string): Array<Record<string, unknown>> =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('the answerer writes the answers; demonstrations that overflow its context are dropped until the prompt fits, recorded', async () => {
    const dir = project({ answerer: `vllm:${answerer.baseURL}/ans` });
    const atStart = answerer.requests.length;
    const r = await llmkb(['conner', 'generate', 'q.jsonl', '-o', 'k.jsonl'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /no answerer/);
    assert.match(r.stdout, /answers by openai-compatible:ans\)/);
    assert.match(r.stderr, /note: demonstrations left out to fit the context: 0 knowledge prompts, 10 answer prompts/);
    for (const k of records(join(dir, 'k.jsonl'))) {
      assert.equal(k.answerer, 'openai-compatible:ans');
      assert.equal(k.answerWithKnowledge, 'the answerer says so');
      assert.equal(k.knowledge, 'Generated knowledge here. It has a second sentence.');
      const kept = (k.answerDemos as string[]).length;
      // 4 drawn; by hand, one demonstration is 120 + ~10 words: three overflow 400 with the query and the knowledge, two fit.
      assert.deepEqual([kept, k.answerShotsDropped], [2, 2], JSON.stringify(k));
    }
    const sent = answerer.requests.slice(atStart).map((q) => String(q.body.prompt));
    assert.ok(
      sent.every((p) => !isKnowledgePrompt(p)),
      'the answerer only answers',
    );
    assert.ok(!generator.requests.some((q) => !isKnowledgePrompt(String(q.body.prompt))), 'the generator only writes knowledge');
  });

  it('without an answerer the generator answers, said on stderr and recorded as a departure; compare warns when runs used different answerers', async () => {
    const dir = project();
    const own = await llmkb(['conner', 'generate', 'q.jsonl', '--limit', '4', '--answer-shots', '1', '-o', 'own.jsonl'], { cwd: dir });
    assert.equal(own.code, 0, own.stderr);
    assert.match(own.stderr, /note: no answerer: the generator writes the downstream answers itself/);
    assert.ok(records(join(dir, 'own.jsonl')).every((k) => k.answerer === 'openai-compatible:gen' && k.answerWithKnowledge === 'generator answer'));
    const fixed = await llmkb(
      [
        'conner',
        'generate',
        'q.jsonl',
        '--limit',
        '4',
        '--answer-shots',
        '1',
        '--prompt',
        '1',
        '--answerer',
        `vllm:${answerer.baseURL}/ans`,
        '-o',
        'fixed.jsonl',
      ],
      { cwd: dir },
    );
    assert.equal(fixed.code, 0, fixed.stderr);
    const scored = await llmkb(['conner', 'score', 'own.jsonl', 'fixed.jsonl', '--resamples', '20', '--out', 'res'], { cwd: dir });
    assert.equal(scored.code, 0, scored.stderr);
    const summaries = readdirSync(join(dir, 'res'))
      .filter((f) => f.endsWith('.summary.json'))
      .map(
        (f) =>
          JSON.parse(readFileSync(join(dir, 'res', f), 'utf8')) as {
            setting: string;
            protocol: { entries: Record<string, { choice: string; status: string; note: string }> };
          },
      );
    const byAnswerer = Object.fromEntries(summaries.map((s) => [s.setting, s.protocol.entries.answerer!]));
    assert.deepEqual(byAnswerer['zero-shot']!.status, 'approximation');
    assert.equal(byAnswerer['zero-shot']!.choice, 'the generator (openai-compatible:gen)');
    assert.deepEqual(
      [byAnswerer['zero-shot (Table 11 prompt 1)']!.status, byAnswerer['zero-shot (Table 11 prompt 1)']!.choice],
      ['approximation', 'openai-compatible:ans'],
      "one fixed answerer, a stand-in for the paper's LLaMA-65B",
    );
    // An answerer that cannot score prompts (a scripted one) leaves helpfulness to the scorer, said.
    writeFileSync(join(dir, 'ans.jsonl'), `${JSON.stringify({ default: true, reply: ' an answer' })}\n`);
    const unscoring = await llmkb(['conner', 'score', 'fixed.jsonl', '--answerer', 'mock:ans.jsonl', '--resamples', '10', '--out', 'res2'], { cwd: dir });
    assert.equal(unscoring.code, 0, unscoring.stderr);
    assert.match(unscoring.stderr, /note: the answerer mock:ans\.jsonl cannot score prompts: helpfulness's answer losses are the scorer's/);
    const compared = await llmkb(
      ['compare', ...summaries.map((_, i) => join('res', readdirSync(join(dir, 'res')).filter((f) => f.endsWith('.summary.json'))[i]!))],
      { cwd: dir },
    );
    assert.equal(compared.code, 0, compared.stderr);
    assert.match(
      compared.stdout,
      /\*\*Warning:\*\* .*different answerers \(the generator \(openai-compatible:gen\): openai-compatible:gen \(zero-shot\); openai-compatible:ans: openai-compatible:gen \(zero-shot \(Table 11 prompt 1\)\)\)/,
    );
  });

  it('--limit is a seeded sample (seed 42 by default), the same queries in every file', async () => {
    const dir = project();
    const ids = Array.from({ length: 10 }, (_, i) => `q${i}`);
    const r = await llmkb(['conner', 'generate', 'q.jsonl', '--limit', '4', '--answer-shots', '0', '-o', 'k.jsonl'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /--limit 4: 4 of 10 queries \(a seeded sample, seed 42; a run of its own\)/);
    const sample = limitItems([...ids].sort(), 4, 42);
    assert.notDeepEqual(sample, ids.slice(0, 4), 'not the first four');
    assert.deepEqual(
      records(join(dir, 'k.jsonl')).map((k) => k.id),
      sample,
    );
    // Files over the same queries, in other orders, keep the same ids: their runs still pair.
    writeFileSync(
      join(dir, 'a.jsonl'),
      ids.map((id) => JSON.stringify({ id, query: `query ${id}`, knowledge: `Knowledge of ${id}.`, generator: 'a' })).join('\n') + '\n',
    );
    writeFileSync(
      join(dir, 'b.jsonl'),
      [...ids]
        .reverse()
        .map((id) => JSON.stringify({ id, query: `query ${id}`, knowledge: `Other knowledge of ${id}.`, generator: 'b' }))
        .join('\n') + '\n',
    );
    const s = await llmkb(['conner', 'score', 'a.jsonl', 'b.jsonl', '--limit', '3', '--resamples', '10'], { cwd: dir });
    assert.match(s.stderr, /--limit 3: 3 of 10, 3 of 10 queries/);
    assert.equal(s.code, 0, s.stderr);
    const scored = records(join(dir, 'conner-scores.jsonl'));
    const a = scored
      .filter((x) => x.generator === 'a')
      .map((x) => x.id)
      .sort();
    const b = scored
      .filter((x) => x.generator === 'b')
      .map((x) => x.id)
      .sort();
    assert.equal(a.length, 3);
    assert.deepEqual(a, b);
    assert.match(readFileSync(join(dir, 'conner-results', 'a.given.summary.json'), 'utf8'), /"choice": "sample of 3"/);
    const help = await llmkb(['conner', 'score', '--help'], { cwd: dir });
    assert.match(help.stdout.replace(/\s+/g, ' '), /--seed <n> seed of the helpfulness negatives, the bootstrap and --limit \(default: 42\)/);
  });

  it('a rerun served from the cache counts its cache hits', async () => {
    const dir = project();
    writeFileSync(
      join(dir, 'k.jsonl'),
      ['a', 'b', 'c']
        .map((id) => JSON.stringify({ id, query: `query ${id}`, knowledge: `Knowledge of ${id}. More.`, referenceKnowledge: `Reference of ${id}.` }))
        .join('\n') + '\n',
    );
    const first = await llmkb(['conner', 'score', 'k.jsonl', '--resamples', '10'], { cwd: dir });
    assert.match(first.stderr, /score: 3\/3 .*cache hits 0/);
    const atRerun = scorerRequests();
    const again = await llmkb(['conner', 'score', 'k.jsonl', '--resamples', '10', '--aggregation', 'min'], { cwd: dir });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(scorerRequests(), atRerun, 'every call from the cache');
    assert.match(again.stderr, /score: 3\/3 .*cache hits 3/);
  });

  it("an over-long gold passage never stops the factuality stage: TEI's 413 for a long pair, the premise cut to fit, the claim whole", async () => {
    const short = await startScorerServer({ serves: 'nli', maxTokens: 60 });
    try {
      const dir = project({ nli: { spec: `tei:${short.url}/nli-model`, task: 'nli' } });
      const passage = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
      writeFileSync(
        join(dir, 'k.jsonl'),
        `${JSON.stringify({ id: 'a', query: 'q a', knowledge: 'Word1 and word2 are words.', referenceKnowledge: passage })}\n`,
      );
      const r = await llmkb(['conner', 'score', 'k.jsonl', '--premises', 'passage', '--resamples', '10'], { cwd: dir });
      assert.equal(r.code, 0, r.stderr);
      const [a] = records(join(dir, 'conner-scores.jsonl'));
      // The server's window: words of the pair + 3 <= 60, the claim's 5 words whole: 52 of the passage's words.
      assert.deepEqual((a!.sentences as Array<{ premiseCuts?: unknown }>)[0]!.premiseCuts, [{ pair: 0, keptWords: 52, words: 200 }]);
      assert.deepEqual(a!.notes, ["factuality: 1 premise cut to fit the NLI model's window (52 of 200 words)"]);
      assert.ok(short.requests.some((q) => q.path === '/predict' && JSON.stringify(q.body).includes('Word1 and word2 are words.')));
      assert.ok(
        short.requests.every((q) =>
          (q.body.inputs as string[][]).every(([, h]) => h === undefined || h === 'Word1 and word2 are words.' || h === 'Cats sleep.'),
        ),
        'the claim is never cut',
      );
    } finally {
      await short.close();
    }
  });

  it("an over-long knowledge text never stops the relevance stage: TEI's 413 for a long pair, the knowledge cut to fit, the query whole", async () => {
    const short = await startScorerServer({ serves: 'relevance', maxTokens: 60 });
    try {
      const dir = project({ relevance: `tei:${short.url}/ranker` });
      const knowledge = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
      writeFileSync(join(dir, 'k.jsonl'), `${JSON.stringify({ id: 'a', query: 'what is word one', knowledge, referenceKnowledge: 'Word1 is a word.' })}\n`);
      const r = await llmkb(['conner', 'score', 'k.jsonl', '--resamples', '10', '--out', 'res'], { cwd: dir });
      assert.equal(r.code, 0, r.stderr);
      const [a] = records(join(dir, 'conner-scores.jsonl'));
      // The server's window: words of the pair + 3 <= 60, the query's 4 words whole: 53 of the knowledge's words.
      assert.deepEqual(a!.relevanceCut, { pair: 0, keptWords: 53, words: 200 });
      assert.equal(typeof (a!.scores as { relevance: unknown }).relevance, 'number');
      assert.ok(
        (a!.notes as string[]).includes("relevance: 1 knowledge text cut to fit the relevance model's window (53 of 200 words)"),
        JSON.stringify(a!.notes),
      );
      assert.ok(
        short.requests.filter((q) => q.path === '/rerank' && q.body.query !== 'what do cats do').every((q) => q.body.query === 'what is word one'),
        'the query is never cut (the first is the scorer probe)',
      );
      const summary = readdirSync(join(dir, 'res')).find((f) => f.endsWith('.summary.json'))!;
      assert.match(JSON.parse(readFileSync(join(dir, 'res', summary), 'utf8')).protocol.entries['relevance-window'].note, /1 of 1 items had it cut/);
    } finally {
      await short.close();
    }
  });

  it('empty knowledge is said: on stderr, in the record and in the protocol', async () => {
    const dir = project();
    writeFileSync(
      join(dir, 'k.jsonl'),
      [JSON.stringify({ id: 'a', query: 'q a', knowledge: 'Some knowledge.' }), JSON.stringify({ id: 'b', query: 'q b', knowledge: '  ' })].join('\n') + '\n',
    );
    const r = await llmkb(['conner', 'score', 'k.jsonl', '--resamples', '10'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /note: 1 of 2 knowledge texts are empty/);
    const b = records(join(dir, 'conner-scores.jsonl')).find((x) => x.id === 'b')!;
    assert.deepEqual(b.notes, ['knowledge is empty: factuality, relevance, coherence and informativeness are not scored for it']);
    assert.equal((b.scores as Record<string, unknown>).relevance, null);
    const summary = JSON.parse(readFileSync(join(dir, 'conner-results', 'given.given.summary.json'), 'utf8')) as {
      protocol: { entries: Record<string, { note: string }> };
    };
    assert.match(summary.protocol.entries['empty-knowledge']!.note, /^1 of 2 knowledge texts are empty/);
  });

  describe('bad input is refused before any model call, with file, line and a hint', () => {
    let dir: string;
    before(() => {
      dir = project();
      writeFileSync(
        join(dir, 'a.jsonl'),
        ['x', 'y']
          .map((id) => JSON.stringify({ id, query: `query ${id}`, knowledge: `Knowledge ${id}.`, generator: 'gen-a', setting: 'zero-shot' }))
          .join('\n') + '\n',
      );
      writeFileSync(
        join(dir, 'b.jsonl'),
        ['x', 'z']
          .map((id) => JSON.stringify({ id, query: `query ${id}`, knowledge: `Knowledge ${id}.`, generator: 'gen-b', setting: 'zero-shot' }))
          .join('\n') + '\n',
      );
    });
    const score = (ratings: object[], files = ['a.jsonl']): Promise<CliResult> => {
      writeFileSync(join(dir, 'r.jsonl'), ratings.map((r) => JSON.stringify(r)).join('\n') + '\n');
      return llmkb(['conner', 'score', ...files, '--ratings', 'r.jsonl'], { cwd: dir });
    };

    it('ratings: a value outside 0/1/2; an unknown id; a generator not scored; one that fits several; two of one text', async () => {
      const atStart = scorerRequests();
      refused(
        await score([
          { id: 'x', relevance: 1 },
          { id: 'y', relevance: 3 },
        ]),
        /r\.jsonl:2 \(field "relevance"\): must be 0 \(unacceptable\), 1 \(acceptable\) or 2 \(excellent\)/,
      );
      refused(await score([{ id: 'x', relevance: 1.5 }]), /r\.jsonl:1 \(field "relevance"\): must be 0/);
      refused(
        await score([
          { id: 'x', relevance: 1 },
          { id: 'nope', relevance: 2 },
        ]),
        /r\.jsonl:2 \(field "id"\): no scored knowledge has id "nope"/,
      );
      refused(
        await score([
          { id: 'unknown-1', coherence: 0 },
          { id: 'unknown-2', coherence: 1 },
        ]),
        /r\.jsonl:1 \(field "id"\): no scored knowledge has id "unknown-1"/,
      );
      refused(
        await score([{ id: 'x', generator: 'gen-b', relevance: 1 }]),
        /r\.jsonl:1 \(field "generator"\): "x" is scored for gen-a \(zero-shot\), not for gen-b/,
      );
      refused(
        await score([{ id: 'x', relevance: 1 }], ['a.jsonl', 'b.jsonl']),
        /r\.jsonl:1 \(field "generator"\): "x" is scored for several knowledge texts: gen-a \(zero-shot\), gen-b \(zero-shot\)/,
      );
      refused(
        await score([
          { id: 'x', relevance: 1 },
          { id: 'y', relevance: 2 },
          { id: 'x', generator: 'gen-a', relevance: 0 },
        ]),
        /r\.jsonl:3 \(field "id"\): a second rating of "x" for gen-a \(zero-shot\) \(the first is on line 1\)/,
      );
      assert.equal(scorerRequests(), atStart, 'no scorer was asked');
    });

    it('best-of --input files with other query ids', async () => {
      const atStart = scorerRequests();
      refused(
        await llmkb(['conner', 'best-of', '--input', 'a.jsonl', '--input', 'b.jsonl'], { cwd: dir }),
        /b\.jsonl: holds other queries than a\.jsonl: missing y; not in a\.jsonl: z/,
      );
      assert.equal(scorerRequests(), atStart);
    });

    it('a scorer of the wrong kind or task, before any item', async () => {
      const atStart = scorerRequests();
      refused(
        await llmkb(['conner', 'score', 'a.jsonl', '--nli', `tei:${relevance.url}/ranker`], { cwd: dir }),
        /role "nli" needs a model that does nli, but tei:ranker does relevance/,
      );
      const nliAsRelevance = project({ relevance: { spec: `tei:${nli.url}/nli-model`, task: 'nli' } });
      writeFileSync(join(nliAsRelevance, 'a.jsonl'), readFileSync(join(dir, 'a.jsonl')));
      refused(
        await llmkb(['conner', 'score', 'a.jsonl'], { cwd: nliAsRelevance }),
        /role "relevance" needs a model that does relevance, but tei:nli-model does nli/,
      );
      refused(
        await llmkb(['conner', 'score', 'a.jsonl', '--coherence', `tei:${relevance.url}/ranker`], { cwd: dir }),
        /role "coherence" needs a model that does coherence/,
      );
      refused(await llmkb(['conner', 'score', 'a.jsonl', '--scorer', `tei:${relevance.url}/ranker`], { cwd: dir }), /tei:ranker cannot score tokens/);
      refused(
        await llmkb(['conner', 'score', 'a.jsonl', '--nli', `vllm:${generator.baseURL}/gen`], { cwd: dir }),
        /role "nli" needs a classification model, but openai-compatible:gen is not one/,
      );
      // A scripted model is named by its spec, once: its model id is the whole spec, so the
      // provider's prefix is not put before it again (mock:mock:scripted.jsonl).
      writeFileSync(join(dir, 'scripted.jsonl'), `${JSON.stringify({ default: true, reply: ' text' })}\n`);
      const mockAsNli = await llmkb(['conner', 'score', 'a.jsonl', '--nli', 'mock:scripted.jsonl'], { cwd: dir });
      refused(mockAsNli, /role "nli" needs a classification model, but mock:scripted\.jsonl is not one \(it provides text-generation\)/);
      const mockAsScorer = await llmkb(['conner', 'score', 'a.jsonl', '--scorer', 'mock:scripted.jsonl'], { cwd: dir });
      refused(mockAsScorer, /role "scorer": mock:scripted\.jsonl cannot score tokens/);
      for (const r of [mockAsNli, mockAsScorer]) assert.doesNotMatch(r.stderr, /mock:mock:/);
      assert.equal(scorerRequests(), atStart);
    });

    it('a relevance spec on a server of another kind: its first call fails, before any item, without a resume', async () => {
      const served = await llmkb(['conner', 'score', 'a.jsonl', '--relevance', `tei:${nli.url}/other-model`], { cwd: dir });
      assert.equal(served.code, 3, served.stderr);
      assert.match(served.stderr, /role "relevance" \(tei:other-model\) failed its first call, before any item: .*model is not a re-ranker model/);
      assert.doesNotMatch(served.stderr, /run the same command again|^score: /m);
    });

    it('hints for an empty CONNER query file and for text that is not a string', async () => {
      writeFileSync(join(dir, 'empty.txt'), '\n\n');
      refused(
        await llmkb(['conner', 'generate', 'empty.txt'], { cwd: dir }),
        /empty\.txt: no queries \(the file is empty\)\n {2}hint: Give one of CONNER's test files/,
      );
      writeFileSync(join(dir, 'bad-q.jsonl'), '{"id": "1", "query": 5}\n');
      refused(
        await llmkb(['conner', 'generate', 'bad-q.jsonl'], { cwd: dir }),
        /bad-q\.jsonl:1 \(field "query"\): .*\n {2}hint: One JSON object a line, every text a string: \{"id": "nq:1"/,
      );
      writeFileSync(join(dir, 'bad-k.jsonl'), '{"id": "1", "query": "q", "knowledge": ["not", "text"]}\n');
      refused(
        await llmkb(['conner', 'score', 'bad-k.jsonl'], { cwd: dir }),
        /bad-k\.jsonl:1 \(field "knowledge"\): .*\n {2}hint: One JSON object a line, every text a string: .*"knowledge"/,
      );
    });
  });
});
