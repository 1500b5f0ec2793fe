/**
 * The output oracle (issue 35): fixture runs made by the real runner against scripted models
 * (test/support/oracle-fixture.ts: four models with size and tuning, all three settings, SeenQA
 * sources, UnseenQA templates, user sources named `TQ-mine` and `mine`, a flagged model, lexical
 * (approximate) and judge-LLM (exact) runs), every output rendered by the CLI, and every number
 * shown checked against the oracle's own arithmetic over the records files
 * (test/support/oracle-metrics.ts), with the notices each output carries. A table or figure
 * that reads the wrong metric, setting, run or source fails here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildOracleRuns, EVAL_MODEL, SETTINGS, STUDY_MODELS, type OracleFixture } from './support/oracle-fixture.js';
import {
  bySource,
  flaggedMetrics,
  mean,
  metricsOf,
  pct,
  pearson,
  readRecords,
  sizeClass,
  type Metric,
  type OracleRecord,
  type Values,
} from './support/oracle-metrics.js';
import { csvRows, markdownRows } from './support/oracle-tables.js';
import { llmkb } from './support/run-cli.js';
import { figureSvg, svgMarks, type SvgMark } from './support/svg-marks.js';
import { startViewServer } from '../src/view/view-server.js';
import { tempDir } from './support/temp-dir.js';

interface Run {
  model: string;
  setting: string;
  paramsB: number;
  fineTuned: boolean;
  summaryFile: string;
  records: OracleRecord[];
  values: Values;
  flagged: Set<Metric>;
  approximate: boolean;
}

const TABLES: Record<'9' | '10' | '11', Metric[]> = {
  '9': ['WR', 'CR', 'NCR', 'UR'],
  '10': ['C_wrong_seen', 'C_wrong_unseen', 'C_wrong', 'C_correct'],
  '11': ['CWR', 'CCR', 'NCCR', 'IUR'],
};
const HEADLINE: Metric[] = ['NCR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'];
const DAGGER = '†';

let work: string;
let fixture: OracleFixture;
let runs: Run[];
const studyRuns = (): Run[] => runs.filter((r) => r.model !== EVAL_MODEL.label);
const shown = (r: Run, m: Metric, digits = 2): string => `${pct(r.values[m], digits)}${r.flagged.has(m) && r.values[m] !== null ? DAGGER : ''}`;

/** Tables 9-11 as rows (Model, then each setting's four metrics): every cell against the oracle. */
function checkPaperTable(rows: string[][], table: '9' | '10' | '11', expected: readonly Run[], where: string): void {
  const [header, ...body] = rows;
  const settings = SETTINGS.filter((s) => expected.some((r) => r.setting === s));
  // A CSV ends with a `notices` column when some run has notices (checked with the notices below).
  const columns = header!.includes('notices') ? header!.slice(0, header!.indexOf('notices')) : header!;
  assert.deepEqual(
    columns.slice(1).map((h) => h.split(' ')[0]),
    settings.flatMap((s) => TABLES[table].map(() => s)),
    `${where}: columns are the settings in order`,
  );
  const models = [...new Set(expected.map((r) => r.model))];
  assert.deepEqual(
    body.map((r) => r[0]),
    models,
    `${where}: a row per model`,
  );
  for (const row of body) {
    settings.forEach((setting, si) => {
      const run = expected.find((r) => r.model === row[0] && r.setting === setting)!;
      TABLES[table].forEach((m, mi) => assert.equal(row[1 + si * 4 + mi], shown(run, m), `${where}: Table ${table}, ${run.model} ${setting} ${m}`));
    });
  }
}

/** The ranking lines of `compare`'s Markdown: unflagged values best first, flagged ones apart. */
function checkRankings(md: string, expected: readonly Run[], where: string): void {
  for (const setting of SETTINGS) {
    const block = md.slice(md.indexOf(`## Rankings (${setting})`)).split('\n\n')[1]!;
    for (const m of ['NCCR', 'IUR'] as const) {
      const line = block.split('\n').find((l) => l.startsWith(`${m}: `))!;
      const inSetting = expected.filter((r) => r.setting === setting && r.values[m] !== null);
      const ranked = inSetting.filter((r) => !r.flagged.has(m)).sort((a, b) => b.values[m]! - a.values[m]! || a.model.localeCompare(b.model));
      const apart = inSetting.filter((r) => r.flagged.has(m));
      const want = `${m}: ${ranked.map((r, i) => `${i + 1}. ${r.model} ${pct(r.values[m])}`).join(', ')}${apart.length ? `; not ranked (a warning of the run concerns the value): ${apart.map((r) => `${r.model} ${pct(r.values[m])}${DAGGER}`).join(', ')}` : ''}`;
      assert.equal(line, want, `${where}: ${setting} ranking by ${m}`);
    }
  }
}

