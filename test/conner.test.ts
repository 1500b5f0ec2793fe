/**
 * CONNER end to end through the built CLI, as a user runs it: `conner generate` over 50 rows of
 * each of CONNER's three test files with a scripted text model on a loopback server speaking the
 * OpenAI API, then `conner score` with the GGUF test model as the scoring model and loopback TEI
 * servers as the NLI and relevance models, killed with
 * SIGKILL half-way and run again: it resumes (nothing done twice), and its per-item scores and
 * summary are byte-identical to an uninterrupted run in a fresh store.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadSummary } from '../src/methods/load-summary.js';
import { openDatabase } from '../src/store/database.js';
import { startOpenAICompatibleServer, type TestServer } from './support/openai-compatible-server.js';
import { startScorerServer, type ScorerServer } from './support/scorer-server.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const gguf = process.env.LLMKB_TEST_GGUF;
const dataDir = process.env.LLMKB_DATA_DIR;
const skip = !gguf || !dataDir ? 'needs LLMKB_TEST_GGUF and LLMKB_DATA_DIR' : false;
if (skip) process.stderr.write(`SKIPPED: CONNER end-to-end test ${skip}\n`);

const FILES = ['nq_test_random_testset.txt', 'seen_random_testset.txt', 'unseen_random_testset.txt'];
const BIN = join(import.meta.dirname, '..', 'bin', 'llmkb.js');

/**
 * The scripted knowledge generator: knowledge that names the prompt's last topic; a short answer.
 * A sampled request (`seed`, `top_p`) gets one of three texts chosen by its seed, as a sampling
 * server that honours seeds would.
 */
function script(prompt: string, body: Record<string, unknown> = {}): string {
  const topics = [...prompt.matchAll(/^Topic: (.*)$/gm)];
  const topic = topics[topics.length - 1]?.[1] ?? 'it';
  if (/(Wikipedia|knowledge):$/.test(prompt) && typeof body.seed === 'number') {
    const variants = [
      ` ${topic} is a subject with a long history.`,
      ` Many people know about ${topic}. It is often discussed in books.`,
      ` The weather was fine. A dog barked at the moon all night long.`,
    ];
    return `${variants[body.seed % 3]}\nTopic: next example`;
  }
  if (/(Wikipedia|knowledge):$/.test(prompt))
    return ` ${topic} is a subject with a long history. Many people know about ${topic}. It is often discussed.\nTopic: next example`;
  return ` ${topic} is the answer.\nTopic: next example`;
}

function scoredRecords(store: string): number {
  if (!existsSync(store)) return 0;
  const db = openDatabase(store);
  try {
    const row = db.prepare("SELECT count(*) AS n FROM run_records WHERE stage = 'score'").get() as { n: number } | undefined;
    return row?.n ?? 0;
  } catch {
    return 0; // tables not created yet
  } finally {
    db.close();
  }
}

