/**
 * Invalid MCQ answers (paper Eq. 4 counts them as not choosing the response): counted per run and
 * per seen/unseen question and correct/wrong response, by hand here; a run with more than a tenth
 * of them invalid carries a warning naming the consistency metrics, and every output shows the
 * warning and marks those metrics' values.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareRuns } from '../src/analysis/compare-methods.js';
import { reliabilityPresentation } from '../src/methods/reliability/presentation.js';
import { formatSummary, summarizeRun, type ScoredRecord } from '../src/methods/reliability/metrics/summarize-run.js';
import { renderReport } from '../src/report/html-report.js';
import { viewSummary } from '../src/view/view-summary.js';
import { metricsTable, runsPage } from '../src/view/view-pages.js';
import type { ViewRun } from '../src/view/view-index.js';
import { tempDir } from './support/temp-dir.js';

const CONSISTENCY = ['C_correct', 'C_wrong_seen', 'C_wrong_unseen', 'C_wrong', 'CCR', 'CWR', 'NCCR', 'IUR'];

/** A pair re-asked as `mcqs` MCQs, `invalid` of whose answers were invalid, and `chose` chose the response. */
function pair(id: string, dataset: 'seen' | 'unseen', label: 'correct' | 'wrong', mcqs: number, invalid: number, chose: number): ScoredRecord {
  return {
    id,
    dataset,
    source: dataset === 'seen' ? 'nq' : 'T1',
    answerType: null,
    label,
    uninformativeType: null,
    consistency: chose / mcqs,
    consistencyDetail: { mcqs, invalid, choseResponse: chose },
  };
}

const uninformative = (id: string, dataset: 'seen' | 'unseen'): ScoredRecord => ({
  id,
  dataset,
  source: dataset === 'seen' ? 'nq' : 'T1',
  answerType: null,
  label: 'uninformative',
  uninformativeType: 'unsure',
  consistency: null,
});

/** 2 seen correct (1 + 0 of 5 invalid), 1 seen wrong (5 of 5), 2 unseen wrong (2 + 3 of 5), 2 uninformative: 11 of 25 invalid. */
const RECORDS: ScoredRecord[] = [
  pair('s1', 'seen', 'correct', 5, 1, 4),
  pair('s2', 'seen', 'correct', 5, 0, 5),
  pair('s3', 'seen', 'wrong', 5, 5, 0),
  uninformative('s4', 'seen'),
  pair('u1', 'unseen', 'wrong', 5, 2, 1),
  pair('u2', 'unseen', 'wrong', 5, 3, 0),
  uninformative('u3', 'unseen'),
];

const summarize = (records: readonly ScoredRecord[], model = 'tiny') => summarizeRun(records, { model, setting: 'zero-shot', resamples: 20 });

describe('invalid MCQ answers in the summary', () => {
  it('are counted per run and per seen/unseen question and correct/wrong response, by hand', () => {
    const s = summarize(RECORDS);
    assert.equal(s.counts.mcqAnswers, 25);
    assert.equal(s.counts.invalidMcqAnswers, 11);
    assert.deepEqual(s.breakdowns.mcqAnswers, {
      seen: { correct: { answers: 10, invalid: 1 }, wrong: { answers: 5, invalid: 5 } },
      unseen: { wrong: { answers: 10, invalid: 5 } },
    });
  });

  it('warn, naming the eight consistency metrics, when more than a tenth are invalid (44%)', () => {
    const s = summarize(RECORDS);
    assert.equal(s.warnings?.length, 1);
    assert.deepEqual(s.warnings![0]!.metrics, CONSISTENCY);
    assert.match(s.warnings![0]!.message, /^11 of 25 MCQ answers \(44\.0%\) were invalid/);
  });

  it('do not warn at exactly a tenth, and do at more', () => {
    const tenth = [pair('a', 'seen', 'correct', 10, 1, 9), pair('b', 'seen', 'wrong', 10, 1, 0)];
    assert.equal(summarize(tenth).warnings, undefined, '2 of 20 is not more than 10%');
    const more = [pair('a', 'seen', 'correct', 10, 1, 9), pair('b', 'seen', 'wrong', 10, 2, 0)];
    assert.match(summarize(more).warnings![0]!.message, /^3 of 20 MCQ answers \(15\.0%\)/);
  });

  it('are left out, not counted as zero, when a re-asked response does not say how its MCQs were answered', () => {
    const withoutDetail = RECORDS.map(({ consistencyDetail: _, ...r }) => r);
    const s = summarize(withoutDetail);
    assert.equal(s.counts.mcqAnswers, undefined);
    assert.equal(s.breakdowns.mcqAnswers, undefined);
    assert.equal(s.warnings, undefined);
    // Every other field as it was: the counts are an addition, not a change.
    const { counts, breakdowns, warnings: _w, ...rest } = summarize(RECORDS);
    const { counts: c0, breakdowns: b0, ...rest0 } = s;
    assert.deepEqual(rest, rest0);
    assert.deepEqual({ ...counts, mcqAnswers: undefined, invalidMcqAnswers: undefined }, { ...c0, mcqAnswers: undefined, invalidMcqAnswers: undefined });
    const { mcqAnswers: _m, ...breakdownsRest } = breakdowns;
    assert.deepEqual(breakdownsRest, b0);
  });
});

