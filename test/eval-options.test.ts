/**
 * Issue 13 options of the stages and of `llmkb eval`: --limit N (a seeded sample; a run of its
 * own; an approximation in the protocol block), --junit FILE next to --fail-under, the offline
 * hints of `eval --quick`, and a closed stdout (`llmkb … | head`). The model is the loopback
 * OpenAI-compatible test server; nothing touches the network.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { junitReport, xmlEscape } from '../src/analysis/junit.js';
import { EXIT_CODES } from '../src/errors.js';
import { limitItems } from '../src/sampling/limit-items.js';
import { buildProtocol, departures } from '../src/methods/reliability/protocol.js';
import { startOpenAICompatibleServer, type TestServer } from './support/openai-compatible-server.js';
import { llmkb, type CliResult } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'llmkb.js');
const dataDir = process.env.LLMKB_DATA_DIR;
const hasPython = spawnSync('python3', ['-c', 'import xml.etree.ElementTree'], { encoding: 'utf8' }).status === 0;

/** Parses XML with Python's own parser (an independent, strict one) and returns the tree as JSON. */
function parseXml(xml: string): XmlNode {
  const script = `
import json, sys, xml.etree.ElementTree as ET
def node(e): return {"tag": e.tag, "attrs": dict(e.attrib), "text": e.text or "", "children": [node(c) for c in e]}
print(json.dumps(node(ET.fromstring(sys.stdin.buffer.read()))))`;
  const r = spawnSync('python3', ['-c', script], { input: xml, encoding: 'utf8' });
  assert.equal(r.status, 0, `not well-formed XML: ${r.stderr}\n${xml}`);
  return JSON.parse(r.stdout) as XmlNode;
}
interface XmlNode {
  tag: string;
  attrs: Record<string, string>;
  text: string;
  children: XmlNode[];
}
const testcases = (root: XmlNode): XmlNode[] => root.children.flatMap((suite) => suite.children.filter((c) => c.tag === 'testcase'));

const tmp = (prefix = 'llmkb-opts-') => tempDir(prefix);
const jsonl = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const serverScript = { nextToken: () => ({ ' A': 0.6, ' B': 0.1, ' C': 0.1, ' D': 0.1, ' E': 0.1 }) };

/** 12 seen + 8 unseen questions, grouped as the data set files are. */
const QUESTIONS = [
  ...Array.from({ length: 12 }, (_, i) => ({
    id: `s${i}`,
    dataset: 'seen',
    source: i < 6 ? 'nq' : 'triviaqa',
    question: `who wrote book ${i}`,
    answers: [`Author ${i}`],
    answerType: 'person',
    sourceId: `x:${i}`,
  })),
  ...Array.from({ length: 8 }, (_, i) => ({
    id: `u${i}`,
    dataset: 'unseen',
    source: 'T1',
    question: `who won the 2031 race ${i}`,
    answers: [],
    answerType: 'person',
    sourceId: `T1:${i}`,
  })),
];

describe('limitItems: a seeded sample split between seen and unseen, in file order', () => {
  it('takes N items in proportion to the data sets, the same for the same seed, in file order', () => {
    const a = limitItems(QUESTIONS, 5, 42);
    assert.equal(a.length, 5);
    assert.deepEqual([a.filter((q) => q.dataset === 'seen').length, a.filter((q) => q.dataset === 'unseen').length], [3, 2], '12:8 of 5 = 3 + 2');
    assert.deepEqual(a, limitItems(QUESTIONS, 5, 42), 'seeded');
    assert.deepEqual(
      a.map((q) => QUESTIONS.indexOf(q)),
      a.map((q) => QUESTIONS.indexOf(q)).sort((x, y) => x - y),
      'file order',
    );
    assert.notDeepEqual(
      a.map((q) => q.id),
      ['s0', 's1', 's2', 'u0', 'u1'],
      'a sample, not the first lines of each set',
    );
    assert.notDeepEqual(limitItems(QUESTIONS, 5, 7), a, 'another seed, another sample');
    assert.deepEqual(limitItems(QUESTIONS, 50, 42), QUESTIONS, 'N beyond the items: all of them');
    assert.deepEqual(limitItems(a, 5, 42), a, 'a limited file limited again by the same N is unchanged (ask --limit N, then judge --limit N)');
  });
});

