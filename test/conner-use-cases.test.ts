/**
 * CONNER's scoring stage and its two use cases over the run store, with the GGUF test model as
 * the scoring model and scripted NLI / relevance classifiers (word overlap, so the expected
 * choices are known): every metric lands in the record with its scorer id, a text too long for
 * the scorer is noted rather than fatal, demonstration selection and best-of choose by Eq. 9,
 * and a second run is read back from the store without a model call.
 */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_CHOICES, EQUATIONS_CHOICES } from '../src/methods/conner/conner-choices.js';
import { ModelExecutor, type ExecutableModel } from '../src/executor/model-executor.js';
import { corpusEvidence, referenceEvidence } from '../src/methods/conner/evidence/evidence-source.js';
import type { GeneratedKnowledge } from '../src/methods/conner/generation/generate-knowledge.js';
import { executorTokenScorer } from '../src/methods/conner/scoring/executor-scorers.js';
import { scoreKnowledge, type ScoreOptions } from '../src/methods/conner/scoring/score-knowledge.js';
import type { PairClassifier, TokenScorer } from '../src/methods/conner/scoring/scorers.js';
import { bestOf } from '../src/methods/conner/use-cases/best-of.js';
import { selectDemonstrations } from '../src/methods/conner/use-cases/select-demos.js';
import { LlamaModel } from '../src/providers/llama/llama-model.js';
import { CallCache } from '../src/store/call-cache.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { ContextOverflowError } from '../src/errors.js';
import { Corpus } from '../src/corpus/index.js';
import { join } from 'node:path';

const gguf = process.env.LLMKB_TEST_GGUF;

const words = (t: string): Set<string> => new Set(t.toLowerCase().match(/[a-z]{3,}/g) ?? []);
const overlap = (a: string, b: string): number => {
  const wa = words(a);
  const wb = [...words(b)];
  return wb.length === 0 ? 0 : wb.filter((w) => wa.has(w)).length / wb.length;
};

/** Scripted classifiers: entailment = share of the hypothesis's words found in the premise; relevance = overlap with the query. */
function scripted(): { nli: PairClassifier; relevance: PairClassifier; calls: () => number } {
  let calls = 0;
  return {
    calls: () => calls,
    nli: {
      id: 'scripted:overlap-nli',
      identity: 'scripted:overlap-nli',
      async classify(task, pairs) {
        calls++;
        assert.equal(task, 'nli');
        return {
          cached: false,
          scores: pairs.map((p) => {
            const e = overlap(p.text, p.textPair);
            return { entailment: e, neutral: (1 - e) * 0.75, contradiction: (1 - e) * 0.25 };
          }),
        };
      },
    },
    relevance: {
      id: 'scripted:overlap-relevance',
      identity: 'scripted:overlap-relevance',
      async classify(task, pairs) {
        calls++;
        assert.equal(task, 'relevance');
        return { cached: false, scores: pairs.map((p) => ({ relevant: overlap(p.textPair, p.text) })) };
      },
    },
  };
}

const item = (id: string, query: string, knowledge: string, extra: Partial<GeneratedKnowledge> = {}): GeneratedKnowledge => ({
  id,
  task: 'qa',
  topic: 'Lily',
  query,
  referenceKnowledge: 'Lily went to the park with her mom. They saw a big tree in the park.',
  goldAnswer: 'the park',
  generator: 'g',
  setting: 'zero-shot',
  knowledgeDemos: [],
  knowledge,
  answerDemos: [],
  answerWithKnowledge: 'the park',
  ...extra,
});

