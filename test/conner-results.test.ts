/**
 * CONNER results through the method seam: the v2 summary per generator and setting (hand-checked
 * numbers on scripted records, a JSON round trip through the summary loader), the refusal of the
 * old one-file summary, `llmkb compare` (the paper's table, paired differences on shared
 * queries, from the files `llmkb conner score --out` writes) and the report's CONNER section.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compareRuns } from '../src/analysis/compare-methods.js';
import { connerRunSummaries } from '../src/methods/conner/summary/conner-summary.js';
import type { ScoredKnowledge } from '../src/methods/conner/scoring/score-knowledge.js';
import { loadSummary } from '../src/methods/load-summary.js';
import { renderReport } from '../src/report/html-report.js';
import { CONNER_FIXTURE_RUN, CONNER_HOSTILE, connerRecord, connerRecords, writeConnerResults } from './support/conner-fixture.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

/** Four items with scores chosen by hand. */
function scripted(): ScoredKnowledge[] {
  const labels = ['factual-consistent', 'factual-consistent', 'non-verified', 'factual-inconsistent'] as const;
  const relevance = [0.2, 0.4, 0.6, null];
  return labels.map((label, i) => {
    const r = connerRecord(i, 'gen-a', 0.5);
    r.scores = { ...r.scores, factualityLabel: label, factuality: [0.9, 0.7, 0.3, 0.1][i]!, relevance: relevance[i]!, validity: [1, 0, 1, 1][i]! };
    return r;
  });
}

