import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { distinguishRuns, pearson } from '../src/methods/reliability/across-runs/compare-runs.js';
import { pairedBootstrap } from '../src/methods/reliability/across-runs/paired-bootstrap.js';
import { resultFileStem } from '../src/io/result-file-stem.js';
import { llmkb } from './support/run-cli.js';
import { paperSummaries, scored } from './support/summaries.js';
import type { MetricRecord } from '../src/methods/reliability/metrics/reliability-metrics.js';
import { tempDir } from './support/temp-dir.js';

/** Table 2, zero-shot column (Pearson's rho over the paper's 26 models). */
const TABLE2_ZERO_SHOT: Record<string, string> = {
  'NCR vs UR': '0.27',
  'NCCR vs IUR': '-0.17',
  'C_correct vs C_wrong': '0.81',
  'NCR vs C_correct': '0.60',
  'NCR vs C_wrong': '0.48',
  'UR vs C_correct': '0.43',
  'UR vs C_wrong': '0.34',
};

describe('llmkb compare', () => {
  it("reproduces Table 2's zero-shot correlations to two decimals over the paper's 26 models", async () => {
    const dir = tempDir('llmkb-compare-');
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
    assert.match(
      readFileSync(join(dir, 'out', 'table11.csv'), 'utf8'),
      /^Model,zero-shot CWR \(↓\),zero-shot CCR \(↑\),zero-shot NCCR \(↑\),zero-shot IUR \(↑\)\n/,
    );
    assert.match(readFileSync(join(dir, 'out', 'table9.md'), 'utf8'), /\| GPT-3\.5 Turbo Unknown \| 30\.40 \| 60\.73 \| 30\.33 \| 81\.70 \|/);
    const analysis = JSON.parse(readFileSync(join(dir, 'out', 'analysis.json'), 'utf8'));
    assert.equal(analysis.rankings['zero-shot'].UR[0].model, 'Flan-T5 0.78B', 'UR = 100% ranks first');
    assert.ok(analysis.effects.size.length >= 2 && analysis.effects.fineTuning.length === 2);
  });

  it('never merges two runs that carry the same label: each is shown, told apart, and the user is warned', async () => {
    const [a, b] = paperSummaries(['zero-shot']);
    const dir = tempDir('llmkb-identity-');
    // Two different models under one label (as when two specs end in the same file name), one setting.
    const same = [
      { ...a!, model: 'model.gguf', modelIdentity: 'llama:sha256=aaaa', runId: '1111111111111111' },
      { ...b!, model: 'model.gguf', modelIdentity: 'llama:sha256=bbbb', runId: '2222222222222222' },
    ];
    const files = same.map((s, i) => {
      const f = join(dir, `${i}.summary.json`);
      writeFileSync(f, JSON.stringify(s));
      return f;
    });
    const r = await llmkb(['compare', '--json', ...files]);
    assert.equal(r.code, 0, r.stderr);
    const analysis = JSON.parse(r.stdout) as { runs: Array<{ label: string }>; table9: { rows: string[][] }; warnings: string[] };
    assert.deepEqual(
      analysis.runs.map((x) => x.label),
      ['model.gguf [llama:sha256=aaaa]', 'model.gguf [llama:sha256=bbbb]'],
    );
    assert.equal(analysis.table9.rows.length, 2, 'two rows, not one');
    assert.match(r.stderr, /warning: runs with the same label are shown apart/);
    const report = await llmkb(['report', ...files, '-o', join(dir, 'report.html')]);
    assert.equal(report.code, 0, report.stderr);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    assert.match(html, /model\.gguf \[llama:sha256=aaaa\]/);
    assert.match(html, /model\.gguf \[llama:sha256=bbbb\]/);
    // One model judged twice in one setting: told apart by run id. Same model in two settings: one row, as before.
    const twice = distinguishRuns([
      { ...a!, model: 'm', runId: 'aaaaaaaa11' },
      { ...a!, model: 'm', runId: 'bbbbbbbb22' },
      { ...a!, model: 'n', setting: 'zero-shot' },
      { ...a!, model: 'n', setting: 'four-shot' },
    ]);
    assert.deepEqual(
      twice.summaries.map((s) => s.model),
      ['m [run aaaaaaaa]', 'm [run bbbbbbbb]', 'n', 'n'],
    );
    // Every run of a clashing label gets a tag, and tags never collide (identities alike in their first characters).
    const long = distinguishRuns([
      { ...a!, model: 'x', modelIdentity: 'openai-compatible:openai:gpt-4o:api=chat', runId: '1' },
      { ...a!, model: 'x', modelIdentity: 'openai-compatible:openai:gpt-4o-mini:api=chat', runId: '2' },
      { ...a!, model: 'x', modelIdentity: 'openai-compatible:openai:gpt-4o:api=chat', setting: 'four-shot', runId: '3' },
    ]).summaries.map((s) => s.model);
    assert.equal(new Set(long.slice(0, 2)).size, 2, long.join(' | '));
    assert.equal(long[0], long[2], 'one model in two settings: one row');
    assert.ok(long.every((n) => !n.endsWith('[]')));
    // Two evaluations of one label in two results folders: told apart by the folder, one row per evaluation.
    const folders = distinguishRuns(
      [
        { ...a!, model: 'y' },
        { ...a!, model: 'y', setting: 'four-shot' },
        { ...a!, model: 'y' },
        { ...a!, model: 'y', setting: 'four-shot' },
      ],
      ['full/y.zero-shot.summary.json', 'full/y.four-shot.summary.json', 'quick/y.zero-shot.summary.json', 'quick/y.four-shot.summary.json'],
    );
    assert.deepEqual(
      folders.summaries.map((s) => s.model),
      ['y [full]', 'y [full]', 'y [quick]', 'y [quick]'],
    );
  });

  it('names result files by the whole label, so models whose specs end alike never overwrite each other', () => {
    assert.notEqual(resultFileStem('gguf:/tmp/a/model.gguf'), resultFileStem('gguf:/tmp/b/model.gguf'));
    assert.match(
      resultFileStem('vllm:http://localhost:8000/v1/meta-llama/Meta-Llama-3-8B'),
      /^vllm_http_localhost_8000_v1_meta-llama_Meta-Llama-3-8B_[0-9a-f]{8}$/,
    );
    assert.equal(resultFileStem('llama3-8b'), 'llama3-8b', 'a label that is already a file name stays as it is');
    assert.notEqual(resultFileStem('gguf:a/b'), resultFileStem('gguf_a_b'), 'labels that differ only in punctuation');
    const long = resultFileStem(`gguf:/${'x'.repeat(200)}/a.gguf`);
    assert.ok(long.length <= 100 && long.endsWith('a.gguf'));
    assert.notEqual(long, resultFileStem(`gguf:/${'x'.repeat(201)}/a.gguf`));
  });

  it('writes paired-tests.md and .csv, each test with the setting its runs are in', async () => {
    const dir = tempDir('llmkb-paired-');
    const make = (correct: number): MetricRecord[] =>
      Array.from({ length: 120 }, (_, i) =>
        i < 60
          ? { dataset: 'seen', label: i < correct ? 'correct' : 'wrong', consistency: 0.8 }
          : { dataset: 'unseen', label: i < 60 + correct / 2 ? 'uninformative' : 'wrong', consistency: 0.5 },
      );
    const files = [
      ['a', 40],
      ['b', 20],
    ].map(([name, correct]) => {
      const f = join(dir, `${name}.four-shot.records.jsonl`);
      writeFileSync(
        f,
        scored(make(correct as number))
          .map((r) => JSON.stringify({ ...r, setting: 'four-shot' }))
          .join('\n'),
      );
      return f;
    });
    const r = await llmkb(['compare', ...files, '--out', join(dir, 'out'), '--resamples', '100']);
    assert.equal(r.code, 0, r.stderr);
    const md = readFileSync(join(dir, 'out', 'paired-tests.md'), 'utf8').split('\n');
    assert.equal(md[0], '| setting | A | B | metric | A - B | 95% CI | p | n (questions) |');
    assert.deepEqual(
      md.slice(2, 4).map((l) => l.split(' | ').slice(0, 4)),
      [
        ['| four-shot', 'a', 'b', 'NCCR'],
        ['| four-shot', 'a', 'b', 'IUR'],
      ],
    );
    assert.match(readFileSync(join(dir, 'out', 'paired-tests.csv'), 'utf8'), /^setting,A,B,metric,A - B,95% CI,p,n \(questions\)\nfour-shot,a,b,NCCR,/);
    assert.match(r.stdout, /## Paired bootstrap tests\n\n\| setting \| A \| B \|/);
    assert.match(r.stderr, /wrote tables, correlations, paired tests and analysis\.json/);

    // As `llmkb eval` leaves them: each summary with its records beside it. Compare given the
    // summaries reads the records too, so the same paired tests are run.
    const summaries: string[] = [];
    for (const f of files) {
      const m = await llmkb(['metrics', '-i', f, '--format', 'json', '--resamples', '100']);
      assert.equal(m.code, 0, m.stderr);
      const summary = f.replace(/\.records\.jsonl$/, '.summary.json');
      writeFileSync(summary, m.stdout);
      summaries.push(summary);
    }
    const s = await llmkb(['compare', ...summaries, '--out', join(dir, 'out-summaries'), '--resamples', '100']);
    assert.equal(s.code, 0, s.stderr);
    assert.deepEqual(readFileSync(join(dir, 'out-summaries', 'paired-tests.md'), 'utf8'), readFileSync(join(dir, 'out', 'paired-tests.md'), 'utf8'));
  });

  it('computes Pearson r and a two-sided p-value', () => {
    const { r, p } = pearson([1, 2, 3, 4, 5], [2, 4, 5, 4, 5]);
    assert.ok(Math.abs(r! - 0.7745966692) < 1e-9);
    assert.ok(Math.abs(p! - 0.124027) < 1e-6, `p ${p}`); // scipy.stats.pearsonr
    assert.deepEqual(pearson([1, 1, 1], [1, 2, 3]), { r: null, p: null });
  });

  it('paired bootstrap: a clearly better model differs significantly; a model against itself does not', () => {
    const make = (correct: number): MetricRecord[] =>
      Array.from({ length: 400 }, (_, i) =>
        i < 200
          ? { dataset: 'seen', label: i < correct ? 'correct' : 'wrong', consistency: 0.8 }
          : { dataset: 'unseen', label: i < 200 + correct / 2 ? 'uninformative' : 'wrong', consistency: 0.5 },
      );
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
