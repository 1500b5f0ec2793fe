/**
 * Progress off a TTY (CI logs, pipes): a line with done/total, rate and ETA every few seconds
 * while a stage runs, not just one summary at the end (issue 13). A stage runs through the real
 * runStage with a stream that is not a TTY and a short interval, and the log lines are checked.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { Progress, progressIntervalMs } from '../src/progress/progress.js';
import { openDatabase } from '../src/store/database.js';
import { runStage } from '../src/store/run-stage.js';
import { RunStore } from '../src/store/run-store.js';

/** A non-TTY stream that keeps what is written (isTTY undefined, as for a pipe or a CI log). */
function logStream(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return Object.assign(stream, { text: () => chunks.join('') });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LINE = /^ask {2}(\d+)\/12 \(\d+\.\d%\) {2}(\d+\.\d)\/s {2}ETA (\d+:\d\d|--:--) {2}cache hits (\d+)$/;

describe('Progress on a non-TTY stream', () => {
  it('prints done/total, rate and ETA periodically while a stage runs, then a summary', async () => {
    const store = new RunStore(openDatabase(':memory:'));
    const run = store.open({ model: 'm', dataset: 'd', setting: 'zero-shot', seed: 1 });
    const stream = logStream();
    const items = Array.from({ length: 12 }, (_, i) => ({ id: `q${i}` }));
    await runStage({
      run,
      stage: 'ask',
      items,
      idOf: (i) => i.id,
      concurrency: 1,
      progress: { stream, live: false, intervalMs: 100 },
      work: async (item) => {
        await sleep(60);
        return { record: { id: item.id }, cached: item.id === 'q0' };
      },
    });
    const lines = stream.text().split('\n').filter(Boolean);
    assert.doesNotMatch(stream.text(), /\r|\x1b/, 'no redraw control characters in a log');
    const periodic = lines.slice(0, -1);
    // 12 items x 60 ms = 720 ms at a 100 ms interval: about 7 lines (>= 4 on a loaded machine).
    assert.ok(periodic.length >= 4, `periodic lines:\n${lines.join('\n')}`);
    for (const line of periodic) assert.match(line, LINE);
    const done = periodic.map((l) => Number(LINE.exec(l)![1]));
    assert.deepEqual(
      done,
      [...done].sort((a, b) => a - b),
      'done only grows',
    );
    assert.ok(done.at(-1)! > done[0]!, 'the count moves between lines');
    const middle = periodic.find((l) => Number(LINE.exec(l)![1]) > 0)!;
    assert.ok(Number(LINE.exec(middle)![2]) > 0, 'a rate once items are done');
    assert.match(middle, /ETA \d+:\d\d/, 'an ETA once there is a rate');
    assert.match(lines.at(-1)!, /^ask: 12\/12 in \d+:\d\d, cache hits 1$/);
  });

  it('stops printing at finish, and prints nothing when quiet; a live TTY gets no periodic lines', async () => {
    const stream = logStream();
    const p = new Progress('judge', 3, { stream, live: false, intervalMs: 20 });
    p.tick();
    await sleep(70);
    p.finish();
    const after = stream.text();
    await sleep(70);
    assert.equal(stream.text(), after, 'no line after finish');
    const quiet = logStream();
    const q = new Progress('judge', 3, { stream: quiet, quiet: true, intervalMs: 20 });
    await sleep(60);
    q.finish();
    assert.equal(quiet.text(), '');
    const tty = logStream();
    const t = new Progress('judge', 3, { stream: tty, live: true, intervalMs: 20 });
    await sleep(60);
    assert.equal(tty.text(), '', 'live mode redraws on ticks only');
    t.finish();
  });

  it('counts only this session in the rate (resumed items are not work done now)', () => {
    const p = new Progress('ask', 1000, { quiet: true });
    p.skip(990);
    // Right after start, with 990 resumed: a rate computed over them would be enormous.
    assert.match(p.line(), / 0\.0\/s {2}ETA --:--/);
  });

  it('reads the interval from $LLMKB_PROGRESS_INTERVAL (seconds), else 5 s', () => {
    assert.equal(progressIntervalMs({}), 5000);
    assert.equal(progressIntervalMs({ LLMKB_PROGRESS_INTERVAL: '30' }), 30_000);
    assert.equal(progressIntervalMs({ LLMKB_PROGRESS_INTERVAL: 'soon' }), 5000);
  });
});

describe('progress of the slow parts outside the stages', () => {
  it('data seenqa with an LLM time filter prints progress lines off a TTY', {
    skip: process.env.LLMKB_DATA_DIR ? false : 'LLMKB_DATA_DIR is not set',
  }, async () => {
    const { startOpenAICompatibleServer } = await import('./support/openai-compatible-server.js');
    const { llmkb } = await import('./support/run-cli.js');
    // A slow filter model (no question time-sensitive): the run takes several intervals.
    const server = await startOpenAICompatibleServer({ complete: () => 'None', delayMs: 400 });
    try {
      const r = await llmkb(
        [
          'data',
          'seenqa',
          '--per-source',
          '4',
          '--batch-size',
          '2',
          '--filter-model',
          `vllm:${server.baseURL}/filter`,
          '--data-dir',
          process.env.LLMKB_DATA_DIR!,
          '--out',
          'd',
        ],
        {
          env: { LLMKB_PROGRESS_INTERVAL: '0.2' },
        },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /^time-sensitive filter, nq questions {2}\d+\/\d+ \(\d+\.\d%\) {2}\d+\.\d\/s {2}ETA /m);
      assert.match(r.stderr, /^time-sensitive filter, triviaqa questions: \d+\/\d+ in /m);
    } finally {
      await server.close();
    }
  });
});