describe('CONNER summary v2', () => {
  it('one summary per generator and setting: means, shares, counts, CIs, scorers and protocol; a JSON round trip through the loader', () => {
    const records = [...scripted(), connerRecord(0, 'gen-a', 0.5, { setting: 'few-shot' })];
    const summaries = connerRunSummaries(records, { resamples: 200, seed: 1, run: CONNER_FIXTURE_RUN, datasets: () => ({ 'k.jsonl': 'ab'.repeat(32) }) });
    assert.deepEqual(
      summaries.map((s) => [s.model, s.setting, s.counts.items]),
      [
        ['gen-a', 'zero-shot', 4],
        ['gen-a', 'few-shot', 1],
      ],
    );
    const s = summaries[0]!;
    assert.equal(s.schema, 'llmkb-summary-v2');
    assert.deepEqual(s.method, { id: 'conner', version: '2' });
    // Hand-checked: 2 of 4 consistent, 1 non-verified, 1 inconsistent; factuality (0.9+0.7+0.3+0.1)/4;
    // relevance over the 3 items that have one; validity 3 of 4.
    assert.equal(s.metrics.fact_consistent, 0.5);
    assert.equal(s.metrics.non_verified, 0.25);
    assert.equal(s.metrics.fact_inconsistent, 0.25);
    assert.ok(Math.abs(s.metrics.factuality! - 0.5) < 1e-12);
    assert.ok(Math.abs(s.metrics.relevance! - 0.4) < 1e-12);
    assert.equal(s.metrics.validity, 0.75);
    assert.equal(s.counts.relevance, 3, 'relevance is defined for 3 items');
    const [lo, hi] = s.intervals.relevance!;
    assert.ok(lo >= 0.2 && hi <= 0.6 && lo <= 0.4 && 0.4 <= hi, `${lo} ${hi}`);
    assert.deepEqual(s.bootstrap, { resamples: 200, seed: 1, confidence: 0.95 });
    assert.deepEqual(s.metricDefs.map((d) => d.id).slice(0, 4), ['factuality', 'fact_consistent', 'non_verified', 'fact_inconsistent']);
    const b = s.breakdowns as { task: string; scorers: Record<string, string>; factualityLabels: Record<string, number> };
    assert.equal(b.task, 'qa');
    assert.equal(b.scorers.relevance, 'mock:ranker');
    assert.deepEqual(b.factualityLabels, { 'factual-consistent': 2, 'non-verified': 1, 'factual-inconsistent': 1 });
    // The protocol notes: departures are approximations, decisions keep the paper's protocol.
    assert.equal(s.protocol!.entries['coherence-paragraph']!.status, 'approximation');
    assert.equal(s.protocol!.entries['nli-window']!.status, 'paper');
    assert.match(s.protocol!.entries.sentences!.note!, /\(Intl\.Segmenter\) with abbreviations and initials kept whole/);
    assert.equal(s.approximate, true, 'a departure marks the run approximate');
    assert.deepEqual(s.datasetChecksums, { 'k.jsonl': 'ab'.repeat(32) });
    const file = join(tempDir('llmkb-conner-v2-'), 'gen-a.zero-shot.summary.json');
    writeFileSync(file, JSON.stringify(s));
    assert.deepEqual(loadSummary(JSON.parse(readFileSync(file, 'utf8')), file), JSON.parse(JSON.stringify(s)));
    assert.deepEqual(
      connerRunSummaries(records, { resamples: 200, seed: 1, run: CONNER_FIXTURE_RUN }).map((x) => x.intervals),
      summaries.map((x) => x.intervals),
      'seeded',
    );
  });

  it('the factuality label counts are the counts behind the shares: sentences under the sentence-label rule with mean, items otherwise', () => {
    // Item 0: three sentences, two consistent; item 1: one sentence, inconsistent; item 2: not scored.
    const nli = { c: [0.9, 0.05, 0.05], n: [0.1, 0.8, 0.1], x: [0.05, 0.05, 0.9] } as const;
    const records = [['c', 'c', 'n'], ['x'], []].map((vs, i) => {
      const r = connerRecord(i, 'gen-a', 0.5);
      r.sentences = vs.map((v, k) => ({ sentence: `S${k}.`, nli: [...nli[v as keyof typeof nli]] as [number, number, number], candidates: 1 }));
      r.scores = { ...r.scores, factualityLabel: i === 2 ? null : i === 0 ? 'factual-consistent' : 'factual-inconsistent' };
      return r;
    });
    const run = (aggregation: 'mean' | 'min') => ({
      ...CONNER_FIXTURE_RUN,
      choices: { ...CONNER_FIXTURE_RUN.choices, factualityRule: 'labels' as const, aggregation },
    });
    const [mean] = connerRunSummaries(records, { resamples: 10, seed: 0, run: run('mean') });
    const b = mean!.breakdowns as { factualityLabels: Record<string, number>; factualityLabelsUnit: string };
    assert.equal(b.factualityLabelsUnit, 'sentences');
    assert.deepEqual(b.factualityLabels, { 'factual-consistent': 2, 'non-verified': 1, 'factual-inconsistent': 1, '(items not scored)': 1 });
    const counted = (l: string) => b.factualityLabels[l]! / 4;
    assert.deepEqual(
      [mean!.metrics.fact_consistent, mean!.metrics.non_verified, mean!.metrics.fact_inconsistent],
      [counted('factual-consistent'), counted('non-verified'), counted('factual-inconsistent')],
    );
    const [min] = connerRunSummaries(records, { resamples: 10, seed: 0, run: run('min') });
    const m = min!.breakdowns as { factualityLabels: Record<string, number>; factualityLabelsUnit: string };
    assert.equal(m.factualityLabelsUnit, 'items');
    assert.deepEqual(m.factualityLabels, { 'factual-consistent': 1, 'factual-inconsistent': 1, '(not scored)': 1 });
    assert.deepEqual([min!.metrics.fact_consistent, min!.metrics.fact_inconsistent], [0.5, 0.5]);
  });
});

