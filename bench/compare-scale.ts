/**
 * `llmkb compare` over many scored record files (issue 13): generates F files of N records each
 * (one setting, the same questions in the same order, labels and consistency drawn per run, as
 * `llmkb eval` writes them) and times `compare` on them in a child process (--out, 1,000
 * resamples). Prints wall time and peak RSS. Figures only, not a test.
 *
 *   npm run bench:compare -- [--files 16,78] [--questions 6000]
 *
 * Target: 78 files of 6,000 questions in under 60 s.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SeededRandom } from '../src/sampling/seeded-random.js';

const { values: args } = parseArgs({
  options: { files: { type: 'string', default: '16,78' }, questions: { type: 'string', default: '6000' }, resamples: { type: 'string', default: '1000' } },
});
const counts = args.files.split(',').map(Number);
const questions = Number(args.questions);
const dir = mkdtempSync(join(tmpdir(), 'llmkb-compare-scale-'));
const max = Math.max(...counts);
const files: string[] = [];
for (let f = 0; f < max; f++) {
  const rng = SeededRandom.stream(7, 'compare-bench', String(f));
  const correctRate = 0.2 + 0.5 * (rng.int(0, 999_999) / 1_000_000);
  const lines: string[] = [];
  for (let i = 0; i < questions; i++) {
    const seen = i < questions / 2;
    const x = rng.int(0, 999_999) / 1_000_000;
    const label = seen ? (x < correctRate ? 'correct' : x < 0.9 ? 'wrong' : 'uninformative') : x < 0.4 ? 'uninformative' : 'wrong';
    const consistency = label === 'uninformative' ? null : Math.round((rng.int(0, 999_999) / 1_000_000) * 20) / 20;
    lines.push(
      JSON.stringify({
        id: `q${i}`,
        dataset: seen ? 'seen' : 'unseen',
        source: seen ? ['nq', 'triviaqa', 'popqa'][i % 3] : `T${1 + (i % 20)}`,
        question: `question number ${i} about something?`,
        answers: seen ? [`answer ${i}`] : [],
        answerType: 'other',
        response: `response ${f}-${i}`,
        setting: 'zero-shot',
        label,
        uninformativeType: label === 'uninformative' ? 'unsure' : 'none',
        judgedBy: 'exact-match',
        consistency,
      }),
    );
  }
  const file = join(dir, `model-${String(f).padStart(2, '0')}.zero-shot.records.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  files.push(file);
}
console.log(`${questions} records per file, one setting, resamples ${args.resamples}, ${dir}`);
for (const n of counts) {
  const out = join(dir, `out-${n}`);
  mkdirSync(out);
  const started = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      '--max-old-space-size=8192',
      '--import',
      'tsx',
      join(import.meta.dirname, 'support', 'run-cli.ts'),
      'compare',
      ...files.slice(0, n),
      '--out',
      out,
      '--resamples',
      args.resamples,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  const seconds = (performance.now() - started) / 1000;
  const line = (r.stderr.match(/bench: .*/g) ?? ['(no figures)']).at(-1);
  console.log(`compare ${String(n).padStart(3)} files   ${seconds.toFixed(1).padStart(7)} s   ${line}   (target for 78: < 60 s)`);
  if (r.status !== 0) console.log(r.stderr.slice(-2000));
}
rmSync(dir, { recursive: true, force: true });
