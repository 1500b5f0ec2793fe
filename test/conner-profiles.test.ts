/**
 * A small CONNER study (two generators on the same six queries, as `conner score` runs it) with
 * scripted scorers whose outputs are functions of their inputs, through the default profile
 * (`as-released`) and through `--equations`. Each table value is checked against a hand
 * computation here: for the default, of the released scripts' formulas (src/eval_exp.py:77-146,
 * src/ppl.py:36-37,65-66, src/info.py:35-56, src/helpfulness.py:109-176, src/nq_validity.py);
 * for `--equations`, of the text's Eq. 1, 3, 5, 6 and 7. No summary or scoring code computes an
 * expected number.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { referenceEvidence } from '../src/methods/conner/evidence/evidence-source.js';
import type { GeneratedKnowledge } from '../src/methods/conner/generation/generate-knowledge.js';
import { scoringChoices } from '../src/methods/conner/pipeline/options.js';
import { scoreFiles } from '../src/methods/conner/score-files.js';
import type { ScoredKnowledge } from '../src/methods/conner/scoring/scored-knowledge.js';
import type { ScoringSetup } from '../src/methods/conner/scoring/scoring-setup.js';
import type { PairClassifier, TokenScorer } from '../src/methods/conner/scoring/scorers.js';
import type { MethodSummary } from '../src/methods/method-summary.js';
import { answererWarnings } from '../src/methods/conner/across-runs/compare-conner.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';

const unit = (...parts: string[]): number => createHash('sha256').update(parts.join('\u0000')).digest().readUInt32LE(0) / 2 ** 32;
const words = (s: string): string[] => s.trim().split(/\s+/).filter(Boolean);
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const close = (a: number | null | undefined, b: number, what: string): void =>
  assert.ok(a !== null && a !== undefined && Math.abs(a - b) < 1e-12, `${what}: ${a} vs ${b} by hand`);

/** NLI: entailment grows with the share of the claim's words in the premise; a claim with "never" is contradicted. Order (e, n, c). */
function nliOf(premise: string, hypothesis: string): [number, number, number] {
  const p = new Set(words(premise.toLowerCase()));
  const hw = words(hypothesis.toLowerCase());
  const share = hw.filter((w) => p.has(w)).length / hw.length;
  const e = 0.05 + share + 0.1 * unit('e', premise, hypothesis);
  const n = 0.05 + 0.6 * (1 - share) + 0.1 * unit('n', premise, hypothesis);
  const c = 0.05 + (hw.includes('never') ? 1.5 : 0.1);
  return [e / (e + n + c), n / (e + n + c), c / (e + n + c)];
}
/** Per-token loss of a continuation after a context; a continuation with "Zzz" is very perplexing (PPL over 200). */
const lossOf = (context: string, continuation: string): number => (continuation.includes('Zzz') ? 6 : 0.5 + 3 * unit('ll', context, continuation));
const relevanceOf = (q: string, k: string): number => unit('rel', q, k);

const nli: PairClassifier = {
  id: 'scripted:nli',
  identity: 'scripted:nli',
  classify: async (_t, pairs) => ({
    cached: false,
    scores: pairs.map((p) => {
      const [entailment, neutral, contradiction] = nliOf(p.text, p.textPair);
      return { entailment, neutral, contradiction };
    }),
  }),
};
const relevance: PairClassifier = {
  id: 'scripted:rel',
  identity: 'scripted:rel',
  classify: async (_t, pairs) => ({ cached: false, scores: pairs.map((p) => ({ relevant: relevanceOf(p.text, p.textPair) })) }),
};
const scorer: TokenScorer = {
  id: 'scripted:lm',
  identity: 'scripted:lm',
  logLikelihood: async (c, k) => ({ logLikelihood: -lossOf(c, k) * words(k).length, tokens: words(k).length, floored: 0, cached: false }),
};

