/**
 * One study of both built-in methods, run with one `llmkb sweep`: the reliability method on a
 * small QA file, CONNER on Natural Questions and on Wizard of Wikipedia (the same method twice,
 * told apart by the entries' names), the GGUF test model as the model under test and CONNER's
 * reference LM, scripted NLI and relevance on loopback TEI servers. The sweep is killed in the
 * middle (SIGKILL, the process group) and run again: it resumes, finishes, and writes one report
 * with both methods' sections; its summaries are byte-identical to an uninterrupted sweep's.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { llmkb } from './support/run-cli.js';
import { startScorerServer, type ScorerServer } from './support/scorer-server.js';
import { tempDir } from './support/temp-dir.js';

const gguf = process.env.LLMKB_TEST_GGUF;
const dataDir = process.env.LLMKB_DATA_DIR;
const skip = !gguf || !dataDir ? 'needs LLMKB_TEST_GGUF and LLMKB_DATA_DIR' : false;
const BIN = join(import.meta.dirname, '..', 'bin', 'llmkb.js');

const QA = [
  { id: 'q1', dataset: 'seen', source: 'nq', question: 'who wrote the story of the three little pigs', answers: ['Joseph Jacobs'], answerType: 'person' },
  { id: 'q2', dataset: 'seen', source: 'nq', question: 'what is the capital of france', answers: ['Paris'], answerType: 'location' },
  { id: 'q3', dataset: 'unseen', source: 'unseenqa', question: 'Who will win the 2031 Tour de France?', answers: [], answerType: 'person' },
  { id: 'q4', dataset: 'unseen', source: 'unseenqa', question: 'How many medals will Chile win at the 2032 Olympics?', answers: [], answerType: 'number' },
];

/** Every file under a folder, by its path relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
}

describe('a study of both methods through one sweep, killed and resumed', { skip }, () => {
  let nli: ScorerServer;
  let relevance: ScorerServer;
  let dir: string;
  before(async () => {
    nli = await startScorerServer({ serves: 'nli' });
    relevance = await startScorerServer({ serves: 'relevance' });
    dir = tempDir('llmkb-two-methods-');
    writeFileSync(join(dir, 'qa.jsonl'), `${QA.map((q) => JSON.stringify(q)).join('\n')}\n`);
    const conner = join(dataDir!, 'conner');
    writeFileSync(
      join(dir, 'study.yaml'),
      [
        'name: two methods',
        'models:',
        `  - { label: tiny, spec: "gguf:${gguf}" }`,
        'methods:',
        '  - { id: reliability, settings: [zero-shot], options: { input: qa.jsonl, mcqs: 3 } }',
        `  - { id: conner, name: conner-nq, settings: [zero-shot], options: { input: "${join(conner, 'nq_test_random_testset.txt')}" } }`,
        `  - { id: conner, name: conner-wow, settings: [zero-shot], options: { input: "${join(conner, 'seen_random_testset.txt')}" } }`,
        `scorer: "gguf:${gguf}"`,
        `nli: { spec: "tei:${nli.url}/cross-encoder/nli-deberta-v3-base", task: nli }`,
        `relevance: "tei:${relevance.url}/cross-encoder/ms-marco-MiniLM-L-6-v2"`,
        'limit: 3',
        'negatives: 2',
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    await nli?.close();
    await relevance?.close();
  });

  it("plans the runs of both methods, CONNER's calls per role included", async () => {
    const plan = await llmkb(['--store', 'plan.db', 'sweep', 'study.yaml', '--plan', '--out', 'planned'], { cwd: dir });
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /1 models x reliability \(1 setting\) \+ conner-nq \(1 setting\) \+ conner-wow \(1 setting\) = 3 runs/);
    assert.match(plan.stdout, /nli/);
    assert.ok(!existsSync(join(dir, 'planned')), '--plan writes nothing');
  });

  it('resumes after a kill, and gives what an uninterrupted sweep gives', { timeout: 900_000 }, async () => {
    // Killed once the second run has generated its knowledge: the first run is finished, the second part-done.
    const child = spawn(process.execPath, [BIN, '--store', 'killed.db', 'sweep', 'study.yaml', '--out', 'killed'], {
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, CI: '1' },
    });
    let stderr = '';
    const killed = await new Promise<boolean>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/\[2\/3\][\s\S]*generate: 3\/3/.test(stderr)) {
          process.kill(-child.pid!, 'SIGKILL');
          resolve(true);
        }
      });
      child.on('exit', () => resolve(false));
    });
    assert.ok(killed, `the sweep ended before it could be killed:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(!existsSync(join(dir, 'killed', 'report.html')), 'no report from a killed sweep');

    const resumed = await llmkb(['--store', 'killed.db', 'sweep', 'study.yaml', '--out', 'killed'], { cwd: dir });
    assert.equal(resumed.code, 0, resumed.stderr);
    const fresh = await llmkb(['--store', 'fresh.db', 'sweep', 'study.yaml', '--out', 'fresh'], { cwd: dir });
    assert.equal(fresh.code, 0, fresh.stderr);

    // The finished run is not redone: its calls come from the store's cache.
    const record = JSON.parse(readFileSync(join(dir, 'killed', 'sweep.json'), 'utf8')) as {
      jobs: Array<{ label: string; method: string; setting: string; status: string }>;
    };
    assert.deepEqual(
      record.jobs.map((j) => `${j.method}:${j.status}`),
      ['reliability:done', 'conner:done', 'conner:done'],
    );

    const results = (root: string) => files(join(dir, root)).filter((f) => f.endsWith('.summary.json') || f.endsWith('.records.jsonl'));
    const got = results('killed');
    assert.deepEqual(got, results('fresh'));
    assert.deepEqual(
      got.filter((f) => f.endsWith('.summary.json')),
      [
        'tiny/conner-nq/tiny.zero-shot.limit-3.summary.json',
        'tiny/conner-wow/tiny.zero-shot.limit-3.summary.json',
        'tiny/reliability/tiny.zero-shot.input-qa.mcqs-3.limit-3.summary.json',
      ].map((f) => relative('.', f)),
    );
    for (const f of got)
      assert.equal(readFileSync(join(dir, 'killed', f), 'utf8'), readFileSync(join(dir, 'fresh', f), 'utf8'), `${f}: resumed and uninterrupted differ`);

    const nq = JSON.parse(readFileSync(join(dir, 'killed', 'tiny/conner-nq/tiny.zero-shot.limit-3.summary.json'), 'utf8')) as {
      method: { id: string };
      counts: Record<string, number>;
      metrics: Record<string, number | null>;
      breakdowns: { task: string };
    };
    const wow = JSON.parse(readFileSync(join(dir, 'killed', 'tiny/conner-wow/tiny.zero-shot.limit-3.summary.json'), 'utf8')) as typeof nq;
    assert.deepEqual([nq.method.id, nq.breakdowns.task, wow.breakdowns.task], ['conner', 'qa', 'dialogue']);
    for (const s of [nq, wow]) {
      assert.equal(s.counts.items, 3);
      for (const m of ['factuality', 'relevance', 'coherence_sentence', 'informativeness', 'helpfulness', 'validity'])
        assert.equal(typeof s.metrics[m], 'number', `${m} scored`);
    }

    const report = readFileSync(join(dir, 'killed', 'report.html'), 'utf8');
    assert.match(report, /CONNER: automatic evaluation, open-domain QA/);
    assert.match(report, /CONNER: automatic evaluation, knowledge-grounded dialogue/);
    assert.match(report, /NCCR/, "the reliability method's metrics");
  });
});