/** analysis.json: tables, correlations, rankings, effects and paired tests against the oracle. */
function checkAnalysis(analysis: Record<string, unknown>, expected: readonly Run[], where: string): void {
  for (const t of ['9', '10', '11'] as const)
    checkPaperTable(
      [(analysis[`table${t}`] as { header: string[] }).header, ...(analysis[`table${t}`] as { rows: string[][] }).rows],
      t,
      expected,
      `${where} table${t}`,
    );
  for (const c of analysis.correlations as Array<{ x: Metric; y: Metric; setting: string; n: number; r: number | null }>) {
    const both = expected.filter((r) => r.setting === c.setting && r.values[c.x] !== null && r.values[c.y] !== null);
    assert.equal(c.n, both.length, `${where}: n of ${c.x} vs ${c.y} (${c.setting})`);
    const r = pearson(
      both.map((x) => 100 * x.values[c.x]!),
      both.map((x) => 100 * x.values[c.y]!),
    );
    if (r === null) assert.equal(c.r, null, `${where}: R of ${c.x} vs ${c.y} (${c.setting})`);
    else assert.ok(Math.abs(c.r! - r) < 1e-9, `${where}: R of ${c.x} vs ${c.y} (${c.setting}): ${c.r} vs ${r}`);
  }
  const rankings = analysis.rankings as Record<string, Record<string, Array<{ model: string; value: number }>>>;
  for (const setting of SETTINGS) {
    for (const m of HEADLINE) {
      const want = expected
        .filter((r) => r.setting === setting && r.values[m] !== null && !r.flagged.has(m))
        .sort((a, b) => (m === 'C_wrong' ? a.values[m]! - b.values[m]! : b.values[m]! - a.values[m]!) || a.model.localeCompare(b.model));
      assert.deepEqual(
        rankings[setting]![m]!.map((x) => x.model),
        want.map((r) => r.model),
        `${where}: analysis.json ranking ${setting} ${m}`,
      );
    }
  }
  const fx = analysis.effects as {
    size: Array<{ setting: string; sizeClass: string; runs: number; metrics: Record<string, number | null> }>;
    fineTuning: Array<{ setting: string; fineTuned: boolean; runs: number; metrics: Record<string, number | null> }>;
  };
  for (const row of fx.size) {
    const group = expected.filter((r) => r.setting === row.setting && sizeClass(r.paramsB) === row.sizeClass);
    assert.equal(row.runs, group.length, `${where}: size ${row.setting} ${row.sizeClass}`);
    for (const m of HEADLINE)
      assert.equal(
        round(row.metrics[m] ?? null),
        round(mean(group.map((r) => r.values[m]).filter((v): v is number => v !== null))),
        `${where}: size ${row.setting} ${row.sizeClass} ${m}`,
      );
  }
  for (const row of fx.fineTuning) {
    const group = expected.filter((r) => r.setting === row.setting && r.fineTuned === row.fineTuned);
    assert.equal(row.runs, group.length, `${where}: fine-tuning ${row.setting} ${row.fineTuned}`);
    for (const m of HEADLINE)
      assert.equal(
        round(row.metrics[m] ?? null),
        round(mean(group.map((r) => r.values[m]).filter((v): v is number => v !== null))),
        `${where}: fine-tuning ${row.setting} ${row.fineTuned} ${m}`,
      );
  }
  for (const t of analysis.pairedTests as Array<{ a: string; b: string; setting: string; metric: Metric; difference: number | null; questions: number }>) {
    const a = expected.find((r) => r.model === t.a && r.setting === t.setting)!;
    const b = expected.find((r) => r.model === t.b && r.setting === t.setting)!;
    const shared = a.records.filter((x) => b.records.some((y) => y.id === x.id)).length;
    assert.equal(t.questions, shared, `${where}: paired test n ${t.a} vs ${t.b}`);
    assert.equal(
      round(t.difference),
      round(a.values[t.metric] === null || b.values[t.metric] === null ? null : a.values[t.metric]! - b.values[t.metric]!),
      `${where}: paired ${t.a} - ${t.b} ${t.metric} (${t.setting})`,
    );
  }
}

