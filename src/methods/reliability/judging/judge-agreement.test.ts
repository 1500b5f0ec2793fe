import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InputFileError, LlmkbError } from '../../../errors.js';
import { agreementReport, agreementStats, measureJudge, readEvouna, readHumanLabelled, type JudgedAgainstHuman } from './judge-agreement.js';
import { ResponseJudge } from './judge-response.js';
import { LEXICAL_JUDGE_AGREEMENT, LEXICAL_JUDGE_ID } from './lexical-match.js';
import { tempDir } from '#test-support/temp-dir.js';

/** Eight responses, worked by hand below. */
const EXAMPLE: Array<JudgedAgainstHuman & { dataset: string; system: string }> = [
  { system: 'A', dataset: 'NQ', humanCorrect: true, label: 'correct' },
  { system: 'A', dataset: 'NQ', humanCorrect: true, label: 'correct' },
  { system: 'A', dataset: 'TQ', humanCorrect: true, label: 'wrong' },
  { system: 'A', dataset: 'TQ', humanCorrect: true, label: 'uninformative' },
  { system: 'B', dataset: 'NQ', humanCorrect: false, label: 'correct' },
  { system: 'B', dataset: 'NQ', humanCorrect: false, label: 'wrong' },
  { system: 'B', dataset: 'TQ', humanCorrect: false, label: 'wrong' },
  { system: 'B', dataset: 'TQ', humanCorrect: false, label: 'uninformative' },
];

describe('agreement with human labels', () => {
  it('computes agreement, Cohen kappa, precision and recall of "correct" (hand-computed example)', () => {
    const s = agreementStats(EXAMPLE);
    assert.deepEqual(s.confusion, { tp: 2, fp: 1, fn: 2, tn: 3 });
    assert.equal(s.agreement, 5 / 8);
    // Chance agreement: judge says correct 3/8, human 4/8: 3/8*4/8 + 5/8*4/8 = 1/2; kappa = (5/8 - 1/2) / (1 - 1/2) = 1/4.
    assert.equal(s.kappa, 0.25);
    assert.equal(s.precision, 2 / 3);
    assert.equal(s.recall, 2 / 4);
    assert.equal(s.humanCorrectUninformative, 1);
    assert.equal(s.humanCorrectUninformativeShare, 1 / 4);
  });

  it('breaks down by system and data set, and leaves undefined figures null', () => {
    const r = agreementReport(EXAMPLE);
    assert.deepEqual(Object.keys(r.bySystem), ['A', 'B']);
    assert.equal(r.bySystem.A!.agreement, 0.5);
    assert.equal(r.bySystem.A!.kappa, 0, 'the human says correct throughout: chance agreement 1/2, observed 1/2');
    assert.equal(r.bySystem.B!.recall, null, 'no human-correct responses');
    assert.equal(r.bySystem.B!.precision, 0);
    assert.equal(r.byDataset.NQ!.agreement, 3 / 4);
    assert.equal(r.byDatasetSystem['TQ/A']!.agreement, 0);
    assert.equal(agreementStats([{ humanCorrect: true, label: 'correct' }]).kappa, null, 'chance agreement 1');
  });

  it('reads a human-labelled JSONL and names file, line and field of a bad line', () => {
    const dir = tempDir('llmkb-agree-');
    const good = join(dir, 'good.jsonl');
    writeFileSync(
      good,
      `${JSON.stringify({ question: 'capital of France?', answers: ['Paris'], response: 'Paris', human_correct: true, system: 'x' })}\n\n${JSON.stringify({ question: 'q', answers: ['a'], response: 'b', human_correct: false })}\n`,
    );
    const rows = readHumanLabelled(good);
    assert.equal(rows.length, 2);
    assert.deepEqual([rows[0]!.system, rows[1]!.system, rows[1]!.id, rows[1]!.dataset], ['x', '-', 'record-2', '-']);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(
      bad,
      `${JSON.stringify({ question: 'q', answers: ['a'], response: 'b', human_correct: true })}\n${JSON.stringify({ question: 'q', answers: ['a'], response: 'b', human_correct: 'yes' })}\n`,
    );
    assert.throws(
      () => readHumanLabelled(bad),
      (e: unknown) => e instanceof InputFileError && e.line === 2 && e.field === 'human_correct' && e.message.startsWith(`${bad}:2 (field "human_correct")`),
    );
    const noAnswers = join(dir, 'none.jsonl');
    writeFileSync(noAnswers, `${JSON.stringify({ question: 'q', answers: [], response: 'b', human_correct: true })}\n`);
    assert.throws(
      () => readHumanLabelled(noAnswers),
      (e: unknown) => e instanceof InputFileError && e.field === 'answers',
    );
  });

  it('says where EVOUNA was looked for when it is missing', () => {
    assert.throws(
      () => readEvouna(join(tmpdir(), 'no-such-evouna-dir')),
      (e: unknown) => e instanceof LlmkbError && /NQ\.json/.test(e.message) && /--evouna/.test(e.hint ?? '') && /LLMKB_DATA_DIR/.test(e.hint ?? ''),
    );
  });
});

describe(`the lexical judge's quoted agreement with EVOUNA (${LEXICAL_JUDGE_ID})`, () => {
  const dataDir = process.env.LLMKB_DATA_DIR;
  it('equals a fresh measurement, to 3 decimals', {
    skip: dataDir ? false : 'LLMKB_DATA_DIR is not set: EVOUNA (shared/data/evouna) is needed to re-measure LEXICAL_JUDGE_AGREEMENT',
  }, async () => {
    const rows = readEvouna(join(dataDir!, 'evouna'));
    const { report } = await measureJudge({ rows, judge: new ResponseJudge() });
    const o = report.overall;
    process.stdout.write(
      `EVOUNA, ${LEXICAL_JUDGE_ID}: agreement ${o.agreement.toFixed(4)}, kappa ${o.kappa!.toFixed(4)}, precision ${o.precision!.toFixed(4)}, recall ${o.recall!.toFixed(4)} over ${o.n}\n`,
    );
    assert.equal(LEXICAL_JUDGE_AGREEMENT.id, LEXICAL_JUDGE_ID);
    assert.equal(LEXICAL_JUDGE_AGREEMENT.responses, o.n);
    const round3 = (x: number): number => Math.round(x * 1000) / 1000;
    assert.equal(LEXICAL_JUDGE_AGREEMENT.agreement, round3(o.agreement));
    assert.equal(LEXICAL_JUDGE_AGREEMENT.kappa, round3(o.kappa!));
    assert.equal(LEXICAL_JUDGE_AGREEMENT.precision, round3(o.precision!));
    assert.equal(LEXICAL_JUDGE_AGREEMENT.recall, round3(o.recall!));
    assert.equal(LEXICAL_JUDGE_AGREEMENT.humanCorrectUninformative, round3(o.humanCorrectUninformativeShare!));
    // The acceptance targets (issue 11): >= 0.87 overall, <= 0.5% of human-correct answers uninformative, <= 1% per system.
    assert.ok(o.agreement >= 0.87);
    assert.ok(o.humanCorrectUninformativeShare! <= 0.005);
    for (const [system, s] of Object.entries(report.byDatasetSystem)) assert.ok(s.humanCorrectUninformativeShare! <= 0.01, system);
  });
});
