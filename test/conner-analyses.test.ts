/**
 * The paper's analyses of CONNER runs against hand computations: Somers' D (the quadratic form,
 * the O(n log n) form and scipy's value), D between intrinsic and extrinsic metrics (Tables 5, 6,
 * 15), Fig. 2a by pageviews and Fig. 2b by sentence count, Table 10's baselines, Table 8's pairing
 * of a greedy and a selected run, Table 16's layout, the per-column "as the paper's tables"
 * verdicts, and two tasks kept apart in compare and report (tables, paired differences, charts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareRuns } from '../src/analysis/compare-methods.js';
import { table16, table8 } from '../src/methods/conner/across-runs/analysis-tables.js';
import { metricSpec as metricSpecOf } from '../src/methods/conner/across-runs/report-sections.js';
import type { ScoredKnowledge } from '../src/methods/conner/scoring/score-knowledge.js';
import { baselineMeans, baselineValue, intrinsicExtrinsicSomers, longForm, longTail, parsePageviews, tokenF1 } from '../src/methods/conner/summary/analyses.js';
import { connerRunSummaries, formatConnerRuns } from '../src/methods/conner/summary/conner-summary.js';
import { paperColumns } from '../src/methods/conner/summary/paper-columns.js';
import { somersD, somersDSorted, somersTest } from '../src/methods/conner/summary/somers-d.js';
import type { MethodSummary } from '../src/methods/method-summary.js';
import { renderReport } from '../src/report/html-report.js';
import { SeededRandom } from '../src/sampling/seeded-random.js';
import { CONNER_FIXTURE_RUN, connerRecord, connerRecords } from './support/conner-fixture.js';

const close = (a: number | null | undefined, b: number, eps = 1e-12): boolean => typeof a === 'number' && Math.abs(a - b) < eps;

describe("Somers' D", () => {
  it('by hand: D(Y|X) = (C - D) / pairs untied on X; the sorted form agrees with the pairwise one; scipy gives the same', () => {
    // x = [1, 2, 2, 3], y = [0.1, 0.3, 0.2, 0.2]. Pairs untied on X: (1,2) (1,3) (1,4) (2,4) (3,4) = 5
    // ((2,3) ties on X). Concordant: (1,2) (1,3) (1,4); discordant: (2,4); tied on Y: (3,4). D = (3 - 1) / 5.
    assert.equal(somersD([1, 2, 2, 3], [0.1, 0.3, 0.2, 0.2]), 0.4);
    assert.equal(somersDSorted([1, 2, 2, 3], [0.1, 0.3, 0.2, 0.2]), 0.4);
    // scipy.stats.somersd([0,1,2,2,1,0,2,1], [0.1,0.5,0.4,0.9,0.5,0.3,0.2,0.7]).statistic = 0.3333333333333333
    assert.ok(close(somersDSorted([0, 1, 2, 2, 1, 0, 2, 1], [0.1, 0.5, 0.4, 0.9, 0.5, 0.3, 0.2, 0.7]), 1 / 3));
    assert.equal(somersDSorted([1, 1, 1], [0.1, 0.2, 0.3]), null, 'every pair tied on X: undefined');
    const rng = SeededRandom.stream(7, 'somers-check');
    for (let t = 0; t < 100; t++) {
      const n = rng.int(2, 30);
      const x = Array.from({ length: n }, () => rng.int(0, 3));
      const y = Array.from({ length: n }, () => rng.int(0, 4) / 4);
      const a = somersD(x, y);
      const b = somersDSorted(x, y);
      assert.ok(a === null ? b === null : close(b, a), `${JSON.stringify([x, y])}: ${a} vs ${b}`);
    }
    const r = somersTest([1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], 999, 1);
    assert.equal(r.d, 1);
    assert.ok(r.pValue! < 0.05, 'a perfect order is significant');
  });
});

/** Records with chosen per-item scores. */
function scored(values: ReadonlyArray<Partial<ScoredKnowledge['scores']> & { topic?: string; knowledge?: string; sentences?: number }>): ScoredKnowledge[] {
  return values.map((v, i) => {
    const r = connerRecord(i, 'gen-a', 0.5);
    const { topic, knowledge, sentences, ...scores } = v;
    r.scores = { ...r.scores, ...scores };
    if (topic !== undefined) r.topic = topic;
    if (knowledge !== undefined) r.knowledge = knowledge;
    if (sentences !== undefined)
      r.sentences = Array.from({ length: sentences }, (_, k) => ({
        sentence: `S${k}.`,
        nli: [0.5, 0.5, 0] as [number, number, number],
        candidates: 1,
        evidence: { source: 'reference', text: 'e' },
      }));
    return r;
  });
}

