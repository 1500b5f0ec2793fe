import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { detectUninformative, looksLikeTitle } from './uninformative.js';

interface LabelledCase {
  label: 'none' | 'unsure' | 'repetition' | 'answer';
  question: string;
  response: string;
}

function readCases(file: string): LabelledCase[] {
  return readFileSync(join(import.meta.dirname, 'fixtures', file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LabelledCase);
}

/** `labelled`: the set the rules were developed on; `heldout`: written afterwards, never tuned on. */
const DEV = readCases('uninformative-labelled.jsonl');
const HELDOUT = readCases('uninformative-heldout.jsonl');
const CASES = [...DEV, ...HELDOUT];

const CLASSES = ['none', 'unsure', 'repetition', 'answer'] as const;

/** Per-class precision and recall of the rules on the labelled set. */
export function scoreRules(cases: readonly LabelledCase[]) {
  const predicted = cases.map((c) => detectUninformative(c.response, c.question)?.type ?? 'answer');
  const accuracy = predicted.filter((p, i) => p === cases[i]!.label).length / cases.length;
  const perClass = Object.fromEntries(
    CLASSES.map((k) => {
      const tp = predicted.filter((p, i) => p === k && cases[i]!.label === k).length;
      const fp = predicted.filter((p, i) => p === k && cases[i]!.label !== k).length;
      const fn = predicted.filter((p, i) => p !== k && cases[i]!.label === k).length;
      return [k, { precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: tp + fn === 0 ? 1 : tp / (tp + fn), support: tp + fn }];
    }),
  ) as Record<(typeof CLASSES)[number], { precision: number; recall: number; support: number }>;
  const errors = cases.map((c, i) => ({ ...c, predicted: predicted[i] })).filter((c) => c.predicted !== c.label);
  return { accuracy, perClass, errors };
}

describe('uninformative rules on the labelled set', () => {
  it(`reach >= 95% accuracy with every class >= 90% recall (${CASES.length} responses)`, () => {
    assert.ok(CASES.length >= 150);
    for (const [name, set] of [['development set', DEV], ['held-out set', HELDOUT]] as const) {
      process.stdout.write(`${name}: accuracy ${(100 * scoreRules(set).accuracy).toFixed(1)}% on ${set.length}\n`);
    }
    const { accuracy, perClass, errors } = scoreRules(CASES);
    const lines = [`accuracy ${(100 * accuracy).toFixed(1)}% on ${CASES.length}`, ...CLASSES.map((k) => `${k.padEnd(10)} precision ${(100 * perClass[k].precision).toFixed(1)}%  recall ${(100 * perClass[k].recall).toFixed(1)}%  n=${perClass[k].support}`)];
    process.stdout.write(`${lines.join('\n')}\n`);
    for (const e of errors) process.stdout.write(`miss: ${e.label} predicted ${e.predicted}: ${JSON.stringify(e.response)}\n`);
    assert.ok(accuracy >= 0.95, `accuracy ${accuracy}`);
    for (const k of CLASSES) assert.ok(perClass[k].recall >= 0.9, `${k} recall ${perClass[k].recall}`);
  });

  it('records which rule fired', () => {
    assert.deepEqual(detectUninformative('', 'q?'), { type: 'none', rule: 'rule:empty', detail: 'empty response' });
    assert.equal(detectUninformative("I don't know.", 'Who?')?.rule, 'rule:unsure-answer');
    assert.equal(detectUninformative('As an AI language model I cannot know that.', 'Who?')?.rule, 'rule:unsure-phrase');
    assert.equal(detectUninformative('Paris Paris Paris Paris', 'Capital?')?.rule, 'rule:repetition-ngram');
    assert.equal(detectUninformative('Paris', 'Capital?'), undefined);
  });

  it('tells titles from sentences', () => {
    assert.ok(looksLikeTitle('Unknown Pleasures'));
    assert.ok(looksLikeTitle("I Don't Know How to Love Him"));
    assert.ok(!looksLikeTitle("I don't know."));
    assert.ok(!looksLikeTitle('Paris'));
  });
});
