/**
 * `llmkb ask` writes its output as the answers come (src/io/ordered-jsonl-file.ts): the file is
 * the same bytes as the JSONL of the run's records read back from the store, in question order
 * however the answers come, also after a resumed run; a stopped run leaves no output file.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { toJsonl } from '../src/io/jsonl.js';
import { openDatabase, SqliteDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { startOpenAICompatibleServer, type TestServer } from './support/openai-compatible-server.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const QUESTIONS = 60;

function workdir(server: TestServer): string {
  const dir = tempDir('llmkb-ask-stream-');
  const items = Array.from({ length: QUESTIONS }, (_, i) => ({
    id: `u-${i}`,
    dataset: 'unseen',
    source: 'T20',
    question: `What is the occupation of Person Number${i}?`,
    answers: [],
  }));
  writeFileSync(join(dir, 'questions.jsonl'), toJsonl(items));
  writeFileSync(join(dir, 'llmkb.config.json'), JSON.stringify({ model: { spec: `vllm:${server.baseURL}/m`, concurrency: 8 } }));
  return dir;
}

/** The JSONL of the store's one run's ask records, in item order (what the output was built from). */
function storedJsonl(dir: string): string {
  const db = openDatabase(join(dir, 'store.sqlite'));
  try {
    const runs = new RunStore(db);
    const [info] = runs.list();
    const run = runs.get(info!.id)!;
    return toJsonl([...run.entries('ask')].map(([, r]) => r));
  } finally {
    db.close();
  }
}

const completions = (server: TestServer): number => server.requests.filter((r) => r.path.endsWith('/completions')).length;

/** Records of the ask stage committed to the store so far (0 while there is no store or table yet). */
function storedRecords(dir: string): number {
  if (!existsSync(join(dir, 'store.sqlite'))) return 0;
  try {
    const db = new SqliteDatabase(join(dir, 'store.sqlite'), { readonly: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM run_records WHERE stage = 'ask'").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

/**
 * Starts `llmkb ask`, sends `signal` once the server has `more` completion requests more (and,
 * with `committed`, once some of its records are in the store), and waits for the exit.
 */
async function stopAfter(dir: string, server: TestServer, more: number, signal: NodeJS.Signals, committed = false): Promise<void> {
  const calls = completions(server) + more;
  const bin = join(import.meta.dirname, '..', 'bin', 'llmkb.js');
  const child = spawn(process.execPath, [bin, 'ask', '--input', 'questions.jsonl', '-o', 'out.jsonl', '--store', 'store.sqlite'], {
    cwd: dir,
    stdio: 'ignore',
    env: { ...process.env, CI: '1' },
  });
  while (completions(server) < calls || (committed && storedRecords(dir) === 0)) await new Promise((r) => setTimeout(r, 5));
  child.kill(signal);
  await new Promise((r) => child.on('exit', r));
}

describe('llmkb ask writes its output as the answers come', () => {
  it('answers out of order: the output is in question order and the same bytes as the stored records; a resumed run too', async () => {
    // Every third answer is slow, so answers finish out of question order.
    const server = await startOpenAICompatibleServer({
      delayMs: 20,
      fault: (i) => (i % 3 === 1 ? { kind: 'delay', ms: 150 } : undefined),
      complete: (prompt) => ` job ${prompt.length}`,
    });
    try {
      const dir = workdir(server);
      const ask = await llmkb(['ask', '--input', 'questions.jsonl', '-o', 'out.jsonl', '--store', 'store.sqlite'], { cwd: dir });
      assert.equal(ask.code, 0, ask.stderr);
      const out = readFileSync(join(dir, 'out.jsonl'), 'utf8');
      assert.equal(out, storedJsonl(dir));
      assert.deepEqual(
        out
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { id: string }).id),
        Array.from({ length: QUESTIONS }, (_, i) => `u-${i}`),
      );

      // Killed part-way (kill -9), then resumed: the earlier answers come from the store in turn.
      const again = workdir(server);
      await stopAfter(again, server, 20, 'SIGKILL', true);
      assert.equal(existsSync(join(again, 'out.jsonl')), false, 'a killed ask leaves no output file');
      const resumed = await llmkb(['ask', '--input', 'questions.jsonl', '-o', 'out.jsonl', '--store', 'store.sqlite'], { cwd: again });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /resumed from the store/);
      assert.equal(readFileSync(join(again, 'out.jsonl'), 'utf8'), out, 'the same bytes as the run that was never stopped');
    } finally {
      await server.close();
    }
  });

  it('Ctrl-C (SIGINT) or SIGTERM part-way leaves neither the output nor its temporary file', async () => {
    const server = await startOpenAICompatibleServer({ delayMs: 30, complete: () => ' teacher' });
    try {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        const dir = workdir(server);
        await stopAfter(dir, server, 12, signal);
        assert.deepEqual(
          readdirSync(dir).filter((f) => f.startsWith('out.jsonl')),
          [],
          `after ${signal}`,
        );
      }
    } finally {
      await server.close();
    }
  });
});