describe('the protocol block of a limited run', () => {
  it('records "questions" as an approximation naming N and the full set', () => {
    const base = {
      setting: 'zero-shot',
      lexicalJudge: { id: 'lexical-v2', note: 'n' },
      shotSelector: 'bm25-v1',
      mode: 'generate' as const,
      mcqs: 20,
      maxTokens: 100,
      computeBackend: 'server',
      datasets: {},
      seed: 42,
    };
    const full = buildProtocol({ ...base, questions: { seen: 3000, unseen: 3000 } });
    assert.equal(full.entries.questions.status, 'paper');
    const limited = buildProtocol({ ...base, questions: { seen: 5, unseen: 5 }, limit: { n: 10, of: 6000 } });
    assert.deepEqual(limited.entries.questions, {
      choice: 'limit: 5 seen + 5 unseen',
      status: 'approximation',
      note: '--limit 10: a seeded sample of 10 of 6000 questions, for a quick look: wide intervals, not comparable with a full run',
    });
    assert.ok(departures(limited).some((d) => d.choice === 'questions'));
  });
});

describe('--limit on the stages', () => {
  it('ask, judge and consistency work on N items, in a run of their own', async () => {
    const server: TestServer = await startOpenAICompatibleServer(serverScript);
    try {
      const dir = tmp();
      writeFileSync(join(dir, 'q.jsonl'), jsonl(QUESTIONS));
      const model = `vllm:${server.baseURL}/m`;
      const store = ['--store', join(dir, 's.sqlite')];
      const ask = await llmkb([...store, 'ask', '--model', model, '--input', join(dir, 'q.jsonl'), '--limit', '5', '-o', join(dir, 'r5.jsonl')], { cwd: dir });
      assert.equal(ask.code, 0, ask.stderr);
      assert.match(ask.stderr, /--limit 5: 5 of 20 questions \(a seeded sample; a run of its own\)/);
      assert.deepEqual(
        lines(join(dir, 'r5.jsonl')).map((r) => r.id),
        limitItems(QUESTIONS, 5, 42).map((q) => q.id),
      );
      assert.equal(server.requests.length, 5, 'five questions asked');
      const full = await llmkb([...store, 'ask', '--model', model, '--input', join(dir, 'q.jsonl'), '-o', join(dir, 'r.jsonl')], { cwd: dir });
      assert.equal(full.code, 0, full.stderr);
      assert.equal(lines(join(dir, 'r.jsonl')).length, 20, 'the full run has every question, not the limited run resumed');
      const runIds = [/\[run ([0-9a-f]{16})\]/.exec(ask.stdout)![1], /\[run ([0-9a-f]{16})\]/.exec(full.stdout)![1]];
      assert.notEqual(runIds[0], runIds[1], 'a limited run is a run of its own');
      assert.equal(server.requests.length, 20, 'the full run answered the five from the cache');

      const judge = await llmkb([...store, 'judge', '-i', join(dir, 'r.jsonl'), '--limit', '4', '-o', join(dir, 'l4.jsonl')], { cwd: dir });
      assert.equal(judge.code, 0, judge.stderr);
      assert.match(judge.stdout, /judged 4 responses/);
      const labelled = lines(join(dir, 'l4.jsonl'));
      assert.deepEqual(
        labelled.map((r) => r.id),
        limitItems(QUESTIONS, 4, 42).map((q) => q.id),
        'judge samples with seed 42',
      );

      const judgedAll = await llmkb([...store, 'judge', '-i', join(dir, 'r.jsonl'), '-o', join(dir, 'l.jsonl')], { cwd: dir });
      assert.equal(judgedAll.code, 0, judgedAll.stderr);
      const consistency = await llmkb(
        [
          ...store,
          'consistency',
          '-i',
          join(dir, 'l.jsonl'),
          '--model',
          model,
          '--limit',
          '3',
          '--mcqs',
          '2',
          '--compare-modes',
          '0',
          '-o',
          join(dir, 'c3.jsonl'),
        ],
        { cwd: dir },
      );
      assert.equal(consistency.code, 0, consistency.stderr);
      assert.match(consistency.stderr, /--limit 3: 3 of 20 labelled responses/);
      assert.equal(lines(join(dir, 'c3.jsonl')).length, 3);
      const runs = (JSON.parse((await llmkb([...store, 'runs', '--json'], { cwd: dir })).stdout) as { runs: Array<{ id: string }> }).runs;
      assert.equal(runs.length, 5, 'ask x2, judge x2, consistency: limited and full runs never share one');
    } finally {
      await server.close();
    }
  });
});

