/**
 * CONNER numbers as the paper's tables report them, on hand examples: helpfulness over the set
 * (clipped after averaging), the equation's vector rule beside the authors' sentence-label rule
 * for factuality, the authors' other forms as options, over-long NLI premises cut (never the
 * claim), and a finite floor for a token whose probability underflows.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ContextOverflowError } from '../src/errors.js';
import { ModelExecutor, type ExecutableModel } from '../src/executor/model-executor.js';
import { DEFAULT_CHOICES, EQUATIONS_CHOICES, type ScoringChoices } from '../src/methods/conner/conner-choices.js';
import { referenceEvidence } from '../src/methods/conner/evidence/evidence-source.js';
import type { GeneratedKnowledge } from '../src/methods/conner/generation/generate-knowledge.js';
import { combineSentencePerplexities } from '../src/methods/conner/scoring/coherence.js';
import { executorTokenScorer, floorLogprobs } from '../src/methods/conner/scoring/executor-scorers.js';
import { combineSentences, sentenceLabel } from '../src/methods/conner/scoring/factuality.js';
import { informativenessContext } from '../src/methods/conner/scoring/informativeness.js';
import { classifyWithinWindow } from '../src/methods/conner/scoring/nli-window.js';
import { scoredQuery, scoreOne } from '../src/methods/conner/scoring/score-one.js';
import type { ScoredKnowledge } from '../src/methods/conner/scoring/scored-knowledge.js';
import { UNDERFLOW_LOGPROB, type NliVector, type PairClassifier, type TokenScorer } from '../src/methods/conner/scoring/scorers.js';
import { estimateMetric } from '../src/methods/conner/summary/metric-aggregates.js';
import type { ScoringModel } from '../src/providers/model-kinds.js';
import { SeededRandom } from '../src/sampling/seeded-random.js';

const words = (s: string): string[] => s.trim().split(/\s+/).filter(Boolean);

/** An NLI "model" with a window of `window` words (premise + hypothesis); its entailment is the share of the hypothesis's words in the premise. */
function windowedNli(window: number): PairClassifier & { calls: Array<[string, string]> } {
  const calls: Array<[string, string]> = [];
  return {
    id: 'scripted:windowed-nli',
    identity: 'scripted:windowed-nli',
    calls,
    async classify(task, pairs) {
      assert.equal(task, 'nli');
      for (const p of pairs) calls.push([p.text, p.textPair]);
      const over = pairs.find((p) => words(p.text).length + words(p.textPair).length > window);
      if (over) throw new ContextOverflowError(`pair of ${words(over.text).length + words(over.textPair).length} words, over the ${window}-word window`);
      return {
        cached: false,
        scores: pairs.map((p) => {
          const premise = new Set(words(p.text));
          const e = words(p.textPair).filter((w) => premise.has(w)).length / words(p.textPair).length;
          return { entailment: e * 0.9, neutral: 0.1, contradiction: (1 - e) * 0.9 };
        }),
      };
    },
  };
}

function item(fields: Partial<GeneratedKnowledge>): GeneratedKnowledge {
  return {
    id: 'q1',
    task: 'qa',
    topic: 'T',
    query: 'q',
    generator: 'g',
    setting: 'zero-shot',
    knowledgeDemos: [],
    knowledge: 'k.',
    answerDemos: [],
    ...fields,
  };
}

function helpfulRecord(id: string, loss: number, baselineLosses: number[]): ScoredKnowledge {
  return {
    id,
    generator: 'g',
    setting: 'zero-shot',
    scores: {},
    sentences: [],
    helpfulness: { loss, baselineLosses, negatives: baselineLosses.map((_, i) => `n${i}`) },
  } as unknown as ScoredKnowledge;
}