describe("the paper's analyses from records", () => {
  it('Tables 5/6/15: D(extrinsic | intrinsic) per pair, by hand', () => {
    // relevance = x, validity = y: x [0.1, 0.2, 0.3, 0.4], y [0, 1, 0, 1]: untied on X 6 pairs;
    // concordant (1,2) (1,4) (3,4); discordant (2,3); tied on Y (1,3) (2,4): D = (3 - 1) / 6.
    const records = scored([0.1, 0.2, 0.3, 0.4].map((rel, i) => ({ relevance: rel, validity: [0, 1, 0, 1][i]!, helpfulnessRaw: [0.4, 0.3, 0.2, 0.1][i]! })));
    const d = intrinsicExtrinsicSomers(records, { permutations: 0, seed: 1 });
    assert.ok(close(d.validity.relevance!.d, 2 / 6));
    assert.equal(d.helpfulness_raw.relevance!.d, -1, 'helpfulness falls as relevance rises');
    assert.equal(d.validity.relevance!.n, 4);
    const some = scored([
      { relevance: 0.1, validity: 1 },
      { relevance: null, validity: 0 },
      { relevance: 0.3, validity: 0 },
    ]);
    assert.equal(intrinsicExtrinsicSomers(some, { permutations: 0, seed: 1 }).validity.relevance, null, 'fewer than 3 items with both values');
  });

  it('Fig. 2a: items by the decade of their pageviews, the mean of each part; Fig. 2b: knowledge over 40 words by sentence count', () => {
    const records = scored([
      { topic: 'A', factualConsistent: 0.8, nonVerified: 0.2, factualInconsistent: 0 },
      { topic: 'B', factualConsistent: 0.4, nonVerified: 0.4, factualInconsistent: 0.2 },
      { topic: 'C', factualConsistent: 0.1, nonVerified: 0.3, factualInconsistent: 0.6 },
      { topic: 'D', factualConsistent: 0.5, nonVerified: 0.5, factualInconsistent: 0 },
    ]);
    const views = parsePageviews('A\t5075804\nB\t2617070\nC\t9000\nA\t5075804\n', 'p.txt', (line, m) => new Error(`${line}: ${m}`));
    const t = longTail(records, views);
    assert.equal(t.withoutViews, 1, 'D has no pageviews');
    assert.deepEqual(
      t.bins.map((b) => [b.bin, b.n]),
      [
        ['10^3-10^4', 1],
        ['10^6-10^7', 2],
      ],
    );
    assert.ok(close(t.bins[1]!.consistent, 0.6) && close(t.bins[1]!.nonVerified, 0.3) && close(t.bins[1]!.inconsistent, 0.1));
    assert.throws(
      () => parsePageviews('A\t12\nA\t13\n', 'p.txt', (line, m) => new Error(`${line}: ${m}`)),
      /^Error: 2: topic "A" has 13 pageviews here and 12/,
    );
    assert.throws(() => parsePageviews('A 12\n', 'p.txt', (line, m) => new Error(`${line}: ${m}`)), /^Error: 1: .*not a topic, a tab and a whole number/);

    const long = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    const forms = scored([
      { knowledge: long(41), sentences: 1, factualConsistent: 1, nonVerified: 0, factualInconsistent: 0 },
      { knowledge: long(50), sentences: 3, factualConsistent: 0.2, nonVerified: 0.8, factualInconsistent: 0 },
      { knowledge: long(60), sentences: 7, factualConsistent: 0, nonVerified: 0, factualInconsistent: 1 },
      { knowledge: long(40), sentences: 2, factualConsistent: 1, nonVerified: 0, factualInconsistent: 0 },
    ]);
    const f = longForm(forms);
    assert.equal(f.shorter, 1, '40 words is not over 40');
    assert.deepEqual(
      f.bins.map((b) => [b.bin, b.n, b.consistent, b.inconsistent]),
      [
        ['1', 1, 1, 0],
        ['3', 1, 0.2, 0],
        ['5+', 1, 0, 1],
      ],
    );
  });

  it("Table 10's baselines by hand: knowledge F1, EM and F1 of the answer, the entailment ratio", () => {
    // "the Amazon river is long" vs "Amazon is a long river": normalised tokens [amazon river is long] and
    // [amazon is long river]: 4 shared of 4 and 4: F1 1; "Paris France" vs "Paris": P 1/2, R 1: F1 2/3.
    assert.equal(tokenF1('the Amazon river is long', 'Amazon is a long river'), 1);
    assert.ok(close(tokenF1('Paris France', 'Paris'), 2 / 3));
    const [r] = scored([{}]);
    r!.referenceKnowledge = 'Gallbladder is an organ. It stores bile.';
    r!.knowledge = 'The gallbladder stores bile.';
    r!.answer = 'The Bile';
    r!.goldAnswer = 'bile';
    r!.sentences = [
      { sentence: 'a', nli: [0.9, 0.1, 0], candidates: 2, evidence: { source: 'reference, sentence 2', text: 'It stores bile.' } },
      { sentence: 'b', nli: [0.3, 0.6, 0.1], candidates: 2, evidence: { source: 'reference', text: '...' } },
    ];
    // knowledge [gallbladder stores bile] vs reference [gallbladder is organ it stores bile]: 3 shared; P 1, R 1/2: F1 2/3.
    assert.ok(close(baselineValue(r!, 'knowledge_f1'), 2 / 3));
    assert.equal(baselineValue(r!, 'answer_em'), 1);
    assert.equal(baselineValue(r!, 'answer_f1'), 1);
    assert.ok(close(baselineValue(r!, 'entailment_ratio'), 0.6));
    r!.sentences[1]!.evidence = { source: 'corpus:wiki/7', text: '...' };
    assert.equal(baselineValue(r!, 'entailment_ratio'), null, 'a retrieved premise: not reference-reliant');
    const means = baselineMeans([r!, { ...r!, referenceKnowledge: undefined as unknown as string, answer: 'Lyon', goldAnswer: 'bile' }]);
    assert.deepEqual([means.answer_em, means.knowledge_f1.n], [{ mean: 0.5, n: 2 }, 1]);
  });

  it("Table 8 pairs a generator's greedy run with its best-of selection; Table 16 as fractions to 3 decimals", () => {
    const greedy = connerRecords(6, [['gen-a', 0.3]]);
    const selected = connerRecords(6, [['gen-a', 0.8]]).map((r) => ({ ...r, setting: 'best-of 5 (top-p 0.9, T 1; zero-shot)' }));
    const other = connerRecords(6, [['gen-b', 0.5]]);
    const summaries = connerRunSummaries([...greedy, ...selected, ...other], { resamples: 0, seed: 0, run: CONNER_FIXTURE_RUN });
    const t8 = table8(summaries)!;
    assert.deepEqual(
      t8.rows.map((r) => [r[0], r[1]]),
      [
        ['gen-a', 'zero-shot'],
        ['gen-a', 'best-of 5 (top-p 0.9, T 1; zero-shot)'],
      ],
      'gen-b has no selection: not in Table 8',
    );
    const [g, s] = [summaries[0]!, summaries[1]!];
    assert.equal(t8.rows[1]![3], s.metrics.helpfulness!.toFixed(3));
    assert.equal(t8.rows[1]![6], `${(100 * (s.metrics.helpfulness! / g.metrics.helpfulness! - 1)).toFixed(2)}%`);
    assert.equal(table8([g, summaries[2]!]), undefined, 'no selection: no table');
    // The fixture gives every item the baseline losses [2.9, 3.1]: the same baseline; another loss: not.
    const withRecords = table8(
      summaries,
      new Map([
        [g, greedy],
        [s, selected],
      ]),
    )!;
    assert.equal(withRecords.rows[1]![7], 'the same');
    const moved = selected.map((r, i) => (i === 0 ? { ...r, helpfulness: { ...r.helpfulness!, baselineLosses: [2.9, 3.2] } } : r));
    assert.equal(
      table8(
        summaries,
        new Map([
          [g, greedy],
          [s, moved],
        ]),
      )!.rows[1]![7],
      'differ',
    );
    assert.equal(t8.rows[1]![7], 'records not given');
    const t16 = table16(summaries);
    assert.deepEqual(t16.header, ['Model', 'Setting', 'n', 'Fact.', 'Rel.', 'Coh.', 'Info', 'Help.', 'Val.']);
    const row = t16.rows[0]!;
    assert.deepEqual(
      row.slice(3),
      [
        g.metrics.fact_consistent!,
        g.metrics.relevance!,
        g.metrics.coherence_paragraph!,
        g.metrics.informativeness!,
        g.metrics.helpfulness_raw!,
        g.metrics.validity!,
      ].map((v) => v.toFixed(3)),
    );
  });
});