describe('conner scoring and use cases (GGUF scorer, scripted classifiers)', { skip: gguf ? false : 'LLMKB_TEST_GGUF is not set' }, () => {
  let provider: LlamaModel;
  let scorer: TokenScorer;
  before(async () => {
    provider = await LlamaModel.load({ model: gguf!, modelsDir: tmpdir(), sequences: 1, threads: 1 });
  });
  after(async () => {
    await provider.close();
  });
  const setup = (): { runs: RunStore; base: Omit<ScoreOptions, 'items'>; calls: () => number } => {
    const db = openDatabase(':memory:');
    scorer = executorTokenScorer(new ModelExecutor(provider, { cache: new CallCache(db) }) as unknown as ModelExecutor<ExecutableModel>);
    const s = scripted();
    const runs = new RunStore(db);
    return {
      runs,
      calls: s.calls,
      base: {
        runs,
        scorer,
        nli: s.nli,
        relevance: s.relevance,
        evidence: referenceEvidence(),
        choices: { ...EQUATIONS_CHOICES, negatives: 2 },
        seed: 1,
        progress: { quiet: true },
      },
    };
  };

  it('scores every metric with its scorer id; a second run reads the store', async () => {
    const { base, calls } = setup();
    const items = [
      item('a', 'where did Lily go', 'Lily went to the park. They saw a big tree.'),
      item('b', 'where did Lily go', 'The cat sat on the mat. It was a sunny day.'),
      item('c', 'where did Lily go', 'Tom had a red ball.'),
    ];
    const [a, b] = await scoreKnowledge({ ...base, items });
    assert.ok(a && b);
    assert.equal(a.scores.factualityLabel, 'factual-consistent');
    assert.ok(a.scores.factuality! > b.scores.factuality!);
    assert.equal(a.sentences.length, 2);
    assert.equal(a.sentences[0]!.evidence?.source, 'reference');
    assert.ok(a.scores.relevance! > b.scores.relevance!);
    assert.equal(a.scores.validity, 1, 'the answer equals the gold answer: (q, a) is entailed by (q, a*)');
    for (const m of ['coherenceSentence', 'coherenceParagraph', 'informativeness'] as const) assert.ok(a.scores[m]! > 0 && a.scores[m]! < 1);
    assert.equal(a.helpfulness?.negatives.length, 2);
    assert.ok(!a.helpfulness!.negatives.includes('a'));
    assert.match(a.scorers.factuality!, /scripted:overlap-nli; evidence reference; min over sentences/);
    assert.match(a.scorers.coherence_paragraph!, /no discourse-coherence model/);
    const before = calls();
    const again = await scoreKnowledge({ ...base, items });
    assert.deepEqual(again[0], a);
    assert.equal(calls(), before, 'the finished run made no classifier call');
  });

  it('notes a metric whose text does not fit the scorer, and goes on', async () => {
    const { base } = setup();
    const overflowing: TokenScorer = {
      id: 'tiny-context',
      identity: 'tiny-context',
      logLikelihood: async () => {
        throw new ContextOverflowError('prompt of 9999 tokens does not fit');
      },
    };
    const [r] = await scoreKnowledge({ ...base, scorer: overflowing, items: [item('x', 'where did Lily go', 'Lily went to the park.'), item('y', 'q', 'k.')] });
    assert.equal(r!.scores.informativeness, null);
    assert.equal(r!.scores.factualityLabel, 'factual-consistent');
    assert.ok(r!.notes.some((n) => /^informativeness: not scored/.test(n)));
    assert.ok(r!.notes.some((n) => /^helpfulness: not scored/.test(n)));
  });

  it('select-demos keeps the top n by Q (Eq. 9), seeded', async () => {
    const { base } = setup();
    const pool = ['park', 'tree', 'ball', 'cat', 'boat'].map((w, i) => ({
      id: `d${i}`,
      task: 'qa' as const,
      topic: w,
      query: `what about the ${w}`,
      goldAnswer: w,
      referenceKnowledge: i < 2 ? `The ${w} is big. Lily likes the ${w}.` : `Something unrelated happened once.`,
    }));
    // Relevance only (gamma 0,1,0,0): the knowledge that names the query's word wins.
    const demos = await selectDemonstrations(pool, { ...base, candidates: 5, top: 2, gamma: [0, 1, 0, 0] });
    assert.deepEqual(demos.map((d) => d.id).sort(), ['d0', 'd1']);
    assert.deepEqual(
      demos.map((d) => d.rank),
      [1, 2],
    );
    assert.deepEqual(await selectDemonstrations(pool, { ...base, candidates: 5, top: 2, gamma: [0, 1, 0, 0] }), demos);
  });

  it('best-of keeps per query the candidate with the highest Q; ties go to the first file', async () => {
    const { base } = setup();
    const good = [item('q1', 'where did Lily go', 'Lily went to the park with her mom.'), item('q2', 'what did they see', 'The cat sat on the mat.')];
    const other = [item('q1', 'where did Lily go', 'The boat was on the sea.'), item('q2', 'what did they see', 'They saw a big tree in the park.')];
    // Q needs the four intrinsic metrics only: no helpfulness pass (the gold answer "the park" is never scored).
    const continuations: string[] = [];
    const watching: TokenScorer = { id: scorer.id, identity: scorer.identity, logLikelihood: (c, k) => (continuations.push(k), scorer.logLikelihood(c, k)) };
    const choices = await bestOf([good, other], { ...base, scorer: watching, gamma: [1, 1, 0, 0] });
    assert.ok(continuations.length > 0 && !continuations.includes(' the park'), JSON.stringify(continuations));
    assert.ok(
      choices.every((c) => c.chosen.answerWithKnowledge === 'the park'),
      'the chosen record keeps its answers',
    );
    assert.deepEqual(
      choices.map((c) => c.candidate),
      [0, 1],
    );
    assert.equal(choices[1]!.chosen.knowledge, 'They saw a big tree in the park.');
    assert.equal(choices[0]!.chosen.setting, 'best-of 2 (zero-shot)', 'a summary shows the selection as its own row');
    assert.ok(choices.every((c) => c.qualities.every((q) => q !== null)));
    const tie = await bestOf([good, good.map((g) => ({ ...g }))], { ...base, gamma: [1, 1, 0, 0] });
    assert.deepEqual(
      tie.map((c) => c.candidate),
      [0, 0],
    );
  });

  it('factuality and validity with evidence from a corpus (BM25), the chosen passage recorded', async () => {
    const db = openDatabase(':memory:');
    await Corpus.openOrCreate(db, 'darwin').add([join(import.meta.dirname, '..', 'src', 'corpus', 'fixtures', 'darwin.jsonl')]);
    const s = scripted();
    const evidence = corpusEvidence(db, 'darwin', 3);
    const knowledge = 'The elephant is reckoned to be the slowest breeder of all known animals. Pigeons fly to the moon.';
    const [r] = await scoreKnowledge({
      runs: new RunStore(db),
      nli: s.nli,
      evidence,
      choices: { ...DEFAULT_CHOICES, aggregation: 'mean', negatives: 1 },
      seed: 0,
      progress: { quiet: true },
      items: [
        item('e', 'which animal breeds slowest', knowledge, { task: 'dialogue', answerWithKnowledge: 'the elephant is the slowest breeder' }),
        item('f', 'q', 'k.'),
      ],
    });
    assert.equal(evidence.id, 'corpus:darwin (bm25, top 3)');
    assert.match(r!.sentences[0]!.evidence!.source, /^corpus:darwin\/origin-ch3-elephant#\d+$/);
    assert.ok(r!.sentences[0]!.nli[0] > 0.9, 'the first sentence is found nearly word for word');
    assert.ok(r!.sentences[1]!.nli[0] < 0.5);
    assert.ok(Math.abs(r!.scores.factuality! - (r!.sentences[0]!.nli[0] + r!.sentences[1]!.nli[0]) / 2) < 1e-12, 'mean over sentences');
    assert.match(r!.validityEvidence!.source, /^corpus:darwin\/origin-ch3-elephant/, 'open answers: validity from evidence retrieved for the answer (Eq. 8)');
    assert.equal(r!.scores.relevance, null, 'no relevance model: not scored');
  });
});