describe('every output shows the warning and marks the metrics it names', () => {
  const warned = summarize(RECORDS, 'tiny');
  const clean = summarize(
    [pair('s1', 'seen', 'correct', 5, 0, 5), pair('s2', 'seen', 'wrong', 5, 0, 1), pair('u1', 'unseen', 'wrong', 5, 0, 2), uninformative('u2', 'unseen')],
    'other',
  );

  it('the table llmkb eval prints', () => {
    const table = reliabilityPresentation.resultTable!([warned]);
    const row = table.split('\n').find((l) => l.startsWith('zero-shot'))!;
    assert.match(row, /11\/25 \(44\.0%\)$/, row);
    // NCR and UR are not Cons-based: plain; C_correct, C_wrong, NCCR, IUR: flagged.
    const cells = row.trim().split(/\s+/);
    assert.deepEqual(
      cells.slice(1, 7).map((c) => c.endsWith('†')),
      [false, false, true, true, true, true],
      row,
    );
    assert.match(table, /WARNING zero-shot: 11 of 25 MCQ answers \(44\.0%\) were invalid/);
    assert.doesNotMatch(reliabilityPresentation.resultTable!([clean]), /WARNING|†/);
    // An undefined value ("-": nothing correct to be consistent about) is not flagged: there is no number to misread.
    const noneCorrect = summarize([pair('w', 'seen', 'wrong', 5, 5, 0), pair('u', 'unseen', 'wrong', 5, 5, 0)]);
    assert.equal(noneCorrect.metrics.C_correct, null);
    const values = reliabilityPresentation.resultTable!([noneCorrect])
      .split('\n')
      .find((l) => l.startsWith('zero-shot'))!
      .trim()
      .split(/\s+/);
    assert.deepEqual(values.slice(3, 7), ['-', '0.00†', '0.00†', '100.00†']);
  });

  it('llmkb metrics', () => {
    const text = formatSummary(warned);
    assert.match(text, /IUR inconsistent\/uninformative rate\s+\S+†/);
    assert.match(text, /NCR net correct rate\s+-?\d+\.\d+ /);
    assert.match(text, /WARNING: 11 of 25/);
    assert.match(text, /invalid MCQ answers: 11 of 25 \(seen correct 1\/10, seen wrong 5\/5, unseen wrong 5\/10\)/);
  });

  it('compare: Markdown, CSV and analysis.json', async () => {
    const out = await compareRuns(
      [
        { summary: warned, source: 'a' },
        { summary: clean, source: 'b' },
      ],
      { resamples: 20, seed: 1 },
    );
    assert.match(out.markdown, /^## Warnings\n\n- tiny \(zero-shot\): 11 of 25 MCQ answers/);
    const table11 = out.files['table11.csv']!.split('\n');
    assert.match(table11[1]!, /^tiny,[^,]+†,[^,]+†,[^,]+†,[^,]+†$/, 'CWR, CCR, NCCR, IUR of tiny flagged');
    assert.doesNotMatch(table11[2]!, /†/, 'the other run is plain');
    assert.doesNotMatch(out.files['table9.csv']!, /†/, 'Table 9 (CR, WR, NCR, UR) has no Cons-based metric');
    const runs = (out.analysis as { runs: Array<{ label: string; warnings: Array<{ metrics: string[] }> }> }).runs;
    assert.deepEqual(
      runs.map((r) => r.warnings.length),
      [1, 0],
    );
    assert.deepEqual(runs[0]!.warnings[0]!.metrics, CONSISTENCY);
    assert.match(out.markdown, /IUR: .*tiny \d+\.\d+†/);
  });

  it('the HTML report: a warn box, the word "invalid", a dagger on each flagged value, and no flagged value ranked best', async () => {
    const html = await renderReport([warned, clean]);
    assert.match(html, /<section class="warn" id="warnings"><h2>Read with care<\/h2>/);
    assert.match(html, /MCQ answers 25, invalid 11 \(44\.0%\)/);
    assert.match(html, /<h4>Invalid MCQ answers<\/h4>/);
    // Table 11 row of tiny: four flagged cells; Table 9's row: none.
    const row = (table: string, model: string) =>
      new RegExp(`<table class="paper" id="${table}">.*?<tr><th scope="row">${model}</th>(.*?)</tr>`, 's').exec(html)![1]!;
    assert.equal((row('table11', 'tiny').match(/class="[^"]*flagged/g) ?? []).length, 4);
    assert.equal((row('table9', 'tiny').match(/flagged/g) ?? []).length, 0);
    assert.doesNotMatch(row('table11', 'tiny'), /class="[^"]*best/, 'a flagged value is not the best');
    // The run's own metric table flags the eight metrics.
    // The figures of consistency metrics name the run with the dagger too (Figures 7(b), 7(c), 11).
    // A flagged value is not ranked: the ranking names the run apart, with the dagger.
    assert.match(
      html,
      /<p class="note" id="not-drawn">.*?Ranking by IUR<\/strong>: [^<]*Not ranked \(a warning of the run concerns its value, Read with care above\): tiny† \(zero-shot\)/,
    );
    const runs = html.slice(html.indexOf('<h2>Runs</h2>'));
    assert.equal((runs.match(/<td class="flagged">/g) ?? []).length, 8);
  });

  it('the viewer: runs list and run page', async () => {
    const run: ViewRun = { key: 'k', kind: 'file', label: 'tiny', labels: ['tiny'], setting: 'zero-shot', method: 'reliability', evaluation: true, stages: [] };
    const list = await runsPage([{ run, summary: viewSummary(warned as unknown as Record<string, unknown>) }], 'here');
    assert.match(list, /† warning<\/span>/);
    assert.equal((list.match(/<sup class="flag"/g) ?? []).length, 4, 'C_correct, C_wrong, NCCR, IUR of the headline metrics');
    const page = metricsTable(warned.metricDefs, viewSummary(warned as unknown as Record<string, unknown>));
    assert.equal((page.match(/<sup class="flag"/g) ?? []).length, 8);
  });
});

