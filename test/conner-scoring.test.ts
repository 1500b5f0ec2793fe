/**
 * CONNER's metric arithmetic on scripted scorer outputs: factuality (Eq. 1) per sentence and
 * aggregated with min / mean / max, the shares of Table 2, validity (Eq. 7 and 8), helpfulness
 * (Eq. 6) from losses, Eq. 9's Q, Somers' D on a hand example, and the paper's prompts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CHOICES } from '../src/methods/conner/conner-choices.js';
import { referenceEvidence } from '../src/methods/conner/evidence/evidence-source.js';
import { splitSentences } from '../src/methods/conner/evidence/sentences.js';
import { answerPrompt, fewShotKnowledgePrompt, zeroShotKnowledgePrompt } from '../src/methods/conner/generation/conner-prompts.js';
import { parseConnerTestFile } from '../src/methods/conner/generation/conner-queries.js';
import { aggregateFactuality, factualityLabel, scoreFactuality } from '../src/methods/conner/scoring/factuality.js';
import { helpfulnessFromLosses, sampleNegatives } from '../src/methods/conner/scoring/helpfulness.js';
import type { NliVector, PairClassifier } from '../src/methods/conner/scoring/scorers.js';
import { openValidity, spanValidity } from '../src/methods/conner/scoring/validity.js';
import { estimate, metricValue, summarizeConner } from '../src/methods/conner/summary/conner-summary.js';
import { somersD, somersTest } from '../src/methods/conner/summary/somers-d.js';
import { knowledgeQuality, parseGamma } from '../src/methods/conner/use-cases/knowledge-quality.js';
import { SeededRandom } from '../src/sampling/seeded-random.js';
import type { ScoredKnowledge } from '../src/methods/conner/scoring/score-knowledge.js';

/** An NLI "model" that answers from a script keyed by (premise, hypothesis), and logs each call. */
function scriptedNli(script: Record<string, NliVector>): PairClassifier & { calls: Array<Array<[string, string]>> } {
  const calls: Array<Array<[string, string]>> = [];
  return {
    id: 'scripted:nli',
    identity: 'scripted:nli',
    calls,
    async classify(task, pairs) {
      assert.equal(task, 'nli');
      calls.push(pairs.map((p) => [p.text, p.textPair]));
      return {
        cached: false,
        scores: pairs.map((p) => {
          const v = script[`${p.text} => ${p.textPair}`];
          if (!v) throw new Error(`unscripted pair ${p.text} => ${p.textPair}`);
          return { entailment: v[0], neutral: v[1], contradiction: v[2] };
        }),
      };
    },
  };
}