describe('CONNER in compare and report', () => {
  const records = connerRecords(
    40,
    [
      ['gen-a', 0.8],
      ['gen-b', 0.4],
    ],
    { hostile: true },
  );
  const summaries = connerRunSummaries(records, { resamples: 200, seed: 0, run: CONNER_FIXTURE_RUN });
  const runs = summaries.map((summary) => ({
    summary,
    records: records.filter((r) => r.generator === summary.model),
    source: `${summary.model}.summary.json`,
  }));

  it("compare: the paper's table with CIs and the best run in bold; paired differences on the shared queries", async () => {
    const out = await compareRuns(runs, { resamples: 300, seed: 5 });
    assert.match(out.markdown, /## CONNER: automatic evaluation, open-domain QA \(the paper's Table 2: Natural Questions\)/);
    assert.match(
      out.markdown,
      /\| Model \| Setting \| n \| Fact-cons\. ↑ \| Non-verif\. ↓ \| Fact-incon\. ↓ \| Relevance ↑ \| Coh-sent\. ↑ \| Coh-para\. ↑ \| Inform\. ↑ \| Helpful\. ↑ \| Helpful\. raw ↑ \| Validity ↑ \|/,
    );
    const a = summaries[0]!;
    const b = summaries[1]!;
    const pct = (v: number) => `${(100 * v).toFixed(2)}%`;
    // The evidence (gold knowledge, not retrieval) is a departure of the factuality columns: marked.
    assert.ok(out.markdown.includes(`| gen-a | zero-shot | 40 | **${pct(a.metrics.fact_consistent!)} ≈ [`), 'gen-a has more consistent knowledge: bold');
    assert.ok(out.markdown.includes(`| gen-b | zero-shot | 40 | ${pct(b.metrics.fact_consistent!)} ≈ [`));
    assert.match(out.markdown, /- Fact-cons\.: evidence, sentences\n/);
    const paired = (
      out.analysis as {
        pairedDifferences: Record<
          string,
          Array<{ metric: string; difference: number; interval: [number, number] | null; questions: number; p: number | null }>
        >;
      }
    ).pairedDifferences;
    assert.equal(paired.qa!.length, 10, 'one per column of the paper table');
    // Every query is shared and defined in both: the mean of the differences is the difference of the means.
    const fc = paired.qa!.find((p) => p.metric === 'fact_consistent')!;
    assert.equal(fc.questions, 40);
    assert.ok(Math.abs(fc.difference - (a.metrics.fact_consistent! - b.metrics.fact_consistent!)) < 1e-12);
    assert.ok(fc.interval![0] <= fc.difference && fc.difference <= fc.interval![1]);
    assert.ok(fc.p! < 0.05, 'gen-a is clearly more often consistent');
    const validity = paired.qa!.find((p) => p.metric === 'validity')!;
    assert.deepEqual([validity.difference, validity.interval, validity.p], [0, [0, 0], 1], 'the same validity for both: no difference');
    assert.match(out.markdown, /## CONNER: paired differences on shared queries, open-domain QA/);
    assert.match(out.markdown, /\| gen-a \(zero-shot\) vs gen-b \(zero-shot\) \| Fact-cons\. \| \+\d+\.\d\d% \*/);
    assert.ok(out.files['conner-qa.csv']!.startsWith('Model,Setting,n,'));
    // Without records: the table, and why there are no paired differences.
    const bare = await compareRuns(
      runs.map((r) => ({ summary: r.summary, source: r.source })),
      { resamples: 100, seed: 5 },
    );
    assert.match(bare.markdown, /Paired differences: none/);
  });

  it("report: the paper's table with grouped headers and CIs, a chart per metric, paired differences, examples per factuality label (escaped)", async () => {
    const html = await renderReport(summaries, { records: runs.map((r) => r.records) });
    assert.match(html, /<title>llmkb report: quality of LLM-generated knowledge \(CONNER\)<\/title>/);
    assert.match(html, /<th class="group first" colspan="3" scope="colgroup">Factuality<\/th>/);
    assert.match(html, /<th class="group first" colspan="2" scope="colgroup">Coherence<\/th>/);
    assert.ok((html.match(/<figure class="chart">/g) ?? []).length >= 9, 'a chart per metric');
    assert.match(html, /Paired differences on shared queries/);
    assert.match(html, /Example knowledge per factuality label/);
    assert.ok(!html.includes(CONNER_HOSTILE) && !html.includes('<script>window'), 'model text is escaped');
    assert.match(html, /Departures from the paper's protocol/);
    assert.match(html, /Scorers/);
  });

  it('llmkb compare reads the files of `conner score --out` (records beside the summaries); an old summary exits with the usage code and a hint', async () => {
    const dir = tempDir('llmkb-conner-compare-');
    writeConnerResults(dir, connerRecords(12));
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.summary.json'))
      .sort()
      .map((f) => join(dir, f));
    assert.deepEqual(
      files.map((f) => f.slice(dir.length + 1)),
      ['gen-a.zero-shot.summary.json', 'gen-b.zero-shot.summary.json'],
    );
    const res = await llmkb(['compare', ...files, '--resamples', '200']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /CONNER: automatic evaluation/);
    assert.match(res.stdout, /gen-a \(zero-shot\) vs gen-b \(zero-shot\)/);
    // The records files name the same runs (read through the summaries beside them).
    const viaRecords = await llmkb(['compare', ...files.map((f) => f.replace(/\.summary\.json$/, '.records.jsonl')), '--resamples', '200']);
    assert.equal(viaRecords.code, 0, viaRecords.stderr);
    assert.equal(viaRecords.stdout, res.stdout);
    // Records whose summary is gone: named, with what to give instead (not a reliability schema error).
    rmSync(files[1]!);
    const alone = await llmkb(['compare', files[1]!.replace(/\.summary\.json$/, '.records.jsonl')]);
    assert.equal(alone.code, 2, alone.stderr);
    assert.match(alone.stderr, /gen-b\.zero-shot\.records\.jsonl.*CONNER records with no summary beside them/);
    assert.match(alone.stderr, /conner score --out DIR/);
    assert.doesNotMatch(alone.stderr, /correct|at \w+ \(/, 'no reliability field error, no stack trace');
  });

  it("each scorer model is a departure (a stand-in for the paper's Table 14 model) the report's departures box lists; compare and report warn when runs used different scorer models", async () => {
    const models = (nli: string) => ({
      ...CONNER_FIXTURE_RUN,
      models: { nli, relevance: 'tei:ranker', scorer: 'gguf:stories260K', coherence: 'tei:coh' },
      coherenceScorer: 'tei:coh',
    });
    const [a] = connerRunSummaries(
      records.filter((r) => r.generator === 'gen-a'),
      { resamples: 20, seed: 0, run: models('tei:nli-one') },
    );
    const [b] = connerRunSummaries(
      records.filter((r) => r.generator === 'gen-b'),
      { resamples: 20, seed: 0, run: models('tei:nli-two') },
    );
    for (const [id, model, paper] of [
      ['nli-model', 'tei:nli-one', 'NLI-RoBERTa-large'],
      ['relevance-model', 'tei:ranker', 'two-logit monoBERT'],
      ['scorer-model', 'gguf:stories260K', 'GPT-Neo-2.7B'],
      ['coherence-model', 'tei:coh', 'Coherence-Momentum'],
    ] as const) {
      const e = a!.protocol!.entries[id]!;
      assert.deepEqual([e.status, e.choice], ['approximation', model], id);
      assert.match(e.note!, new RegExp(`a stand-in for the paper's ${paper}`));
    }
    const html = await renderReport([a!, b!]);
    assert.match(html, /Approximate: 2 run\(s\) computed some columns otherwise than the paper&#39;s tables, given the scorers named/);
    assert.match(
      html,
      /NLI model \(Eq\. 1, 7-8\): tei:nli-one — factuality \(Eq\. 1\) and validity \(Eq\. 7-8\) scored by tei:nli-one, a stand-in for the paper&#39;s NLI-RoBERTa-large/,
    );
    assert.match(html, /differ in protocol:.*NLI model \(Eq\. 1, 7-8\): tei:nli-one \(gen-a \(zero-shot\)\) vs tei:nli-two \(gen-b \(zero-shot\)\)/s);
    const out = await compareRuns(
      [
        { summary: a!, source: 'a' },
        { summary: b!, source: 'b' },
      ],
      { resamples: 50, seed: 5 },
    );
    assert.match(
      out.markdown,
      /\*\*Warning:\*\* open-domain QA .*: the runs were scored by different NLI models \(tei:nli-one: gen-a \(zero-shot\); tei:nli-two: gen-b \(zero-shot\)\), so factuality and validity compare the scorers too: score every run with the same --nli/,
    );
    assert.doesNotMatch(
      out.markdown,
      /different relevance models|different reference language models|different paragraph-coherence models/,
      'the models they share are not warned about',
    );
  });
});