describe('invalid MCQ answers through the stage commands', () => {
  it('llmkb consistency warns on stderr when more than a tenth of its MCQ answers were invalid', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { llmkb } = await import('./support/run-cli.js');
    const dir = tempDir('llmkb-invalid-');
    writeFileSync(
      join(dir, 'qa.jsonl'),
      `${[0, 1, 2].map((i) => JSON.stringify({ id: `q${i}`, dataset: 'seen', source: 'nq', question: `what is the capital number ${i}?`, answers: ['Paris'] })).join('\n')}\n`,
    );
    // A wrong answer "zzz" to each question; to each MCQ "qqq", neither a letter nor an option.
    writeFileSync(
      join(dir, 'replies.jsonl'),
      `${JSON.stringify({ contains: 'multi-choice', reply: ' qqq' })}\n${JSON.stringify({ default: true, reply: ' zzz\nQUESTION:' })}\n`,
    );
    const model = `mock:${join(dir, 'replies.jsonl')}`;
    const store = ['--store', join(dir, 's.sqlite')];
    for (const args of [
      ['ask', '--model', model, '--input', join(dir, 'qa.jsonl'), '--setting', 'zero-shot', '-o', 'responses.jsonl'],
      ['judge', '-i', 'responses.jsonl', '-o', 'labeled.jsonl'],
    ]) {
      const r = await llmkb([...store, ...args], { cwd: dir });
      assert.equal(r.code, 0, r.stderr);
    }
    const r = await llmkb(
      [
        ...store,
        'consistency',
        '-i',
        'labeled.jsonl',
        '-o',
        'consistency.jsonl',
        '--model',
        model,
        '--mcqs',
        '2',
        '--no-distractor-llm',
        '--compare-modes',
        '0',
      ],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /WARNING: 6 of 6 MCQ answers \(100\.0%\) were invalid/);
  });
});