describe('factuality (Eq. 1)', () => {
  const sentences = ['Paris is in France.', 'It has 90 million people.', 'The Seine flows through it.'];
  const evidence = { 'Paris is in France.': ['E1', 'E2'], 'It has 90 million people.': ['E1', 'E3'], 'The Seine flows through it.': [] as string[] };
  const script: Record<string, NliVector> = {
    'E1 => Paris is in France.': [0.9, 0.08, 0.02],
    'E2 => Paris is in France.': [0.6, 0.3, 0.1],
    'E1 => It has 90 million people.': [0.1, 0.2, 0.7],
    'E3 => It has 90 million people.': [0.3, 0.5, 0.2],
  };
  const evidenceFor = (s: string) => evidence[s as keyof typeof evidence].map((text) => ({ source: 'reference', text }));

  it('keeps per sentence the evidence with the highest entailment; no evidence is non-verified', async () => {
    const nli = scriptedNli(script);
    const r = await scoreFactuality(sentences, evidenceFor, nli, 'min');
    assert.ok(r);
    const f = r.factuality;
    assert.deepEqual(
      f.sentences.map((s) => s.evidence?.text ?? null),
      ['E1', 'E3', null],
    );
    assert.deepEqual(
      f.sentences.map((s) => s.nli),
      [
        [0.9, 0.08, 0.02],
        [0.3, 0.5, 0.2],
        [0, 1, 0],
      ],
    );
    // Premise = evidence, hypothesis = sentence.
    assert.deepEqual(nli.calls[0], [
      ['E1', 'Paris is in France.'],
      ['E2', 'Paris is in France.'],
    ]);
    // min along entailment: the third sentence (entailment 0) with its whole vector.
    assert.deepEqual(f.score, [0, 1, 0]);
    assert.equal(f.label, 'non-verified');
  });

  it('aggregates with min, mean and max along the entailment dimension', () => {
    const v: NliVector[] = [
      [0.9, 0.08, 0.02],
      [0.3, 0.5, 0.2],
      [0.2, 0.1, 0.7],
    ];
    assert.deepEqual(aggregateFactuality(v, 'min'), [0.2, 0.1, 0.7]);
    assert.deepEqual(aggregateFactuality(v, 'max'), [0.9, 0.08, 0.02]);
    const mean = aggregateFactuality(v, 'mean');
    [(0.9 + 0.3 + 0.2) / 3, (0.08 + 0.5 + 0.1) / 3, (0.02 + 0.2 + 0.7) / 3].forEach((x, d) => assert.ok(Math.abs(mean[d]! - x) < 1e-12));
    assert.equal(factualityLabel([0.2, 0.1, 0.7]), 'factual-inconsistent');
    assert.equal(factualityLabel([0.4, 0.4, 0.2]), 'factual-consistent', 'ties go to the first label');
  });

  it('gives no factuality for knowledge with no sentence', async () => {
    assert.equal(await scoreFactuality([], evidenceFor, scriptedNli(script), 'min'), undefined);
  });
});

describe('validity (Eq. 7 and 8)', () => {
  it('span answers: entailment of (q, a) by (q, a*)', async () => {
    const nli = scriptedNli({ 'who wrote x Billy Hill => who wrote x Irving Berlin': [0.05, 0.15, 0.8] });
    const r = await spanValidity('who wrote x', 'Billy Hill', 'Irving Berlin', nli);
    assert.equal(r.validity?.value, 0.05);
    assert.equal(r.validity?.form, 'span');
  });
  it('open answers: the largest entailment over the evidence', async () => {
    const nli = scriptedNli({ 'E1 => They serve tacos.': [0.2, 0.7, 0.1], 'E2 => They serve tacos.': [0.85, 0.1, 0.05] });
    const r = await openValidity(
      'They serve tacos.',
      [
        { source: 'a', text: 'E1' },
        { source: 'b', text: 'E2' },
      ],
      nli,
    );
    assert.equal(r.validity?.value, 0.85);
    assert.equal(r.validity?.evidence?.source, 'b');
    assert.equal((await openValidity('x', [], nli)).validity, undefined);
  });
});

describe('helpfulness (Eq. 6) and Q (Eq. 9)', () => {
  it('is max(0, 1 - L / mean of the baseline losses)', () => {
    // 1 - 1.2 / ((2 + 1) / 2) = 0.2
    const h = helpfulnessFromLosses(1.2, [2, 1]);
    assert.ok(Math.abs(h.value - 0.2) < 1e-12);
    const worse = helpfulnessFromLosses(3, [2, 1]);
    assert.equal(worse.value, 0);
    assert.ok(Math.abs(worse.raw - -1) < 1e-12);
  });
  it('draws u negatives per item, seeded, never the item itself', () => {
    const pool = ['a', 'b', 'c', 'd', 'e'];
    const n1 = sampleNegatives('c', pool, 3, 7);
    assert.equal(n1.length, 3);
    assert.ok(!n1.includes('c'));
    assert.deepEqual(sampleNegatives('c', pool, 3, 7), n1);
  });
  it('Q = gamma . [fact, rel, coh_para, info]; a metric not scored counts 0 and is named', () => {
    const scores = { factuality: 0.5, relevance: 0.25, coherenceParagraph: null, informativeness: 0.75 } as unknown as ScoredKnowledge['scores'];
    assert.deepEqual(knowledgeQuality({ scores }, [1, 2, 3, 4]), { q: 0.5 + 0.5 + 3, missing: ['coherence_paragraph'] });
    assert.deepEqual(parseGamma('1, 0.5,0,2'), [1, 0.5, 0, 2]);
    assert.throws(() => parseGamma('1,2,3'));
  });
});

