import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pairedBootstrap, pearson } from '../src/analysis/compare-runs.js';
import { llmkb } from './support/run-cli.js';
import { paperSummaries, scored } from './support/summaries.js';
import type { MetricRecord } from '../src/metrics/reliability-metrics.js';

/** Table 2, zero-shot column (Pearson's rho over the paper's 26 models). */
const TABLE2_ZERO_SHOT: Record<string, string> = {
  'NCR vs UR': '0.27', 'NCCR vs IUR': '-0.17', 'C_correct vs C_wrong': '0.81', 'NCR vs C_correct': '0.60', 'NCR vs C_wrong': '0.48', 'UR vs C_correct': '0.43', 'UR vs C_wrong': '0.34',
};

describe('llmkb compare', () => {
  it("reproduces Table 2's zero-shot correlations to two decimals over the paper's 26 models", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmkb-compare-'));
    const files = paperSummaries(['zero-shot']).map((s, i) => {
      const f = join(dir, `m${i}.summary.json`);
      writeFileSync(f, JSON.stringify(s));
      return f;
    });
    assert.equal(files.length, 26);
    const r = await llmkb(['compare', ...files, '--out', join(dir, 'out')]);
    assert.equal(r.code, 0, r.stderr);
    for (const [pair, value] of Object.entries(TABLE2_ZERO_SHOT)) {
      const row = r.stdout.split('\n').find((l) => l.startsWith(`| ${pair} |`));
      assert.ok(row, `row ${pair}`);
      assert.match(row, new RegExp(`\\| ${value.replace('.', '\\.')}\\*? \\(p=`), `${pair}: ${row}`);
    }
    assert.match(r.stdout, /## Table 9: factuality/);
    assert.match(readFileSync(join(dir, 'out', 'table11.csv'), 'utf8'), /^Model,zero-shot CWR \(↓\),zero-shot CCR \(↑\),zero-shot NCCR \(↑\),zero-shot IUR \(↑\)\n/);
    assert.match(readFileSync(join(dir, 'out', 'table9.md'), 'utf8'), /\| GPT-3\.5 Turbo Unknown \| 30\.40 \| 60\.73 \| 30\.33 \| 81\.70 \|/);
    const analysis = JSON.parse(readFileSync(join(dir, 'out', 'analysis.json'), 'utf8'));
    assert.equal(analysis.rankings['zero-shot'].UR[0].model, 'Flan-T5 0.78B', 'UR = 100% ranks first');
    assert.ok(analysis.effects.size.length >= 2 && analysis.effects.fineTuning.length === 2);
  });

  it('computes Pearson r and a two-sided p-value', () => {
    const { r, p } = pearson([1, 2, 3, 4, 5], [2, 4, 5, 4, 5]);
    assert.ok(Math.abs(r! - 0.7745966692) < 1e-9);
    assert.ok(Math.abs(p! - 0.1240270) < 1e-6, `p ${p}`); // scipy.stats.pearsonr
    assert.deepEqual(pearson([1, 1, 1], [1, 2, 3]), { r: null, p: null });
  });

  it('paired bootstrap: a clearly better model differs significantly; a model against itself does not', () => {
    const make = (correct: number): MetricRecord[] => Array.from({ length: 400 }, (_, i) => (i < 200 ? { dataset: 'seen', label: i < correct ? 'correct' : 'wrong', consistency: 0.8 } : { dataset: 'unseen', label: i < 200 + correct / 2 ? 'uninformative' : 'wrong', consistency: 0.5 }));
    const a = scored(make(150));
    const b = scored(make(60));
    const better = pairedBootstrap(a, b, 'NCCR', { names: ['a', 'b'], resamples: 300, seed: 1 });
    assert.ok(better.difference! > 0.5);
    assert.ok(better.p! < 0.01);
    assert.ok(better.interval![0] > 0);
    const same = pairedBootstrap(a, a, 'IUR', { names: ['a', 'a'], resamples: 300, seed: 1 });
    assert.equal(same.difference, 0);
    assert.equal(same.p, 1);
  });
});