const round = (v: number | null): number | null => (v === null ? null : Math.round(v * 1e9) / 1e9);

/** Each mark's fields as numbers where they are, for comparing sets of marks. */
const markValue = (m: SvgMark, field: string): number => Number(m.fields[field]);
const near = (a: number, b: number | null, where: string): void =>
  assert.ok(b !== null && Math.abs(a - Math.round(b * 10000) / 100) < 0.006, `${where}: shown ${a}, expected ${b === null ? null : 100 * b}`);

/** The report's figures: each mark's numbers, and where it is drawn, against the oracle. */
function checkFigures(html: string, expected: readonly Run[], where: string): void {
  const svg = (id: string): SvgMark[] => {
    const s = figureSvg(html, id);
    assert.ok(s, `${where}: figure ${id}`);
    return svgMarks(s);
  };
  // Figure 7: one point per run with both metrics, x and y its values, in its setting's colour.
  for (const [id, x, y] of [
    ['fig7a', 'UR', 'NCR'],
    ['fig7c', 'IUR', 'NCCR'],
  ] as const) {
    const points = svg(id).filter((m) => m.kind === 'point');
    const want = expected.filter((r) => r.values[x] !== null && r.values[y] !== null);
    assert.equal(points.length, want.length, `${where}: ${id} points`);
    const key = (setting: string, a: number, b: number) => `${setting} ${a.toFixed(2)} ${b.toFixed(2)}`;
    assert.deepEqual(
      points.map((p) => key(p.fields.setting!, markValue(p, `${x} (x100)`), markValue(p, `${y} (x100)`))).sort(),
      want.map((r) => key(r.setting, Math.round(r.values[x]! * 10000) / 100, Math.round(r.values[y]! * 10000) / 100)).sort(),
      `${where}: ${id} point values`,
    );
  }
  // Figure 6: a bar per unflagged run, its value, in its setting's panel.
  for (const m of ['NCCR', 'IUR'] as const) {
    const bars = svg(`rank-${m}`).filter((b) => b.kind === 'bar');
    const want = expected.filter((r) => r.values[m] !== null && !r.flagged.has(m));
    assert.equal(bars.length, want.length, `${where}: rank-${m} bars`);
    for (const b of bars) {
      const run = want.find((r) => r.model === b.fields.model && r.setting === b.column);
      assert.ok(run, `${where}: rank-${m}: ${b.fields.model} in panel ${b.column}`);
      near(markValue(b, `${m} (x100)`), run.values[m], `${where}: rank-${m} ${run.model} ${run.setting}`);
    }
  }
  // Figure 4: UR by answer type of each run (its setting's panel).
  const cells = svg('fig4').filter((c) => c.kind === 'rect mark');
  for (const c of cells) {
    const run = expected.find((r) => r.model === c.fields.model && r.setting === c.column)!;
    const group = run.records.filter((r) => r.dataset === 'unseen' && r.answerType === c.fields.answerType);
    near(markValue(c, 'UR'), metricsOf(group).UR, `${where}: fig4 ${run.model} ${run.setting} ${c.fields.answerType}`);
  }
  assert.equal(
    cells.length,
    expected.reduce((n, r) => n + new Set(r.records.filter((x) => x.dataset === 'unseen').map((x) => x.answerType)).size, 0),
    `${where}: fig4 cells`,
  );
  // Figure 12: CR and WR of every run, the metric's panel.
  const f12 = svg('fig12').filter((p) => p.kind === 'point');
  assert.equal(f12.length, expected.length * 2, `${where}: fig12 points`);
  for (const p of f12)
    near(
      markValue(p, 'x100'),
      expected.find((r) => r.model === p.fields.model && r.setting === p.fields.setting)!.values[p.column as Metric],
      `${where}: fig12 ${p.fields.model} ${p.fields.setting} ${p.column}`,
    );
  // Figure 11: C_correct and C_wrong of every run (flagged ones marked), its setting's panel.
  for (const p of svg('fig11').filter((q) => q.kind === 'point')) {
    const model = p.fields.model!.replace(DAGGER, '');
    const run = expected.find((r) => r.model === model && r.setting === p.column)!;
    assert.equal(p.fields.model!.endsWith(DAGGER), run.flagged.has('C_correct'), `${where}: fig11 ${model} dagger`);
    near(markValue(p, 'x100'), run.values[p.fields.metric as Metric], `${where}: fig11 ${model} ${p.column} ${p.fields.metric}`);
  }
  // Figures 3, 8-10: means over the runs of each group, drawn in the group's panel and row.
  const meanOf = (group: readonly Run[], m: Metric): number | null => mean(group.map((r) => r.values[m]).filter((v): v is number => v !== null));
  const type = (r: Run) => (r.fineTuned ? 'fine-tuned' : 'base');
  const first = expected.filter((r) => r.setting === SETTINGS[0]);
  const effects: Array<[string, string, (p: SvgMark) => Run[]]> = [
    ['fig3a', 'size', (p) => first.filter((r) => sizeClass(r.paramsB) === p.fields.size)],
    ['fig3b', 'group', (p) => first.filter((r) => type(r) === p.fields.group)],
    ['fig3c', 'setting', (p) => expected.filter((r) => r.setting === p.fields.setting)],
    ['fig8', 'size', (p) => first.filter((r) => sizeClass(r.paramsB) === p.fields.size && type(r) === p.column)],
    ['fig9', 'type', (p) => first.filter((r) => type(r) === p.fields.type && sizeClass(r.paramsB) === p.column)],
    ['fig10', 'setting', (p) => expected.filter((r) => r.setting === p.fields.setting && sizeClass(r.paramsB) === p.column && type(r) === p.row)],
  ];
  for (const [id, , group] of effects) {
    const points = svg(id).filter((p) => p.kind === 'point');
    assert.ok(points.length > 0, `${where}: ${id} has points`);
    for (const p of points) {
      const runsOf = group(p);
      assert.ok(runsOf.length > 0, `${where}: ${id}: a point at ${JSON.stringify(p.fields)} (panel ${p.column}, row ${p.row}) that no run gives`);
      near(
        markValue(p, 'mean (x100)'),
        meanOf(runsOf, p.fields.metric as Metric),
        `${where}: ${id} ${JSON.stringify(p.fields)} panel ${p.column} row ${p.row}`,
      );
    }
  }
}