describe("each column as the paper's tables or not", () => {
  const entry = (choice: string, status: 'paper' | 'approximation') => ({ choice, status });
  const summary = (
    entries: Record<string, { choice: string; status: 'paper' | 'approximation' }>,
    task = 'qa',
  ): Pick<MethodSummary, 'protocol' | 'breakdowns'> => ({
    protocol: { schema: 'x', entries, datasets: {}, seed: 0 } as MethodSummary['protocol'],
    breakdowns: { task },
  });

  it('a departure marks the columns it decides; stand-in scorers do not; a generator answering itself does; an entry no column claims marks every column', () => {
    const base = {
      'factuality-rule': entry('labels', 'paper'),
      'nli-model': entry('tei:nli', 'approximation'),
      answerer: entry('gguf:llama', 'approximation'),
      'coherence-paragraph': entry('sigmoid', 'approximation'),
    };
    const c = paperColumns(summary(base));
    assert.equal(c.fact_consistent!.asPaper, true, 'a stand-in NLI model does not mark factuality');
    assert.equal(c.validity!.asPaper, true);
    assert.deepEqual(c.coherence_paragraph, { asPaper: false, departures: ['coherence-paragraph'] });
    const self = paperColumns(summary({ ...base, answerer: entry('the generator (gguf:x)', 'approximation') }));
    assert.deepEqual([self.helpfulness!.asPaper, self.helpfulness_raw!.asPaper, self.validity!.asPaper, self.relevance!.asPaper], [false, false, false, true]);
    const unscored = paperColumns(summary({ ...base, 'unscored-relevance': entry('not scored', 'approximation') }));
    assert.deepEqual([unscored.relevance!.asPaper, unscored.fact_consistent!.asPaper], [false, true], 'an unscored metric is its own column only');
    const limited = paperColumns(summary({ ...base, limit: entry('sample of 3', 'approximation') }));
    assert.ok(Object.values(limited).every((v) => !v.asPaper && v.departures.includes('limit')));
    // Dialogue-only entries count for dialogue runs only.
    const dq = { ...base, 'dialogue-query': entry('dialogue history', 'approximation') };
    assert.equal(paperColumns(summary(dq)).relevance!.asPaper, true);
    assert.deepEqual(paperColumns(summary(dq, 'dialogue')).relevance!.departures, ['dialogue-query']);
  });
});