describe("Somers' D", () => {
  it('matches a hand computation, D(Y|X) with X the human rating', () => {
    // Pairs not tied on x: 8; concordant 6 ((0,2),(0,3),(0,4),(1,3),(1,4),(2,4)), discordant 2 ((1,2),(3,4)).
    const x = [0, 0, 1, 1, 2];
    const y = [0.1, 0.3, 0.2, 0.5, 0.4];
    assert.equal(somersD(x, y), 0.5);
    // The other direction has no ties on y: (6 - 2) / 10.
    assert.equal(somersD(y, x), 0.4);
    assert.equal(somersD([0, 1], [1, 1]), 0);
    assert.equal(somersD([1, 1], [0, 1]), null);
  });
  it('gives a permutation p-value, the same for the same seed', () => {
    const x = [0, 0, 0, 1, 1, 1, 2, 2, 2, 2];
    const y = [0.1, 0.2, 0.15, 0.4, 0.5, 0.45, 0.8, 0.9, 0.85, 0.95];
    const a = somersTest(x, y, 200, 1);
    assert.equal(a.d, 1);
    assert.ok(a.pValue! < 0.05);
    assert.deepEqual(somersTest(x, y, 200, 1), a);
  });
});

describe('summary', () => {
  it('reads each metric id from its camelCase record field, and a version-1 record from its snake_case field', () => {
    const scores = (s: Record<string, number | null>) => ({ scores: { factualityLabel: null, ...s } }) as unknown as ScoredKnowledge;
    const current = scores({ coherenceSentence: 0.3, coherenceParagraph: 0.4, helpfulness: 0, helpfulnessRaw: -0.2, validity: 1 });
    assert.deepEqual(
      ['coherence_sentence', 'coherence_paragraph', 'helpfulness', 'helpfulness_raw', 'validity', 'relevance'].map((id) => metricValue(current, id)),
      [0.3, 0.4, 0, -0.2, 1, null],
    );
    const older = scores({ coherence_sentence: 0.5, coherence_paragraph: null });
    assert.deepEqual([metricValue(older, 'coherence_sentence'), metricValue(older, 'coherence_paragraph')], [0.5, null]);
    assert.equal(metricValue(current, 'factualityLabel'), null, 'not a metric id');
  });
  it('means with a seeded bootstrap interval, and the shares of each factuality label', () => {
    const rec = (id: string, label: 'factual-consistent' | 'non-verified', fact: number): ScoredKnowledge =>
      ({
        id,
        generator: 'g',
        setting: 'zero-shot',
        knowledge: 'k.',
        answer: null,
        answerer: null,
        scores: { factuality: fact, factualityLabel: label, relevance: null },
        sentences: [],
        helpfulness: null,
        scorers: {},
        premiseCuts: 0,
        flooredTokens: 0,
        notes: [],
      }) as unknown as ScoredKnowledge;
    const records = [
      rec('1', 'factual-consistent', 0.9),
      rec('2', 'factual-consistent', 0.8),
      rec('3', 'non-verified', 0.2),
      rec('4', 'factual-consistent', 0.7),
    ];
    assert.equal(metricValue(records[2]!, 'non_verified'), 1);
    const s = summarizeConner(records, { resamples: 200, seed: 3, run: { evidence: 'reference', choices: DEFAULT_CHOICES, unscored: [] } });
    const g = s.groups[0]!;
    assert.equal(g.metrics.fact_consistent!.mean, 0.75);
    assert.equal(g.metrics.non_verified!.mean, 0.25);
    assert.equal(g.metrics.fact_inconsistent!.mean, 0);
    assert.ok(Math.abs(g.metrics.factuality!.mean! - 0.65) < 1e-12);
    assert.equal(g.metrics.relevance!.mean, null, 'an unscored metric is undefined, never 0');
    const [lo, hi] = g.metrics.factuality!.ci!;
    assert.ok(lo <= 0.65 && 0.65 <= hi && lo >= 0.2 && hi <= 0.9);
    assert.deepEqual(summarizeConner(records, { resamples: 200, seed: 3, run: { evidence: 'reference', choices: DEFAULT_CHOICES, unscored: [] } }), s);
    assert.deepEqual(estimate([], 10, SeededRandom.stream(1, 'x')), { mean: null, n: 0, ci: null });
  });
});