describe("helpfulness over the set (Eq. 6 as the paper's Tables 2 and 16)", () => {
  it("L = [1, 3] against baselines [2, 2]: 0 over the set, though the mean of the items' clipped values is 0.25", () => {
    const records = [helpfulRecord('a', 1, [2]), helpfulRecord('b', 3, [2])];
    // By hand: 1 - mean(1, 3) / mean(2, 2) = 1 - 2 / 2 = 0; per item max(0, 1 - 1/2) = 0.5 and max(0, 1 - 3/2) = 0.
    const rng = (): SeededRandom => SeededRandom.stream(5, 'h');
    const clipped = estimateMetric(records, 'helpfulness', DEFAULT_CHOICES, 400, rng());
    const raw = estimateMetric(records, 'helpfulness_raw', DEFAULT_CHOICES, 400, rng());
    assert.equal(clipped.mean, 0);
    assert.equal(raw.mean, 0);
    assert.equal(clipped.n, 2);
    // The interval resamples items and recomputes the ratio: resamples are {a, a} (0.5), {b, b} (-0.5, clipped 0) or mixed (0).
    assert.ok(clipped.ci![0] === 0 && clipped.ci![1] <= 0.5 && clipped.ci![1] > 0, JSON.stringify(clipped.ci));
    assert.ok(raw.ci![0] === -0.5 && raw.ci![1] === 0.5, JSON.stringify(raw.ci));
  });

  it('a system worse than random knowledge is 0 clipped and negative raw (Table 2 shows 0.0000 where Table 16 shows -0.146)', () => {
    // Each item's baseline is the mean of its u losses: (2 + 4) / 2 = 3 and 3.
    const records = [helpfulRecord('a', 3, [2, 4]), helpfulRecord('b', 4, [3])];
    const raw = 1 - (3 + 4) / 2 / ((3 + 3) / 2);
    assert.ok(raw < 0);
    const rng = SeededRandom.stream(1, 'x');
    assert.equal(estimateMetric(records, 'helpfulness', DEFAULT_CHOICES, 0, rng).mean, 0);
    assert.ok(Math.abs(estimateMetric(records, 'helpfulness_raw', DEFAULT_CHOICES, 0, rng).mean! - raw) < 1e-12);
    assert.deepEqual(estimateMetric([], 'helpfulness', DEFAULT_CHOICES, 0, rng), { mean: null, n: 0, ci: null });
  });
});