describe('two tasks are never stacked', () => {
  const nq = connerRecords(12, [
    ['gen-a', 0.8],
    ['gen-b', 0.4],
  ]);
  const wow = connerRecords(12, [
    ['gen-a', 0.7],
    ['gen-b', 0.3],
  ]).map((r) => ({ ...r, task: 'dialogue' as const, id: r.id.replace('nq:', 'wow:') }));
  // As a study writes them: each task's runs scored apart.
  const summaries = [nq, wow].flatMap((records) => connerRunSummaries(records, { resamples: 50, seed: 0, run: CONNER_FIXTURE_RUN }));
  const runs = summaries.map((summary) => ({
    summary,
    records: [...nq, ...wow].filter((r) => r.generator === summary.model && r.task === (summary.breakdowns as { task: string }).task),
    source: 'x',
  }));

  it('compare: a table, paired differences and analyses per task; conner-paired.md has a section per task; the CSV has helpfulness_raw', async () => {
    assert.equal(summaries.length, 4);
    const out = await compareRuns(runs, { resamples: 100, seed: 1 });
    assert.match(out.markdown, /## CONNER: automatic evaluation, open-domain QA/);
    assert.match(out.markdown, /## CONNER: automatic evaluation, knowledge-grounded dialogue/);
    assert.match(out.markdown, /## CONNER: paired differences on shared queries, open-domain QA/);
    assert.match(out.markdown, /## CONNER: paired differences on shared queries, knowledge-grounded dialogue/);
    const paired = out.files['conner-paired.md']!;
    assert.equal((paired.match(/^## /gm) ?? []).length, 2, 'one section per task');
    assert.equal((paired.match(/gen-a \(zero-shot\) vs gen-b \(zero-shot\) \| Fact-cons\./g) ?? []).length, 2, 'each pair once per task');
    assert.ok(out.files['conner-paired.csv']!.startsWith('task,A vs B,'));
    assert.match(out.files['conner-qa.csv']!.split('\n')[0]!, /Helpful\. raw ↑,Validity ↑,computed otherwise than the paper \(protocol entries\)$/);
    assert.match(
      out.files['conner-qa.csv']!.split('\n')[1]!,
      /≈ \[.*\]","Fact-cons\.: evidence, sentences; Non-verif\.: evidence, sentences; Fact-incon\.: evidence, sentences; Coh-sent\.: sentences; Coh-para\.: coherence-paragraph; Inform\.: informativeness-tokens; Validity: validity-pair, empty-answer"$/,
    );
    assert.match(out.files['conner-dialogue-table16.md']!, /\| gen-a \| zero-shot \| 12 \|/);
    assert.match(out.markdown, /### Somers' D between intrinsic and extrinsic metrics \(Tables 5, 6, 15\), open-domain QA/);
    assert.match(out.markdown, /all 2 runs pooled/);
    // The QA table holds the QA runs only.
    const qaRows = out.files['conner-qa.csv']!.trim().split('\n').slice(1);
    assert.equal(qaRows.length, 2);
  });

  it('report: charts per task, bars not stacked (every bar is one run of one task, within [0, 1])', async () => {
    const html = await renderReport(summaries, { records: runs.map((r) => r.records) });
    for (const re of [
      /Each metric across runs, open-domain QA/,
      /Each metric across runs, knowledge-grounded dialogue/,
      /Inform\. \(Eq\. 5\), open-domain QA/,
      /Inform\. \(Eq\. 5\), knowledge-grounded dialogue/,
    ])
      assert.ok(re.test(html), String(re));
    // One chart's bars: the runs of its task only, each within the metric's range.
    const spec = metricSpecOf(
      summaries.filter((s) => (s.breakdowns as { task: string }).task === 'qa'),
      'informativeness',
    ) as unknown as { data: { values: Array<{ run: string; value: number }> }; layer: Array<{ encoding: { x: { stack?: null } } }> };
    assert.deepEqual(
      spec.data.values.map((v) => v.run),
      ['gen-a (zero-shot)', 'gen-b (zero-shot)'],
    );
    assert.ok(spec.data.values.every((v) => v.value >= 0 && v.value <= 1));
    assert.equal(spec.layer[0]!.encoding.x.stack, null, 'bars are never stacked');
  });

  it('the terminal table: one table per task; Fact-cons. first, the mean S_fact named so; the columns computed otherwise listed', () => {
    const text = formatConnerRuns(summaries);
    assert.match(
      text,
      /^open-domain QA \(Table 2: Natural Questions\):\nModel +Setting +n +Fact-cons\. +Non-verif\. +Fact-incon\. +Relevance +Coh-sent\. +Coh-para\. +Inform\. +Helpful\. +Helpful\. raw +Validity +S_fact\n/,
    );
    assert.match(text, /\n\nknowledge-grounded dialogue \(Table 3: Wizard of Wikipedia\):\nModel/);
    assert.doesNotMatch(text, /\bFact\. /);
    assert.match(text, /≈: computed otherwise than the paper's tables[^\n]*:\n {2}Fact-cons\.: evidence, sentences\n/);
  });
});