describe('inputs and prompts', () => {
  it("parses CONNER's test files; dialogue queries are the last utterance", () => {
    const nq = parseConnerTestFile('Gallbladder\twhere is gall bladder\tThe gallbladder is ...\tbeneath the liver\n', 'nq_test_random_testset.txt');
    assert.deepEqual(nq[0], {
      id: 'nq_test_random_testset:1',
      task: 'qa',
      topic: 'Gallbladder',
      query: 'where is gall bladder',
      referenceKnowledge: 'The gallbladder is ...',
      goldAnswer: 'beneath the liver',
    });
    const wow = parseConnerTestFile('Del Taco\tHave you heard of it? [SEP] Yes. [SEP] What food?\tDel Taco is ...\tMexican food.\n', 'seen_random_testset.txt');
    assert.equal(wow[0]!.task, 'dialogue');
    assert.equal(wow[0]!.query, 'What food?');
    assert.deepEqual(wow[0]!.history, ['Have you heard of it?', 'Yes.']);
    assert.throws(() => parseConnerTestFile('a\tb\tc\n', 'x.txt'), /x\.txt:1: expected 4 tab-separated fields/);
  });
  it('writes the prompts of Tables 11-13', () => {
    const q = { task: 'qa' as const, topic: 'Moon', query: 'when was the last time anyone was on the moon' };
    assert.equal(
      zeroShotKnowledgePrompt(q),
      'Topic: Moon\nGenerate a Wikipedia to answer the given question.\nQuestion: when was the last time anyone was on the moon\nWikipedia:',
    );
    assert.equal(zeroShotKnowledgePrompt(q, 1), 'Topic: Moon\nQuery: when was the last time anyone was on the moon\nRelated wikipedia knowledge:');
    const demo = { id: 'd', topic: 'T', query: 'Q?', knowledge: 'K.', answer: 'A' };
    assert.equal(
      fewShotKnowledgePrompt(q, [demo]),
      'Topic: T\nQuery: Q?\nRelated Wikipedia knowledge: K.\nTopic: Moon\nQuery: when was the last time anyone was on the moon\nRelated Wikipedia knowledge:',
    );
    assert.equal(
      answerPrompt(q, 'Apollo 17 ...', [demo]),
      'Topic: T\nPassage: K.\nQuery: Q?\nAnswer: A\n\nTopic: Moon\nPassage: Apollo 17 ...\nQuery: when was the last time anyone was on the moon\nAnswer:',
    );
    assert.equal(
      answerPrompt({ ...q, task: 'dialogue' }, '', []),
      'Topic: Moon\nPassage:\nSpeaker 1: when was the last time anyone was on the moon\nSpeaker 2:',
    );
  });
  it('splits sentences by Unicode boundaries, not full stops', () => {
    assert.deepEqual(splitSentences('Smith went to Washington D.C. in 1990. He arrived at 3 p.m. on Monday! Then?'), [
      'Smith went to Washington D.C. in 1990.',
      'He arrived at 3 p.m. on Monday!',
      'Then?',
    ]);
    assert.deepEqual(splitSentences('  '), []);
  });
  it('evidence: the reference passages, blank ones dropped', () => {
    assert.deepEqual(referenceEvidence().retrieve('x', ['gold', ' ']), [{ source: 'reference', text: 'gold' }]);
  });
});
