/**
 * A study model's `serve:` command, end to end through the CLI: each served model gets a server
 * of its own on a free port (two models never share one), the sweep waits for its health URL,
 * evaluates and stops the server's whole process group; a server that never answers fails its
 * model with the end of its log; SIGTERM to the sweep (what scancel sends) takes the servers down.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const dataDir = process.env.LLMKB_DATA_DIR;
const skip = dataDir ? false : 'LLMKB_DATA_DIR must be set (the reliability data sets)';
const BIN = join(import.meta.dirname, '..', 'bin', 'llmkb.js');
const SERVE = join(import.meta.dirname, 'support', 'serve-openai-compatible.ts');

/** The serve command of the test server, with extra flags. */
export function serveCommand(flags = ''): string {
  return `${JSON.stringify(process.execPath)} --import ${JSON.stringify(import.meta.resolve('tsx'))} ${JSON.stringify(SERVE)} --port {port}${flags ? ` ${flags}` : ''}`;
}

function served(label: string, flags = '', extra: Record<string, unknown> = {}) {
  return { label, spec: `vllm:http://127.0.0.1:{port}/v1/${label}`, params: 1, serve: { command: serveCommand(flags), timeout: 60 }, ...extra };
}

/** The data sets, built once for every test here. */
const shared = tempDir('llmkb-serve-data-');

function study(dir: string, models: unknown[], extra: Record<string, unknown> = {}): string {
  const file = join(dir, 'study.json');
  writeFileSync(
    file,
    JSON.stringify(
      {
        name: 'served',
        models,
        methods: [{ id: 'reliability', settings: ['zero-shot'], options: { mcqs: 2 } }],
        limit: 4,
        dataDir,
        data: shared,
        out: 'results',
        ...extra,
      },
      null,
      2,
    ),
  );
  return file;
}

/** Pids and ports the serve log of a model says its servers had. */
function serveLog(dir: string, label: string): { text: string; pids: number[]; ports: number[] } {
  const text = readFileSync(join(dir, 'results', 'logs', `${label}.serve.log`), 'utf8');
  return {
    text,
    pids: [...text.matchAll(/^pid (\d+)/gm)].map((m) => Number(m[1])),
    ports: [...text.matchAll(/listening on http:\/\/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1])),
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (alive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

/** The zero-shot summary of a model in a results folder, whatever its variant (limit, MCQs): `<label>.zero-shot.*.summary.json`. */
function summaryOf(results: string, label: string): string | undefined {
  const dir = join(results, label);
  const found = existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith(`${label}.zero-shot.`) && f.endsWith('.summary.json')) : [];
  return found.length === 1 ? join(dir, found[0]!) : undefined;
}

describe('sweep: models served by a serve: command', { skip }, () => {
  const dirs: string[] = [];
  const work = () => {
    const d = tempDir('llmkb-serve-');
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of [...dirs, shared]) rmSync(d, { recursive: true, force: true });
  });

  it('two served models run side by side on ports of their own; their servers are gone afterwards', async () => {
    const dir = work();
    const r = await llmkb(['--store', join(dir, 's.sqlite'), 'sweep', study(dir, [served('alpha'), served('beta')])], { cwd: dir, timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /2 of 2 runs done here/);
    const a = serveLog(dir, 'alpha');
    const b = serveLog(dir, 'beta');
    assert.equal(a.ports.length, 1, a.text);
    assert.equal(b.ports.length, 1, b.text);
    assert.notEqual(a.ports[0], b.ports[0], 'two models of one process never share a port');
    assert.match(a.text, /call \d+ \/completions/, 'the model was asked through its own server');
    for (const pid of [...a.pids, ...b.pids]) assert.ok(await gone(pid), `server ${pid} stopped with the sweep`);
    assert.ok(summaryOf(join(dir, 'results'), 'alpha'), 'alpha has a summary');
  });

  it('a server that never answers fails its model after serve.timeout, showing the end of its log, and is stopped; one that exits is named at once', async () => {
    const dir = work();
    const stuck = { ...served('stuck'), serve: { command: 'echo "pid $$: loading forever (port {port})"; exec sleep 600', timeout: 2 } };
    const broken = { ...served('broken'), serve: { command: 'echo "failing on purpose (port {port})" >&2; exit 3' } };
    const file = study(dir, [stuck, broken, served('fine')]);
    const started = Date.now();
    const r = await llmkb(['--store', join(dir, 's.sqlite'), 'sweep', file], { cwd: dir, timeoutMs: 120_000 });
    assert.equal(r.code, 3, r.stderr);
    assert.match(
      r.stderr,
      /stuck: its server did not answer http:\/\/127\.0\.0\.1:\d+\/v1\/models within 2 s; the end of its log \(.*stuck\.serve\.log\):\n.*loading forever/,
    );
    assert.match(r.stderr, /broken: its server exited with code 3 before .* answered; the end of its log .*\n(.*\n)*.*failing on purpose/);
    assert.match(r.stdout, /1 of 3 runs done here/, 'the other models ran');
    const stuckPids = serveLog(dir, 'stuck').pids;
    assert.equal(stuckPids.length, 1);
    assert.ok(await gone(stuckPids[0]!), `the stuck server ${stuckPids[0]} (sleep, exec'd by its shell) was stopped`);
    assert.ok(Date.now() - started < 60_000);
  });

  it("SIGTERM to the sweep (what scancel sends) stops the servers' whole process groups, and the same command resumes", async () => {
    const dir = work();
    const file = study(dir, [served('slow', '--delay-ms 150', { concurrency: 1 })]);
    const child = spawn(process.execPath, [BIN, '--store', join(dir, 's.sqlite'), 'sweep', file], {
      cwd: dir,
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const logFile = join(dir, 'results', 'logs', 'slow.serve.log');
    const deadline = Date.now() + 60_000;
    while (!(existsSync(logFile) && /call 3 /.test(readFileSync(logFile, 'utf8'))) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const pids = serveLog(dir, 'slow').pids;
    assert.equal(pids.length, 1, 'the server is up and answering');
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    assert.equal(code, 143, stderr);
    assert.match(stderr, /SIGTERM: stopping 1 model server\(s\) \(slow\)/);
    assert.ok(await gone(pids[0]!), 'the server is gone with the sweep');
    const before = [...serveLog(dir, 'slow').text.matchAll(/^call \d+/gm)].length;
    const again = await llmkb(['--store', join(dir, 's.sqlite'), 'sweep', file], { cwd: dir, timeoutMs: 120_000 });
    assert.equal(again.code, 0, again.stderr);
    const calls = [...serveLog(dir, 'slow').text.matchAll(/^call \d+/gm)].length;
    // The same study in one go, for the number of calls it takes.
    const ref = work();
    const one = await llmkb(['--store', join(ref, 's.sqlite'), 'sweep', study(ref, [served('slow', '', { concurrency: 1 })])], {
      cwd: ref,
      timeoutMs: 120_000,
    });
    assert.equal(one.code, 0, one.stderr);
    const full = [...serveLog(ref, 'slow').text.matchAll(/^call \d+/gm)].length;
    assert.ok(before >= 3 && calls > before, `${before} calls before the kill, ${calls} in all`);
    // At most the one call in flight at the kill (concurrency 1) is asked again.
    assert.ok(calls <= full + 1, `${calls} calls over both servers against ${full} in one go: what was answered before the kill is not asked again`);
    assert.equal(
      readFileSync(summaryOf(join(dir, 'results'), 'slow')!, 'utf8'),
      readFileSync(summaryOf(join(ref, 'results'), 'slow')!, 'utf8'),
      "the resumed run's summary is the one-go run's",
    );
  });
});