describe('conner generate -> score -> summary (loopback text model, GGUF scorer)', { skip }, () => {
  let server: TestServer;
  let nliServer: ScorerServer;
  let rerankServer: ScorerServer;
  before(async () => {
    server = await startOpenAICompatibleServer({ complete: script });
    // TEI servers speaking /predict (an NLI cross-encoder) and /rerank (an ms-marco ranker).
    nliServer = await startScorerServer({ serves: 'nli' });
    rerankServer = await startScorerServer({ serves: 'relevance' });
  });
  after(async () => {
    await server?.close();
    await nliServer?.close();
    await rerankServer?.close();
  });

  function project(): string {
    const dir = tempDir('llmkb-conner-');
    writeFileSync(
      join(dir, 'llmkb.config.json'),
      JSON.stringify({
        model: { spec: `vllm:${server.baseURL}/scripted`, concurrency: 4 },
        scorer: `gguf:${gguf}`,
        nli: { spec: `tei:${nliServer.url}/cross-encoder/nli-deberta-v3-base`, task: 'nli' },
        relevance: `tei:${rerankServer.url}/cross-encoder/ms-marco-MiniLM-L-6-v2`,
      }),
    );
    return dir;
  }

  async function generate(dir: string): Promise<string[]> {
    const outs: string[] = [];
    for (const f of FILES) {
      const out = `k-${f.replace(/_.*$/, '')}.jsonl`;
      const r = await llmkb(['conner', 'generate', join(dataDir!, 'conner', f), '--limit', '50', '-o', out], { cwd: dir });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /generated knowledge for 50 queries \(zero-shot, Table 11 prompt 4; answers by openai-compatible:scripted\)/);
      outs.push(out);
    }
    return outs;
  }

  it('resumes a killed scoring run and gives byte-identical outputs', { timeout: 1_800_000 }, async () => {
    const a = project();
    const b = project();
    const filesA = await generate(a);
    const filesB = await generate(b);
    for (const f of filesA) assert.equal(readFileSync(join(a, f), 'utf8'), readFileSync(join(b, f), 'utf8'), `${f} differs between two generate runs`);
    const first = readFileSync(join(a, filesA[1]!), 'utf8').split('\n')[0]!;
    const rec = JSON.parse(first) as Record<string, unknown>;
    assert.equal(rec.task, 'dialogue');
    assert.match(String(rec.knowledge), /^\S.* is a subject with a long history\. .*discussed\.$/, 'the knowledge is cut at the next "Topic:"');
    assert.equal((rec.answerDemos as string[]).length, 4);

    const scoreArgs = ['conner', 'score', ...filesA, '--equations', '--negatives', '2', '--resamples', '200', '-o', 'scores.jsonl', '--out', 'res'];
    const classifierRequests = (): number => nliServer.requests.length + rerankServer.requests.length;
    const atStart = classifierRequests();
    // Interrupted: SIGKILL once some records are stored.
    const store = join(a, '.llmkb', 'llmkb.sqlite');
    const child = spawn(process.execPath, [BIN, ...scoreArgs], { cwd: a, stdio: 'ignore', env: { ...process.env, CI: '1' } });
    let exited = false;
    child.on('exit', () => (exited = true));
    while (!exited && scoredRecords(store) < 20) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    while (!exited) await new Promise((r) => setTimeout(r, 20));
    const done = scoredRecords(store);
    assert.ok(done >= 20 && done < 150, `${done} records stored when killed`);
    assert.ok(!existsSync(join(a, 'scores.jsonl')), 'no output from the killed run');

    const resumed = await llmkb(scoreArgs, { cwd: a });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /resumed from the store/);
    const paidA = classifierRequests() - atStart;
    const fresh = await llmkb(['conner', 'score', ...filesB, '--equations', '--negatives', '2', '--resamples', '200', '-o', 'scores.jsonl', '--out', 'res'], {
      cwd: b,
    });
    assert.equal(fresh.code, 0, fresh.stderr);
    const paidB = classifierRequests() - atStart - paidA;
    // Only what was in flight at the kill (one item at a time) may be asked twice.
    assert.ok(paidA <= paidB + 4, `interrupted + resumed: ${paidA} classifier requests, uninterrupted: ${paidB}`);
    assert.equal(readFileSync(join(a, 'scores.jsonl'), 'utf8'), readFileSync(join(b, 'scores.jsonl'), 'utf8'));
    const summaryFiles = readdirSync(join(a, 'res')).sort();
    assert.deepEqual(readdirSync(join(b, 'res')).sort(), summaryFiles);
    assert.equal(summaryFiles.length, 2, 'one generator and setting: a summary and its records');
    for (const f of summaryFiles) assert.equal(readFileSync(join(a, 'res', f), 'utf8'), readFileSync(join(b, 'res', f), 'utf8'), `${f} differs`);
    assert.equal(resumed.stdout, fresh.stdout);

    type Scored = {
      id: string;
      task: string;
      scores: Record<string, number | string | null>;
      scorers: Record<string, string>;
      sentences: Array<{ evidence?: { source: string } }>;
      notes: string[];
    };
    const scores = readFileSync(join(a, 'scores.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Scored);
    assert.equal(scores.length, 150);
    assert.deepEqual([...new Set(scores.map((s) => s.task))], ['qa', 'dialogue']);
    const unit = (v: unknown): boolean => typeof v === 'number' && v >= 0 && v <= 1;
    for (const s of scores) {
      for (const m of ['coherenceSentence', 'coherenceParagraph', 'informativeness'])
        assert.ok(unit(s.scores[m]) && s.scores[m] !== 0 && s.scores[m] !== 1, `${s.id} ${m} = ${s.scores[m]}`);
      for (const m of ['factuality', 'relevance', 'helpfulness', 'validity']) assert.ok(unit(s.scores[m]), `${s.id} ${m} = ${s.scores[m]}`);
      assert.ok(['factual-consistent', 'non-verified', 'factual-inconsistent'].includes(String(s.scores.factualityLabel)));
      assert.ok(s.sentences.length >= 3, `${s.id}: ${s.sentences.length} sentences`);
      assert.ok(
        s.sentences.every((x) => /^reference(, sentence \d+)?$/.test(x.evidence?.source ?? '')),
        "the gold passage's sentences and itself are the premises",
      );
      assert.match(s.scorers.informativeness!, /^llama:/);
      assert.match(s.scorers.factuality!, /^nli tei:cross-encoder\/nli-deberta-v3-base; evidence reference; min over sentences$/);
      assert.equal(s.scorers.relevance, 'tei:cross-encoder/ms-marco-MiniLM-L-6-v2');
      assert.deepEqual(s.notes, []);
    }
    const summaryFile = join(a, 'res', summaryFiles.find((f) => f.endsWith('.summary.json'))!);
    const summary = loadSummary(JSON.parse(readFileSync(summaryFile, 'utf8')), summaryFile);
    assert.deepEqual(summary.method, { id: 'conner', version: '2' });
    assert.equal(summary.counts.items, 150);
    for (const d of summary.metricDefs) {
      const m = summary.metrics[d.id]!;
      const ci = summary.intervals[d.id]!;
      assert.ok(m !== null && ci[0] <= m && m <= ci[1], `${d.id}: ${m} ${JSON.stringify(ci)}`);
    }
    const shares = summary.metrics.fact_consistent! + summary.metrics.non_verified! + summary.metrics.fact_inconsistent!;
    assert.ok(Math.abs(shares - 1) < 1e-12, 'the three shares sum to 1');
    assert.equal(summary.protocol!.entries['coherence-paragraph']!.status, 'approximation');
    assert.ok(!Object.keys(summary.protocol!.entries).some((id) => id.startsWith('unscored-')));
    assert.equal(
      readFileSync(summaryFile.replace(/\.summary\.json$/, '.records.jsonl'), 'utf8'),
      readFileSync(join(a, 'scores.jsonl'), 'utf8'),
      'one group: its records are all the scores',
    );
    assert.match(resumed.stdout, /Fact-cons\..*Coh-sent\./);
  });

  it('use cases through the CLI: select-demos feeds few-shot generation; best-of picks among prompt variants', { timeout: 900_000 }, async () => {
    const dir = project();
    const nq = join(dataDir!, 'conner', 'nq_test_random_testset.txt');
    const sel = await llmkb(['conner', 'select-demos', nq, '--candidates', '6', '--top', '3', '--gamma', '0,0,1,1', '--seed', '2', '-o', 'demos.jsonl'], {
      cwd: dir,
    });
    assert.equal(sel.code, 0, sel.stderr);
    const demos = readFileSync(join(dir, 'demos.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; quality: number; rank: number; missing: string[] });
    assert.deepEqual(
      demos.map((d) => d.rank),
      [1, 2, 3],
    );
    assert.ok(demos[0]!.quality >= demos[1]!.quality && demos[1]!.quality >= demos[2]!.quality);
    assert.deepEqual(demos[0]!.missing, []);
    const selSummary = JSON.parse(readFileSync(join(dir, 'conner-demos.json'), 'utf8')) as {
      demonstrations: Array<{ id: string; quality: number }>;
      protocol: Array<{ id: string; kind: string }>;
    };
    assert.deepEqual(
      selSummary.demonstrations.map((d) => d.id),
      demos.map((d) => d.id),
    );
    assert.equal(selSummary.protocol.find((p) => p.id === 'demos-self-evidence')?.kind, 'departure', 'gold knowledge checked against itself is recorded');
    assert.match(sel.stderr, /checks each demonstration's gold knowledge against itself/);
    const few = await llmkb(['conner', 'generate', nq, '--limit', '5', '--setting', 'few-shot', '--demos', 'demos.jsonl', '--fixed-demos', '-o', 'few.jsonl'], {
      cwd: dir,
    });
    assert.equal(few.code, 0, few.stderr);
    const fewRecords = readFileSync(join(dir, 'few.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { knowledgeDemos: string[]; id: string });
    for (const r of fewRecords)
      assert.deepEqual(
        r.knowledgeDemos,
        demos.map((d) => d.id).filter((id) => id !== r.id),
      );
    const p1 = await llmkb(['conner', 'generate', nq, '--limit', '5', '--prompt', '1', '-o', 'p1.jsonl'], { cwd: dir });
    const p4 = await llmkb(['conner', 'generate', nq, '--limit', '5', '-o', 'p4.jsonl'], { cwd: dir });
    assert.equal(p1.code + p4.code, 0, p1.stderr + p4.stderr);
    const best = await llmkb(['conner', 'best-of', '--input', 'p1.jsonl', '--input', 'p4.jsonl', '-o', 'best.jsonl'], { cwd: dir });
    assert.equal(best.code, 0, best.stderr);
    assert.match(best.stdout, /chose knowledge for 5 queries; from each file: \d, \d/);
    const chosen = readFileSync(join(dir, 'best.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { setting: string; bestOf: { candidate: number; qualities: number[] } });
    assert.equal(chosen.length, 5);
    for (const c of chosen) {
      assert.equal(c.setting, 'best-of 2 (zero-shot (Table 11 prompt 1) + zero-shot)');
      assert.equal(c.bestOf.qualities[c.bestOf.candidate], Math.max(...c.bestOf.qualities));
    }
    // Human ratings (Table 17's 0-2 scale) for p4's items: Somers' D per metric in the summary.
    const ids = readFileSync(join(dir, 'p4.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    writeFileSync(
      join(dir, 'ratings.jsonl'),
      ids
        .map((id, i) => JSON.stringify({ id, generator: 'openai-compatible:scripted', setting: 'zero-shot', informativeness: i % 3, coherence: 2 - (i % 3) }))
        .join('\n') + '\n',
    );
    const scored = await llmkb(['conner', 'score', 'best.jsonl', 'p4.jsonl', '--negatives', '2', '--resamples', '50', '--ratings', 'ratings.jsonl'], {
      cwd: dir,
    });
    assert.equal(scored.code, 0, scored.stderr);
    assert.match(scored.stdout, /best-of 2/);
    assert.match(
      scored.stdout,
      /Somers' D with human ratings \(openai-compatible:scripted, zero-shot\):\n  coherence_sentence: D = -?\d\.\d\d \(n 5, p \d\.\d{3}\)/,
    );
    const summaries = readdirSync(join(dir, 'conner-results'))
      .filter((f) => f.endsWith('.summary.json'))
      .map(
        (f) =>
          JSON.parse(readFileSync(join(dir, 'conner-results', f), 'utf8')) as {
            setting: string;
            breakdowns: { humanCorrelation?: Record<string, { n: number; d: number | null }> };
          },
      );
    assert.equal(summaries.length, 2, 'the best-of selection and p4: a run each');
    const p4Run = summaries.find((g) => g.setting === 'zero-shot')!;
    assert.equal(p4Run.breakdowns.humanCorrelation!.informativeness!.n, 5);
    assert.equal(
      summaries.find((g) => g.setting !== 'zero-shot')!.breakdowns.humanCorrelation!.informativeness,
      undefined,
      'ratings are matched by generator, setting and id',
    );
  });

  it('best-of as the paper does it: r top-p draws per query, argmax Q, answered; a re-run is byte-identical', { timeout: 900_000 }, async () => {
    const dir = project();
    const nq = join(dataDir!, 'conner', 'nq_test_random_testset.txt');
    const args = ['conner', 'best-of', nq, '--limit', '4', '--samples', '3', '--answer-shots', '1', '-o', 'best.jsonl', '--summary', 'best-of.json'];
    const atStart = server.requests.length;
    const r = await llmkb(args, { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /chose among 3 top-p draws \(p 0\.9, T 1\) for 4 queries; chosen from each draw: \d, \d, \d; mean Q chosen \d\.\d{3}, per draw/);
    assert.match(r.stdout, /nondeterministic: see the summary/, 'a server may ignore the seed');
    const sent = server.requests.slice(atStart).map((q) => q.body);
    const draws = sent.filter((b) => b.seed !== undefined);
    assert.equal(draws.length, 12, '4 queries x 3 draws');
    assert.ok(draws.every((b) => b.top_p === 0.9 && b.temperature === 1));
    assert.equal(new Set(draws.map((b) => b.seed)).size, 12, 'a seed per query and draw');
    assert.equal(sent.filter((b) => b.seed === undefined).length, 8, 'greedy answers with and without the chosen knowledge only');
    type Chosen = {
      setting: string;
      knowledge: string;
      answerWithKnowledge: string;
      bestOf: { sample: number; qualities: number[]; samples: string[]; seeds: number[] };
    };
    const chosen = readFileSync(join(dir, 'best.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Chosen);
    assert.equal(chosen.length, 4);
    for (const c of chosen) {
      assert.equal(c.setting, 'best-of 3 (top-p 0.9, T 1; zero-shot)');
      assert.equal(c.bestOf.samples.length, 3);
      assert.equal(c.bestOf.qualities[c.bestOf.sample], Math.max(...c.bestOf.qualities));
      assert.equal(c.knowledge, c.bestOf.samples[c.bestOf.sample]);
      assert.match(c.answerWithKnowledge, /is the answer/);
    }
    assert.ok(
      chosen.some((c) => new Set(c.bestOf.samples).size > 1),
      'the draws differ',
    );
    const summary = JSON.parse(readFileSync(join(dir, 'best-of.json'), 'utf8')) as {
      mode: string;
      protocol: Array<{ id: string; kind: string }>;
      meanQuality: { chosen: number; perCandidate: number[] };
    };
    assert.equal(summary.mode, 'samples');
    assert.equal(summary.protocol.find((p) => p.id === 'best-of-seeds')!.kind, 'nondeterministic');
    assert.ok(summary.meanQuality.perCandidate.every((q) => q <= summary.meanQuality.chosen));
    const before = [readFileSync(join(dir, 'best.jsonl'), 'utf8'), readFileSync(join(dir, 'best-of.json'), 'utf8')];
    const sentBefore = server.requests.length;
    const again = await llmkb(args, { cwd: dir });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(server.requests.length, sentBefore, 'the re-run reads the store: no model call');
    assert.deepEqual([readFileSync(join(dir, 'best.jsonl'), 'utf8'), readFileSync(join(dir, 'best-of.json'), 'utf8')], before);
    // The chosen knowledge is scored like any knowledge file (helpfulness and validity of the selection: the paper's Table 8).
    const scored = await llmkb(['conner', 'score', 'best.jsonl', '--negatives', '2', '--resamples', '50'], { cwd: dir });
    assert.equal(scored.code, 0, scored.stderr);
    assert.match(scored.stdout, /best-of 3 \(top-p 0\.9, T 1; zero-shot\)/);
  });

  it('refuses bad input with a named error, file and line, and a hint', async () => {
    const dir = project();
    writeFileSync(join(dir, 'bad.txt'), 'topic\tquery\tknowledge\tanswer\nonly\ttwo\n');
    const r = await llmkb(['conner', 'generate', 'bad.txt'], { cwd: dir });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.txt:2: expected 4 tab-separated fields/);
    assert.match(r.stderr, /hint: /);
    assert.doesNotMatch(r.stderr, /^\s+at /m);
    writeFileSync(join(dir, 'k.jsonl'), '{"id":"1","query":"q"}\n');
    const noKnowledge = await llmkb(['conner', 'score', 'k.jsonl'], { cwd: dir });
    assert.equal(noKnowledge.code, 2);
    assert.match(noKnowledge.stderr, /k\.jsonl:1 \(field "knowledge"\)/);
    writeFileSync(join(dir, 'llmkb.config.json'), '{}');
    writeFileSync(join(dir, 'k.jsonl'), '{"id":"1","query":"q","knowledge":"k"}\n');
    const none = await llmkb(['conner', 'score', 'k.jsonl'], { cwd: dir });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no scorer configured/);
    const gamma = await llmkb(['conner', 'best-of', 'a', '--gamma', '1,2'], { cwd: dir });
    assert.equal(gamma.code, 2);
    assert.match(gamma.stderr, /four numbers/);
    const both = await llmkb(['conner', 'best-of', 'q.txt', '--input', 'a.jsonl'], { cwd: dir });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /either a query file .* or --input files, not both/);
    const topP = await llmkb(['conner', 'best-of', 'q.txt', '--top-p', '1.5'], { cwd: dir });
    assert.equal(topP.code, 2);
    assert.match(topP.stderr, /> 0 and <= 1/);
  });
});