const QUERIES = [
  {
    topic: 'Amazon River',
    query: 'how long is the amazon river',
    gold: 'The Amazon River is in South America. It is about 6400 km long. It flows into the Atlantic Ocean.',
    answer: '6400 km',
  },
  {
    topic: 'Mount Everest',
    query: 'how high is mount everest',
    gold: 'Mount Everest is the highest mountain. Its summit is 8849 metres high. It lies in the Himalayas.',
    answer: '8849 metres',
  },
  {
    topic: 'Jazz',
    query: 'where did jazz begin',
    gold: 'Jazz began in New Orleans. It grew from blues and ragtime. Louis Armstrong was an early star.',
    answer: 'New Orleans',
  },
  {
    topic: 'Photosynthesis',
    query: 'what do plants make in photosynthesis',
    gold: 'Plants make sugar in photosynthesis. They use light and water. Oxygen is released.',
    answer: 'sugar',
  },
  {
    topic: 'Gallbladder',
    query: 'what does the gallbladder store',
    gold: 'The gallbladder stores bile. Bile helps digest fat. The liver makes bile.',
    answer: 'bile',
  },
  {
    topic: 'Tolkien',
    query: 'who wrote the hobbit',
    gold: 'The Hobbit was written by Tolkien. It was published in 1937. It tells of Bilbo.',
    answer: 'Tolkien',
  },
];

/** Knowledge of a generator: `good` copies gold sentences, `poor` mixes in contradicted and perplexing ones. */
function knowledgeOf(i: number, generator: 'good' | 'poor'): GeneratedKnowledge {
  const q = QUERIES[i]!;
  const gold = q.gold.split('. ').map((s) => s.replace(/\.$/, ''));
  const knowledge =
    generator === 'good'
      ? `${gold[0]}. ${gold[1]}. ${i % 2 === 0 ? 'It is never mentioned in books.' : 'Some say it is famous.'}`
      : `${q.topic} is never a real thing. ${i % 3 === 0 ? 'Zzz qqq xxv.' : `${gold[2]}.`} People talk about ${q.topic}.`;
  return {
    id: `nq:${i + 1}`,
    task: 'qa',
    topic: q.topic,
    query: q.query,
    referenceKnowledge: q.gold,
    goldAnswer: q.answer,
    generator,
    setting: 'zero-shot',
    prompt: 4,
    knowledgeDemos: [],
    answerDemos: [],
    answerer: 'scripted:answerer',
    knowledge,
    answerWithKnowledge: i === 4 && generator === 'poor' ? '' : i % 2 === 0 ? q.answer : `maybe ${q.topic}`,
  };
}

async function study(
  options: Record<string, unknown>,
  seed = 7,
): Promise<{ records: ScoredKnowledge[]; summaries: MethodSummary[]; files: Array<{ items: GeneratedKnowledge[] }> }> {
  const files = (['good', 'poor'] as const).map((g) => ({ file: `${g}.jsonl`, sha256: '0'.repeat(64), items: QUERIES.map((_, i) => knowledgeOf(i, g)) }));
  const choices = scoringChoices(options);
  const setup: ScoringSetup = { scorer, nli, relevance, evidence: referenceEvidence(choices.premises), unscored: [], concurrency: 1 };
  const db = openDatabase(':memory:');
  try {
    const out = await scoreFiles(files, { runs: new RunStore(db), setup, choices, seed, resamples: 0, progress: { quiet: true } });
    return { ...out, files };
  } finally {
    db.close();
  }
}

/** Sentences of the test's knowledge (no abbreviations in it): split after each full stop. */
const sentencesOf = (k: string): string[] => k.split(/(?<=\.)\s+/).filter(Boolean);
/** src/eval_exp.py:78: the gold passage's sentences, then the passage whole. */
const premisesOf = (gold: string): string[] => [...sentencesOf(gold), gold].slice(0, 32);
const byEntailment = (vs: ReadonlyArray<[number, number, number]>): [number, number, number] => vs.reduce((best, v) => (v[0] > best[0] ? v : best));

