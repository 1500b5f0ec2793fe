/**
 * Issue 35's numbers, each where it is made: Figure 10's cells, by-source C_wrong and a source's
 * kind, paired tests on small samples (n stated, no star below MIN_PAIRED_N, no p of 0, p
 * two-sided), MCQs with fewer than 5 options as a recorded departure, the answer-mode check's
 * line, and `merge` carrying the records files.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { compareRuns } from '../src/analysis/compare-methods.js';
import { formatAnalyticP, formatResampledP, MIN_PAIRED_N, significanceStar } from '../src/methods/significance-format.js';
import { pairedBootstrap, pairedBootstrapPairwise } from '../src/methods/reliability/across-runs/paired-bootstrap.js';
import { effectFigures } from '../src/methods/reliability/across-runs/effect-figures.js';
import { runDetails } from '../src/methods/reliability/across-runs/run-details.js';
import { PairedResampler } from '../src/methods/reliability/across-runs/significance.js';
import { modeAgreementLine } from '../src/methods/reliability/consistency/mode-agreement.js';
import { formatSummary, summarizeRun, type ScoredRecord } from '../src/methods/reliability/metrics/summarize-run.js';
import { buildProtocol, departures } from '../src/methods/reliability/protocol.js';
import { renderSvg } from '../src/methods/render-svg.js';
import { connerRecords } from './support/conner-fixture.js';
import { llmkb } from './support/run-cli.js';
import { svgMarks } from './support/svg-marks.js';
import { tempDir } from './support/temp-dir.js';

const temp: string[] = [];
after(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

function rec(
  id: string,
  dataset: 'seen' | 'unseen',
  source: string,
  label: ScoredRecord['label'],
  consistency: number | null = null,
  extra: Partial<ScoredRecord> = {},
): ScoredRecord {
  return { id, dataset, source, answerType: 'person', label, uninformativeType: label === 'uninformative' ? 'unsure' : null, consistency, ...extra };
}

describe('Figure 10: in-context learning by size and type', () => {
  it("draws docs/sweep.md's base model (guesser, 1B) in the base row and the small column, the fine-tuned one (cautious, 7B) in fine-tuned / medium", async () => {
    // The study's two models in two settings: guesser answers "Paris" to everything, cautious declines everything.
    const guesser = Array.from({ length: 20 }, (_, i) => rec(`q${i}`, i < 10 ? 'seen' : 'unseen', i < 10 ? 'nq' : 'T1', 'wrong', 0.25));
    const cautious = Array.from({ length: 20 }, (_, i) => rec(`q${i}`, i < 10 ? 'seen' : 'unseen', i < 10 ? 'nq' : 'T1', 'uninformative'));
    const summaries = ['zero-shot', 'four-shot'].flatMap((setting) => [
      summarizeRun(guesser, { model: 'guesser', setting, resamples: 10, meta: { paramsB: 1, fineTuned: false } }),
      summarizeRun(cautious, { model: 'cautious', setting, resamples: 10, meta: { paramsB: 7, fineTuned: true } }),
    ]);
    const fig10 = effectFigures(summaries, ['NCR', 'IUR']).find((f) => f.id === 'fig10')!;
    assert.ok(fig10.spec, fig10.note);
    const points = svgMarks(await renderSvg(fig10.spec)).filter((m) => m.kind === 'point');
    assert.equal(points.length, 8, 'NCR and IUR of two models in two settings');
    for (const p of points) {
      const isGuesser = p.fields['mean (x100)'] === '-100' || p.fields['mean (x100)'] === '75';
      assert.deepEqual([p.row, p.column], isGuesser ? ['base', 'small'] : ['fine-tuned', 'medium'], JSON.stringify(p));
    }
  });
});

describe('by-source tables', () => {
  // A user's seen source named like a template ("TQ-mine"), a source with seen and unseen questions ("mine"), a template.
  const records = [
    rec('a1', 'seen', 'TQ-mine', 'wrong', 0.5),
    rec('a2', 'seen', 'TQ-mine', 'correct', 1),
    rec('b1', 'seen', 'mine', 'wrong', 0.1),
    rec('b2', 'unseen', 'mine', 'wrong', 0.25),
    rec('b3', 'unseen', 'mine', 'uninformative'),
    rec('c1', 'unseen', 'T3', 'wrong', 0.75),
    rec('c2', 'unseen', 'T3', 'uninformative'),
  ];
  const s = summarizeRun(records, { model: 'm', setting: 'zero-shot', resamples: 10 });

  it("show the summary's bySource C_wrong, whatever the source's name (llmkb metrics and the report)", () => {
    assert.equal(s.breakdowns.bySource.mine!.metrics.C_wrong, (0.1 + 0.25) / 2, 'mine: the mean of C_wrong^s and C_wrong^u');
    assert.equal(s.breakdowns.bySource['TQ-mine']!.metrics.C_wrong, 0.5, 'TQ-mine is seen: C_wrong^s');
    const lines = formatSummary(s).split('\n');
    const row = (source: string) =>
      lines
        .find((l) => l.startsWith(`${source} `))!
        .trim()
        .split(/\s+/);
    for (const source of ['mine', 'TQ-mine', 'T3'])
      assert.equal(row(source)[7], (100 * s.breakdowns.bySource[source]!.metrics.C_wrong!).toFixed(1), `metrics: ${source}`);
    const html = runDetails(s);
    for (const source of ['mine', 'TQ-mine', 'T3']) {
      const cells = [...new RegExp(`<tr><th scope="row">${source}</th>(.*?)</tr>`).exec(html)![1]!.matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1]);
      assert.equal(cells[5], (100 * s.breakdowns.bySource[source]!.metrics.C_wrong!).toFixed(2), `report: ${source}`);
    }
  });
});

describe('paired tests on small samples', () => {
  it(`state n, star only on ${MIN_PAIRED_N} or more items, and never print a p of 0`, () => {
    assert.equal(formatResampledP(0, 1000), '< 0.001');
    assert.equal(formatResampledP(0, 300), '< 0.0033');
    assert.equal(formatResampledP(0.0004, 1000), '< 0.001', 'below the floor of 1/R');
    assert.equal(formatResampledP(0.026, 1000), '0.026');
    assert.equal(formatResampledP(null, 1000), '-');
    assert.equal(formatAnalyticP(0), '< 0.0001');
    assert.equal(significanceStar(0, 3), '', 'no star on 3 items, whatever p');
    assert.equal(significanceStar(0.01, MIN_PAIRED_N - 1), '');
    assert.equal(significanceStar(0.01, MIN_PAIRED_N), '*');
    assert.equal(significanceStar(0.05, 1000), '', 'p < 0.05 exactly');
  });

  it('CONNER compare on 3 queries: no star and no p of 0, n stated', async () => {
    const records = connerRecords(3, [
      ['gen-a', 0.9],
      ['gen-b', 0.1],
    ]);
    const { connerRunSummaries } = await import('../src/methods/conner/summary/conner-summary.js');
    const { CONNER_FIXTURE_RUN } = await import('./support/conner-fixture.js');
    const summaries = connerRunSummaries(records, { resamples: 100, seed: 0, run: CONNER_FIXTURE_RUN });
    const out = await compareRuns(
      summaries.map((summary) => ({ summary, records: records.filter((r) => r.generator === summary.model), source: `${summary.model}.summary.json` })),
      { resamples: 1000, seed: 42 },
    );
    const from = out.markdown.slice(out.markdown.indexOf('## CONNER: paired differences'));
    // The paired table alone: up to the next heading (the analyses' tables follow it).
    const end = from.slice(3).search(/\n#{2,3} /);
    const table = end < 0 ? from : from.slice(0, end + 3);
    const rows = table.split('\n').filter((l) => l.startsWith('| gen-a'));
    assert.ok(rows.length > 0, table);
    for (const row of rows) {
      const cells = row
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim());
      assert.doesNotMatch(cells[2]!, /\*/, `no star on 3 queries: ${row}`);
      assert.doesNotMatch(cells[4]!, /^0(\.0+)?$/, `no p of 0: ${row}`);
      assert.equal(cells[5], '3', 'n stated');
    }
    assert.match(table, /n: the queries paired; \* p < 0\.05 on n >= 30/);
  });

  it('report a two-sided p: twice the share of resamples on the far side of zero', () => {
    // b is wrong where a is right on one of 30 seen questions: every resample's difference is >= 0, and it is 0 exactly
    // when that question is not drawn, with probability (29/30)^30. The two-sided p is twice that.
    const a = Array.from({ length: 30 }, (_, i) => rec(`q${i}`, 'seen', 'nq', 'correct'));
    const b = a.map((r, i) => (i === 7 ? { ...r, label: 'wrong' as const } : r));
    const expected = 2 * (29 / 30) ** 30;
    const fast = pairedBootstrap(a, b, 'NCR', { names: ['a', 'b'], resamples: 2000, seed: 1 });
    const pairwise = pairedBootstrapPairwise(a, [...b].reverse(), 'NCR', { names: ['a', 'b'], resamples: 2000, seed: 1 });
    const marks = new PairedResampler(2000, 1).p(a, b, 'NCR');
    for (const [name, p] of [
      ['pairedBootstrap', fast.p],
      ['pairwise', pairwise.p],
      ['report marks', marks],
    ] as const)
      assert.ok(p !== null && Math.abs(p - expected) < 0.07, `${name}: p ${p}, expected about ${expected.toFixed(3)}`);
  });
});

