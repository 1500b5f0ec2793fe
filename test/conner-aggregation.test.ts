/**
 * The paper's aggregation, checked independently: the first 50 rows of each of CONNER's three
 * test files are scored (through `scoreFiles`, as `conner score` does) by scripted scorers whose
 * per-item outputs are given (functions of the text, tabled here), and each summary is compared
 * with the tables' values aggregated in this test as the paper's tables do it: means over items,
 * shares by label, helpfulness as max(0, 1 - mean L / mean L^-) over the set. No summary code is
 * called for the expected numbers.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EQUATIONS_CHOICES } from '../src/methods/conner/conner-choices.js';
import type { ScoringSetup } from '../src/methods/conner/scoring/scoring-setup.js';
import { referenceEvidence } from '../src/methods/conner/evidence/evidence-source.js';
import { answerExample } from '../src/methods/conner/generation/conner-prompts.js';
import { parseConnerTestFile, type ConnerQuery } from '../src/methods/conner/generation/conner-queries.js';
import type { GeneratedKnowledge } from '../src/methods/conner/generation/generate-knowledge.js';
import { informativenessContext } from '../src/methods/conner/scoring/informativeness.js';
import type { PairClassifier, TokenScorer } from '../src/methods/conner/scoring/scorers.js';
import { questionAnswerText } from '../src/methods/conner/scoring/validity.js';
import { scoreFiles } from '../src/methods/conner/score-files.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';

const dataDir = process.env.LLMKB_DATA_DIR;
const FILES = ['nq_test_random_testset.txt', 'seen_random_testset.txt', 'unseen_random_testset.txt'];

/** A number in [0, 1) from a text: the scripted "model output" for it. */
function unit(...parts: string[]): number {
  return createHash('sha256').update(parts.join('\u0000')).digest().readUInt32LE(0) / 2 ** 32;
}
const words = (s: string): number => s.trim().split(/\s+/).filter(Boolean).length;

/** The NLI output for a claim: the same whatever the premise, so each sentence's best evidence vector is this. */
function nliOf(hypothesis: string): [number, number, number] {
  const [a, b, c] = [unit('e', hypothesis) + 0.05, unit('n', hypothesis) + 0.05, unit('c', hypothesis) + 0.05];
  return [a / (a + b + c), b / (a + b + c), c / (a + b + c)];
}
const relevanceOf = (query: string, knowledge: string): number => unit('rel', query, knowledge);
/** Mean negative log-probability per token of a continuation after a context: in [0.5, 3.5). */
const lossOf = (context: string, continuation: string): number => 0.5 + 3 * unit('ll', context, continuation);

const nli: PairClassifier = {
  id: 'scripted:nli',
  identity: 'scripted:nli',
  classify: async (_task, pairs) => ({
    cached: false,
    scores: pairs.map((p) => {
      const [entailment, neutral, contradiction] = nliOf(p.textPair);
      return { entailment, neutral, contradiction };
    }),
  }),
};
const relevance: PairClassifier = {
  id: 'scripted:relevance',
  identity: 'scripted:relevance',
  classify: async (_task, pairs) => ({ cached: false, scores: pairs.map((p) => ({ relevant: relevanceOf(p.text, p.textPair) })) }),
};
const scorer: TokenScorer = {
  id: 'scripted:lm',
  identity: 'scripted:lm',
  logLikelihood: async (context, continuation) => ({
    logLikelihood: -lossOf(context, continuation) * words(continuation),
    tokens: words(continuation),
    floored: 0,
    cached: false,
  }),
};