describe("factuality: the vector rule (Eq. 1) and the sentence-label rule (the authors' scripts)", () => {
  // Each sentence's best evidence vector (entailment, neutral, contradiction) and, by argmax, its label:
  const s1: NliVector = [0.35, 0.33, 0.32]; // consistent, entailment 0.35
  const s2: NliVector = [0.45, 0.05, 0.5]; // inconsistent, the highest entailment
  const s3: NliVector = [0.3, 0.6, 0.1]; // non-verified, the lowest entailment

  it('disagree under min and under max, on a hand case', () => {
    // min: Eq. 1 keeps the sentence with the lowest entailment (s3); the labels keep the lowest label (s2).
    assert.deepEqual(combineSentences([s1, s2, s3], 'min', 'vector'), { score: s3, label: 'non-verified' });
    assert.deepEqual(combineSentences([s1, s2, s3], 'min', 'labels'), { score: s2, label: 'factual-inconsistent' });
    // max: Eq. 1 keeps the highest entailment (s2, whose largest score is contradiction); the labels keep the highest label (s1).
    assert.deepEqual(combineSentences([s1, s2, s3], 'max', 'vector'), { score: s2, label: 'factual-inconsistent' });
    assert.deepEqual(combineSentences([s1, s2, s3], 'max', 'labels'), { score: s1, label: 'factual-consistent' });
  });

  it('a sentence label is np.argmax over (contradiction, neutral, entailment): ties go to contradiction, then neutral', () => {
    assert.equal(sentenceLabel([0.4, 0.2, 0.4]), 'factual-inconsistent');
    assert.equal(sentenceLabel([0.4, 0.4, 0.2]), 'non-verified');
    assert.equal(sentenceLabel([0.5, 0.3, 0.2]), 'factual-consistent');
  });

  it('under labels with mean the shares count sentences over the set', () => {
    const rec = (vectors: NliVector[]): ScoredKnowledge =>
      ({
        id: String(vectors.length),
        generator: 'g',
        setting: 's',
        scores: { factualityLabel: 'non-verified' },
        sentences: vectors.map((nli) => ({ sentence: 'x', nli, candidates: 1 })),
      }) as unknown as ScoredKnowledge;
    const records = [rec([s1, s2, s3]), rec([s1])];
    const choices = { factualityRule: 'labels' as const, aggregation: 'mean' as const };
    const rng = SeededRandom.stream(1, 'x');
    // 4 sentences: s1 twice consistent, s2 inconsistent, s3 non-verified.
    assert.equal(estimateMetric(records, 'fact_consistent', choices, 0, rng).mean, 2 / 4);
    assert.equal(estimateMetric(records, 'fact_inconsistent', choices, 0, rng).mean, 1 / 4);
    assert.equal(estimateMetric(records, 'non_verified', choices, 0, rng).mean, 1 / 4);
  });

  it("the reference passage's sentences and the passage whole are premises, the first 32", async () => {
    const passage = 'Alpha beta gamma. Delta epsilon. Zeta eta theta.';
    const evidence = referenceEvidence('sentences').retrieve('claim', [passage]);
    assert.deepEqual(await evidence, [
      { source: 'reference, sentence 1', text: 'Alpha beta gamma.' },
      { source: 'reference, sentence 2', text: 'Delta epsilon.' },
      { source: 'reference, sentence 3', text: 'Zeta eta theta.' },
      { source: 'reference', text: passage },
    ]);
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i}.`).join(' ');
    const capped = await referenceEvidence('sentences').retrieve('claim', [long]);
    assert.equal(capped.length, 32);
    assert.ok(
      capped.every((e) => e.source !== 'reference'),
      "the whole passage is the 41st: cut, as the authors' [:32] cuts it",
    );
    assert.deepEqual(await referenceEvidence('passage').retrieve('claim', [passage]), [{ source: 'reference', text: passage }]);
  });
});

describe("the authors' other forms, as options", () => {
  it('sentence coherence: mean of 1/PPL (Eq. 3) or 1/mean(min(PPL, 200)) (src/ppl.py)', () => {
    assert.ok(Math.abs(combineSentencePerplexities([0.5, 0.01], 'mean-inverse')! - 0.255) < 1e-12);
    // PPL 2 and 100: 1 / 51.
    assert.ok(Math.abs(combineSentencePerplexities([0.5, 0.01], 'inverse-mean')! - 1 / 51) < 1e-12);
    // PPL 1000 is capped at 200; an infinite one (1/PPL = 0) too.
    assert.ok(Math.abs(combineSentencePerplexities([0.5, 0.001], 'inverse-mean')! - 1 / 101) < 1e-12);
    assert.ok(Math.abs(combineSentencePerplexities([0.5, 0], 'inverse-mean')! - 1 / 101) < 1e-12);
    assert.equal(combineSentencePerplexities([], 'inverse-mean'), undefined);
  });

  it("a dialogue's query: its last utterance, or the whole history as the test file holds it", () => {
    const q = { task: 'dialogue' as const, query: 'I love jazz.', history: ['Hi there', 'Do you like music?'] };
    assert.equal(scoredQuery(q, { dialogueQuery: 'utterance' }), 'I love jazz.');
    assert.equal(scoredQuery(q, { dialogueQuery: 'history' }), 'Hi there [SEP] Do you like music? [SEP] I love jazz.');
    assert.equal(scoredQuery({ ...q, task: 'qa' }, { dialogueQuery: 'history' }), 'I love jazz.', 'a question is its own query');
  });

  it("informativeness's prefix: Table 11's prompt 4, or src/info.py's instruction", () => {
    const q = { task: 'qa' as const, topic: 'Jazz', query: 'who invented jazz' };
    assert.equal(
      informativenessContext(q, 'table11'),
      'Topic: Jazz\nGenerate a Wikipedia to answer the given question.\nQuestion: who invented jazz\nWikipedia:',
    );
    assert.equal(
      informativenessContext(q, 'code'),
      'Generate a Wikipedia to answer the given question.\nTopic: Jazz.\nQuestion: who invented jazz?\nWikipedia:',
    );
  });

  it('open-answer validity (Eq. 8) premises: the evidence, or the gold response and then the evidence (src/wow_validity.py)', async () => {
    const nli = windowedNli(100);
    const k = item({
      task: 'dialogue',
      query: 'tell me',
      knowledge: 'Jazz came from New Orleans.',
      referenceKnowledge: 'Jazz began in New Orleans.',
      goldAnswer: 'it started in new orleans',
      answerWithKnowledge: 'it started in new orleans',
    });
    const base = { nli, evidence: referenceEvidence('passage'), seed: 0, scorerIds: {} };
    const plain = await scoreOne(k, { ...base, choices: EQUATIONS_CHOICES }, new Map(), []);
    const withGold = await scoreOne(k, { ...base, choices: DEFAULT_CHOICES }, new Map(), []);
    assert.equal(DEFAULT_CHOICES.dialogueValidity, 'response-and-evidence', "the default profile is the scripts'");
    assert.equal(withGold.record.validityEvidence?.source, 'gold response');
    assert.ok(withGold.record.scores.validity! > plain.record.scores.validity!);
    assert.ok(nli.calls.some(([premise, hypothesis]) => premise === 'it started in new orleans' && hypothesis === 'it started in new orleans'));
  });
});

describe('over-long NLI input', () => {
  it('cuts the premise to the longest prefix that fits, never the claim; a claim that does not fit alone leaves the pair out', async () => {
    const nli = windowedNli(10);
    const premise = 'paris is the capital of france and a large city on the seine with many old bridges and museums';
    const claim = 'paris is in france';
    const r = await classifyWithinWindow(nli, [
      { text: 'paris france', textPair: claim },
      { text: premise, textPair: claim },
    ]);
    assert.deepEqual(r.cuts, [{ pair: 1, keptWords: 6, words: words(premise).length }], '10 words: 4 of the claim, 6 of the premise');
    assert.ok(
      nli.calls.every(([, hypothesis]) => hypothesis === claim),
      'the claim is never cut',
    );
    assert.equal(r.scores.length, 2);
    // The cut premise "paris is the capital of france" holds 3 of the claim's 4 words.
    assert.ok(Math.abs(r.scores[1]!.entailment! - 0.9 * 0.75) < 1e-12);
    const unfit = await classifyWithinWindow(nli, [{ text: premise, textPair: 'a claim of eleven words that cannot fit in ten words' }]);
    assert.equal(unfit.scores[0], undefined);
    assert.equal(unfit.cuts[0]!.unfit, true);
  });

  it('a factuality stage with an over-long gold passage goes on: the cut is kept with the sentence and said in the record', async () => {
    const passage = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const k = item({ knowledge: 'Word1 word2 word3. Word4 is here.', referenceKnowledge: passage });
    const { record } = await scoreOne(
      k,
      { nli: windowedNli(12), evidence: referenceEvidence('passage'), choices: DEFAULT_CHOICES, seed: 0, scorerIds: {} },
      new Map(),
      [],
    );
    assert.equal(record.sentences.length, 2);
    assert.deepEqual(record.sentences[0]!.premiseCuts, [{ pair: 0, keptWords: 9, words: 30 }]);
    assert.equal(record.premiseCuts, 2);
    assert.ok(
      record.notes.some((n) => /^factuality: 2 premises cut to fit the NLI model's window \(9 of 30 words, 9 of 30 words\)$/.test(n)),
      record.notes.join('\n'),
    );
    assert.ok(record.scores.factuality !== null);
  });
});

describe('a token whose probability underflows', () => {
  /** A scoring model whose second token has probability 0 (node-llama-cpp's float32 softmax underflow), reported as -1e9. */
  function underflowing(): ModelExecutor<ExecutableModel> {
    const model: ScoringModel = {
      specificationVersion: 'llmkb-model-v1',
      provider: 'fake',
      modelId: 'underflow',
      cacheIdentity: 'fake:underflow',
      kinds: ['scoring'],
      endpoints: ['in-process'],
      defaultConcurrency: 1,
      close: async () => {},
      scoreTokens: async () => ({
        tokens: [' a', ' b', ' c'],
        tokenLogprobs: [-0.5, -1e9, -1.5],
        logLikelihood: -0.5 - 1e9 - 1.5,
        usage: { promptTokens: 3, completionTokens: 0, evaluatedTokens: 3 },
      }),
    };
    return new ModelExecutor(model, { cache: null }) as unknown as ModelExecutor<ExecutableModel>;
  }

  it('scores a finite floor, ln(2^-149), not -1e9, and says so in the record', async () => {
    assert.ok(Math.abs(UNDERFLOW_LOGPROB - -103.2789) < 1e-3);
    assert.deepEqual(floorLogprobs([-0.5, -1e9, -Infinity, -2]), { logLikelihood: -0.5 + 2 * UNDERFLOW_LOGPROB - 2, floored: 2 });
    const scorer: TokenScorer = executorTokenScorer(underflowing());
    const ll = await scorer.logLikelihood('context', ' a b c');
    assert.deepEqual({ ll: ll.logLikelihood, floored: ll.floored, tokens: ll.tokens }, { ll: -0.5 + UNDERFLOW_LOGPROB - 1.5, floored: 1, tokens: 3 });
    const choices: ScoringChoices = { ...DEFAULT_CHOICES, negatives: 1 };
    const { record } = await scoreOne(
      item({ knowledge: 'Some knowledge.' }),
      { scorer, evidence: referenceEvidence(), choices, seed: 0, scorerIds: {} },
      new Map(),
      [],
    );
    // 1 - exp(mean): the mean is (-0.5 + floor - 1.5) / 3, finite.
    assert.ok(Math.abs(record.scores.informativeness! - (1 - Math.exp((-2 + UNDERFLOW_LOGPROB) / 3))) < 1e-12);
    assert.ok(record.flooredTokens >= 3, 'sentence coherence, paragraph coherence and informativeness each floored one');
    assert.ok(
      record.notes.some((n) => /^informativeness: 1 token had probability 0 under the scorer .* ln\(2\^-149\) = -103\.28$/.test(n)),
      record.notes.join('\n'),
    );
  });
});

describe('profiles: as-released (the default) and equations', () => {
  it("as-released is the scripts' forms, equations the text's; --equations and --as-released are aliases; each option given still wins", async () => {
    const { scoringChoices } = await import('../src/methods/conner/pipeline/options.js');
    const { RELEASED_CODE_CHOICES } = await import('../src/methods/conner/conner-choices.js');
    assert.deepEqual(scoringChoices({}), RELEASED_CODE_CHOICES);
    assert.deepEqual(DEFAULT_CHOICES, RELEASED_CODE_CHOICES);
    assert.deepEqual(
      {
        rule: RELEASED_CODE_CHOICES.factualityRule,
        op: RELEASED_CODE_CHOICES.aggregation,
        coh: RELEASED_CODE_CHOICES.sentenceCoherence,
        cap: RELEASED_CODE_CHOICES.pplCap,
        prefix: RELEASED_CODE_CHOICES.informativenessPrefix,
        prompt: RELEASED_CODE_CHOICES.helpfulnessPrompt,
        baseline: RELEASED_CODE_CHOICES.helpfulnessBaseline,
        list: RELEASED_CODE_CHOICES.evidenceList,
      },
      { rule: 'labels', op: 'max', coh: 'inverse-mean', cap: 200, prefix: 'code', prompt: 'released', baseline: 'shared', list: 'gold-and-retrieved' },
    );
    assert.deepEqual(
      {
        rule: EQUATIONS_CHOICES.factualityRule,
        op: EQUATIONS_CHOICES.aggregation,
        coh: EQUATIONS_CHOICES.sentenceCoherence,
        prompt: EQUATIONS_CHOICES.helpfulnessPrompt,
        baseline: EQUATIONS_CHOICES.helpfulnessBaseline,
        u: EQUATIONS_CHOICES.negatives,
      },
      { rule: 'vector', op: 'min', coh: 'mean-inverse', prompt: 'table13', baseline: 'negatives', u: 5 },
    );
    assert.deepEqual(scoringChoices({ asReleased: true }), RELEASED_CODE_CHOICES);
    assert.deepEqual(scoringChoices({ profile: 'equations' }), EQUATIONS_CHOICES);
    assert.deepEqual(scoringChoices({ equations: true }), EQUATIONS_CHOICES);
    assert.deepEqual(scoringChoices({ aggregation: 'min' }), { ...RELEASED_CODE_CHOICES, aggregation: 'min' });
    // u negatives asked for: the baseline they belong to.
    assert.deepEqual(scoringChoices({ negatives: 3 }), { ...RELEASED_CODE_CHOICES, negatives: 3, helpfulnessBaseline: 'negatives' });
    assert.throws(() => scoringChoices({ equations: true, asReleased: true }), /two CONNER profiles asked for: equations and as-released/);
  });
});