/** The report's HTML tables: Tables 9-11 and each run's "Source / template" table. */
function checkReportTables(html: string, expected: readonly Run[], where: string): void {
  for (const t of ['9', '10', '11'] as const) {
    const table = new RegExp(`<table class="paper" id="table${t}">([\\s\\S]*?)</table>`).exec(html)![1]!;
    const rows = [...table.matchAll(/<tr><th scope="row">([^<]*)<\/th>([\s\S]*?)<\/tr>/g)];
    for (const [, model, cells] of rows) {
      const [params, ...values] = [...cells!.matchAll(/<td[^>]*>([^<]*)(<sup[^>]*>†<\/sup>)?/g)].map((c) => `${c[1]}${c[2] ? DAGGER : ''}`);
      // The paper's Params column: every fixture model has a whole number of billions.
      assert.equal(params, `${expected.find((r) => r.model === model)!.paramsB}B`, `${where}: HTML Table ${t} ${model} Params`);
      SETTINGS.forEach((setting, si) => {
        const run = expected.find((r) => r.model === model && r.setting === setting)!;
        TABLES[t].forEach((m, mi) => assert.equal(values[si * 4 + mi], shown(run, m), `${where}: HTML Table ${t} ${model} ${setting} ${m}`));
      });
    }
    assert.equal(rows.length, new Set(expected.map((r) => r.model)).size, `${where}: HTML Table ${t} rows`);
  }
  const sections = html.split('<details><summary>').slice(1);
  assert.equal(sections.length, expected.length, `${where}: a section per run`);
  for (const section of sections) {
    const head = /<strong>([^<]*)<\/strong> · ([^ ]*) ·/.exec(section)!;
    const run = expected.find((r) => r.model === head[1] && r.setting === head[2])!;
    assert.equal(
      / · approximate/.test(section.slice(0, section.indexOf('</summary>'))),
      run.approximate,
      `${where}: ${run.model} ${run.setting} says whether it is approximate`,
    );
    const table = /<th>Source \/ template<\/th>[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(section)![1]!;
    const groups = bySource(run.records);
    const rows = [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) => [...r[1]!.matchAll(/<t[hd][^>]*>([^<]*)/g)].map((c) => c[1]!));
    assert.equal(rows.length, groups.size, `${where}: ${run.model} ${run.setting} source rows`);
    for (const [source, n, ...cells] of rows) {
      const g = groups.get(source!)!;
      assert.equal(n, String(g.n), `${where}: ${run.model} ${source} n`);
      (['CR', 'WR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'] as const).forEach((m, i) =>
        assert.equal(cells[i], pct(g.values[m]), `${where}: ${run.model} ${run.setting} source ${source} ${m}`),
      );
    }
  }
}