describe('--junit', () => {
  it('one test case per (run, threshold), failures carry the value; escaped, well-formed XML', {
    skip: hasPython ? false : 'python3 (the XML parser of this test) is not installed',
  }, () => {
    const runs = [
      { model: 'a<&>"\'\u0001model', setting: 'zero-shot', runId: 'r1', metrics: { NCCR: 0.05, IUR: 0.9 } },
      { model: 'b', setting: 'four-shot', approximate: true, metrics: { NCCR: 0.3, IUR: null } },
    ];
    const xml = junitReport(
      runs,
      [
        { metric: 'NCCR', value: 0.1 },
        { metric: 'IUR', value: 0.5 },
      ],
      { timestamp: '2026-01-01T00:00:00' },
    );
    const root = parseXml(xml);
    assert.equal(root.tag, 'testsuites');
    assert.deepEqual([root.attrs.tests, root.attrs.failures], ['4', '2']);
    const cases = testcases(root);
    assert.deepEqual(
      cases.map((c) => `${c.attrs.classname} | ${c.attrs.name} | ${c.children.map((x) => x.tag).join()}`),
      [
        'llmkb.a<&>"\'model.zero-shot | NCCR >= 0.1 | failure',
        'llmkb.a<&>"\'model.zero-shot | IUR >= 0.5 | system-out',
        'llmkb.b.four-shot | NCCR >= 0.1 | system-out',
        'llmkb.b.four-shot | IUR >= 0.5 | failure',
      ],
      'the special characters round-trip; the control character, which XML cannot hold, is dropped',
    );
    assert.equal(cases[0]!.children[0]!.attrs.message, 'NCCR = 0.0500 < 0.1');
    assert.match(cases[0]!.children[0]!.text, /run r1/);
    assert.match(cases[3]!.children[0]!.attrs.message!, /IUR is undefined/);
    assert.match(cases[2]!.children[0]!.text, /NCCR = 0\.3000 .*approximate labels/);
    assert.equal(xmlEscape('a\u0000b\ud800c'), 'abc', 'NUL and lone surrogates dropped');
  });

  it('is refused without --fail-under, and when it names a folder, before any work', async () => {
    const cwd = tmp();
    const none = await llmkb(['eval', '--model', 'gguf:/nowhere/x.gguf', '--junit', 'j.xml', '--out', 'o', '--data', 'd'], { cwd });
    assert.equal(none.code, EXIT_CODES.usage);
    assert.match(none.stderr, /--junit without --fail-under/);
    const folder = await llmkb(['eval', '--model', 'gguf:/nowhere/x.gguf', '--fail-under', 'NCCR=0.1', '--junit', cwd, '--out', 'o', '--data', 'd'], { cwd });
    assert.equal(folder.code, EXIT_CODES.fileAccess);
    assert.deepEqual(readdirSync(cwd), []);
  });
});