describe("the default profile (as-released): each table value is the released scripts' formula", () => {
  it('factuality (labels, max), coherence (1/mean capped PPL), informativeness (info.py prefix), helpfulness (8-shot, one shared baseline), validity', async () => {
    const { records, summaries, files } = await study({});
    assert.equal(summaries.length, 2);
    for (const [g, { items }] of files.entries()) {
      const s = summaries[g]!;
      const rs = records.filter((r) => r.generator === s.model);
      // src/eval_exp.py:109-146: per sentence the pair with the highest entailment, its label = np.argmax over (c, n, e); max over sentences, the first such sentence's vector.
      const fact = items.map((k) => {
        const best = sentencesOf(k.knowledge).map((sent) => byEntailment(premisesOf(k.referenceKnowledge!).map((p) => nliOf(p, sent))));
        const labels = best.map(([e, n, c]) => [c, n, e].indexOf(Math.max(c, n, e)));
        const top = Math.max(...labels);
        return { label: top, vector: best[labels.indexOf(top)]! };
      });
      // src/ppl.py:36-37,65-66: per item 1 / mean_i min(PPL(s_i), 200), then the mean over items.
      const cohSent = items.map((k) => 1 / mean(sentencesOf(k.knowledge).map((sent) => Math.min(Math.exp(lossOf('', sent)), 200))));
      // src/info.py:35-56 (the instruction; the first 300 words of the knowledge).
      const info = items.map(
        (k) =>
          1 - Math.exp(-lossOf(`Generate a Wikipedia to answer the given question.\nTopic: ${k.topic}.\nQuestion: ${k.query}?\nWikipedia:`, ` ${k.knowledge}`)),
      );
      // src/helpfulness.py:135-176: the demonstrations (gold passage without a leading topic, :167-168; query; answer), then "Passage: {k}\nQuery: {q}\nAnswer: " + answer.
      const byId = new Map(items.map((k) => [k.id, k]));
      const demoPassage = (d: GeneratedKnowledge): string =>
        (d.referenceKnowledge!.startsWith(d.topic) ? d.referenceKnowledge!.slice(d.topic.length) : d.referenceKnowledge!).trim();
      const prompt = (k: GeneratedKnowledge, passage: string, demos: readonly string[]): string =>
        `${demos
          .map((id) => {
            const d = byId.get(id)!;
            return `Passage: ${demoPassage(d)}\nQuery: ${d.query}\nAnswer: ${d.goldAnswer}\n\n`;
          })
          .join('')}Passage: ${passage}\nQuery: ${k.query}\nAnswer:`;
      const own: number[] = [];
      const base: number[] = [];
      for (const [i, k] of items.entries()) {
        const h = rs[i]!.helpfulness!;
        assert.equal(h.demos!.length, 5, 'the 5 other queries (of 6), at most 8');
        assert.ok(!h.demos!.includes(k.id) && h.negatives.length === 1 && h.negatives[0] !== k.id);
        own.push(lossOf(prompt(k, k.knowledge, h.demos!), ` ${k.goldAnswer}`));
        base.push(lossOf(prompt(k, byId.get(h.negatives[0]!)!.referenceKnowledge!, h.demos!), ` ${k.goldAnswer}`));
        close(h.loss, own[i]!, `${s.model} ${k.id} L(q,k,a)`);
        close(h.baselineLosses[0], base[i]!, `${s.model} ${k.id} L(q,k^-,a)`);
      }
      const helpRaw = 1 - mean(own) / mean(base);
      // src/nq_validity.py: NLI entailment of (q a*) by (q a); an empty answer scores 0 (a recorded departure).
      const validity = items.map((k) =>
        k.answerWithKnowledge!.trim() === '' ? 0 : nliOf(`${k.query} ${k.goldAnswer}`, `${k.query} ${k.answerWithKnowledge}`)[0],
      );
      const expected: Record<string, number> = {
        factuality: mean(fact.map((f) => f.vector[0])),
        fact_consistent: fact.filter((f) => f.label === 2).length / items.length,
        non_verified: fact.filter((f) => f.label === 1).length / items.length,
        fact_inconsistent: fact.filter((f) => f.label === 0).length / items.length,
        relevance: mean(items.map((k) => relevanceOf(k.query, k.knowledge))),
        coherence_sentence: mean(cohSent),
        coherence_paragraph: mean(items.map((k) => Math.exp(-lossOf('', k.knowledge)))),
        informativeness: mean(info),
        helpfulness: Math.max(0, helpRaw),
        helpfulness_raw: helpRaw,
        validity: mean(validity),
      };
      for (const [id, v] of Object.entries(expected)) close(s.metrics[id], v, `${s.model} ${id}`);
      assert.equal(s.protocol?.entries.profile?.choice, 'as-released');
    }
    // The cap bites: a "Zzz" sentence has PPL e^6 = 403, counted as 200.
    assert.ok(records.some((r) => r.sentenceInversePerplexity.some((v) => v !== null && 1 / v > 200)));
    // One baseline for both generators: the same passages, demonstrations, losses and key.
    const [good, poor] = [records.filter((r) => r.generator === 'good'), records.filter((r) => r.generator === 'poor')];
    for (const [i, r] of good.entries()) {
      const o = poor[i]!;
      assert.deepEqual(
        [r.helpfulness!.negatives, r.helpfulness!.demos, r.helpfulness!.baselineLosses],
        [o.helpfulness!.negatives, o.helpfulness!.demos, o.helpfulness!.baselineLosses],
      );
      assert.ok(r.helpfulness!.baseline?.startsWith('sha256:') && r.helpfulness!.baseline === o.helpfulness!.baseline);
    }
    assert.equal(summaries[0]!.protocol?.entries['helpfulness-baseline']?.choice, summaries[1]!.protocol?.entries['helpfulness-baseline']?.choice);
  });
});