/** One sentence of knowledge per query (so an item's factuality is its sentence's), and an answer. */
function knowledgeOf(q: ConnerQuery, i: number, generator: string): GeneratedKnowledge {
  return {
    ...q,
    generator,
    setting: 'zero-shot',
    prompt: 4,
    knowledgeDemos: [],
    answerDemos: [],
    answerer: 'scripted:answerer',
    knowledge: `Item ${i} of ${generator} is described here`,
    answerWithKnowledge: i % 3 === 0 ? (q.goldAnswer ?? '') : `an answer to ${q.query.slice(0, 20)}`,
  };
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const LABELS = ['factual-consistent', 'non-verified', 'factual-inconsistent'] as const;
const labelOf = (v: readonly number[]): (typeof LABELS)[number] => LABELS[v.indexOf(Math.max(...v))]!;

describe("the summary equals the paper's aggregation of the scorers' given outputs", { skip: dataDir ? false : 'LLMKB_DATA_DIR is not set' }, () => {
  it('on the first 50 rows of each CONNER file', async () => {
    const files = FILES.map((f) => {
      const path = join(dataDir!, 'conner', f);
      const queries = parseConnerTestFile(readFileSync(path, 'utf8'), path).slice(0, 50);
      return { file: f, sha256: '0'.repeat(64), items: queries.map((q, i) => knowledgeOf(q, i, `gen-${f.split('_')[0]}`)) };
    });
    const setup: ScoringSetup = { scorer, nli, relevance, evidence: referenceEvidence('sentences'), unscored: [], concurrency: 1 };
    const choices = { ...EQUATIONS_CHOICES, negatives: 3 };
    const { records, summaries } = await scoreFiles(files, {
      runs: new RunStore(openDatabase(':memory:')),
      setup,
      choices,
      seed: 42,
      resamples: 0,
      progress: { quiet: true },
    });
    assert.equal(summaries.length, 3);

    for (const [g, { items }] of files.entries()) {
      const s = summaries[g]!;
      const rs = records.filter((r) => r.generator === s.model);
      assert.equal(rs.length, 50);
      // The given outputs, item by item.
      const fact = items.map((k) => nliOf(k.knowledge));
      const rel = items.map((k) => relevanceOf(k.query, k.knowledge));
      const invPpl = items.map((k) => Math.exp(-lossOf('', k.knowledge)));
      const info = items.map((k) => 1 - Math.exp(-lossOf(informativenessContext(k), ` ${k.knowledge}`)));
      const validity = items.map((k) => (k.task === 'qa' ? nliOf(questionAnswerText(k.query, k.answerWithKnowledge!))[0] : nliOf(k.answerWithKnowledge!)[0]));
      const byId = new Map(items.map((k) => [k.id, k]));
      const loss = (k: GeneratedKnowledge, other: GeneratedKnowledge): number =>
        lossOf(answerExample(k.task, k.topic, other.knowledge, k.query), ` ${k.goldAnswer}`);
      const own = items.map((k) => loss(k, k));
      // The negatives are each record's (drawn by the run's seed); their losses are the table's.
      const baselines = items.map((k, i) => {
        const negatives = rs[i]!.helpfulness!.negatives;
        assert.equal(negatives.length, 3);
        const ls = negatives.map((id) => loss(k, byId.get(id)!));
        assert.deepEqual(rs[i]!.helpfulness!.baselineLosses, ls);
        assert.equal(rs[i]!.helpfulness!.loss, own[i]);
        return mean(ls);
      });
      const helpRaw = 1 - mean(own) / mean(baselines);

      const expected: Record<string, number> = {
        factuality: mean(fact.map((v) => v[0])),
        fact_consistent: fact.filter((v) => labelOf(v) === 'factual-consistent').length / 50,
        non_verified: fact.filter((v) => labelOf(v) === 'non-verified').length / 50,
        fact_inconsistent: fact.filter((v) => labelOf(v) === 'factual-inconsistent').length / 50,
        relevance: mean(rel),
        coherence_sentence: mean(invPpl),
        coherence_paragraph: mean(invPpl),
        informativeness: mean(info),
        helpfulness: Math.max(0, helpRaw),
        helpfulness_raw: helpRaw,
        validity: mean(validity),
      };
      for (const [id, v] of Object.entries(expected))
        assert.ok(Math.abs(s.metrics[id]! - v) < 1e-12, `${s.model} ${id}: summary ${s.metrics[id]} vs ${v} by hand`);
      assert.deepEqual(Object.keys(s.metrics).sort(), Object.keys(expected).sort());
      // The table value is not the mean of the items' own Eq. 6.
      const perItem = mean(own.map((l, i) => Math.max(0, 1 - l / baselines[i]!)));
      assert.ok(Math.abs(perItem - expected.helpfulness!) > 1e-3, `${s.model}: per-item mean ${perItem} vs set ${expected.helpfulness}`);
      assert.equal(s.counts.items, 50);
    }
  });
});