describe("MCQs with fewer than the paper's 5 options", () => {
  it('are counted in the summary and recorded as a departure of the distractors', () => {
    const records = [
      rec('a', 'seen', 'nq', 'correct', 0.5, { consistencyDetail: { mcqs: 4, invalid: 0, fewerOptions: 3 } }),
      rec('b', 'seen', 'nq', 'wrong', 0, { consistencyDetail: { mcqs: 4, invalid: 0, fewerOptions: 0 } }),
    ];
    const s = summarizeRun(records, { model: 'm', setting: 'zero-shot', resamples: 10 });
    assert.equal(s.counts.mcqsWithFewerOptions, 3);
    assert.match(formatSummary(s), /MCQs with fewer than the paper's 5 options \(too few distractors for the response\): 3 of 8/);
    const base = {
      setting: 'zero-shot',
      lexicalJudge: { id: 'lexical-v2', note: 'n' },
      shotSelector: 'bm25-v1',
      mode: 'generate' as const,
      questions: { seen: 2, unseen: 0 },
      mcqs: 20,
      maxTokens: 100,
      computeBackend: 'server',
      datasets: {},
      seed: 1,
      judge: 'j',
      distractor: 'd',
      timeFilter: { method: 'llm', model: 't' },
    };
    assert.equal(buildProtocol(base).entries.distractors.status, 'paper');
    const fewer = buildProtocol({ ...base, fewerOptionMcqs: { fewer: 3, of: 8 } });
    assert.equal(fewer.entries.distractors.status, 'approximation');
    assert.match(fewer.entries.distractors.note!, /3 of 8 MCQs have fewer than the paper's 5 options/);
    assert.ok(departures(fewer).some((d) => d.choice === 'distractors'));
  });
});

describe("the answer-mode check's line", () => {
  it('says it is a sampled check, not part of the metrics, and what to conclude', () => {
    const low = modeAgreementLine('zero-shot', 'generate', { pairs: 5, mcqs: 8, agree: 0, invalid: 8, rate: 0 });
    assert.match(
      low,
      /^zero-shot: answer-mode check \(a check, not part of the metrics\): the 8 MCQs of 5 seeded sampled pair\(s\), asked again in logprobs mode, got the option the run's generate mode chose in 0\/8 \(0\.0%\)/,
    );
    assert.match(low, /8 of them name no option in generate mode/);
    assert.match(
      low,
      /Read: the consistency metrics \(C_correct, C_wrong, NCCR, IUR\) depend on how MCQ answers are read; compare this run only with runs of the same --mode\.$/,
    );
    assert.match(
      modeAgreementLine('four-shot', 'logprobs', { pairs: 2, mcqs: 10, agree: 10, invalid: 0, rate: 1 }),
      /hardly depend on how MCQ answers are read\.$/,
    );
    assert.equal(modeAgreementLine('zero-shot', 'generate', { pairs: 0, mcqs: 0, agree: 0, invalid: 0, rate: 0 }), '', 'nothing re-asked: no line');
  });
});

describe('llmkb merge', () => {
  it("puts every run's records file beside its summary in the merged folder, byte for byte the shard's", { timeout: 120_000 }, async () => {
    const work = tempDir('llmkb-merge-records-');
    temp.push(work);
    const questions = Array.from({ length: 6 }, (_, i) => ({
      id: `q${i}`,
      dataset: i < 4 ? 'seen' : 'unseen',
      source: i < 4 ? 'mine' : 'T1',
      question: `Merge question ${i}?`,
      answers: i < 4 ? [`A${i}`] : [],
    }));
    writeFileSync(join(work, 'q.jsonl'), questions.map((q) => JSON.stringify(q)).join('\n') + '\n');
    writeFileSync(join(work, 'a.jsonl'), '{"contains": "multi-choice", "reply": " A"}\n{"default": true, "reply": " A1"}\n');
    writeFileSync(join(work, 'b.jsonl'), '{"contains": "multi-choice", "reply": " B"}\n{"default": true, "reply": " unsure"}\n');
    writeFileSync(
      join(work, 'study.yaml'),
      'name: merge\nmodels:\n  - { label: a, spec: "mock:a.jsonl" }\n  - { label: b, spec: "mock:b.jsonl" }\nmethods:\n  - id: reliability\n    settings: [zero-shot]\n    options: { mcqs: 2, input: q.jsonl }\n',
    );
    for (const i of [1, 2]) {
      const r = await llmkb(['--store', join(work, `s${i}.sqlite`), 'sweep', 'study.yaml', '--shard', `${i}/2`, '--out', `shard${i}`], { cwd: work });
      assert.equal(r.code, 0, r.stderr);
    }
    const m = await llmkb(['merge', 'shard1', 'shard2', '--out', 'merged'], { cwd: work });
    assert.equal(m.code, 0, m.stderr);
    let checked = 0;
    for (const shard of ['shard1', 'shard2']) {
      // A run's files are <label>.<setting><variant>.* (the variant names the own question set and the MCQs).
      const runFiles = (model: string) =>
        readdirSync(join(work, shard, model)).filter(
          (f) => f.startsWith(`${model}.zero-shot.`) && (f.endsWith('.summary.json') || f.endsWith('.records.jsonl')),
        );
      for (const model of readdirSync(join(work, shard)).filter(
        (f) => existsSync(join(work, shard, f)) && statSync(join(work, shard, f)).isDirectory() && runFiles(f).some((x) => x.endsWith('.summary.json')),
      )) {
        const files = runFiles(model);
        assert.equal(files.length, 2, `a summary and a records file of ${model}: ${files.join(', ')}`);
        for (const name of files) {
          const file = join(model, name);
          assert.ok(existsSync(join(work, 'merged', file)), `merged/${file}`);
          assert.equal(readFileSync(join(work, 'merged', file), 'utf8'), readFileSync(join(work, shard, file), 'utf8'), file);
        }
        checked++;
      }
    }
    assert.equal(checked, 2, 'both runs');
  });
});