describe("--equations: each table value is the text's equation", () => {
  it('Eq. 1 (vectors, min), Eq. 3 (mean of 1/PPL), Table 11 prefix, Eq. 6 with u = 5 of the same generator after Table 13', async () => {
    const { records, summaries, files } = await study({ equations: true });
    for (const [g, { items }] of files.entries()) {
      const s = summaries[g]!;
      const rs = records.filter((r) => r.generator === s.model);
      // Eq. 1: per sentence max_j by entailment, then the sentence with the lowest entailment; the label is the vector's largest part.
      const fact = items.map((k) =>
        sentencesOf(k.knowledge)
          .map((sent) => byEntailment(premisesOf(k.referenceKnowledge!).map((p) => nliOf(p, sent))))
          .reduce((lo, v) => (v[0] < lo[0] ? v : lo)),
      );
      const label = (v: readonly number[]): number => v.indexOf(Math.max(...v));
      const byId = new Map(items.map((k) => [k.id, k]));
      const t13 = (k: GeneratedKnowledge, passage: string): string => `Topic: ${k.topic}\nPassage: ${passage}\nQuery: ${k.query}\nAnswer:`;
      const own = items.map((k) => lossOf(t13(k, k.knowledge), ` ${k.goldAnswer}`));
      const base = items.map((k, i) => {
        const negatives = rs[i]!.helpfulness!.negatives;
        assert.equal(negatives.length, 5);
        assert.ok(!negatives.includes(k.id));
        return mean(negatives.map((id) => lossOf(t13(k, byId.get(id)!.knowledge), ` ${k.goldAnswer}`)));
      });
      const helpRaw = 1 - mean(own) / mean(base);
      const expected: Record<string, number> = {
        factuality: mean(fact.map((v) => v[0])),
        fact_consistent: fact.filter((v) => label(v) === 0).length / items.length,
        non_verified: fact.filter((v) => label(v) === 1).length / items.length,
        fact_inconsistent: fact.filter((v) => label(v) === 2).length / items.length,
        coherence_sentence: mean(items.map((k) => mean(sentencesOf(k.knowledge).map((sent) => Math.exp(-lossOf('', sent)))))),
        informativeness: mean(
          items.map(
            (k) =>
              1 -
              Math.exp(-lossOf(`Topic: ${k.topic}\nGenerate a Wikipedia to answer the given question.\nQuestion: ${k.query}\nWikipedia:`, ` ${k.knowledge}`)),
          ),
        ),
        helpfulness: Math.max(0, helpRaw),
        helpfulness_raw: helpRaw,
      };
      for (const [id, v] of Object.entries(expected)) close(s.metrics[id], v, `${s.model} ${id}`);
      assert.equal(s.protocol?.entries.profile?.choice, 'equations');
      assert.equal(s.protocol?.entries.profile?.status, 'approximation');
    }
  });
});

describe('one helpfulness baseline per data set', () => {
  it('compare warns when two runs divide by different baselines, and not when they share one', async () => {
    const a = await study({});
    const b = await study({}, 8);
    assert.deepEqual(
      answererWarnings(a.summaries).filter((w) => /baselines/.test(w)),
      [],
      'two generators, one baseline',
    );
    const mixed = [a.summaries[0]!, b.summaries[1]!];
    assert.notEqual(mixed[0]!.protocol?.entries['helpfulness-baseline']?.choice, mixed[1]!.protocol?.entries['helpfulness-baseline']?.choice);
    assert.ok(
      answererWarnings(mixed).some((w) => /helpfulness divides by different baselines/.test(w)),
      answererWarnings(mixed).join('\n'),
    );
  });
});
