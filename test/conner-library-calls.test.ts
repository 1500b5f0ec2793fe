/**
 * CONNER's commands as library calls, called directly (no CLI), with scripted NLI and relevance
 * classifiers (word overlap, so the choices are known), scripted mock models and no model file:
 * `generateKnowledgeFile` writes the knowledge with its sample, `scoreToFiles` writes
 * the per-item scores and each generator's summary and records, `selectDemosFromPool` and
 * `bestOfFromFiles` return and write their summary documents.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  bestOfFromFiles,
  DEFAULT_CHOICES,
  demonstrationPool,
  generateKnowledgeFile,
  referenceEvidence,
  scoreToFiles,
  selectDemosFromPool,
  type GeneratedKnowledge,
} from '../src/methods/conner/index.js';
import { ModelExecutor } from '../src/executor/model-executor.js';
import { MockModel } from '../src/providers/mock/mock-model.js';
import type { PairClassifier } from '../src/methods/conner/scoring/scorers.js';
import { LlmkbError } from '../src/errors.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { tempDir } from './support/temp-dir.js';

const words = (t: string): Set<string> => new Set(t.toLowerCase().match(/[a-z]{3,}/g) ?? []);
const overlap = (a: string, b: string): number => {
  const wa = words(a);
  const wb = [...words(b)];
  return wb.length === 0 ? 0 : wb.filter((w) => wa.has(w)).length / wb.length;
};
const nli: PairClassifier = {
  id: 'scripted:overlap-nli',
  identity: 'scripted:overlap-nli',
  classify: async (_task, pairs) => ({
    cached: false,
    scores: pairs.map((p) => ({ entailment: overlap(p.text, p.textPair), neutral: 1 - overlap(p.text, p.textPair), contradiction: 0 })),
  }),
};
const relevance: PairClassifier = {
  id: 'scripted:overlap-relevance',
  identity: 'scripted:overlap-relevance',
  classify: async (_task, pairs) => ({ cached: false, scores: pairs.map((p) => ({ relevant: overlap(p.textPair, p.text) })) }),
};

const item = (id: string, query: string, knowledge: string, generator = 'g'): GeneratedKnowledge => ({
  id,
  task: 'qa',
  topic: 'Lily',
  query,
  referenceKnowledge: 'Lily went to the park with her mom. They saw a big tree in the park.',
  goldAnswer: 'the park',
  generator,
  setting: 'zero-shot',
  knowledgeDemos: [],
  knowledge,
  answerDemos: [],
  answerWithKnowledge: 'the park',
});

function store(): { runs: RunStore; dir: string } {
  const dir = tempDir('llmkb-conner-calls-');
  return { runs: new RunStore(openDatabase(join(dir, 'store.sqlite'))), dir };
}

const scoring = (runs: RunStore) => ({ runs, nli, relevance, evidence: referenceEvidence(), choices: DEFAULT_CHOICES, seed: 1, progress: { quiet: true } });

describe("CONNER's commands as library calls", () => {
  it('generateKnowledgeFile: the knowledge and its answers written as JSONL, the sample in each record', async () => {
    const { runs, dir } = store();
    const generator = new ModelExecutor(
      new MockModel({ replies: () => ({ reply: ' Lily went to the park.' }), identity: 'scripted-generator', modelId: 'gen' }),
      { cache: null },
    );
    const answerer = new ModelExecutor(new MockModel({ replies: () => ({ reply: ' the park' }), identity: 'scripted-answerer', modelId: 'ans' }), {
      cache: null,
    });
    const queries = [
      { id: 'q1', task: 'qa' as const, topic: 'Lily', query: 'where did Lily go', goldAnswer: 'the park', referenceKnowledge: 'Lily went to the park.' },
    ];
    const output = join(dir, 'knowledge.jsonl');
    const r = await generateKnowledgeFile({
      queries,
      generator,
      answerer,
      runs,
      setting: 'zero-shot',
      prompt: 4,
      shots: 0,
      answerShots: 0,
      demoPool: [],
      seed: 1,
      maxTokens: 20,
      answerMaxTokens: 10,
      progress: { quiet: true },
      output,
      limit: { n: 1, seed: 7 },
    });
    assert.deepEqual(r.shotsDropped, { knowledge: 0, answer: 0 });
    const written = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as GeneratedKnowledge);
    assert.deepEqual(written, JSON.parse(JSON.stringify(r.records)));
    assert.equal(written[0]!.knowledge, 'Lily went to the park.');
    assert.deepEqual(written[0]!.limit, { n: 1, seed: 7 });
    assert.equal(written[0]!.answerWithKnowledge, 'the park');
  });

  it('scoreToFiles: writes the scores, and per generator and setting a summary and its records; attaches pageviews and notes the rest', async () => {
    const { runs, dir } = store();
    const files = [
      {
        file: 'a.jsonl',
        sha256: 'a'.repeat(64),
        items: [item('q1', 'where did Lily go', 'Lily went to the park.', 'alpha'), item('q2', 'what did they see', '', 'alpha')],
      },
      { file: 'b.jsonl', sha256: 'b'.repeat(64), items: [item('q1', 'where did Lily go', 'The boat was on the sea.', 'beta')] },
    ];
    const notes: string[] = [];
    const output = join(dir, 'scores.jsonl');
    const out = join(dir, 'results');
    const r = await scoreToFiles(files, {
      runs,
      setup: { nli, relevance, evidence: referenceEvidence(), unscored: ['coherence_sentence', 'informativeness', 'helpfulness'], concurrency: 1 },
      choices: DEFAULT_CHOICES,
      seed: 1,
      resamples: 50,
      output,
      out,
      pageviews: new Map([['Lily', 1234]]),
      pageviewsFile: 'views.txt',
      log: (l) => notes.push(l),
      progress: { quiet: true },
    });
    assert.deepEqual(r.summaries.map((s) => s.model).sort(), ['alpha', 'beta']);
    assert.equal(r.written.length, 2);
    for (const file of r.written) assert.ok(existsSync(file) && file.startsWith(out), file);
    const scores = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; generator: string; pageviews?: number });
    assert.deepEqual(
      scores.map((s) => [s.generator, s.id, s.pageviews]),
      [
        ['alpha', 'q1', 1234],
        ['alpha', 'q2', 1234],
        ['beta', 'q1', 1234],
      ],
    );
    const alpha = r.written.find((f) => f.includes('alpha'))!;
    assert.equal(JSON.parse(readFileSync(alpha, 'utf8')).model, 'alpha');
    assert.equal(
      readFileSync(alpha.replace(/summary\.json$/, 'records.jsonl'), 'utf8')
        .trim()
        .split('\n').length,
      2,
      "alpha's records only",
    );
    assert.deepEqual(notes, [
      'note: 1 of 3 knowledge texts are empty: factuality, relevance, coherence and informativeness are undefined for them (said in their records and the protocol)',
    ]);
  });

  it('selectDemosFromPool: the top n by Q, the summary document returned and written; a pool with no gold is refused', async () => {
    const { runs, dir } = store();
    const pool = ['park', 'tree', 'ball', 'cat'].map((w, i) => ({
      id: `d${i}`,
      task: 'qa' as const,
      topic: w,
      query: `what about the ${w}`,
      ...(i === 3 ? {} : { goldAnswer: w }),
      referenceKnowledge: i < 2 ? `The ${w} is big. Lily likes the ${w}.` : 'Something unrelated happened once.',
    }));
    const write = { output: join(dir, 'demos.jsonl'), summary: join(dir, 'demos.json') };
    const { demonstrations, summary } = await selectDemosFromPool('pool.jsonl', pool, { ...scoring(runs), candidates: 5, top: 2, gamma: [0, 1, 0, 0], write });
    assert.deepEqual(demonstrations.map((d) => d.id).sort(), ['d0', 'd1']);
    assert.equal(summary.schema, 'llmkb-conner-select-demos-v1');
    assert.equal(summary.candidates, 3, 'the pool rows with gold knowledge and answer, fewer than m');
    assert.ok(
      summary.protocol.some((n) => n.id === 'demos-pool' && /^1 pool rows/.test(n.text)),
      'the row without a gold answer is said',
    );
    assert.deepEqual(JSON.parse(readFileSync(write.summary, 'utf8')), JSON.parse(JSON.stringify(summary)));
    assert.deepEqual(
      readFileSync(write.output, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
      demonstrations.map((d) => d.id),
    );
    assert.throws(
      () => demonstrationPool('nogold.jsonl', [{ id: 'x', task: 'qa', topic: 't', query: 'q' }]),
      (e: unknown) => e instanceof LlmkbError && /^nogold\.jsonl: no query has both gold knowledge and a gold answer$/.test(e.message),
    );
  });

  it('bestOfFromFiles: per query the file with the highest Q; the lines and the summary returned and written', async () => {
    const { runs, dir } = store();
    const good = [item('q1', 'where did Lily go', 'Lily went to the park with her mom.'), item('q2', 'what did they see', 'The cat sat on the mat.')];
    const other = [item('q1', 'where did Lily go', 'The boat was on the sea.'), item('q2', 'what did they see', 'They saw a big tree in the park.')];
    const write = { output: join(dir, 'best.jsonl'), summary: join(dir, 'best.json') };
    const r = await bestOfFromFiles(
      [
        { file: 'good.jsonl', items: good },
        { file: 'other.jsonl', items: other },
      ],
      { ...scoring(runs), gamma: [1, 1, 0, 0] },
      { gammaText: '1, 1, 0, 0', write },
    );
    assert.deepEqual(
      r.choices.map((c) => c.candidate),
      [0, 1],
    );
    assert.equal(r.summary.mode, 'files');
    assert.deepEqual(r.summary.chosenFrom, [1, 1]);
    assert.equal(r.summary.queries, 2);
    const lines = readFileSync(write.output, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { knowledge: string; bestOf: { file: string; gamma: string } });
    assert.deepEqual(
      lines.map((l) => [l.bestOf.file, l.bestOf.gamma]),
      [
        ['good.jsonl', '1, 1, 0, 0'],
        ['other.jsonl', '1, 1, 0, 0'],
      ],
      'gamma as written',
    );
    assert.equal(lines[1]!.knowledge, 'They saw a big tree in the park.');
    assert.deepEqual(JSON.parse(readFileSync(write.summary, 'utf8')), JSON.parse(JSON.stringify(r.summary)));
    // Files with other queries are refused before any scoring.
    await assert.rejects(
      bestOfFromFiles(
        [
          { file: 'good.jsonl', items: good },
          { file: 'short.jsonl', items: good.slice(0, 1) },
        ],
        { ...scoring(runs), gamma: [1, 1, 0, 0] },
      ),
      /short\.jsonl.*holds other queries/,
    );
  });
});