/** The one result file of a run in `dir`: `<label>.<setting><variant><ext>`, whatever the variant (quick, question set, MCQs, limit) says. */
function runFile(dir: string, label: string, setting: string, ext: string): string {
  const found = readdirSync(dir)
    .filter((f) => f.startsWith(`${label}.${setting}.`) || f === `${label}.${setting}${ext}`)
    .filter((f) => f.endsWith(ext));
  assert.equal(found.length, 1, `one ${ext} file of ${label} (${setting}) in ${dir}: ${found.join(', ')}`);
  return join(dir, found[0]!);
}

describe('output oracle: every number a reader sees, against the records', { timeout: 180_000 }, () => {
  before(async () => {
    work = tempDir('llmkb-oracle-');
    fixture = await buildOracleRuns(work);
    const files: Array<{ model: string; setting: string; summary: string; records: string }> = [];
    for (const m of STUDY_MODELS)
      for (const s of SETTINGS)
        files.push({
          model: m.label,
          setting: s,
          summary: runFile(join(fixture.sweepOut, m.label), m.label, s, '.summary.json'),
          records: runFile(join(fixture.sweepOut, m.label), m.label, s, '.records.jsonl'),
        });
    for (const s of SETTINGS)
      files.push({
        model: EVAL_MODEL.label,
        setting: s,
        summary: runFile(fixture.evalOut, EVAL_MODEL.label, s, '.summary.json'),
        records: runFile(fixture.evalOut, EVAL_MODEL.label, s, '.records.jsonl'),
      });
    const meta = new Map<string, { params: number; tuning: string }>([...STUDY_MODELS, EVAL_MODEL].map((m) => [m.label, m]));
    runs = files.map((f) => {
      const records = readRecords(f.records);
      return {
        model: f.model,
        setting: f.setting,
        paramsB: meta.get(f.model)!.params,
        fineTuned: meta.get(f.model)!.tuning === 'fine-tuned',
        summaryFile: f.summary,
        records,
        values: metricsOf(records),
        flagged: flaggedMetrics(records),
        approximate: records.some((r) => r.approximate === true),
      };
    });
    // The fixture is what the oracle needs: flagged and unflagged, approximate and exact runs, settings that differ.
    assert.ok(runs.some((r) => r.flagged.size > 0) && runs.some((r) => r.flagged.size === 0));
    assert.ok(runs.some((r) => r.approximate) && runs.some((r) => !r.approximate));
    assert.notDeepEqual(
      runs.find((r) => r.model === 'guesser' && r.setting === 'zero-shot')!.values,
      runs.find((r) => r.model === 'guesser' && r.setting === 'four-shot-2')!.values,
    );
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('the sweep: its terminal tables, Markdown and CSV files and analysis.json', () => {
    const study = studyRuns();
    for (const t of ['9', '10', '11'] as const) {
      checkPaperTable(markdownRows(fixture.outputs.sweep, `## Table ${t}`), t, study, 'sweep terminal');
      checkPaperTable(markdownRows(readFileSync(join(fixture.sweepOut, `table${t}.md`), 'utf8')), t, study, `table${t}.md`);
      checkPaperTable(csvRows(readFileSync(join(fixture.sweepOut, `table${t}.csv`), 'utf8')), t, study, `table${t}.csv`);
    }
    checkRankings(fixture.outputs.sweep, study, 'sweep terminal');
    checkAnalysis(JSON.parse(readFileSync(join(fixture.sweepOut, 'analysis.json'), 'utf8')) as Record<string, unknown>, study, 'sweep analysis.json');
  });

  it('compare over every run: terminal, Markdown, CSV, analysis.json and its paired tests', async () => {
    const out = join(work, 'compare');
    const r = await llmkb(['compare', ...runs.map((x) => x.summaryFile), '--out', out], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    for (const t of ['9', '10', '11'] as const) {
      checkPaperTable(markdownRows(r.stdout, `## Table ${t}`), t, runs, 'compare terminal');
      checkPaperTable(csvRows(readFileSync(join(out, `table${t}.csv`), 'utf8')), t, runs, `compare table${t}.csv`);
    }
    checkRankings(r.stdout, runs, 'compare terminal');
    for (const x of runs.filter((y) => y.flagged.size))
      assert.ok(r.stdout.includes(`- ${x.model} (${x.setting}): `), `compare: the warning of ${x.model} ${x.setting}`);
    checkAnalysis(JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8')) as Record<string, unknown>, runs, 'compare analysis.json');
    // Paired tests: n stated, no p of 0, a star only where p < 0.05 on n >= 30.
    for (const row of markdownRows(readFileSync(join(out, 'paired-tests.md'), 'utf8')).slice(1)) {
      const [setting, a, b, metric, diff, , p, n] = row as [string, string, string, Metric, string, string, string, string];
      const ra = runs.find((x) => x.model === a && x.setting === setting)!;
      const rb = runs.find((x) => x.model === b && x.setting === setting)!;
      assert.equal(n, String(ra.records.length), `paired n ${a} vs ${b}`);
      assert.equal(diff.replace(/[*†]/g, ''), pct(ra.values[metric]! - rb.values[metric]!), `paired ${a} - ${b} ${metric} ${setting}`);
      assert.doesNotMatch(p, /^0(\.0+)?$/, 'no p of exactly 0');
      assert.equal(diff.includes('*'), (p.startsWith('<') || Number(p) < 0.05) && Number(n) >= 30, `star of ${a} vs ${b} ${metric} ${setting}`);
    }
  });

  it("eval: the terminal table of the eval's runs, their invalid MCQ answers and departures", () => {
    const lines = fixture.outputs.eval.split('\n');
    assert.ok(
      lines.some((l) => l.startsWith("departures from the paper's protocol: ")),
      'eval prints its departures',
    );
    const head = lines
      .find((l) => l.startsWith('setting '))!
      .trim()
      .split(/\s+/);
    for (const run of runs.filter((r) => r.model === EVAL_MODEL.label)) {
      assert.equal(
        fixture.outputs.eval.includes('APPROXIMATE'),
        runs.some((r) => r.model === EVAL_MODEL.label && r.approximate),
        'the approximate notice',
      );
      const cells = lines
        .find((l) => l.startsWith(`${run.setting} `))!
        .trim()
        .split(/\s+/);
      for (const m of HEADLINE) assert.equal(cells[head.indexOf(m)], shown(run, m), `eval ${run.setting} ${m}`);
      const answers = run.records.reduce((n, r) => n + (r.label === 'uninformative' ? 0 : (r.consistencyDetail?.mcqs ?? 0)), 0);
      const invalid = run.records.reduce((n, r) => n + (r.label === 'uninformative' ? 0 : (r.consistencyDetail?.invalid ?? 0)), 0);
      assert.equal(cells[head.length - 3], `${invalid}/${answers}`, `eval ${run.setting}: invalid MCQ answers`);
    }
  });

  it('metrics: the terminal table of every run, its values, by-source rows and notices', async () => {
    // One run of each model, in turn in each setting (each CLI call costs a Node start).
    for (const run of [...STUDY_MODELS, EVAL_MODEL].map((m, i) => runs.find((r) => r.model === m.label && r.setting === SETTINGS[i % SETTINGS.length])!)) {
      const r = await llmkb(['metrics', '-i', run.summaryFile], { cwd: work });
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.split('\n');
      assert.equal(lines[0]!.includes('[APPROXIMATE'), run.approximate, `${run.model} ${run.setting}: the approximate notice`);
      assert.ok(
        lines.some((l) => l.startsWith('departs from the paper: ')),
        `${run.model} ${run.setting}: its departures`,
      );
      const rowOf = (label: string) =>
        lines
          .find((l) => l.startsWith(label))!
          .slice(38)
          .trim()
          .split(/\s+/)[0];
      for (const [label, m] of [
        ['CR  correct', 'CR'],
        ['WR  wrong', 'WR'],
        ['NCR net', 'NCR'],
        ['UR  unin', 'UR'],
        ['C_correct', 'C_correct'],
        ['C_wrong^s', 'C_wrong_seen'],
        ['C_wrong^u', 'C_wrong_unseen'],
        ['C_wrong ', 'C_wrong'],
        ['CCR', 'CCR'],
        ['CWR', 'CWR'],
        ['NCCR', 'NCCR'],
        ['IUR', 'IUR'],
      ] as const) {
        assert.equal(rowOf(label), shown(run, m), `metrics ${run.model} ${run.setting} ${m}`);
      }
      const at = lines.findIndex((l) => l.startsWith('by source'));
      const groups = bySource(run.records);
      for (const line of lines.slice(at + 1, at + 1 + groups.size)) {
        const [source, n, ...cells] = line.trim().split(/\s+/);
        const g = groups.get(source!)!;
        assert.ok(g, `${run.model}: a by-source row for ${source}`);
        assert.equal(n, String(g.n));
        (['CR', 'WR', 'NCR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'] as const).forEach((m, i) =>
          assert.equal(cells[i], pct(g.values[m], 1), `metrics ${run.model} ${run.setting} source ${source} ${m}`),
        );
      }
      if (run.flagged.size) assert.match(r.stdout, /WARNING: /);
    }
  });

  it("the HTML reports (the sweep's and one over every run): tables, figures and notices", async () => {
    const file = join(work, 'all.html');
    const r = await llmkb(['report', ...runs.map((x) => x.summaryFile), '-o', file], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    for (const [html, expected, where] of [
      [readFileSync(file, 'utf8'), runs, 'report'],
      [readFileSync(join(fixture.sweepOut, 'report.html'), 'utf8'), studyRuns(), 'sweep report'],
    ] as const) {
      checkReportTables(html, expected, where);
      checkFigures(html, expected, where);
      // Notices: the approximate runs named, the departures box, the warnings of flagged runs.
      const approximate = expected.filter((x) => x.approximate);
      const box = /<p class="warn">Approximate: (\d+) run\(s\)[^:]*: ([^<]*)\.<\/p>/.exec(html);
      assert.ok(box, `${where}: the approximate box`);
      assert.equal(Number(box[1]), approximate.length);
      assert.deepEqual(box[2]!.split(', ').sort(), approximate.map((x) => `${x.model} (${x.setting})`).sort());
      assert.match(html, /<section class="warn" id="departures">/);
      // "Read with care" names each warning once with the runs it applies to: "all runs" or "model (setting, setting); ...".
      const careBox = /<section class="warn" id="warnings">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
      const named = [...careBox.matchAll(/<li><strong>([^<]*)<\/strong>: /g)].map((m) => m[1]!);
      const names = (x: Run) =>
        named.some(
          (n) =>
            n === 'all runs' ||
            n.split('; ').some(
              (part) =>
                part.startsWith(`${x.model} (`) &&
                part
                  .slice(x.model.length + 2, -1)
                  .split(', ')
                  .includes(x.setting),
            ),
        );
      for (const x of expected.filter((y) => y.flagged.size)) assert.ok(names(x), `${where}: the warning of ${x.model} ${x.setting}: ${named.join(' | ')}`);
    }
  });

  it("the viewer: the runs page's metrics and notices, each run's breakdowns by source and template, the paired tests", async () => {
    const decode = (s: string) =>
      s
        .replace(/&amp;/g, '&')
        .replace(/&#39;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>');
    for (const [dir, expected] of [
      [fixture.sweepOut, studyRuns()],
      [fixture.evalOut, runs.filter((r) => r.model === EVAL_MODEL.label)],
    ] as const) {
      const view = await startViewServer({ resultsDir: dir, indexFile: join(work, `view-${expected[0]!.model}.sqlite`), port: 0 });
      try {
        const home = await (await fetch(`${view.url}/`)).text();
        const rows = [...home.matchAll(/<tr data-run="([^"]+)">([\s\S]*?)<\/tr>/g)];
        assert.equal(rows.length, expected.length, 'a row per run');
        const keys = new Map<Run, string>();
        for (const [, key, row] of rows) {
          const label = /<a href="\/runs\/[^"]+">([^<]*)<\/a>/.exec(row!)![1]!;
          const setting = /<\/th><td>([^<]*)<\/td>/.exec(row!)![1]!;
          const run = expected.find((r) => r.model === label && r.setting === setting)!;
          keys.set(run, key!);
          // A value is a link to the items behind it; a missing one is none.
          const cells = [...row!.matchAll(/<td class="num">(?:<a class="metric" [^>]*>)?([^<]*)(?:<\/a>)?(<sup class="flag")?/g)].map(
            (c) => `${decode(c[1]!)}${c[2] ? DAGGER : ''}`,
          );
          HEADLINE.forEach((m, i) => assert.equal(cells[i]!.replace('–', '-'), shown(run, m), `viewer runs page: ${label} ${setting} ${m}`));
          assert.match(row!, /class="badge approx"/, `viewer: ${label} ${setting} carries its departures`);
          assert.equal(/† warning/.test(row!), run.flagged.size > 0, `viewer: ${label} ${setting} warning badge`);
          // The run's page: sources whose questions are seen (TQ-mine, mine among them) under "By source", the rest under the templates.
          const page = await (await fetch(`${view.url}/runs/${key}`)).text();
          // Each table's rows, with its columns' titles (the label counts it has differ from table to table).
          const tableOf = (title: string) => {
            const m = new RegExp(`<h3>${title}[^<]*</h3><div class="scroll"><table class="counts"><thead>([\\s\\S]*?)</thead><tbody>([\\s\\S]*?)</tbody>`).exec(
              page,
            );
            const head = [...(m?.[1] ?? '').matchAll(/<th>([^<]*)<\/th>/g)].map((h) => h[1]!).slice(1);
            return [...(m?.[2] ?? '').matchAll(/<tr><th scope="row">([^<]*)<\/th>([\s\S]*?)<\/tr>/g)].map((r) => [r[0], r[1], r[2], head] as const);
          };
          const groups = bySource(run.records);
          const bySourceRows = tableOf('By source');
          const templateRows = tableOf('By UnseenQA template');
          assert.deepEqual(
            bySourceRows.map((r) => r[1]).sort(),
            [...groups]
              .filter(([, g]) => g.seen > 0)
              .map(([s]) => s)
              .sort(),
            `viewer: ${label} ${setting} seen sources`,
          );
          assert.deepEqual(
            templateRows.map((r) => r[1]).sort(),
            [...groups]
              .filter(([, g]) => g.seen === 0)
              .map(([s]) => s)
              .sort(),
            `viewer: ${label} ${setting} templates`,
          );
          for (const [, source, cellsHtml, head] of [...bySourceRows, ...templateRows]) {
            const g = groups.get(source!)!;
            const values = [...cellsHtml!.matchAll(/<td class="num">(?:<a [^>]*>)?([^<]*)/g)].map((c) => decode(c[1]!));
            assert.equal(values[0], String(g.n), `viewer: ${source} items`);
            const flaggedRun = { ...run, values: g.values };
            HEADLINE.forEach((m) => assert.equal(values[head.indexOf(m)], shown(flaggedRun, m), `viewer: ${label} ${setting} ${source} ${m}`));
          }
        }
        // The compare page's paired tests: n stated, no p of 0, a star only on n >= 30.
        const [a, b] = expected.filter((r) => r.setting === SETTINGS[0]);
        if (a && b) {
          const cmp = await (await fetch(`${view.url}/compare?runs=${keys.get(a)},${keys.get(b)}`)).text();
          const paired = [...cmp.matchAll(/<tr(?: class="sig")?><th scope="row">([^<]*)<\/th>((?:<td[^>]*>[^<]*<\/td>){6})<\/tr>/g)];
          assert.ok(paired.length > 0, 'viewer compare: paired tests');
          for (const [, metric, cells] of paired) {
            const c = [...cells!.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((x) => decode(x[1]!));
            assert.equal(c[5], String(a.records.length), `viewer compare ${metric}: n`);
            assert.doesNotMatch(c[4]!, /^0(\.0+)?$/, 'no p of 0');
          }
        }
      } finally {
        await view.close();
      }
    }
  });

  it("the sweep's outputs carry their runs' notices (approximate runs, departures)", () => {
    const notice = /approximate|APPROXIMATE/;
    assert.match(fixture.outputs.sweep, notice);
    for (const f of readdirSync(fixture.sweepOut).filter((x) => /^table\d+\.(md|csv)$/.test(x)))
      assert.match(readFileSync(join(fixture.sweepOut, f), 'utf8'), notice, f);
  });
});