describe('llmkb eval --limit and --junit end to end (loopback model)', { skip: dataDir ? false : 'LLMKB_DATA_DIR is not set' }, () => {
  it('a limited run: its own run id and result files, "questions" an approximation; the JUnit file has the gate', {
    skip: hasPython ? false : 'python3 is not installed',
  }, async () => {
    const server = await startOpenAICompatibleServer(serverScript);
    try {
      const cwd = tmp();
      const model = `vllm:${server.baseURL}/m`;
      // --limit and the thresholds from the config: the same names as on the command line.
      writeFileSync(
        join(cwd, 'llmkb.config.json'),
        JSON.stringify({ defaults: { eval: { limit: 6, settings: ['zero-shot'], mcqs: 2, failUnder: ['NCCR=0.5', 'IUR=0'], dataDir } } }),
      );
      const r = await llmkb(['eval', '--model', model, '--data', 'data', '--out', 'out', '--junit', 'gate.xml'], { cwd });
      assert.equal(r.code, EXIT_CODES.threshold, r.stderr);
      assert.match(r.stderr, /--limit 6: 6 of \d+ questions/);
      const stem = readdirSync(join(cwd, 'out')).find((f) => f.endsWith('.zero-shot.mcqs-2.limit-6.summary.json'));
      assert.ok(stem, `limited results are named *.mcqs-2.limit-6.* (2 MCQs, not the paper's 20): ${readdirSync(join(cwd, 'out')).join(', ')}`);
      assert.deepEqual(
        readdirSync(join(cwd, 'out')).filter((f) => f.endsWith('.html')),
        ['m.mcqs-2.limit-6.report.html'],
        "the report is named by its run: a full run's report is never overwritten",
      );
      const summary = JSON.parse(readFileSync(join(cwd, 'out', stem), 'utf8')) as {
        runId: string;
        counts: { seen: number; unseen: number };
        protocol: { entries: { questions: { choice: string; status: string; note: string } } };
      };
      assert.deepEqual([summary.counts.seen, summary.counts.unseen], [3, 3]);
      assert.equal(summary.protocol.entries.questions.status, 'approximation');
      assert.match(summary.protocol.entries.questions.choice, /^limit: 3 seen \+ 3 unseen$/);
      assert.match(summary.protocol.entries.questions.note, /--limit 6: a seeded sample of 6 of \d+ questions/);
      const root = parseXml(readFileSync(join(cwd, 'gate.xml'), 'utf8'));
      const cases = testcases(root);
      assert.deepEqual(
        cases.map((c) => c.attrs.name),
        ['NCCR >= 0.5', 'IUR >= 0'],
      );
      assert.match(cases[0]!.children[0]!.attrs.message!, /^NCCR = -?\d\.\d{4} < 0\.5$/);
      assert.match(cases[0]!.children[0]!.text, new RegExp(`run ${summary.runId}`));
      assert.equal(cases[1]!.children[0]!.tag, 'system-out', 'IUR >= 0 passes');
      // The same command with --limit 8 on the command line (it wins over the config): another run.
      const other = await llmkb(['eval', '--model', model, '--data', 'data', '--out', 'out', '--limit', '8'], { cwd });
      assert.equal(other.code, EXIT_CODES.threshold, other.stderr);
      const ids = new Set(
        readdirSync(join(cwd, 'out'))
          .filter((f) => f.endsWith('.summary.json'))
          .map((f) => (JSON.parse(readFileSync(join(cwd, 'out', f), 'utf8')) as { runId: string }).runId),
      );
      assert.equal(ids.size, 2, 'limit 6 and limit 8 are different runs with different files');
    } finally {
      await server.close();
    }
  });
});

/** Runs the CLI with fetch made offline (test/support/offline-fetch.mjs) and Hugging Face on a closed port. */
function offlineLlmkb(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', join(ROOT, 'test', 'support', 'offline-fetch.mjs'), BIN, ...args],
      {
        cwd,
        timeout: 60_000,
        env: {
          ...process.env,
          CI: '1',
          HF_ENDPOINT: 'http://127.0.0.1:9/',
          LLMKB_DOWNLOAD_TIMEOUT_MS: '5000',
          LLMKB_CACHE_DIR: join(cwd, 'cache'),
          LLMKB_DATA_DIR: '',
          ...env,
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('offline: llmkb eval --quick names both ways out', () => {
  const bothWays = (r: CliResult) => {
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /^llmkb: error: /m);
    assert.match(r.stderr, /hint: .*--model gguf:PATH/);
    assert.match(r.stderr, /hint: .*--data-dir DIR/);
    assert.doesNotMatch(r.stderr, /internal error|^\s+at /m);
  };

  it('when the default model cannot be downloaded', async () => {
    const r = await offlineLlmkb(['eval', '--quick'], tmp());
    assert.match(r.stderr, /using the embedded default hf:/);
    assert.match(r.stderr, /download/);
    bothWays(r);
  });

  it('when the data sources cannot be downloaded', async () => {
    const server = await startOpenAICompatibleServer(serverScript);
    try {
      const r = await offlineLlmkb(['eval', '--quick', '--model', `vllm:${server.baseURL}/m`], tmp());
      assert.match(r.stderr, /could not download .* ENOTFOUND|could not download .*fetch failed/);
      bothWays(r);
      assert.equal(server.requests.length, 0, 'stopped before asking anything');
    } finally {
      await server.close();
    }
  });
});

describe('a closed stdout (llmkb … | head)', () => {
  for (const args of [['--help'], ['methods', '--json']]) {
    it(`llmkb ${args.join(' ')} with its reader gone exits quietly with the command's own code`, async () => {
      const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // the reader closes before llmkb writes: every write gets EPIPE
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      assert.equal(stderr, '', 'no "Unhandled \'error\' event" / EPIPE stack trace');
      assert.equal(code, 0);
    });
  }
});
